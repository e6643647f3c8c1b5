package vocabtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/vocabtest"
)

func TestLoadOncePerName(t *testing.T) {
	for _, name := range vocabtest.Names {
		t.Run(name, func(t *testing.T) {
			v := vocabtest.Load(t, name)
			assert.Same(t, v, vocabtest.Load(t, name), name)
			assert.Equal(t, name, v.Name())
			assert.Positive(t, v.Size(), name)
			assert.NotEmpty(t, v.StopTokens(), name)
		})
	}
}

// TestNoDataFallsBackToGPT2 pins what `go test ./...` does with no data at
// all: GPT-2 loads from its embedded copy, Core picks it, and Available
// offers it where none of the named vocabularies is present.
func TestNoDataFallsBackToGPT2(t *testing.T) {
	t.Setenv("REIN_REQUIRE_DATA", "")
	t.Setenv("REIN_TOKENIZERS", t.TempDir())
	v := vocabtest.Core(t)
	require.Equal(t, "gpt2", v.Name())
	assert.Equal(t, 50257, v.Size())
	assert.Same(t, v, vocabtest.Load(t, "gpt2"))
	assert.Equal(t, []string{"gpt2"}, vocabtest.Available("llama3", "qwen3", "mistral"))
}

// TestRequiredNamesEveryVocabulary pins that under `make test` Available
// hides no vocabulary: a missing one must fail the test that loads it.
func TestRequiredNamesEveryVocabulary(t *testing.T) {
	t.Setenv("REIN_REQUIRE_DATA", "1")
	t.Setenv("REIN_TOKENIZERS", t.TempDir())
	assert.Equal(t, []string{"llama3", "qwen3"}, vocabtest.Available("llama3", "qwen3"))
}
