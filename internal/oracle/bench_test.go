package oracle_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/oracle"
)

// pseudoVocab returns n short byte strings shaped like a tokenizer's
// vocabulary: every single byte, JSON punctuation runs, words and random
// bytes, 1 to 8 bytes long.
func pseudoVocab(n int) [][]byte {
	rng := rand.New(rand.NewPCG(1, 1))
	pieces := []string{`"`, `":`, `",`, `{"`, `"}`, `[`, `]`, `, `, ` `, "\n  ", `true`, `null`, `1`, `23`, `.5`, `e-`, `name`, ` value`, `日本`, "\xE6\x97", `😀`, `\n`, `\u00`}
	vocab := make([][]byte, 0, n)
	for c := range 256 {
		vocab = append(vocab, []byte{byte(c)})
	}
	for len(vocab) < n {
		var tok []byte
		for len(tok) == 0 || (len(tok) < 8 && rng.IntN(2) == 0) {
			if rng.IntN(4) == 0 {
				tok = append(tok, byte(rng.IntN(256)))
			} else {
				tok = append(tok, pieces[rng.IntN(len(pieces))]...)
			}
		}
		vocab = append(vocab, tok[:min(len(tok), 8)])
	}
	return vocab
}

// midDocument is a JSON recognizer inside a string inside nested
// containers, after about n bytes.
func midDocument(tb testing.TB, n int) *oracle.Recognizer {
	r, err := oracle.New(jsonGrammar())
	require.NoError(tb, err)
	require.True(tb, r.Feed([]byte(`{"users": [`)))
	for written := 0; written < n; written += 60 {
		require.True(tb, r.Feed([]byte(`{"id": 12, "tags": ["a", "b"], "bio": {"text": "hello"}}, `)))
	}
	require.True(tb, r.Feed([]byte(`{"id": 13, "bio": {"text": "hello wor`)))
	return r
}

// BenchmarkCloneFeed measures what a mask check costs: clone a mid-document
// state and feed one token of a 100k pseudo-vocabulary. The cost does not
// grow with the length of the input already fed.
func BenchmarkCloneFeed(b *testing.B) {
	vocab := pseudoVocab(100_000)
	for _, n := range []int{0, 50_000} {
		b.Run(fmt.Sprintf("prefix=%dB", n), func(b *testing.B) {
			r := midDocument(b, n)
			for i := 0; b.Loop(); i++ {
				r.Clone().Feed(vocab[i%len(vocab)])
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)*100_000/1e6, "ms/100k-tokens")
		})
	}
}

func TestCloneFeedVocabulary(t *testing.T) {
	// Checking every token of a vocabulary from one state gives the same
	// answers as feeding each token to a fresh recognizer with the whole
	// prefix, and leaves the state unchanged.
	const prefix = `{"a": [1, {"b": "x`
	r, err := oracle.New(jsonGrammar())
	require.NoError(t, err)
	require.True(t, r.Feed([]byte(prefix)))
	allowed := 0
	for i, tok := range pseudoVocab(20_000) {
		got := r.Clone().Feed(tok)
		if got {
			allowed++
		}
		if i%50 == 0 {
			want, err := oracle.ViablePrefix(jsonGrammar(), append([]byte(prefix), tok...))
			require.NoError(t, err)
			require.Equal(t, want, got, "%q", tok)
		}
	}
	require.True(t, r.Feed([]byte(`"}]}`)))
	require.True(t, r.Complete())
	t.Logf("%d of 20000 tokens allowed", allowed)
	require.Greater(t, allowed, 1000)
	require.Less(t, allowed, 19000)
}
