package tokenizer_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/tokenizer"
)

// The golden files under testdata/golden come from the reference
// implementations (@lenml/tokenizers, tiktoken-go, js-tiktoken), never from
// rein: scripts/golden/make-goldens.sh makes them.

type vocabGolden struct {
	Reference string
	Vocab     string
	Size      int
	Chunk     int
	Special   []int
	Digests   []string
}

type encodeGolden struct {
	Reference string
	Vocab     string
	IDs       [][]int
}

func readGolden(t testing.TB, name string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", name))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, v))
}

// chunkLines writes the digest input of ids [start, end): "ID HEX\n" per id,
// "-" for an id no token uses (see scripts/golden/digests.cjs).
func chunkLines(v *tokenizer.Vocab, start, end int) string {
	var s []byte
	for id := start; id < end; id++ {
		b := v.Bytes(id)
		hx := "-"
		if b != nil {
			hx = hex.EncodeToString(b)
		}
		s = fmt.Appendf(s, "%d %s\n", id, hx)
	}
	return string(s)
}

// TestVocabGolden checks every token of every vocabulary: its exact bytes and
// whether it is special, against the reference.
func TestVocabGolden(t *testing.T) {
	for _, name := range vocabtest.Names {
		t.Run(name, func(t *testing.T) {
			v := vocabtest.Load(t, name)
			var g vocabGolden
			readGolden(t, "vocab-"+name+".json", &g)
			require.Equal(t, g.Size, v.Size(), "size (reference %s)", g.Reference)
			require.Equal(t, (g.Size+g.Chunk-1)/g.Chunk, len(g.Digests))
			bad := 0
			for c, want := range g.Digests {
				start, end := c*g.Chunk, min((c+1)*g.Chunk, g.Size)
				lines := chunkLines(v, start, end)
				sum := sha256.Sum256([]byte(lines))
				if got := hex.EncodeToString(sum[:]); got != want {
					bad++
					if bad <= 3 {
						t.Errorf("ids %d..%d: bytes differ from %s; rein has:\n%.2000s", start, end-1, g.Reference, lines)
					}
				}
			}
			assert.Zero(t, bad, "chunks of %d ids whose bytes differ", g.Chunk)
			var special []int
			for id := range v.Size() {
				if v.IsSpecial(id) {
					special = append(special, id)
				}
			}
			assert.Equal(t, g.Special, special, "special ids")
			t.Logf("%s: %d token byte strings and %d special ids agree with %s", name, v.Size(), len(special), g.Reference)
		})
	}
}

// TestEncodeGolden compares Encode with the reference's encodings of
// testdata/golden/inputs.json: prose, JSON, whitespace runs, digits, CJK,
// emoji, decomposed combining marks, long words and random strings.
func TestEncodeGolden(t *testing.T) {
	var inputs []string
	readGolden(t, "inputs.json", &inputs)
	for _, name := range vocabtest.Names {
		t.Run(name, func(t *testing.T) {
			v := vocabtest.Load(t, name)
			enc, err := v.Encoder()
			require.NoError(t, err)
			var g encodeGolden
			readGolden(t, "encode-"+name+".json", &g)
			require.Len(t, g.IDs, len(inputs))
			bad, ids := 0, 0
			for i, in := range inputs {
				got := enc.Encode(in)
				ids += len(got)
				if !slices.Equal(got, g.IDs[i]) {
					bad++
					if bad <= 10 {
						t.Errorf("input %d %.80q:\n rein %v\n  ref %v", i, in, got, g.IDs[i])
					}
				}
			}
			assert.Zero(t, bad, "inputs whose encoding differs from %s", g.Reference)
			t.Logf("%s: %d inputs, %d ids, as %s", name, len(inputs), ids, g.Reference)
		})
	}
}
