package mask_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/masktest"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// TestShapedExitsMatchReference decodes strings longer than 256 characters
// under a large maxLength, whose 64-character chunks end inside the string:
// there nearly every token leaves the chunk's rule, so those positions are
// classified within their return node's shape (within.go) or, with that
// off, their uncertain tokens are decided once per caller shape (exits.go):
// both ways are run. Every mask from the chunks on is checked against
// the per-token reference, on two matchers (the second meets the verdicts
// the first kept) and under callers that close the string differently (an
// array item, an object's last property, a property followed by another),
// so a verdict kept for one stack and served to another would show.
func TestShapedExitsMatchReference(t *testing.T) {
	long := func(n int) string {
		words := strings.Fields("the quick brown fox jumps over a lazy dog while 42 cats, ducks; and geese \u00e9t\u00e9 watch")
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			b.WriteString(words[i%len(words)])
			b.WriteByte(' ')
		}
		return b.String()[:n]
	}
	n, every := 420, 1
	if testing.Short() {
		n = 330
	}
	var voc *tokenizer.Vocab
	if race.Enabled {
		// Minutes under the race detector with Llama-3 and the reference
		// (make test runs this test again without it): here GPT-2, the
		// matchers of a grammar at once, no reference.
		n, every = 300, 0
		voc = vocabtest.Load(t, "gpt2")
	} else {
		voc = vocabtest.Core(t)
	}
	cases := []shapedCase{
		{`{"type":"array","items":{"type":"string","maxLength":5000}}`,
			[]string{`["` + long(n) + `", "` + long(n) + `"]`}},
		{`{"type":"object","properties":{"a":{"type":"string","maxLength":5000},"b":{"type":"integer"}},"required":["a"],"additionalProperties":false}`,
			[]string{`{"a": "` + long(n) + `", "b": 1}`}},
		// One string rule called from two places: the same nodes and
		// return shapes under two stacks, one going on with "," and one
		// with "}", met in both orders: a verdict kept under one stack
		// and served under the other would show, allowed or refused.
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/s"},"b":{"$ref":"#/$defs/s"}},"additionalProperties":false,"$defs":{"s":{"type":"string","maxLength":5000}}}`,
			[]string{`{"b": "` + long(n) + `"}`, `{"a": "` + long(n) + `", "b": "x"}`}},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/s"},"b":{"$ref":"#/$defs/s"}},"additionalProperties":false,"$defs":{"s":{"type":"string","maxLength":5000}}}`,
			[]string{`{"a": "` + long(n) + `", "b": "x"}`, `{"b": "` + long(n) + `"}`}},
	}
	enc, err := voc.Encoder()
	require.NoError(t, err)
	for _, within := range []bool{true, false} {
		was := mask.ClassifyWithinReturns(within)
		t.Cleanup(func() { mask.ClassifyWithinReturns(was) })
		checkShapedExits(t, voc, enc, cases, within, every)
	}
}

// checkShapedExits runs TestShapedExitsMatchReference's cases with
// classifications within a return on or off.
func checkShapedExits(t *testing.T, voc *tokenizer.Vocab, enc *tokenizer.Encoder, cases []shapedCase, within bool, every int) {
	for _, tc := range cases {
		g, _, err := jsonschema.Compile([]byte(tc.schema), jsonschema.Options{})
		require.NoError(t, err)
		c, err := mask.Compile(g, voc, mask.Options{})
		require.NoError(t, err)
		if race.Enabled {
			errs := make([]error, len(tc.docs))
			var wg sync.WaitGroup
			for i, doc := range tc.docs {
				wg.Go(func() { errs[i] = checkDoc(c, mask.NewBitmask(1, voc.Size()), doc, enc.Encode(doc), 0) })
			}
			wg.Wait()
			require.NoError(t, errors.Join(errs...), tc.schema)
			continue
		}
		bm := mask.NewBitmask(1, voc.Size())
		for pass := range 2 {
			for _, doc := range tc.docs {
				require.NoError(t, checkDoc(c, bm, doc, enc.Encode(doc), every), "%s pass %d", tc.schema, pass)
			}
		}
		if within {
			require.Positive(t, mask.WithinIndexes(c), "%s: no chunk end was classified within its return", tc.schema)
		} else {
			require.Positive(t, mask.ShapedExits(c), "%s: no verdict was kept by caller shape", tc.schema)
		}
	}
}

// shapedCase is a schema and the documents decoded under it, each by a new
// matcher, twice over.
type shapedCase struct {
	schema string
	docs   []string
}

// checkDoc feeds doc's tokens ids to a new matcher of c, checking that each
// is allowed, and every every-th mask past the first 256 bytes against the
// reference (none when every is 0).
func checkDoc(c *mask.Compiled, bm *mask.Bitmask, doc string, ids []int, every int) error {
	voc := c.Vocab()
	m := c.NewMatcher()
	done := 0
	for step, id := range ids {
		if err := m.FillBitmask(bm, 0); err != nil {
			return err
		}
		if !bm.Allowed(0, id) {
			return fmt.Errorf("step %d: the document's token %q is refused", step, voc.Bytes(id))
		}
		// The reference walks the whole vocabulary: check past the
		// written-out first 256 characters only, where chunks are.
		if every > 0 && done > 256 && step%every == 0 {
			if d := masktest.DiffRows(m, bm.Row(0), masktest.ReferenceMask(m)); d != "" {
				return fmt.Errorf("step %d (after %q): %s", step, doc[max(0, done-20):done], d)
			}
		}
		if !m.AcceptToken(id) {
			return fmt.Errorf("step %d: AcceptToken refused %q", step, voc.Bytes(id))
		}
		done += len(voc.Bytes(id))
	}
	return nil
}

// TestChunkEndsDoNotAllocate checks the path of kept classifications
// within a return (within.go) for allocations: once a long string's chunk
// ends have been met, decoding it again takes none.
func TestChunkEndsDoNotAllocate(t *testing.T) {
	voc := vocabtest.Core(t)
	if race.Enabled {
		voc = vocabtest.Load(t, "gpt2")
	}
	g, _, err := jsonschema.Compile([]byte(`{"type":"object","properties":{"a":{"$ref":"#/$defs/s"},"b":{"$ref":"#/$defs/s"}},"additionalProperties":false,"$defs":{"s":{"type":"string","maxLength":5000}}}`), jsonschema.Options{})
	require.NoError(t, err)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	enc, err := voc.Encoder()
	require.NoError(t, err)
	text := strings.Repeat("the quick brown fox, \u00e9t\u00e9 42; ", 12)
	ids := enc.Encode(`{"a": "` + text + `", "b": "` + text + `"}`)
	m := c.NewMatcher()
	bm := mask.NewBitmask(1, voc.Size())
	run := func() { decodeIDs(m, bm, ids) }
	run()
	require.Positive(t, mask.WithinIndexes(c))
	require.Zero(t, testing.AllocsPerRun(5, run))
}
