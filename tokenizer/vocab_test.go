package tokenizer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/vocabtest"
)

// TestKnownIDs pins token ids published for each model (data/README.md) and
// a few more.
func TestKnownIDs(t *testing.T) {
	cases := []struct {
		vocab string
		text  string
		id    int
	}{
		{"llama3", "Hello", 9906},
		{"llama3", " world", 1917}, // Ġworld
		{"llama3", "<|begin_of_text|>", 128000},
		{"llama3", "<|eot_id|>", 128009},
		{"qwen3", "Hello", 9707},
		{"qwen3", " world", 1879}, // Ġworld
		{"qwen3", "<|im_end|>", 151645},
		{"qwen3", "<think>", 151667},
		{"mistral", " Hello", 22557}, // ▁Hello
		{"mistral", "</s>", 2},
		{"mistral", "\n", 13}, // <0x0A>: the only token for a newline
		{"gpt2", "Hello", 15496},
		{"gpt2", " world", 995},
		{"gpt2", "<|endoftext|>", 50256},
		{"cl100k", "Hello", 9906},
		{"cl100k", "<|endoftext|>", 100257},
		{"o200k", "Hello", 13225},
		{"o200k", "<|endofprompt|>", 200018},
	}
	for _, c := range cases {
		v := vocabtest.Load(t, c.vocab)
		id, ok := v.TokenID(c.text)
		if assert.True(t, ok, "%s %q", c.vocab, c.text) {
			assert.Equal(t, c.id, id, "%s %q", c.vocab, c.text)
		}
		assert.Equal(t, c.text, string(v.Bytes(c.id)), "%s %d", c.vocab, c.id)
	}
}

func TestSizesAndStopTokens(t *testing.T) {
	cases := []struct {
		vocab string
		size  int
		stops []int
	}{
		{"llama3", 128256, []int{128001, 128009}}, // <|end_of_text|> (eos), <|eot_id|>
		{"qwen3", 151669, []int{151643, 151645}},  // <|endoftext|>, <|im_end|> (eos)
		{"mistral", 32000, []int{2}},              // </s>
		{"gpt2", 50257, []int{50256}},
		{"cl100k", 100277, []int{100257}},
		{"o200k", 200019, []int{199999}},
	}
	for _, c := range cases {
		v := vocabtest.Load(t, c.vocab)
		assert.Equal(t, c.size, v.Size(), c.vocab)
		assert.Equal(t, c.size, v.LogitWidth(), c.vocab)
		assert.Equal(t, c.stops, v.StopTokens(), c.vocab)
		assert.Equal(t, c.vocab, v.Name())
	}
}

func TestSpecialTokens(t *testing.T) {
	cases := []struct {
		vocab   string
		id      int
		special bool
		bytes   string // "" with holes for nil
		hole    bool
	}{
		{"llama3", 128000, true, "<|begin_of_text|>", false},
		{"llama3", 9906, false, "Hello", false},
		{"qwen3", 151645, true, "<|im_end|>", false},
		{"qwen3", 151667, false, "<think>", false}, // an added token that is not special
		{"mistral", 0, true, "<unk>", false},
		{"mistral", 1, true, "<s>", false},
		{"mistral", 3, false, "\x00", false},   // <0x00>
		{"mistral", 258, false, "\xff", false}, // <0xFF>: half a character
		{"mistral", 28705, false, " ", false},  // ▁
		{"o200k", 199998, true, "", true},      // a hole between the ranks and the specials
		{"o200k", 200000, true, "", true},
		{"cl100k", 100256, true, "", true},
		{"cl100k", 100258, true, "<|fim_prefix|>", false},
	}
	for _, c := range cases {
		v := vocabtest.Load(t, c.vocab)
		assert.Equal(t, c.special, v.IsSpecial(c.id), "%s %d", c.vocab, c.id)
		if c.hole {
			assert.Nil(t, v.Bytes(c.id), "%s %d", c.vocab, c.id)
		} else {
			assert.Equal(t, []byte(c.bytes), v.Bytes(c.id), "%s %d", c.vocab, c.id)
		}
	}
	v := vocabtest.Load(t, "gpt2")
	for _, id := range []int{-1, v.Size(), 1 << 40} {
		assert.Nil(t, v.Bytes(id), id)
		assert.True(t, v.IsSpecial(id), id)
	}
}

// TestTokenIDPrefersPieces checks that where several ids stand for the same
// bytes, TokenID names the one the model's own tokenizer produces.
func TestTokenIDPrefersPieces(t *testing.T) {
	v := vocabtest.Load(t, "mistral")
	id, ok := v.TokenID("A")
	require.True(t, ok)
	assert.Equal(t, 28741, id, "the piece A, not the byte token <0x41> (68)")
	assert.Equal(t, []byte("A"), v.Bytes(68))
	id, ok = v.TokenID(" ")
	require.True(t, ok)
	assert.Equal(t, 28705, id, "▁, not <0x20>")
	_, ok = v.TokenID("no such token in any vocabulary")
	assert.False(t, ok)
}

func TestWithLogitWidth(t *testing.T) {
	v := vocabtest.Load(t, "qwen3")
	w, err := v.WithLogitWidth(151936) // Qwen2.5's padded output layer
	require.NoError(t, err)
	assert.Equal(t, 151936, w.LogitWidth())
	assert.Equal(t, 151669, w.Size())
	assert.Equal(t, 151669, v.LogitWidth(), "the original is unchanged")
	assert.Equal(t, v.Bytes(9707), w.Bytes(9707))
	assert.True(t, w.IsSpecial(151700), "padding columns are never tokens")
	e1, err := v.Encoder()
	require.NoError(t, err)
	e2, err := w.Encoder()
	require.NoError(t, err)
	assert.Same(t, e1, e2, "copies share the encoder")
	_, err = v.WithLogitWidth(100)
	assert.Error(t, err)
}

func TestWithStopTokens(t *testing.T) {
	v := vocabtest.Load(t, "llama3")
	w, err := v.WithStopTokens([]int{128009, 128008, 128009})
	require.NoError(t, err)
	assert.Equal(t, []int{128008, 128009}, w.StopTokens())
	assert.Equal(t, []int{128001, 128009}, v.StopTokens(), "the original is unchanged")
	w.StopTokens()[0] = 7
	assert.Equal(t, []int{128008, 128009}, w.StopTokens(), "StopTokens returns a copy")
	for _, bad := range [][]int{{-1}, {v.Size()}} {
		_, err := v.WithStopTokens(bad)
		assert.Error(t, err, bad)
	}
	o := vocabtest.Load(t, "o200k")
	_, err = o.WithStopTokens([]int{199998})
	assert.Error(t, err, "a hole cannot be a stop token")
	none, err := o.WithStopTokens(nil)
	require.NoError(t, err)
	assert.Empty(t, none.StopTokens())
}

// TestBytesCannotCorrupt checks that appending to a token's bytes cannot
// overwrite the next token.
func TestBytesCannotCorrupt(t *testing.T) {
	v := vocabtest.Load(t, "gpt2")
	next := string(v.Bytes(101))
	b := v.Bytes(100)
	_ = append(b, "XXXXXXXX"...)
	assert.Equal(t, next, string(v.Bytes(101)))
}
