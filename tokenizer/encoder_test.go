package tokenizer_test

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"

	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/tokenizer"
)

func encoder(t testing.TB, name string) (*tokenizer.Vocab, *tokenizer.Encoder) {
	t.Helper()
	v := vocabtest.Load(t, name)
	e, err := v.Encoder()
	require.NoError(t, err)
	return v, e
}

func decode(v *tokenizer.Vocab, ids []int) []byte {
	var b []byte
	for _, id := range ids {
		b = append(b, v.Bytes(id)...)
	}
	return b
}

// wantText is what the tokens of text spell for each vocabulary: the text
// itself, NFC-normalized for Qwen, after a prepended space for Mistral.
func wantText(name, text string) string {
	switch {
	case name == "qwen3":
		return norm.NFC.String(text)
	case name == "mistral" && text != "":
		return " " + text
	}
	return text
}

// TestEncodeRoundTrip checks that the tokens of every golden input, and of
// text that is not valid UTF-8, spell the text exactly.
func TestEncodeRoundTrip(t *testing.T) {
	var inputs []string
	readGolden(t, "inputs.json", &inputs)
	inputs = append(inputs, "\xff", "a\xffb", "\xe6\x97", "ok \xed\xa0\x80 surrogate", "\xf0\x9f\x98", "\x00\x01\x7f")
	for _, name := range vocabtest.Names {
		v, e := encoder(t, name)
		for _, in := range inputs {
			if name == "qwen3" && !utf8Valid(in) {
				continue // NFC of invalid UTF-8 is not the identity
			}
			assert.Equal(t, wantText(name, in), string(decode(v, e.Encode(in))), "%s %.60q", name, in)
		}
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// TestEncodeSpecialTextIsPlain: the text of a special token is encoded as
// ordinary text; non-special added tokens (Qwen's <think>) are whole.
func TestEncodeSpecialTextIsPlain(t *testing.T) {
	for _, c := range []struct{ vocab, text string }{
		{"llama3", "<|eot_id|>"}, {"llama3", "<|begin_of_text|>hi"}, {"qwen3", "<|im_end|>"},
		{"mistral", "</s>"}, {"gpt2", "<|endoftext|>"}, {"o200k", "<|endoftext|>"}, {"cl100k", "x<|fim_prefix|>"},
	} {
		v, e := encoder(t, c.vocab)
		ids := e.Encode(c.text)
		for _, id := range ids {
			assert.False(t, v.IsSpecial(id), "%s %q gave special %d", c.vocab, c.text, id)
		}
		assert.Equal(t, wantText(c.vocab, c.text), string(decode(v, ids)))
	}
	_, e := encoder(t, "qwen3")
	ids := e.Encode("a<think>b</think>")
	assert.Contains(t, ids, 151667)
	assert.Contains(t, ids, 151668)
	assert.Equal(t, []int{151667, 151668, 151667}, e.Encode("<think></think><think>"))
	many := e.Encode(strings.Repeat("<tool_call>x", 20000))
	assert.Len(t, many, 40000)
}

// TestEncodeNFC: Qwen normalizes to NFC before encoding, the others do not.
func TestEncodeNFC(t *testing.T) {
	_, q := encoder(t, "qwen3")
	assert.Equal(t, q.Encode("caf\u00e9"), q.Encode("cafe\u0301"))
	assert.Equal(t, q.Encode("\uac01"), q.Encode("\u1100\u1161\u11a8"))
	_, l := encoder(t, "llama3")
	assert.NotEqual(t, l.Encode("caf\u00e9"), l.Encode("cafe\u0301"))
}

// TestEncodeLongInputs: long words and whole-text SentencePiece words take
// the heap path; the result still spells the text.
func TestEncodeLongInputs(t *testing.T) {
	long := map[string]string{
		"run":   strings.Repeat("a", 100_000),
		"mixed": strings.Repeat("lorem ipsum dolor sit amet, 12345 {\"k\": [1, 2]}\n", 2000),
		"cjk":   strings.Repeat("的一是不了人我在有他这为之大来以个中上们", 2000),
	}
	for _, name := range vocabtest.Names {
		v, e := encoder(t, name)
		for what, text := range long {
			ids := e.Encode(text)
			assert.Equal(t, wantText(name, text), string(decode(v, ids)), "%s %s", name, what)
			assert.Less(t, len(ids), len(text), "%s %s", name, what)
		}
	}
}

// TestEncodeConcurrent encodes from many goroutines at once (run with -race)
// and compares with a sequential run.
func TestEncodeConcurrent(t *testing.T) {
	var inputs []string
	readGolden(t, "inputs.json", &inputs)
	for _, name := range []string{"llama3", "mistral"} {
		_, e := encoder(t, name)
		want := make([][]int, len(inputs))
		for i, in := range inputs {
			want[i] = e.Encode(in)
		}
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range inputs {
					j := (i + g*37) % len(inputs)
					if got := e.Encode(inputs[j]); !assert.Equal(t, want[j], got) {
						return
					}
				}
			})
		}
		wg.Wait()
	}
}

// TestEncoderSharedAndSafe: Encoder returns one encoder per vocabulary.
func TestEncoderShared(t *testing.T) {
	v := vocabtest.Load(t, "gpt2")
	e1, err := v.Encoder()
	require.NoError(t, err)
	e2, err := tokenizer.NewEncoder(v)
	require.NoError(t, err)
	assert.Same(t, e1, e2)
	assert.Same(t, v, e1.Vocab())
	assert.Empty(t, e1.Encode(""))
	assert.True(t, bytes.Equal([]byte(" \t\n"), decode(v, e1.Encode(" \t\n"))))
}
