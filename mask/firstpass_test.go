package mask

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/vocabtest"
)

// maxMaskWork bounds the classification work one first-pass mask may pay for
// on the decode path, in classify's steps (trie positions visited, bytes
// stepped, exits recorded; for a wide node, tokens walked). On the schemas
// below the largest mask takes 39,168 steps on Llama-3 and 57,920 on Qwen3
// (a position of the string that counts words, which took over 100,000 on
// both before the folded trie). The first position of a key of ^.{1,255}$
// took 56,290 and 60,895 before it, and 129,859 and 626,880 until chains
// took multi-byte characters by lead byte. When this
// bound was 320,000, the ends of the chunks a long maxLength is cut into
// took 248,000 and 302,000; before wide nodes were classified from the
// vocabulary's rows 476,000 and 590,000, before chains of states were
// followed through counted repetitions 785,000 and 950,000, and a walk of
// every token to its end is over 1,000,000.
const maxMaskWork = 80_000

// TestFirstPassClassificationWork decodes the valid instances of fixed
// MaskBench schemas token by token as the first request for each would, with
// nothing classified before (the vocabulary's shared index emptied, no
// warming), and fails if a mask paid for more classification work than
// maxMaskWork. The work is counted, not timed, so the test is exact; it
// guards against nodes whose first classification walks far more of the
// vocabulary than their automaton needs (a maxLength string's positions,
// which never loop, walked every token to its end before chains were pruned).
func TestFirstPassClassificationWork(t *testing.T) {
	dir := filepath.Join(datadir.Root(), "testdata", "maskbench-sample")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	type doc struct {
		name   string
		schema []byte
		inputs []string
	}
	var docs []doc
	for i, f := range files {
		if i%3 != 0 {
			continue
		}
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		d := doc{name: filepath.Base(f), schema: []byte(gjson.GetBytes(raw, "schema").Raw)}
		for _, tc := range gjson.GetBytes(raw, "tests").Array() {
			var buf bytes.Buffer
			if tc.Get("valid").Bool() && json.Compact(&buf, []byte(tc.Get("data").Raw)) == nil {
				d.inputs = append(d.inputs, buf.String())
			}
		}
		docs = append(docs, d)
	}
	// The worst case: a short counted string on Qwen3.
	docs = append(docs, doc{name: "maxLength", schema: []byte(`{"type":"object","properties":{"code":{"type":"string","maxLength":24}}}`),
		inputs: []string{`{"code":"abcdefghijklmnopqrstuvwx"}`, `{"code":"é ü 12"}`}})
	// Keys: undeclared ones beside many names (every position derived from
	// the key's rest), and keys of a counted pattern, whose positions take
	// four-byte characters two at a time (ECMAScript's ".").
	docs = append(docs, doc{name: "keys", schema: []byte(`{"type":"object","properties":{"name":{"type":"string"},"namespace":{"type":"string"},"description":{"type":"string"},"descriptor":{"type":"integer"},"created_at":{"type":"string"},"updated_at":{"type":"string"}}}`),
		inputs: []string{`{"namespace":"a","descriptor":1,"nam":"x","created":"y","zzz_other_key":"z"}`}})
	docs = append(docs, doc{name: "counted keys", schema: []byte(`{"type":"object","patternProperties":{"^.{1,255}$":{}}}`),
		inputs: []string{`{"a long key of many words, more than sixteen characters":1,"日本語のキー😀":2}`}})
	// A string that counts words within a maxLength (o21115, o21142): no set
	// of bytes covers its positions, walked through the folded trie.
	docs = append(docs, doc{name: "words", schema: []byte(`{"type":"object","properties":{"summary":{"type":"string","minLength":1,"maxLength":500,"pattern":"^(?:\\S+\\s+){0,49}\\S+$"}}}`),
		inputs: []string{`{"summary":"The lab is near a bus stop and a train station – wheelchair accessible, 24/7."}`}})

	for _, name := range vocabtest.Available("llama3", "qwen3") {
		t.Run(name, func(t *testing.T) {
			vocab := vocabtest.Load(t, name)
			enc, err := vocab.Encoder()
			require.NoError(t, err)
			ResetSharedIndex(vocab)
			bm := NewBitmask(1, vocab.Size())
			var works []int64
			compiled := 0
			for _, d := range docs {
				g, _, err := jsonschema.Compile(d.schema, jsonschema.Options{})
				if err != nil {
					continue // refused schemas have no masks
				}
				c, err := Compile(g, vocab, Options{})
				require.NoError(t, err, d.name)
				compiled++
				m := c.NewMatcher()
				for _, in := range d.inputs {
					m.Reset()
					for _, id := range append(enc.Encode(in), -1) {
						before := c.IndexStats().Work
						require.NoError(t, m.FillBitmask(bm, 0), d.name)
						w := c.IndexStats().Work - before
						works = append(works, w)
						require.LessOrEqual(t, w, int64(maxMaskWork), "%s: %q: a first-pass mask paid for %d steps of classification", d.name, in, w)
						if id < 0 || !m.AcceptToken(id) {
							break
						}
					}
				}
			}
			slices.Sort(works)
			require.NotEmpty(t, works)
			require.Positive(t, works[len(works)-1], "no mask classified anything: the test measures nothing")
			t.Logf("%d schemas, %d masks: classification work per mask p50 %d p99 %d max %d",
				compiled, len(works), works[len(works)/2], works[len(works)*99/100], works[len(works)-1])
		})
	}
}
