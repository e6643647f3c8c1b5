package jumpforward_test

import (
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/maskbench"
	"github.com/reinlm/rein/internal/oracle"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/jumpforward"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// checkForced asks the Earley oracle, independent of fsm and pda, whether
// forced is forced after text: text+forced is a viable prefix, and at every
// position before its end the grammar cannot end and no other byte is
// viable. So every valid completion of text starts with forced.
func checkForced(t *testing.T, base *oracle.Recognizer, text, forced []byte) {
	t.Helper()
	r := base.Clone()
	require.True(t, r.Feed(text), "the text so far is viable: %q", text)
	for i := 0; i < len(forced); i++ {
		require.False(t, r.Complete(), "the grammar may end after %q, before forced %q", text, forced[i:])
		for b := 0; b < 256; b++ {
			if byte(b) == forced[i] {
				continue
			}
			require.False(t, r.Clone().Feed([]byte{byte(b)}), "after %q%q byte %q is viable too, but %q is forced", text, forced[:i], byte(b), forced[i])
		}
		require.True(t, r.Feed(forced[i:i+1]), "after %q%q the forced byte %q is not viable", text, forced[:i], forced[i])
	}
}

// soundWalk decodes with random logits under the mask, calling Next after
// every model token, and checks each step's forced string with the oracle
// and each jump's tokens against the matcher.
// With appendOnly (fw's Options.AppendOnly) no jump may roll back.
// It returns the forced bytes checked and the tokens jumps appended.
func soundWalk(t *testing.T, g *grammar.Grammar, c *mask.Compiled, fw *jumpforward.Forwarder, appendOnly bool, base *oracle.Recognizer, rng *rand.Rand, maxTokens int) (checked, jumped int) {
	voc := c.Vocab()
	m := c.NewMatcher()
	bm := mask.NewBitmask(1, voc.Size())
	var seq []int
	var text []byte
	for step := 0; ; step++ {
		require.Less(t, step, maxTokens+2000, "the walk does not end")
		forced := append([]byte(nil), fw.Forced(m)...)
		checkForced(t, base, text, forced)
		checked += len(forced)

		jf := fw.Next(m, seq)
		require.Equal(t, forced, jf.Forced)
		require.False(t, appendOnly && jf.Rollback > 0, "an append-only step rolls back")
		if !jf.Empty() {
			old := len(text)
			seq = append(seq[:len(seq)-jf.Rollback], jf.Tokens...)
			text = spell(voc, seq)
			require.Greater(t, len(text), old, "a jump adds text")
			require.Equal(t, forced[:len(text)-old], text[old:], "a jump writes forced bytes")
			jumped += len(jf.Tokens)
		}
		require.Equal(t, len(seq), m.NumTokens(), "the matcher holds the sequence")

		require.NoError(t, m.FillBitmask(bm, 0))
		if m.CanEnd() && (step >= maxTokens || rng.IntN(10) == 0) {
			break
		}
		id := -1
		if step < maxTokens {
			id = randomAllowed(bm.Row(0), rng)
		} else {
			id = shortestWay(m, bm, voc)
		}
		require.GreaterOrEqual(t, id, 0, "empty mask after %q", text)
		if m.Compiled().Vocab().IsSpecial(id) {
			require.True(t, m.CanEnd())
			break
		}
		require.True(t, m.AcceptToken(id))
		seq = append(seq, id)
		text = append(text, voc.Bytes(id)...)
	}
	// Every token of the final sequence is accepted, in order, by a fresh
	// matcher, and the text is a sentence.
	fresh := c.NewMatcher()
	for _, id := range seq {
		require.True(t, fresh.AcceptToken(id))
	}
	require.True(t, fresh.CanEnd())
	ok, err := oracle.Accepts(g, text)
	require.NoError(t, err)
	require.True(t, ok, "the oracle accepts %q", text)
	return checked, jumped
}

func spell(voc *tokenizer.Vocab, ids []int) []byte {
	var out []byte
	for _, id := range ids {
		out = append(out, voc.Bytes(id)...)
	}
	return out
}

func randomAllowed(row []uint32, rng *rand.Rand) int {
	n := 0
	for _, w := range row {
		n += bits.OnesCount32(w)
	}
	if n == 0 {
		return -1
	}
	k := rng.IntN(n)
	for i, w := range row {
		c := bits.OnesCount32(w)
		if k >= c {
			k -= c
			continue
		}
		for ; ; k-- {
			j := bits.TrailingZeros32(w)
			if k == 0 {
				return 32*i + j
			}
			w &^= 1 << j
		}
	}
	return -1
}

// shortestWay picks an allowed one-byte token that brings the end closest.
func shortestWay(m *mask.Matcher, bm *mask.Bitmask, voc *tokenizer.Vocab) int {
	best, id := int(^uint(0)>>1), -1
	for b := 0; b < 256; b++ {
		t, ok := voc.TokenID(string([]byte{byte(b)}))
		if !ok || !bm.Allowed(0, t) || !m.AcceptToken(t) {
			continue
		}
		if d := m.BytesToEnd(); d < best {
			best, id = d, t
		}
		_ = m.Rollback(1)
	}
	return id
}

// TestSoundnessMaskBench walks random-logit decodings over a sample of the
// MaskBench schemas, in compact and flexible whitespace, with jump-forward
// after every model token: every forced string is checked against the
// Earley oracle, and every jump's tokens are accepted by the matcher. Every
// other walk is append-only, whose random model leaves the Encoder's
// tokenization at every step.
func TestSoundnessMaskBench(t *testing.T) {
	voc := vocabtest.Core(t)
	set := datadir.MaskBench(t)
	files, err := maskbench.Files(set.Dir, set.Stride(97))
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(7, 7))
	walks, checked, jumped := 0, 0, 0
	for _, f := range files {
		for _, ws := range []jsonschema.Whitespace{jsonschema.WhitespaceCompact, jsonschema.WhitespaceFlexible} {
			in, err := maskbench.LoadInstances(f, voc, jsonschema.Options{Whitespace: ws, MaxIndent: 4, Order: jsonschema.OrderDeclared})
			if err != nil {
				continue // a schema rein cannot compile
			}
			base, err := oracle.New(in.Grammar)
			if err != nil {
				continue
			}
			appendOnly := walks%2 == 1
			fw, err := jumpforward.New(in.Compiled, jumpforward.Options{AppendOnly: appendOnly})
			require.NoError(t, err)
			t.Run(filepath.Base(f), func(t *testing.T) {
				c, j := soundWalk(t, in.Grammar, in.Compiled, fw, appendOnly, base, rng, 25)
				checked += c
				jumped += j
			})
			walks++
		}
	}
	t.Logf("%d walks, %d forced bytes checked, %d tokens appended by jumps", walks, checked, jumped)
	require.Greater(t, walks, 100)
	require.Greater(t, checked, 1000)
	require.Greater(t, jumped, 100)
}

// TestSoundnessGBNF does the same over llama.cpp's sample grammars.
func TestSoundnessGBNF(t *testing.T) {
	voc := vocabtest.Core(t)
	files, err := filepath.Glob(filepath.Join(datadir.Shared(t, "gbnf", "llama.cpp", "grammars"), "*.gbnf"))
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(8, 8))
	walks := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		g, err := grammar.ParseGBNF(string(src), "root", grammar.Limits{})
		if err != nil {
			continue
		}
		c, err := mask.Compile(g, voc, mask.Options{})
		if err != nil {
			continue
		}
		base, err := oracle.New(g)
		require.NoError(t, err)
		fw, err := jumpforward.New(c, jumpforward.Options{})
		require.NoError(t, err)
		t.Run(filepath.Base(f), func(t *testing.T) {
			for range 3 {
				soundWalk(t, g, c, fw, false, base, rng, 20)
			}
		})
		walks++
	}
	require.Greater(t, walks, 5)
}
