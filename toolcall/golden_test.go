package toolcall

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden structural tags in testdata/")

// TestGolden pins each family's structural tag for one request (auto,
// parallel calls, get_weather and get_time, with reasoning where the family
// has it) in testdata/FORMAT.json, indented; -update rewrites them.
func TestGolden(t *testing.T) {
	for m := Llama3JSON; m <= CohereCommandA; m++ {
		t.Run(m.String(), func(t *testing.T) {
			f, err := m.family()
			require.NoError(t, err)
			data, err := StructuralTag(Request{Model: m, Tools: testTools[:2], Reasoning: f.think != nil})
			require.NoError(t, err)
			var got bytes.Buffer
			require.NoError(t, json.Indent(&got, data, "", "  "))
			got.WriteByte('\n')
			path := filepath.Join("testdata", m.String()+".json")
			if *update {
				require.NoError(t, os.MkdirAll("testdata", 0o755))
				require.NoError(t, os.WriteFile(path, got.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(want), got.String())
		})
	}
}
