package tokenizer

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/datadir"
)

// TestMergeHeapMatchesNaive runs both BPE merge loops on random words over
// real vocabularies: the heap must make exactly the merges of the quadratic
// scan (lowest rank first, leftmost among equals).
func TestMergeHeapMatchesNaive(t *testing.T) {
	gpt2, err := LoadGPT2(datadir.Tokenizer(t, "gpt2", "encoder.json"), datadir.Tokenizer(t, "gpt2", "vocab.bpe"), LoadOptions{})
	require.NoError(t, err)
	o200k, err := LoadO200kBase(datadir.Tokenizer(t, "tiktoken", "o200k_base.tiktoken"), LoadOptions{})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("aaaabcdeeeefghiiiklmnoooprsssttu  \n\t.,'\"{}:0123456789\xc3\xa9\xe6\x97\xa5")
	mistral, err := LoadHF(datadir.Tokenizer(t, "mistral", "tokenizer.json"), LoadOptions{})
	require.NoError(t, err)
	for _, v := range []*Vocab{gpt2, o200k} {
		e, err := v.Encoder()
		require.NoError(t, err)
		for range 3000 {
			n := 1 + rng.IntN(80)
			word := make([]byte, n)
			for i := range word {
				word[i] = alphabet[rng.IntN(len(alphabet))]
			}
			a := symbols{word: string(word)}
			for i, c := range word {
				a.ids = append(a.ids, e.byteIDs[c])
				a.start = append(a.start, int32(i))
			}
			b := symbols{word: a.word, ids: slices.Clone(a.ids), start: slices.Clone(a.start)}
			a.mergeNaive(&e.table)
			b.mergeHeap(&e.table)
			require.Equal(t, a.ids, b.ids, "%s %q", v.Name(), word)
			require.Equal(t, a.start, b.start, "%s %q", v.Name(), word)
		}
	}
	// SentencePiece: characters, some unknown (byte fallback, never merged).
	e, err := mistral.Encoder()
	require.NoError(t, err)
	runes := []rune("aaabcdeeeilmnoorsstt  \n.,'é日本語\U0001F600")
	for range 3000 {
		word := make([]rune, 1+rng.IntN(80))
		for i := range word {
			word[i] = runes[rng.IntN(len(runes))]
		}
		a := symbols{word: string(word)}
		e.pieceSymbols(&a)
		b := symbols{word: a.word, ids: slices.Clone(a.ids), start: slices.Clone(a.start)}
		a.mergeNaive(&e.table)
		b.mergeHeap(&e.table)
		require.Equal(t, a.ids, b.ids, "mistral %q", string(word))
	}
}
