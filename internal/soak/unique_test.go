package soak_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/masktest"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
)

// TestSoakUniqueItems decodes from the MaskBench schemas that carry
// uniqueItems. MaskBench renamed the keyword to _uniqueItems when it made
// the set (the engines it measured do not enforce it); here it gets its
// name back, so these are real schemas with distinct items. A schema that
// compiles strictly is decoded as it is; one that only compiles leniently
// (it has distinct objects or arrays, which are not enforced: the warnings
// name them) is decoded too, and judged without the uniqueItems the
// warnings name, so every distinct-items check that is enforced is
// judged. Decoding uses random logits that often take again a token taken
// a few steps before, which writes the same items over and over; every
// document must end and the front-end's validator (its own uniqueItems
// check, apart from the matcher's) must accept it. With
// REIN_SOAK_DUMP=file the documents go to testdata/crosscheck.py too.
func TestSoakUniqueItems(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	seeds := uint64(4)
	if testing.Short() || race.Enabled {
		seeds = 1
	}
	var files, strict, lenient, docs, repeated, unjudged int
	var buf bytes.Buffer
	dump := json.NewEncoder(&buf)
	for _, f := range datadir.MaskBench(t).Files(t, 1) {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		if !bytes.Contains(raw, []byte(`"_uniqueItems": true`)) && !bytes.Contains(raw, []byte(`"_uniqueItems":true`)) {
			continue
		}
		files++
		name := filepath.Base(f)
		schema := bytes.ReplaceAll([]byte(gjson.GetBytes(raw, "schema").Raw), []byte(`"_uniqueItems"`), []byte(`"uniqueItems"`))
		judge := schema
		opts := jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact}
		g, _, err := jsonschema.Compile(schema, opts)
		if err != nil {
			lax := opts
			lax.Lenient = true
			var warns []jsonschema.Warning
			if g, warns, err = jsonschema.Compile(schema, lax); err != nil || !onlyUniqueItems(warns) {
				continue
			}
			judge = withoutKeywords(t, schema, warns)
			lenient++
		} else {
			strict++
		}
		c, err := mask.Compile(g, voc, mask.Options{})
		require.NoError(t, err, name)
		for seed := range seeds {
			rng := rand.New(rand.NewPCG(seed, uint64(len(schema))))
			out, err := masktest.WalkRepeating(c.NewMatcher(), rng, 60, 0.1, 0.5)
			require.NoError(t, err, "%s seed %d", name, seed)
			docs++
			ok, err := jsonschema.Validate(judge, out, opts)
			if err != nil {
				unjudged++ // a number past the validator's exponents
				continue
			}
			assert.True(t, ok, "%s seed %d: invalid document: %s", name, seed, out)
			if bytes.Contains(out, []byte(`","`)) || bytes.Contains(out, []byte(`],[`)) {
				repeated++
			}
			require.NoError(t, dump.Encode(dumped{Name: name, Seed: seed, Schema: judge, Doc: string(out)}))
		}
	}
	if path := os.Getenv("REIN_SOAK_DUMP"); path != "" {
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	}
	t.Logf("uniqueItems soak: %d schemas with uniqueItems, %d compiled strictly, %d leniently (distinct objects or arrays not enforced), %d documents (%d with a list of strings or arrays, %d the validator could not judge)",
		files, strict, lenient, docs, repeated, unjudged)
	assert.Positive(t, docs)
}

// onlyUniqueItems reports whether every warning is a uniqueItems one.
func onlyUniqueItems(warns []jsonschema.Warning) bool {
	for _, w := range warns {
		if w.Keyword != "uniqueItems" {
			return false
		}
	}
	return true
}

// withoutKeywords returns schema less the keywords the warnings point at.
func withoutKeywords(t *testing.T, schema []byte, warns []jsonschema.Warning) []byte {
	var v any
	require.NoError(t, json.Unmarshal(schema, &v))
	for _, w := range warns {
		parts := strings.Split(w.Pointer, "/")[1:]
		node := v
		for i, p := range parts {
			p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
			switch n := node.(type) {
			case map[string]any:
				if i == len(parts)-1 {
					delete(n, p)
				}
				node = n[p]
			case []any:
				k, err := strconv.Atoi(p)
				require.NoError(t, err, w.Pointer)
				node = n[k]
			}
		}
	}
	out, err := json.Marshal(v)
	require.NoError(t, err)
	return out
}
