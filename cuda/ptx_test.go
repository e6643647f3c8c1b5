package cuda

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPTXUpToDate pins mask.ptx to mask.cu: scripts/cuda/build-ptx.sh writes
// the source's sha256 into the PTX's header, and a change to the source
// without a rebuild fails here, on every host, GPU or not.
func TestPTXUpToDate(t *testing.T) {
	src, err := os.ReadFile("mask.cu")
	require.NoError(t, err)
	ptx, err := os.ReadFile("mask.ptx")
	require.NoError(t, err)
	sum := sha256.Sum256(src)
	header := "// source sha256 " + hex.EncodeToString(sum[:]) + "\n"
	assert.Containsf(t, string(ptx), header,
		"mask.ptx is stale: run scripts/cuda/build-ptx.sh (or go generate ./cuda) and commit both files")
}

func TestPTXTargetsAndEntries(t *testing.T) {
	ptx, err := os.ReadFile("mask.ptx")
	require.NoError(t, err)
	text := string(ptx)
	assert.Contains(t, text, "\n.target sm_80\n", "the driver JITs sm_80 PTX for every newer GPU")
	assert.Contains(t, text, "\n.address_size 64\n")
	for _, name := range []string{"rein_mask_f32", "rein_mask_f16", "rein_mask_bf16"} {
		entry := ".visible .entry " + name + "("
		require.Containsf(t, text, entry, "kernel %s", name)
		// Nine parameters, each 64 bits wide: the Go side passes 8-byte slots.
		start := strings.Index(text, entry)
		params := text[start : start+strings.Index(text[start:], ")")]
		assert.Equalf(t, 9, strings.Count(params, ".param .u64"), "kernel %s parameters", name)
		assert.Equalf(t, 9, strings.Count(params, ".param "), "kernel %s parameters", name)
	}
}
