package oracle_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/oracle"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// Ids of tinyVocab's tokens beyond the 256 single bytes (token id b < 256
// is byte b).
const (
	tokHe      = 256 // "he"
	tokLl      = 257 // "ll"
	tokCall    = 258 // "<call>", an added token that is not special
	tokHole    = 259 // no token
	tokEnd     = 260 // "<|end|>", special, the end-of-sequence token
	tokA       = 261 // "<|a|>", special
	tokABang   = 262 // "<|a|>!", special: longer than <|a|>
	tokTC      = 263 // "<tc>", special
	tokSize    = 264
	tokOutside = 100000
)

// byteLevelAlphabet is GPT-2's byte-level alphabet: the rune byte b is written as.
func byteLevelAlphabet() []rune {
	var rs []rune
	n := rune(0)
	for b := range 256 {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE {
			rs = append(rs, rune(b))
		} else {
			rs = append(rs, 256+n)
			n++
		}
	}
	return rs
}

// tinyVocab is a byte-level vocabulary with a hole, an ordinary added
// token, special tokens of which one is a prefix of another, and a stop token.
func tinyVocab(t testing.TB) *tokenizer.Vocab {
	vocab := map[string]int{}
	for b, r := range byteLevelAlphabet() {
		vocab[string(r)] = b
	}
	vocab["he"], vocab["ll"] = tokHe, tokLl
	added := []any{
		map[string]any{"id": tokCall, "content": "<call>", "special": false},
		map[string]any{"id": tokEnd, "content": "<|end|>", "special": true},
		map[string]any{"id": tokA, "content": "<|a|>", "special": true},
		map[string]any{"id": tokABang, "content": "<|a|>!", "special": true},
		map[string]any{"id": tokTC, "content": "<tc>", "special": true},
	}
	file, err := json.Marshal(map[string]any{
		"added_tokens":  added,
		"pre_tokenizer": map[string]any{"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
		"decoder":       map[string]any{"type": "ByteLevel"},
		"model":         map[string]any{"type": "BPE", "vocab": vocab, "merges": []string{"h e", "l l"}},
	})
	require.NoError(t, err)
	v, err := tokenizer.LoadHFBytes("tiny", file, []byte(`{"eos_token": "<|end|>"}`), tokenizer.LoadOptions{})
	require.NoError(t, err)
	require.Equal(t, tokSize, v.Size())
	require.Nil(t, v.Bytes(tokHole))
	require.Equal(t, []int{tokEnd}, v.StopTokens())
	require.False(t, v.IsSpecial(tokCall))
	require.True(t, v.IsSpecial(tokTC))
	return v
}

// byteID returns the id of the single-byte token c, looked up.
func byteID(t testing.TB, v *tokenizer.Vocab, c byte) int {
	id, ok := v.TokenID(string([]byte{c}))
	require.True(t, ok)
	return id
}

// step is one input symbol: text when tok is 0, else the token tok.
type step struct {
	text string
	tok  int
}

func txt(s string) step { return step{text: s} }
func tok(id int) step   { return step{tok: id} }

func feed(r *oracle.Recognizer, steps []step) bool {
	for _, s := range steps {
		ok := true
		if s.tok != 0 {
			ok = r.FeedToken(s.tok)
		} else {
			ok = r.Feed([]byte(s.text))
		}
		if !ok {
			return false
		}
	}
	return true
}

func TestTokenTerminals(t *testing.T) {
	v := tinyVocab(t)
	allIDs := []int{-1, tokHe, tokLl, tokCall, tokHole, tokEnd, tokA, tokABang, tokTC, tokSize, tokOutside, byteID(t, v, 'x'), byteID(t, v, 0)}
	cases := []struct {
		name    string
		term    *grammar.Expr
		matched []int // of allIDs, the ids the terminal matches
	}{
		{"one token by text", grammar.Token("<|a|>"), []int{tokA}},
		{"an ordinary token by text", grammar.Token("<call>"), []int{tokCall}},
		{"by text, a stop token", grammar.Token("<|end|>"), []int{tokEnd}},
		{"ids: holes and ids outside never match", grammar.TokenIDs(tokHole, tokTC, tokSize, tokOutside), []int{tokTC}},
		{"a range over a hole", grammar.TokenSet(false, []string{"he"}, []grammar.TokenRange{{Lo: tokCall, Hi: tokA}}), []int{tokHe, tokCall, tokEnd, tokA}},
		{"any token: no stop, no hole", grammar.AnyToken(), []int{tokHe, tokLl, tokCall, tokA, tokABang, tokTC, byteID(t, v, 'x'), byteID(t, v, 0)}},
		{"negated", grammar.TokenSet(true, []string{"<|a|>", "x"}, []grammar.TokenRange{{Lo: tokHe, Hi: tokLl}, {Lo: 0, Hi: 0}}), []int{tokCall, tokABang, tokTC}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := rules(grammar.Cat(grammar.Lit("x"), c.term, grammar.Lit("y")))
			for _, id := range allIDs {
				r, err := oracle.NewForVocab(g, v)
				require.NoError(t, err)
				require.True(t, r.Feed([]byte("x")))
				want := false
				for _, m := range c.matched {
					want = want || m == id
				}
				if !assert.Equal(t, want, r.FeedToken(id), "token %d", id) || !want {
					continue
				}
				assert.False(t, r.Complete())
				assert.True(t, r.Clone().Feed([]byte("y")) && r.Feed([]byte("y")) && r.Complete())
			}
			// A token terminal never matches text, not even its token's text.
			r, err := oracle.NewForVocab(g, v)
			require.NoError(t, err)
			for _, id := range c.matched {
				assert.False(t, r.Clone().Feed(append([]byte("x"), v.Bytes(id)...)), "text of %d", id)
			}
		})
	}
}

func TestTokenTerminalThatMatchesNothing(t *testing.T) {
	v := tinyVocab(t)
	// A set of nothing but a hole is unproductive: "x" cannot go on.
	r, err := oracle.NewForVocab(rules(grammar.Or(grammar.Cat(grammar.Lit("x"), grammar.TokenIDs(tokHole)), grammar.Lit("z"))), v)
	require.NoError(t, err)
	assert.False(t, r.Feed([]byte("x")))
}

func TestTokenErrors(t *testing.T) {
	v := tinyVocab(t)
	_, err := oracle.New(rules(grammar.Cat(grammar.Lit("x"), grammar.Token("<|a|>"))))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "NewForVocab")

	_, err = oracle.NewForVocab(rules(grammar.Token("<|missing|>")), v)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"<|missing|>"`)

	_, err = oracle.NewForVocab(rules(grammar.Lit("x")), nil)
	require.Error(t, err)
}

func TestLitTokens(t *testing.T) {
	v := tinyVocab(t)
	// "<|a|>!" is the longest special text at its place, so <|a|> alone
	// never stands for it; "<|a|>" at the end has no "!" after it.
	lit := grammar.LitTokens("x<|a|>!y<tc><|a|>")
	g := rules(lit)
	for _, c := range []struct {
		steps []step
		ok    bool
	}{
		{[]step{txt("x<|a|>!y<tc><|a|>")}, true},
		{[]step{txt("x"), tok(tokABang), txt("y"), tok(tokTC), tok(tokA)}, true},
		{[]step{txt("x<|a|>!y"), tok(tokTC), txt("<|a|>")}, true},
		{[]step{txt("x"), tok(tokA), txt("!y<tc><|a|>")}, false},
		{[]step{txt("x<|a|>!y<tc>"), tok(tokABang)}, false},
		{[]step{txt("x<|a|"), tok(tokA)}, false},
		{[]step{txt("x"), tok(tokABang), txt("y<t"), tok(tokTC)}, false},
	} {
		r, err := oracle.NewForVocab(g, v)
		require.NoError(t, err)
		assert.Equal(t, c.ok, feed(r, c.steps) && r.Complete(), "%v", c.steps)
	}
	// Without a vocabulary a LitTokens literal is text only.
	r, err := oracle.New(g)
	require.NoError(t, err)
	assert.True(t, r.Clone().Feed([]byte("x<|a|>!y<tc><|a|>")))
	assert.True(t, r.Feed([]byte("x")))
	assert.False(t, r.FeedToken(tokABang))
}

// TestMatcher checks the token-level step rules of oracle.Matcher.
func TestMatcher(t *testing.T) {
	v := tinyVocab(t)
	x, y := byteID(t, v, 'x'), byteID(t, v, 'y')
	type check struct {
		allowed  []int // of the ids below, those allowed after the steps
		text     []int // of allowed, those taken as text in some reading
		token    []int // of allowed, those taken by a token terminal in some reading
		canEnd   bool
		ended    bool // a stop token has ended the output
		readings int  // live readings after the steps; 0 means 1
	}
	ids := []int{x, y, tokHe, tokCall, tokHole, tokEnd, tokA, tokTC, tokOutside}
	cases := []struct {
		name  string
		g     *grammar.Grammar
		steps []int // tokens accepted in turn
		want  check
	}{
		{"start of a literal", rules(grammar.Lit("xy")), nil, check{allowed: []int{x}, text: []int{x}}},
		{"the end of a literal: a stop token", rules(grammar.Lit("xy")), []int{x, y}, check{allowed: []int{tokEnd}, canEnd: true}},
		{"a special token by a terminal", rules(grammar.Cat(grammar.Lit("x"), grammar.Token("<tc>"))), []int{x}, check{allowed: []int{tokTC}, token: []int{tokTC}}},
		{"a special token never as text", rules(grammar.Lit("x<tc>")), []int{x}, check{}},
		{"an ordinary token as text or token", rules(grammar.Or(grammar.Lit("<call>"), grammar.Cat(grammar.Token("<call>"), grammar.Lit("y")))), nil, check{allowed: []int{tokCall}, text: []int{tokCall}, token: []int{tokCall}}},
		// Both readings are kept: after <call> the output may end (the
		// text reading) or go on with "y" (the token reading).
		{"both readings kept", rules(grammar.Or(grammar.Lit("<call>"), grammar.Cat(grammar.Token("<call>"), grammar.Lit("y")))), []int{tokCall}, check{allowed: []int{y, tokEnd}, text: []int{y}, canEnd: true, readings: 2}},
		{"both readings, then the token's", rules(grammar.Or(grammar.Lit("<call>"), grammar.Cat(grammar.Token("<call>"), grammar.Lit("y")))), []int{tokCall, y}, check{allowed: []int{tokEnd}, canEnd: true}},
		// Free text whose end is the token <call>: after it the text may go
		// on (the text reading) or the output end (the token reading); text
		// after it leaves the text reading alone.
		{"a token end of free text", rules(grammar.Cat(grammar.Text(), grammar.Token("<call>"))), []int{x, tokCall}, check{allowed: []int{x, y, tokHe, tokCall, tokEnd}, text: []int{x, y, tokHe, tokCall}, token: []int{tokCall}, canEnd: true, readings: 2}},
		{"a token end of free text, then text", rules(grammar.Cat(grammar.Text(), grammar.Token("<call>"))), []int{x, tokCall, y}, check{allowed: []int{x, y, tokHe, tokCall}, text: []int{x, y, tokHe, tokCall}, token: []int{tokCall}}},
		{"a token end of free text, then the end", rules(grammar.Cat(grammar.Text(), grammar.Token("<call>"))), []int{x, tokCall, tokEnd}, check{ended: true, readings: 2}},
		{"an ordinary token by a terminal only", rules(grammar.Cat(grammar.Token("<call>"), grammar.Lit("y"))), []int{tokCall}, check{allowed: []int{y}, text: []int{y}}},
		{"any token", rules(grammar.Cat(grammar.Lit("x"), grammar.AnyToken())), []int{x}, check{allowed: []int{x, y, tokHe, tokCall, tokA, tokTC}, token: []int{x, y, tokHe, tokCall, tokA, tokTC}}},
		{"a stop token by a terminal", rules(grammar.Cat(grammar.Lit("x"), grammar.Token("<|end|>"), grammar.Lit("y"))), []int{x, tokEnd}, check{allowed: []int{y}, text: []int{y}}},
		{"a stop token by a terminal, then the end", rules(grammar.Cat(grammar.Lit("x"), grammar.Token("<|end|>"))), []int{x, tokEnd}, check{ended: true}},
		{"a stop token ends rather than step", rules(grammar.Cat(grammar.Lit("x"), grammar.Rep(grammar.Token("<|end|>"), 0, 1))), []int{x, tokEnd}, check{ended: true}},
		{"a stop token ends", rules(grammar.Lit("x")), []int{x, tokEnd}, check{ended: true}},
		{"LitTokens", rules(grammar.LitTokens("x<tc>")), []int{x}, check{allowed: []int{tokTC}, token: []int{tokTC}}},
		{"free text", rules(grammar.Cat(grammar.Text("<tc>"), grammar.Token("<|a|>"))), []int{x, tokHe}, check{allowed: []int{x, y, tokHe, tokCall, tokA}, text: []int{x, y, tokHe, tokCall}, token: []int{tokA}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := oracle.NewMatcher(c.g, v)
			require.NoError(t, err)
			for _, id := range c.steps {
				require.True(t, m.Accept(id), "accept %d", id)
			}
			var allowed, text, token []int
			for _, id := range ids {
				if m.Allowed(id) {
					allowed = append(allowed, id)
				}
				if m.AcceptsText(id) {
					text = append(text, id)
				}
				if m.AcceptsToken(id) {
					token = append(token, id)
				}
			}
			assert.Equal(t, c.want.allowed, allowed, "allowed")
			assert.Equal(t, c.want.text, text, "as text")
			assert.Equal(t, c.want.token, token, "as a token")
			assert.Equal(t, max(c.want.readings, 1), m.Readings(), "readings")
			assert.Equal(t, c.want.canEnd, m.CanEnd(), "can end")
			assert.Equal(t, c.want.ended, m.Terminated(), "terminated")
			mask := m.Mask()
			for id := range mask {
				assert.Equal(t, m.Allowed(id), mask[id], "Mask, token %d", id)
			}
			for _, id := range ids {
				if !m.Allowed(id) {
					before := m.Clone()
					assert.False(t, m.Accept(id), "accept refused %d", id)
					assert.Equal(t, before.CanEnd(), m.CanEnd())
				}
			}
		})
	}
}

// TestMatcherReadingsBound: readings that both stay alive multiply, up to
// MaxReadings; one more is a panic, not a silently dropped reading.
func TestMatcherReadingsBound(t *testing.T) {
	v := tinyVocab(t)
	// root ::= ( "<call>" | <call> )*: every <call> forks each reading.
	g := rules(grammar.Rep(grammar.Or(grammar.Lit("<call>"), grammar.Token("<call>")), 0, -1))
	m, err := oracle.NewMatcher(g, v)
	require.NoError(t, err)
	n := 1
	for n*2 <= oracle.MaxReadings {
		require.True(t, m.Accept(tokCall))
		n *= 2
		require.Equal(t, n, m.Readings())
	}
	assert.True(t, m.CanEnd())
	assert.True(t, m.Allowed(tokCall))
	c := m.Clone()
	assert.PanicsWithValue(t, fmt.Sprintf("oracle: token %d %q leaves %d readings alive, more than MaxReadings (%d)", tokCall, "<call>", 2*n, oracle.MaxReadings),
		func() { m.Accept(tokCall) })
	// A byte each reading takes as text keeps them all, none forked.
	require.True(t, c.Accept(byteID(t, v, '<')))
	assert.Equal(t, n, c.Readings())
	assert.False(t, c.CanEnd())
	assert.False(t, c.Accept(tokCall), "<call> after < is neither text nor a token here")
}

// TestMaskIsAllowed compares Mask with Allowed on GPT-2's vocabulary, in
// free text, in the middle of a trigger, after it, and where tokens are
// terminals.
func TestMaskIsAllowed(t *testing.T) {
	v, err := gpt2.Vocab()
	require.NoError(t, err)
	eos := v.StopTokens()[0]
	g := rules(grammar.Cat(
		grammar.Text("<call>"), grammar.Lit("<call>"), grammar.Lit(`{"a": `), grammar.Chars(false, rng('0', '9')), grammar.Lit("}"),
		grammar.Rep(grammar.TokenSet(true, []string{"!"}, nil), 0, 2), grammar.Token("<|endoftext|>")))
	for _, prefix := range []string{"", "Hello <", "Hello <call", "Hello <call>", `Hello <call>{"a": `, `Hello <call>{"a": 1}`} {
		t.Run(prefix, func(t *testing.T) {
			m, err := oracle.NewMatcher(g, v)
			require.NoError(t, err)
			enc, err := v.Encoder()
			require.NoError(t, err)
			for _, id := range enc.Encode(prefix) {
				require.True(t, m.Accept(id), "accept %d", id)
			}
			mask := m.Mask()
			n := 0
			for id := 0; id < v.Size(); id += 5 {
				require.Equal(t, m.Allowed(id), mask[id], "token %d %q", id, v.Bytes(id))
				if mask[id] {
					n++
				}
			}
			assert.Equal(t, m.Allowed(eos), mask[eos])
			t.Logf("%d of %d allowed", n, (v.Size()+4)/5)
		})
	}
}
