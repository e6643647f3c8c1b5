// Package vocabtest loads the real vocabularies for tests and benchmarks,
// once per test binary: vocabtest.Load(t, "llama3"). The files come from
// internal/datadir, so a missing vocabulary skips the test, or fails it under
// `make test` (REIN_REQUIRE_DATA=1).
package vocabtest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/tokenizer"
)

// Names lists the vocabularies Load knows, smallest first.
var Names = []string{"mistral", "gpt2", "cl100k", "llama3", "qwen3", "o200k"}

// files maps each name to its files under the tokenizers folder.
var files = map[string][]string{
	"llama3":  {"llama3/tokenizer.json"},
	"qwen3":   {"qwen3/tokenizer.json"},
	"mistral": {"mistral/tokenizer.json"},
	"gpt2":    {"gpt2/encoder.json", "gpt2/vocab.bpe"},
	"o200k":   {"tiktoken/o200k_base.tiktoken"},
	"cl100k":  {"tiktoken/cl100k_base.tiktoken"},
}

type entry struct {
	once  sync.Once
	vocab *tokenizer.Vocab
	err   error
}

var loaded = func() map[string]*entry {
	m := make(map[string]*entry, len(files))
	for name := range files {
		m[name] = new(entry)
	}
	return m
}()

// Load returns the named vocabulary, one of Names, loading it on the first
// call in this test binary. Every caller gets the same *tokenizer.Vocab.
func Load(tb testing.TB, name string) *tokenizer.Vocab {
	tb.Helper()
	e, ok := loaded[name]
	if !ok {
		tb.Fatalf("vocabtest: unknown vocabulary %q (known: %v)", name, Names)
		return nil
	}
	var paths []string
	for _, f := range files[name] {
		paths = append(paths, datadir.Tokenizer(tb, f))
	}
	e.once.Do(func() { e.vocab, e.err = load(name, paths) })
	if e.err != nil {
		tb.Fatalf("vocabtest: %v", e.err)
	}
	return e.vocab
}

func load(name string, paths []string) (*tokenizer.Vocab, error) {
	switch name {
	case "llama3", "qwen3", "mistral":
		return tokenizer.LoadHF(paths[0])
	case "gpt2":
		return tokenizer.LoadGPT2(paths[0], paths[1])
	case "o200k":
		return tokenizer.LoadO200kBase(paths[0], tokenizer.WithName(name))
	case "cl100k":
		return tokenizer.LoadCl100kBase(paths[0], tokenizer.WithName(name))
	}
	return nil, fmt.Errorf("unknown vocabulary %q", name)
}
