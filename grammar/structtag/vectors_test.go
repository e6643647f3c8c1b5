package structtag_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/structtag"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/pda"
	"github.com/reinlm/rein/tokenizer"
)

// vectorFile is testdata/structural_tag/xgrammar_examples.json
// (docs/design/tool-calling.md, section 9).
type vectorFile struct {
	Conventions struct {
		SpecialTokens []string `json:"test_vocab_special_tokens"`
	} `json:"conventions"`
	Vectors []vector `json:"vectors"`
}

type vector struct {
	Name          string          `json:"name"`
	Request       json.RawMessage `json:"request"` // raw: property order matters
	Accept        []string        `json:"accept"`
	Reject        []string        `json:"reject"`
	AcceptTokens  [][]tokenStep   `json:"accept_tokens"`
	RejectTokens  [][]tokenStep   `json:"reject_tokens"`
	ExpectError   bool            `json:"expect_error"`
	ErrorContains string          `json:"error_contains"`
	Requires      string          `json:"requires"`
}

// tokenStep is one element of a token sequence: ordinary text, one special
// token by its text, or a raw id.
type tokenStep struct {
	Text  *string `json:"text"`
	Token *string `json:"token"`
	ID    *int    `json:"id"`
}

func loadVectors(t *testing.T) vectorFile {
	t.Helper()
	data, err := os.ReadFile("../../testdata/structural_tag/xgrammar_examples.json")
	require.NoError(t, err)
	var f vectorFile
	require.NoError(t, json.Unmarshal(data, &f))
	require.NotEmpty(t, f.Vectors)
	return f
}

// testVocab is the vocabulary the vectors assume: one token per byte (ids
// 0-255, so 42, 43 and 100 are ordinary tokens and "a" is one token), then
// the special tokens the conventions list.
var testVocab = sync.OnceValues(func() (*tokenizer.Vocab, error) {
	data, err := os.ReadFile("../../testdata/structural_tag/xgrammar_examples.json")
	if err != nil {
		return nil, err
	}
	var f vectorFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	var ranks strings.Builder
	for b := range 256 {
		fmt.Fprintf(&ranks, "%s %d\n", base64.StdEncoding.EncodeToString([]byte{byte(b)}), b)
	}
	specials := map[string]int{}
	for i, s := range f.Conventions.SpecialTokens {
		specials[s] = 256 + i
	}
	return tokenizer.LoadTiktokenBytes("structtag-test", []byte(ranks.String()), specials, tokenizer.LoadOptions{Pattern: tokenizer.GPT2Pattern})
})

// ids turns a token sequence into ids of the test vocabulary.
func ids(t *testing.T, v *tokenizer.Vocab, enc *tokenizer.Encoder, steps []tokenStep) []int {
	t.Helper()
	var out []int
	for _, s := range steps {
		switch {
		case s.Text != nil:
			out = append(out, enc.Encode(*s.Text)...)
		case s.Token != nil:
			id, ok := v.TokenID(*s.Token)
			require.True(t, ok, "token %q", *s.Token)
			require.True(t, v.IsSpecial(id), "token %q", *s.Token)
			out = append(out, id)
		default:
			require.NotNil(t, s.ID)
			out = append(out, *s.ID)
		}
	}
	return out
}

// runTokens reports whether the matcher accepts every token of seq and can
// end after them, or has ended with a stop token.
func runTokens(c *mask.Compiled, seq []int) bool {
	m := c.NewMatcher()
	for _, id := range seq {
		if !m.AcceptToken(id) {
			return false
		}
	}
	return m.IsTerminated() || m.CanEnd()
}

// runBytes reports whether the automaton accepts s whole.
func runBytes(p *pda.Program, s string) bool {
	st := pda.NewState(p)
	return st.AdvanceBytes([]byte(s)) && st.CanEnd()
}

// hasTokens reports whether g holds token terminals, which only package
// mask can compile, for a vocabulary.
func hasTokens(g *grammar.Grammar) bool {
	var stack []*grammar.Expr
	for _, r := range g.Rules {
		stack = append(stack, r.Body)
	}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e.Op == grammar.OpToken {
			return true
		}
		stack = append(stack, e.Subs...)
	}
	return false
}

// TestVectors runs every vector of the file: compile-time errors, texts
// through the byte automaton and the token matcher, token sequences through
// the matcher.
func TestVectors(t *testing.T) {
	f := loadVectors(t)
	vocab, err := testVocab()
	require.NoError(t, err)
	enc, err := vocab.Encoder()
	require.NoError(t, err)
	opts := structtag.Options{TokenID: vocab.TokenID}
	for _, v := range f.Vectors {
		t.Run(v.Name, func(t *testing.T) {
			g, err := structtag.Compile(v.Request, opts)
			if v.ExpectError {
				require.Error(t, err)
				var ge *grammar.Error
				require.True(t, errors.As(err, &ge), "%T: %v", err, err)
				assert.Equal(t, "structtag", ge.Source)
				assert.Contains(t, strings.ToLower(err.Error()), strings.ToLower(v.ErrorContains))
				return
			}
			require.NoError(t, err)
			require.NoError(t, g.Validate())
			checkTexts(t, g, v, vocab)
			if len(v.AcceptTokens)+len(v.RejectTokens) > 0 {
				c, err := mask.Compile(g, vocab, mask.Options{})
				require.NoError(t, err)
				for _, seq := range v.AcceptTokens {
					assert.True(t, runTokens(c, ids(t, vocab, enc, seq)), "accept %v", seq)
				}
				for _, seq := range v.RejectTokens {
					assert.False(t, runTokens(c, ids(t, vocab, enc, seq)), "reject %v", seq)
				}
			}
		})
	}
}

// differences are accept texts of the vectors that rein rejects by design,
// by vector name and text, with the reason.
var differences = map[[2]string]string{
	{"json_schema_any_order", `{"name": "a", "name": "b"}`}: anyOrderDifference,
	{"any_order_doc_rule", `{"a": 1, "a": 2}`}:              anyOrderDifference,
}

const anyOrderDifference = "any_order: jsonschema.OrderAny accepts each declared property once and tracks required ones; " +
	"XGrammar only counts entries, so it accepts a repeated key in place of a missing required one"

// checkTexts runs the accept and reject texts of v through the byte
// automaton and, tokenized, through the matcher: for the test vocabulary,
// and for GPT-2's, whose tokens cut triggers and tags in other places, when
// g names no token.
func checkTexts(t *testing.T, g *grammar.Grammar, v vector, vocab *tokenizer.Vocab) {
	t.Helper()
	if len(v.Accept)+len(v.Reject) == 0 {
		return
	}
	vocabs := []*tokenizer.Vocab{vocab}
	if !hasTokens(g) {
		checkBytes(t, g, v)
		vocabs = append(vocabs, vocabtest.Load(t, "gpt2"))
	}
	for _, vocab := range vocabs {
		enc, err := vocab.Encoder()
		require.NoError(t, err)
		c, err := mask.Compile(g, vocab, mask.Options{})
		require.NoError(t, err)
		for _, s := range v.Accept {
			_, differs := differences[[2]string{v.Name, s}]
			assert.Equal(t, !differs, runTokens(c, enc.Encode(s)), "%s tokens of %q", vocab.Name(), s)
		}
		for _, s := range v.Reject {
			assert.False(t, runTokens(c, enc.Encode(s)), "reject %s tokens of %q", vocab.Name(), s)
		}
	}
}

// checkBytes runs the accept and reject texts of v through the byte
// automaton of g.
func checkBytes(t *testing.T, g *grammar.Grammar, v vector) {
	t.Helper()
	p, err := pda.Compile(g, grammar.Limits{})
	require.NoError(t, err)
	for _, s := range v.Accept {
		if why, ok := differences[[2]string{v.Name, s}]; ok {
			assert.False(t, runBytes(p, s), "rein rejects %q: %s", s, why)
			continue
		}
		assert.True(t, runBytes(p, s), "accept %q", s)
	}
	for _, s := range v.Reject {
		assert.False(t, runBytes(p, s), "reject %q", s)
	}
}
