package datadir_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/datadir"
)

func TestStride(t *testing.T) {
	tests := []struct {
		full        bool
		every, want int
	}{
		{true, 97, 97},
		{true, 0, 1},
		{false, 97, 1},
		{false, 100, 2},
		{false, 10, 1},
		{false, 0, 1},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, datadir.MaskBenchSet{Full: tt.full}.Stride(tt.every), "full=%v every=%d", tt.full, tt.every)
	}
}

// TestLoneClone pins what a clone with no shared data folder gets: the
// committed MaskBench sample (every dataset in it), the committed llama.cpp
// grammars, and a skip naming the full set for conformance.
func TestLoneClone(t *testing.T) {
	t.Setenv("REIN_SHARED_DATA", filepath.Join(t.TempDir(), "none"))
	t.Setenv("REIN_MASKBENCH_DIR", "")
	t.Setenv("REIN_CONFORMANCE", "")
	set := datadir.MaskBench(t)
	require.False(t, set.Full)
	assert.Equal(t, filepath.Join(datadir.Root(), "testdata", "maskbench-sample"), set.Dir)
	files := set.Files(t, 1)
	assert.Len(t, files, 184)
	assert.Len(t, set.Files(t, 100), 92)
	assert.Equal(t, filepath.Join(datadir.Root(), "testdata", "gbnf", "llama.cpp", "grammars"), datadir.Shared(t, "gbnf", "llama.cpp", "grammars"))
	assert.Empty(t, datadir.MaskBenchFullDir())
	t.Run("full set skips outside conformance", func(t *testing.T) {
		datadir.MaskBenchFull(t)
		t.Error("MaskBenchFull returned outside make conformance")
	})
}

func TestMaskBenchDirFromEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("REIN_MASKBENCH_DIR", dir)
	set := datadir.MaskBench(t)
	assert.True(t, set.Full)
	assert.Equal(t, dir, set.Dir)
}
