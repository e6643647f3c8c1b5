package vocabtest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reinlm/rein/internal/vocabtest"
)

func TestLoadOncePerName(t *testing.T) {
	for _, name := range vocabtest.Names {
		v := vocabtest.Load(t, name)
		assert.Same(t, v, vocabtest.Load(t, name), name)
		assert.Equal(t, name, v.Name())
		assert.Positive(t, v.Size(), name)
		assert.NotEmpty(t, v.StopTokens(), name)
	}
}
