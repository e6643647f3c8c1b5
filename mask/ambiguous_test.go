package mask_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/maskstate"
	"github.com/reinlm/rein/internal/masktest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// ambiguousSchema is issue 12's JSON Schema form of an ambiguous recursion:
// an anyOf of arrays whose items $ref back through the anyOf, so every "["
// could open any of k arrays. Unmerged, "[" twelve times held 708,588 stack
// tops and one mask took a minute.
func ambiguousSchema(k int) string {
	var defs, alts []string
	for i := 0; i < k; i++ {
		alts = append(alts, fmt.Sprintf(`{"type":"array","items":{"$ref":"#/$defs/d%d"}}`, i))
		defs = append(defs, fmt.Sprintf(`"d%d":{"anyOf":[{"$ref":"#/$defs/any"},{"type":"integer","minimum":%d}]}`, i, i))
	}
	defs = append(defs, `"any":{"anyOf":[`+strings.Join(alts, ",")+`]}`)
	return `{"$defs":{` + strings.Join(defs, ",") + `},"$ref":"#/$defs/any"}`
}

// TestAmbiguousInputsStayFast feeds the recursive prefix of issue 12's
// ambiguous grammar and schema forty times through a Matcher: the tops stay
// one per node, every mask equals the per-token reference, and the document
// still closes.
func TestAmbiguousInputsStayFast(t *testing.T) {
	voc, err := gpt2.Vocab()
	require.NoError(t, err)
	schema, _, err := jsonschema.Compile([]byte(ambiguousSchema(3)), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
	require.NoError(t, err)
	gbnf, err := grammar.ParseGBNF(`root ::= s
s ::= "a" t | "a" u | "a" v | "x"
t ::= s "b"
u ::= s "c"
v ::= s "d"`, "root", grammar.Limits{})
	require.NoError(t, err)
	for _, tc := range []struct {
		name        string
		g           *grammar.Grammar
		open, close string
		middle      string
	}{
		{"gbnf", gbnf, "a", "b", "x"},
		{"schema", schema, "[", "]", "2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := mask.Compile(tc.g, voc, mask.Options{})
			require.NoError(t, err)
			m := c.NewMatcher()
			bm := mask.NewBitmask(1, voc.Size())
			nodes := mask.NumNodes(c)
			const n = 40
			for i := 0; i < n; i++ {
				require.NoError(t, m.FillBitmask(bm, 0))
				if i%8 == 0 {
					require.Empty(t, masktest.DiffRows(m, bm.Row(0), masktest.ReferenceMask(m)), "step %d", i)
				}
				require.NoError(t, m.Accept(tokenOf(t, voc, tc.open)))
				require.LessOrEqual(t, len(maskstate.Of(m).Tops()), nodes)
			}
			require.True(t, m.AcceptString(tc.middle))
			for i := 0; i < n; i++ {
				require.NoError(t, m.FillBitmask(bm, 0))
				if i%8 == 0 {
					require.Empty(t, masktest.DiffRows(m, bm.Row(0), masktest.ReferenceMask(m)), "closing step %d", i)
				}
				require.NoError(t, m.Accept(tokenOf(t, voc, tc.close)))
			}
			assert.True(t, m.CanEnd())
		})
	}
}

func tokenOf(t *testing.T, voc interface{ TokenID(string) (int, bool) }, s string) int {
	t.Helper()
	id, ok := voc.TokenID(s)
	require.True(t, ok, "no token %q", s)
	return id
}

// TestStepLimitFailsTheSequence: a grammar whose live stacks grow with the
// input (every "a" may or may not wait for one of sixteen closers, so the
// stacks of one top gain sixteen members per byte) reaches the pushdown step
// limit; Accept then returns an error wrapping grammar.ErrLimit, and other
// matchers of the grammar are unaffected.
func TestStepLimitFailsTheSequence(t *testing.T) {
	voc, err := gpt2.Vocab()
	require.NoError(t, err)
	src := "root ::= s\ns ::= \"a\" s | \"\""
	for i := 0; i < 16; i++ {
		src += fmt.Sprintf(" | \"a\" t%d", i)
	}
	for i := 0; i < 16; i++ {
		src += fmt.Sprintf("\nt%d ::= s %q", i, string(rune('b'+i)))
	}
	g, err := grammar.ParseGBNF(src, "root", grammar.Limits{})
	require.NoError(t, err)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	m := c.NewMatcher()
	bm := mask.NewBitmask(1, voc.Size())
	a := tokenOf(t, voc, "a")
	var i int
	for i = 0; i < 5000; i++ {
		if err = m.Accept(a); err != nil {
			break
		}
	}
	require.Error(t, err, "the limit never tripped")
	assert.ErrorIs(t, err, grammar.ErrLimit)
	assert.Equal(t, i, m.NumTokens(), "the refused token left the matcher unchanged")

	other := c.NewMatcher()
	require.NoError(t, other.FillBitmask(bm, 0))
	assert.True(t, bm.Allowed(0, a))
}
