package mask_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/advtest"
	"github.com/reinlm/rein/internal/maskstate"
	"github.com/reinlm/rein/internal/masktest"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

var embeddedGPT2 = sync.OnceValues(gpt2.Vocab)

func gpt2Vocab(tb testing.TB) *tokenizer.Vocab {
	tb.Helper()
	v, err := embeddedGPT2()
	require.NoError(tb, err)
	return v
}

// TestAmbiguousGrammarsBounded feeds each adversarial grammar and schema its
// recursive prefix 12 to 40 times and checks that the pushdown state's stack
// tops stay bounded by the grammar's size (one per automaton node at most:
// stacks meeting at a node are merged) and that every step succeeds.
func TestAmbiguousGrammarsBounded(t *testing.T) {
	voc := gpt2Vocab(t)
	for _, tc := range advtest.Cases() {
		t.Run(tc.Name, func(t *testing.T) {
			var g *grammar.Grammar
			var err error
			if tc.GBNF != "" {
				g, err = grammar.ParseGBNF(tc.GBNF, "root", grammar.Limits{})
			} else {
				g, _, err = jsonschema.Compile([]byte(tc.Schema), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
			}
			require.NoError(t, err)
			c, err := mask.Compile(g, voc, mask.Options{})
			require.NoError(t, err)
			id, ok := voc.TokenID(tc.Prefix)
			require.True(t, ok, "no token for %q", tc.Prefix)
			m := c.NewMatcher()
			bm := mask.NewBitmask(1, voc.Size())
			for i := 0; i < tc.Repeat; i++ {
				// Merged stacks keep these far below the step limit:
				// every step must succeed.
				require.NoError(t, m.Accept(id), "step %d", i)
				require.LessOrEqual(t, len(maskstate.Of(m).Tops()), mask.NumNodes(c), "step %d", i)
				require.NoError(t, m.FillBitmask(bm, 0), "step %d", i)
				require.True(t, bm.Allowed(0, id), "step %d: %q no longer allowed", i, tc.Prefix)
			}
		})
	}
}

// FuzzRandomGrammar compiles a small random grammar drawn from the input
// (advtest.RandomGBNF, ambiguous recursions included) against GPT-2's
// embedded vocabulary and drives a matcher with FillBitmask, Accept of an
// allowed token the input picks, and Rollback, checking masks against the
// per-token reference every few steps. A grammar either fails to compile
// with a front-end or pda error, or every allowed token is accepted; the only
// error Accept and FillBitmask may return is one wrapping grammar.ErrLimit.
func FuzzRandomGrammar(f *testing.F) {
	voc := gpt2Vocab(f)
	f.Add([]byte{1, 4, 0, 1, 3, 1, 0, 0, 0, 0})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0})           // Ambiguous(2), then a's
	f.Add([]byte{0, 1, 1, 0, 230, 0, 0, 226, 0})    // NestedDiamond(2) with rollbacks
	f.Add([]byte{2, 5, 7, 3, 1, 2, 9, 0, 6, 1, 11}) // recursion through a literal
	f.Add([]byte{3, 6, 4, 2, 1, 0, 3, 6, 2, 5, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 256 {
			return
		}
		src, ops := advtest.RandomGBNF(data)
		g, err := grammar.ParseGBNF(src, "root", grammar.Limits{})
		if err != nil {
			var ge *grammar.Error
			var gl grammar.ErrorList
			if !errors.As(err, &ge) && !errors.As(err, &gl) {
				t.Fatalf("%s: error %v (%T) is not a *grammar.Error", src, err, err)
			}
			return
		}
		c, err := mask.Compile(g, voc, mask.Options{})
		if err != nil {
			checkCompileError(t, src, err)
			return
		}
		m := c.NewMatcher()
		bm := mask.NewBitmask(1, voc.Size())
		var rows [][]uint32
		for i, op := range ops {
			if i >= 48 {
				return
			}
			require.LessOrEqual(t, len(maskstate.Of(m).Tops()), mask.NumNodes(c), "%s: op %d", src, i)
			if err := m.FillBitmask(bm, 0); err != nil {
				require.ErrorIs(t, err, grammar.ErrLimit, "%s: op %d", src, i)
				return
			}
			rows = checkMaskHistory(t, m, rows, bm.Row(0), i)
			if i%4 == 0 {
				if d := masktest.DiffRows(m, bm.Row(0), masktest.ReferenceMask(m)); d != "" {
					t.Fatalf("%s: op %d: %s", src, i, d)
				}
			}
			if op >= 232 {
				k, have := int(op-232), m.NumTokens()
				err := m.Rollback(k)
				if k > have {
					require.ErrorIs(t, err, mask.ErrRollback)
				} else {
					require.NoError(t, err)
				}
				continue
			}
			n := bm.Count(0)
			if n == 0 {
				require.True(t, m.IsTerminated(), "%s: op %d: empty mask on a live matcher", src, i)
				return
			}
			id := nth(bm.Row(0), int(op)%n)
			if err := m.Accept(id); err != nil {
				require.ErrorIs(t, err, grammar.ErrLimit, "%s: op %d: allowed token %d %q", src, i, id, voc.Bytes(id))
				return
			}
		}
	})
}

// checkCompileError accepts the errors a well-formed grammar may fail to
// compile with: left recursion, an empty language, a size limit.
func checkCompileError(t *testing.T, src string, err error) {
	t.Helper()
	for _, sentinel := range []error{pda.ErrLeftRecursion, pda.ErrEmptyLanguage, grammar.ErrLimit, fsm.ErrTooLarge} {
		if errors.Is(err, sentinel) {
			return
		}
	}
	t.Fatalf("%s: compile error %v (%T) wraps no known sentinel", src, err, err)
}

func TestAdversarialCasesAllowTheirPrefix(t *testing.T) {
	voc := gpt2Vocab(t)
	for _, tc := range advtest.Cases()[:1] {
		g, err := grammar.ParseGBNF(tc.GBNF, "root", grammar.Limits{})
		require.NoError(t, err)
		c, err := mask.Compile(g, voc, mask.Options{})
		require.NoError(t, err)
		m := c.NewMatcher()
		id, ok := voc.TokenID(tc.Prefix)
		require.True(t, ok)
		for i := 0; i < 4; i++ {
			require.NoError(t, m.Accept(id))
		}
		bm := mask.NewBitmask(1, voc.Size())
		require.NoError(t, m.FillBitmask(bm, 0))
		assert.Equal(t, bm.Row(0), masktest.ReferenceMask(m))
	}
}
