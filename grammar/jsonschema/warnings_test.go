package jsonschema_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/jsonschema"
)

// formats is a schema of n properties, each of an unknown format.
func formats(n int) []byte {
	var props []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"string","format":"f%d"}`, i, i))
	}
	return []byte(`{"properties":{` + strings.Join(props, ",") + `}}`)
}

// TestWarningsBounded: a schema with a thousand unknown formats gets 256
// warnings, the last counting the rest, and no search of the list for each
// new one.
func TestWarningsBounded(t *testing.T) {
	_, warnings, err := jsonschema.Compile(formats(1000), jsonschema.Options{})
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
	assert.Equal(t, "745 more warnings, not listed (255 are)", last.Msg)
	assert.Equal(t, last.Msg, last.String())
}

// TestWarningsBoundary: 256 warnings are all listed, 257 are 255 and one
// counting two.
func TestWarningsBoundary(t *testing.T) {
	_, warnings, err := jsonschema.Compile(formats(256), jsonschema.Options{})
	require.NoError(t, err)
	require.Len(t, warnings, 256)
	assert.Equal(t, "/properties/p255/format", warnings[255].Pointer)
	_, warnings, err = jsonschema.Compile(formats(257), jsonschema.Options{})
	require.NoError(t, err)
	require.Len(t, warnings, 256)
	assert.Equal(t, "2 more warnings, not listed (255 are)", warnings[255].Msg)
}

// TestRepeatWarningsBounded: keys written twice are listed 16 at most, so
// that they never crowd out the warnings that say what the grammar does
// not check.
func TestRepeatWarningsBounded(t *testing.T) {
	var members []string
	for i := range 100 {
		members = append(members, fmt.Sprintf(`"k%d":1,"k%d":2`, i, i))
	}
	schema := `{"examples":[{` + strings.Join(members, ",") + `}],"properties":{"a":{"format":"x"},"b":{"format":"y"},"c":{"format":"z"}}}`
	_, warnings, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
	require.NoError(t, err)
	var repeats, formats int
	for _, w := range warnings {
		switch {
		case strings.Contains(w.Msg, "duplicate key"):
			repeats++
		case strings.HasSuffix(w.Pointer, "/format"):
			formats++
		}
	}
	assert.Equal(t, 16, repeats)
	assert.Equal(t, 3, formats)
	require.Len(t, warnings, 20)
	assert.Equal(t, "84 more warnings, not listed (19 are)", warnings[19].Msg)
}
