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

// floor is one entry of testdata/floor.json.
type floor struct {
	Every              int `json:"every"`
	MinSchemas         int `json:"min_schemas"`
	MinPassed          int `json:"min_passed"`
	MaxInvalidAccepted int `json:"max_invalid_accepted"`
}

func readFloor(t *testing.T, name string) floor {
	raw, err := os.ReadFile("testdata/floor.json")
	require.NoError(t, err)
	var floors map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &floors))
	var f floor
	require.NoError(t, json.Unmarshal(floors[name], &f), name)
	require.Positive(t, f.MinSchemas, name)
	return f
}

// runFloor runs the protocol over every f.Every-th file of dir and fails
// when fewer schemas pass, or more invalid instances are accepted, than f
// allows.
func runFloor(t *testing.T, dir string, f floor) {
	rep, err := maskbench.Run(maskbench.Options{
		Dir:   dir,
		Vocab: vocabtest.Load(t, "llama3"),
		Every: f.Every,
	})
	require.NoError(t, err)
	t.Log(rep.Summary())
	require.GreaterOrEqual(t, len(rep.Schemas), f.MinSchemas)
	assert.GreaterOrEqual(t, rep.Passed(), f.MinPassed, "schemas passed")
	assert.LessOrEqual(t, rep.InvalidAccepted(), f.MaxInvalidAccepted, "invalid instances accepted")
	for _, s := range rep.Schemas {
		assert.NotContains(t, s.CompileErr+s.Failure, "panic", s.File)
	}
}

// TestMaskBenchFloor runs the MaskBench protocol through the real Matcher
// over the full set's every 4th file when the full set is present, else over
// the committed sample, against the floor in testdata/floor.json.
func TestMaskBenchFloor(t *testing.T) {
	if race.Enabled {
		// A minute without the detector, many with it: make test runs
		// this test again without -race.
		t.Skip("run without -race (make test's second run)")
	}
	set := datadir.MaskBench(t)
	name := "sample"
	if set.Full {
		name = "full"
	}
	t.Logf("%s set: %s", name, set.Dir)
	runFloor(t, set.Dir, readFloor(t, name))
}

// TestMaskBenchConformance runs every file of the full set against the
// "conformance" floor: `make conformance`.
func TestMaskBenchConformance(t *testing.T) {
	dir := datadir.MaskBenchFull(t)
	runFloor(t, dir, readFloor(t, "conformance"))
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
