package reintest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/reintest"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// The grammars of these tests.
var (
	answer = rein.Regex(`(yes|no), [0-9]{1,3}`)
	city   = rein.JSONSchema(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`)
	lines  = rein.GBNF("root ::= line \"\\n\" line\nline ::= [a-z]+ \";\"\n", "")
	accent = rein.Regex(`[a-zé]+`)
	colors = rein.Choice("red", "green", "blue")
)

func vocab(t testing.TB) *tokenizer.Vocab {
	t.Helper()
	v, err := gpt2.Vocab()
	require.NoError(t, err)
	return v
}

// compile compiles spec for GPT-2's vocabulary.
func compile(t testing.TB, spec rein.Spec) *mask.Compiled {
	t.Helper()
	c := reintest.Compile(t, vocab(t), spec)
	require.NotNil(t, c)
	return c
}

// token is the id of the one token whose text is s.
func token(t testing.TB, s string) int {
	t.Helper()
	id, ok := vocab(t).TokenID(s)
	require.True(t, ok, "no token %q", s)
	return id
}

func tokens(t testing.TB, texts ...string) []int {
	t.Helper()
	ids := make([]int, len(texts))
	for i, s := range texts {
		ids[i] = token(t, s)
	}
	return ids
}

func TestMatch(t *testing.T) {
	tests := []struct {
		spec   rein.Spec
		text   string
		status reintest.Status
		offset int
	}{
		{answer, "yes, 42", reintest.Complete, 7},
		{answer, "no, 7", reintest.Complete, 5},
		{answer, "yes, ", reintest.Incomplete, 5},
		{answer, "", reintest.Incomplete, 0},
		{answer, "ye", reintest.Incomplete, 2},
		{answer, "yes, 4x", reintest.Refused, 6},
		{answer, "maybe", reintest.Refused, 0},
		{answer, "yes, 1234", reintest.Refused, 8},
		{answer, "yes,42", reintest.Refused, 4},
		{city, `{"city":"Paris"}`, reintest.Complete, 16},
		{city, `{ "city" : "Paris" }`, reintest.Complete, 20},
		{city, `{"city":"Paris"`, reintest.Incomplete, 15},
		{city, `{"city":1}`, reintest.Refused, 8},
		{city, `{"town":"Paris"}`, reintest.Refused, 2},
		{city, `{"city":"Paris"}}`, reintest.Refused, 16},
		{lines, "abc;\nde;", reintest.Complete, 8},
		{lines, "abc;\nde", reintest.Incomplete, 7},
		{lines, "abc;\nde5;", reintest.Refused, 7},
		{accent, "café", reintest.Complete, 5},
		{accent, "caf\xc3", reintest.Incomplete, 4},
		{accent, "caf\xff", reintest.Refused, 3},
		{accent, "cafè", reintest.Refused, 4}, // è is c3 a8, é c3 a9: the second byte is refused
		{colors, "green", reintest.Complete, 5},
		{colors, "gre", reintest.Incomplete, 3},
		{colors, "greed", reintest.Refused, 4},
	}
	compiled := map[string]*mask.Compiled{}
	for _, tt := range tests {
		key := tt.spec.Kind.String() + tt.spec.Source
		c := compiled[key]
		if c == nil {
			c = compile(t, tt.spec)
			compiled[key] = c
		}
		r := reintest.Match(c, tt.text)
		assert.Equal(t, tt.status, r.Status, "%s %q: %v", tt.spec.Kind, tt.text, r)
		assert.Equal(t, tt.offset, r.Offset, "%s %q: %v", tt.spec.Kind, tt.text, r)
		assert.Equal(t, -1, r.Token, "%s %q", tt.spec.Kind, tt.text)
		if tt.status == reintest.Refused {
			var rej *mask.RejectError
			if assert.ErrorAs(t, r.Err, &rej, "%s %q", tt.spec.Kind, tt.text) {
				assert.Equal(t, tt.offset, rej.Offset)
				assert.Equal(t, -1, rej.Token)
			}
		} else {
			assert.NoError(t, r.Err, "%s %q", tt.spec.Kind, tt.text)
		}
	}
}

func TestMatchTokens(t *testing.T) {
	c := compile(t, answer)
	stop := vocab(t).StopTokens()[0]
	tests := []struct {
		name   string
		ids    []int
		status reintest.Status
		token  int
		offset int
		err    error // errors.Is, for Refused
	}{
		{"complete", tokens(t, "yes", ",", " 4", "2"), reintest.Complete, 4, 7, nil},
		{"complete with stop", append(tokens(t, "yes", ",", " 4", "2"), stop), reintest.Complete, 5, 7 + len("<|endoftext|>"), nil},
		{"incomplete", tokens(t, "yes", ","), reintest.Incomplete, 2, 4, nil},
		{"empty", nil, reintest.Incomplete, 0, 0, nil},
		{"byte inside a token", tokens(t, "yes", ",", " 4", "2", "345"), reintest.Refused, 4, 8, mask.ErrRejected},
		{"first token", tokens(t, "maybe"), reintest.Refused, 0, 0, mask.ErrRejected},
		{"stop too early", append(tokens(t, "yes", ","), stop), reintest.Refused, 2, 4, mask.ErrRejected},
		{"after the stop token", append(tokens(t, "no", ",", " 1"), stop, token(t, "2")), reintest.Refused, 4, 5 + len("<|endoftext|>"), mask.ErrTerminated},
		{"negative id", append(tokens(t, "no"), -1), reintest.Refused, 1, 2, mask.ErrRejected},
		{"id past the vocabulary", append(tokens(t, "no"), 1<<40), reintest.Refused, 1, 2, mask.ErrRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := reintest.MatchTokens(c, tt.ids)
			assert.Equal(t, tt.status, r.Status, "%v", r)
			assert.Equal(t, tt.token, r.Token, "%v", r)
			assert.Equal(t, tt.offset, r.Offset, "%v", r)
			if tt.err != nil {
				assert.ErrorIs(t, r.Err, tt.err)
			} else {
				assert.NoError(t, r.Err)
			}
		})
	}
}

func TestNoGrammar(t *testing.T) {
	for _, c := range []*mask.Compiled{nil, {}} {
		r := reintest.Match(c, "x")
		assert.Equal(t, reintest.Refused, r.Status)
		assert.ErrorIs(t, r.Err, mask.ErrGrammar)
		r = reintest.MatchTokens(c, []int{1, 2})
		assert.Equal(t, reintest.Refused, r.Status)
		assert.Equal(t, 0, r.Token)
		assert.ErrorIs(t, r.Err, mask.ErrGrammar)
		d, err := reintest.Decode(c, reintest.DecodeOptions{})
		assert.ErrorIs(t, err, mask.ErrGrammar)
		assert.Empty(t, d.Tokens)
	}
}

// A step limit that trips is no verdict on the input: Match says why.
func TestMatchStepLimit(t *testing.T) {
	g, err := grammar.ParseGBNF("root ::= s\ns ::= \"a\" s | \"a\" s \"b\" | \"\"", "", grammar.Limits{})
	require.NoError(t, err)
	c, err := mask.Compile(g, vocab(t), mask.Options{Limits: grammar.Limits{StepWork: 64}})
	require.NoError(t, err)
	text := strings.Repeat("a", 1000)
	r := reintest.Match(c, text)
	assert.Equal(t, reintest.Refused, r.Status)
	assert.ErrorIs(t, r.Err, grammar.ErrLimit)
	assert.False(t, errors.As(r.Err, new(*mask.RejectError)), "%v", r)

	ids := make([]int, 1000)
	for i := range ids {
		ids[i] = token(t, "a")
	}
	r = reintest.MatchTokens(c, ids)
	assert.Equal(t, reintest.Refused, r.Status)
	assert.ErrorIs(t, r.Err, grammar.ErrLimit)
	assert.Less(t, r.Token, 1000)
	assert.Equal(t, r.Token, r.Offset, "one byte a token")
}

func TestStatusString(t *testing.T) {
	assert.Equal(t, "refused", reintest.Refused.String())
	assert.Equal(t, "incomplete", reintest.Incomplete.String())
	assert.Equal(t, "complete", reintest.Complete.String())
	assert.Equal(t, "Status(9)", reintest.Status(9).String())
	assert.Equal(t, reintest.Refused, reintest.Result{}.Status, "a zero Result is no match")
}

func TestResultString(t *testing.T) {
	c := compile(t, answer)
	tests := []struct {
		r    reintest.Result
		want string
	}{
		{reintest.Match(c, "yes, 4"), "complete"},
		{reintest.Match(c, "yes"), "incomplete after 3 bytes"},
		{reintest.Match(c, "yes, x"), "refused at byte 5"},
		{reintest.MatchTokens(c, tokens(t, "yes", "!")), "token 1 refused at byte 3"},
		{reintest.MatchTokens(c, []int{-1}), "token 0 refused at byte 0: mask: token rejected by the grammar: token id -1 outside the vocabulary of 50257 tokens"},
		{reintest.Match(nil, ""), "refused at byte 0: reintest: nil or zero *mask.Compiled: mask: no grammar"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.r.String())
	}
}
