package tokenizer_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/tokenizer"
)

// BenchmarkLoad measures loading each real vocabulary from its files.
func BenchmarkLoad(b *testing.B) {
	loaders := []struct {
		name string
		load func(b *testing.B) (*tokenizer.Vocab, error)
	}{
		{"llama3", func(b *testing.B) (*tokenizer.Vocab, error) {
			return tokenizer.LoadHF(datadir.Tokenizer(b, "llama3", "tokenizer.json"), tokenizer.LoadOptions{})
		}},
		{"qwen3", func(b *testing.B) (*tokenizer.Vocab, error) {
			return tokenizer.LoadHF(datadir.Tokenizer(b, "qwen3", "tokenizer.json"), tokenizer.LoadOptions{})
		}},
		{"mistral", func(b *testing.B) (*tokenizer.Vocab, error) {
			return tokenizer.LoadHF(datadir.Tokenizer(b, "mistral", "tokenizer.json"), tokenizer.LoadOptions{})
		}},
		{"gpt2", func(b *testing.B) (*tokenizer.Vocab, error) {
			return tokenizer.LoadGPT2(datadir.Tokenizer(b, "gpt2", "encoder.json"), datadir.Tokenizer(b, "gpt2", "vocab.bpe"), tokenizer.LoadOptions{})
		}},
		{"o200k", func(b *testing.B) (*tokenizer.Vocab, error) {
			return tokenizer.LoadO200kBase(datadir.Tokenizer(b, "tiktoken", "o200k_base.tiktoken"), tokenizer.LoadOptions{})
		}},
		{"cl100k", func(b *testing.B) (*tokenizer.Vocab, error) {
			return tokenizer.LoadCl100kBase(datadir.Tokenizer(b, "tiktoken", "cl100k_base.tiktoken"), tokenizer.LoadOptions{})
		}},
	}
	for _, l := range loaders {
		b.Run(l.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.load(b); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchText is a mix of English prose, pretty-printed JSON, code and CJK.
var benchText = strings.Repeat(
	"The quick brown fox jumps over the lazy dog; it's 12:34 and we've 5,678 items left.\n"+
		"{\n  \"id\": 1234,\n  \"name\": \"Ada Lovelace\",\n  \"tags\": [\"math\", \"poetry\"],\n  \"active\": true\n}\n"+
		"func main() {\n\tfmt.Println(\"hello, 世界\")\n}\n"+
		"日本語のテキストと中文的句子。 Ελληνικά, русский, emoji 😀👍🏽.\n", 64)

// BenchmarkEncode measures encoding throughput on benchText, with a warm word
// cache (the steady state of an engine re-tokenizing).
func BenchmarkEncode(b *testing.B) {
	for _, name := range vocabtest.Names {
		b.Run(name, func(b *testing.B) {
			v := vocabtest.Load(b, name)
			enc, err := v.Encoder()
			if err != nil {
				b.Fatal(err)
			}
			enc.Encode(benchText)
			b.SetBytes(int64(len(benchText)))
			b.ReportAllocs()
			for b.Loop() {
				enc.Encode(benchText)
			}
		})
	}
}

// BenchmarkEncodeLongWord encodes one word of n letters (a single
// pre-tokenizer match, too long to cache): the heap BPE keeps the cost per
// byte flat as n grows tenfold.
func BenchmarkEncodeLongWord(b *testing.B) {
	for _, name := range []string{"llama3", "o200k", "mistral"} {
		for _, n := range []int{1_000, 10_000, 100_000} {
			b.Run(name+"/"+strconv.Itoa(n), func(b *testing.B) {
				v := vocabtest.Load(b, name)
				enc, err := v.Encoder()
				if err != nil {
					b.Fatal(err)
				}
				word := strings.Repeat("abcdefghijklmnopqrstuvwxyz", n/26+1)[:n]
				b.SetBytes(int64(n))
				for b.Loop() {
					enc.Encode(word)
				}
			})
		}
	}
}
