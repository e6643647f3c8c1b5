package gpt2_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// pinnedSums reads scripts/tokenizers.sha256, the checksums of the pinned
// vocabulary files.
func pinnedSums(t *testing.T) map[string]string {
	f, err := os.Open(filepath.Join(datadir.Root(), "scripts", "tokenizers.sha256"))
	require.NoError(t, err)
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		require.True(t, ok, sc.Text())
		sums[strings.TrimPrefix(name, "./")] = sum
	}
	require.NoError(t, sc.Err())
	return sums
}

func TestEmbeddedFilesMatchPinnedSums(t *testing.T) {
	sums := pinnedSums(t)
	enc, bpe, err := gpt2.Files()
	require.NoError(t, err)
	for name, data := range map[string][]byte{"gpt2/encoder.json": enc, "gpt2/vocab.bpe": bpe} {
		sum := sha256.Sum256(data)
		assert.Equal(t, sums[name], hex.EncodeToString(sum[:]), name)
	}
}

func TestVocab(t *testing.T) {
	v, err := gpt2.Vocab()
	require.NoError(t, err)
	again, err := gpt2.Vocab()
	require.NoError(t, err)
	assert.Same(t, v, again)
	assert.Equal(t, 50257, v.Size())
	assert.Equal(t, []int{50256}, v.StopTokens())
	assert.True(t, v.IsSpecial(50256))
	id, ok := v.TokenID("Hello")
	assert.True(t, ok)
	assert.Equal(t, 15496, id)
	enc, err := v.Encoder()
	require.NoError(t, err)
	assert.Equal(t, []int{15496, 995}, enc.Encode("Hello world"))
}

func ExampleVocab() {
	v, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	enc, err := v.Encoder()
	if err != nil {
		panic(err)
	}
	ids := enc.Encode(`{"name": "rein"}`)
	for _, id := range ids {
		fmt.Printf("%d %q\n", id, v.Bytes(id))
	}
	// Output:
	// 4895 "{\""
	// 3672 "name"
	// 1298 "\":"
	// 366 " \""
	// 260 "re"
	// 259 "in"
	// 20662 "\"}"
}
