package maskbench_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/maskbench"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
)

// TestMaskBenchFloor runs the MaskBench protocol through the real Matcher
// over a fixed sample of the schemas and fails when fewer pass, or more
// invalid instances are accepted, than testdata/floor.json allows.
func TestMaskBenchFloor(t *testing.T) {
	if race.Enabled {
		// A minute without the detector, many with it: make test runs
		// this test again without -race.
		t.Skip("run without -race (make test's second run)")
	}
	raw, err := os.ReadFile("testdata/floor.json")
	require.NoError(t, err)
	var floor struct {
		Every              int `json:"every"`
		MinSchemas         int `json:"min_schemas"`
		MinPassed          int `json:"min_passed"`
		MaxInvalidAccepted int `json:"max_invalid_accepted"`
	}
	require.NoError(t, json.Unmarshal(raw, &floor))

	rep, err := maskbench.Run(maskbench.Options{
		Dir:   datadir.Shared(t, "maskbench"),
		Vocab: vocabtest.Load(t, "llama3"),
		Every: floor.Every,
	})
	require.NoError(t, err)
	t.Log(rep.Summary())
	require.GreaterOrEqual(t, len(rep.Schemas), floor.MinSchemas)
	assert.GreaterOrEqual(t, rep.Passed(), floor.MinPassed, "schemas passed")
	assert.LessOrEqual(t, rep.InvalidAccepted(), floor.MaxInvalidAccepted, "invalid instances accepted")
	for _, s := range rep.Schemas {
		assert.NotContains(t, s.CompileErr+s.Failure, "panic", s.File)
	}
}

func TestDataset(t *testing.T) {
	for file, want := range map[string]string{
		"BFCL_java_12.json":                      "BFCL_java",
		"BFCL_parallel_multiple_3.json":          "BFCL_parallel_multiple",
		"Github_easy---o10008.json":              "Github_easy",
		"Kubernetes---kb_105_Normalized.json":    "Kubernetes",
		"/data/Glaiveai2K---calculate_area.json": "Glaiveai2K",
		"Handwritten---x_1.json":                 "Handwritten",
	} {
		assert.Equal(t, want, maskbench.Dataset(file), file)
	}
}
