package jsonschema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/jsonschema"
)

// TestWarningsBounded: a schema with a thousand unknown formats gets 256
// warnings, the last counting the rest, and no search of the list for each
// new one.
func TestWarningsBounded(t *testing.T) {
	var props []string
	for i := range 1000 {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"string","format":"f%d"}`, i, i))
	}
	_, warnings, err := jsonschema.Compile([]byte(`{"properties":{`+strings.Join(props, ",")+`}}`), jsonschema.Options{})
	require.NoError(t, err)
	require.Len(t, warnings, 256)
	seen := map[string]bool{}
	for _, w := range warnings[:255] {
		assert.True(t, strings.HasPrefix(w.Pointer, "/properties/p") && strings.HasSuffix(w.Pointer, "/format"), w.Pointer)
		assert.False(t, seen[w.Pointer], "warned twice: %s", w.Pointer)
		seen[w.Pointer] = true
	}
	last := warnings[255]
	assert.Empty(t, last.Pointer)
	assert.Equal(t, "745 more warnings (listed: the first 255)", last.Msg)
	assert.Equal(t, last.Msg, last.String())
}
