// Package vocabtest loads the real vocabularies for tests and benchmarks,
// once per test binary: vocabtest.Load(t, "llama3"). The files come from
// internal/datadir, so a missing vocabulary skips the test, or fails it under
// `make test` (REIN_REQUIRE_DATA=1). GPT-2's is never missing: without its
// files, Load takes the copy embedded in tokenizer/gpt2 (the same bytes), so
// that the core property tests run with no data at all (see Core).
package vocabtest

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/gpt2"
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
	if name != "gpt2" || present(name) {
		for _, f := range files[name] {
			paths = append(paths, datadir.Tokenizer(tb, f))
		}
	}
	e.once.Do(func() { e.vocab, e.err = load(name, paths) })
	if e.err != nil {
		tb.Fatalf("vocabtest: %v", e.err)
	}
	return e.vocab
}

// present reports whether every file of the named vocabulary is there.
func present(name string) bool {
	dir := datadir.TokenizersDir()
	if dir == "" {
		return false
	}
	for _, f := range files[name] {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	return true
}

// Core returns the vocabulary the core property tests run on: Llama-3 when
// its file is present, as it always is under `make test`, which fails
// without it; else GPT-2's embedded copy, so that `go test ./...` runs them
// with no data at all. The test's log says which.
func Core(tb testing.TB) *tokenizer.Vocab {
	tb.Helper()
	if datadir.Required() || present("llama3") {
		return Load(tb, "llama3")
	}
	tb.Log("vocabtest: no Llama-3 vocabulary (run `make vocab`); using GPT-2's embedded copy")
	return Load(tb, "gpt2")
}

// Available returns the names among names whose files are present: all of
// them under `make test`, where a missing one fails the test that loads it.
// Where none is, it returns "gpt2", whose vocabulary is embedded, so that a
// test ranging over them still runs.
func Available(names ...string) []string {
	if datadir.Required() {
		return names
	}
	var out []string
	for _, n := range names {
		if present(n) {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		out = []string{"gpt2"}
	}
	return out
}

func load(name string, paths []string) (*tokenizer.Vocab, error) {
	if name == "gpt2" && paths == nil {
		return gpt2.Vocab()
	}
	switch name {
	case "llama3", "qwen3", "mistral":
		return tokenizer.LoadHF(paths[0], tokenizer.LoadOptions{})
	case "gpt2":
		return tokenizer.LoadGPT2(paths[0], paths[1], tokenizer.LoadOptions{})
	case "o200k":
		return tokenizer.LoadO200kBase(paths[0], tokenizer.LoadOptions{Name: name})
	case "cl100k":
		return tokenizer.LoadCl100kBase(paths[0], tokenizer.LoadOptions{Name: name})
	}
	return nil, fmt.Errorf("unknown vocabulary %q", name)
}
