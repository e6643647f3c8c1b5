package mask

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/internal/vocabtest"
)

// TestTrieTables checks the token trie's node tables against their
// definition, computed from the sorted tokens directly, on sampled nodes
// of real vocabularies.
func TestTrieTables(t *testing.T) {
	for _, name := range vocabtest.Available("llama3", "mistral", "qwen3") {
		t.Run(name, func(t *testing.T) {
			v := buildVocabIndex(vocabtest.Load(t, name))
			rng := rand.New(rand.NewPCG(3, 4))
			checked := map[uint8]int{}
			for range 3000 {
				i := int32(rng.IntN(len(v.ids)))
				tok := v.tok(i)
				if int(v.lcp[i]) >= len(tok) {
					continue
				}
				d := int(v.lcp[i]) + 1 + rng.IntN(len(tok)-int(v.lcp[i]))
				node := v.trieNode(i, d)
				end := i + 1
				for end < int32(len(v.ids)) && len(v.tok(end)) >= d && string(v.tok(end)[:d]) == string(tok[:d]) {
					end++
				}
				require.Equal(t, end, v.trieEnd[node], "%q depth %d", tok, d)
				var ascii [2]uint64
				var flags uint8 = trieUTF8
				for j := i; j < end; j++ {
					rest := v.tok(j)[d:]
					for _, b := range rest {
						if b < 0x80 {
							ascii[b>>6] |= 1 << (b & 63)
						} else {
							flags |= trieNonASCII
						}
					}
					if !utf8.Valid(rest) {
						flags &^= trieUTF8
					}
				}
				require.Equal(t, ascii, v.trieASCII[node], "%q depth %d", tok, d)
				require.Equal(t, flags, v.trieFlags[node], "%q depth %d", tok, d)
				checked[flags]++
			}
			// Every kind of node was met (an ASCII-only remainder is
			// always valid UTF-8, so there are three).
			assert.Len(t, checked, 3, "%v", checked)
		})
	}
}

// TestWalkFallback lowers the walk's limit on configurations so that it
// gives up, and checks that classify then falls back to the pushdown walk
// and still gives the reference classification.
func TestWalkFallback(t *testing.T) {
	voc := buildVocabIndex(vocabtest.Core(t))
	stride := WordsPerRow(voc.size)
	p, err := pda.Compile(grammar.JSON(), grammar.Limits{})
	require.NoError(t, err)
	st := pda.NewState(p)
	gaveUp := 0
	for n := int32(0); n < int32(p.NumNodes()); n++ {
		if !p.HasBytes(n) {
			continue
		}
		a := &walkDFA{ids: map[string]int32{}}
		a.reset(p, n)
		a.maxStates = 3
		if _, ok := a.classify(voc, n, stride); ok {
			continue
		}
		gaveUp++
		assert.Equal(t, classifyStack(p, voc, n, st, stride), classify(p, voc, n, st, stride), "node %d", n)
	}
	assert.Positive(t, gaveUp)
}
