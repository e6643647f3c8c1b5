package mask_test

import (
	"bytes"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/masktest"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
)

// uniqueCompiled compiles a JSON Schema against GPT-2's embedded vocabulary.
func uniqueCompiled(t *testing.T, schema string) *mask.Compiled {
	t.Helper()
	g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
	require.NoError(t, err, schema)
	c, err := mask.Compile(g, vocabtest.Load(t, "gpt2"), mask.Options{})
	require.NoError(t, err)
	return c
}

// TestUniqueItemsDocuments feeds documents byte by byte: equal items of one
// array are refused at the byte that completes the second, under JSON's
// equality (escapes, number spellings, -0), and a prefix that can only end
// in a value already there is refused where it ends.
func TestUniqueItemsDocuments(t *testing.T) {
	strs := `{"type":"array","items":{"type":"string"},"uniqueItems":true}`
	nums := `{"type":"array","items":{"type":"number"},"uniqueItems":true}`
	ints := `{"type":"array","items":{"type":"integer"},"uniqueItems":true}`
	enum := `{"type":"array","items":{"enum":["a","ab",1,true,null]},"uniqueItems":true}`
	nested := `{"type":"array","items":` + strs + `}`
	obj := `{"type":"object","properties":{"x":` + strs + `,"y":` + ints + `},"additionalProperties":false}`
	ab := `{"type":"array","items":{"type":"string","pattern":"^[ab]{1,2}$"},"uniqueItems":true}`
	day := `{"type":"array","items":{"type":"string","format":"date"},"uniqueItems":true}`
	anyv := `{"type":"array","uniqueItems":true}`
	bools := `{"type":"array","prefixItems":[{"type":"boolean"},{"type":"boolean"}],"uniqueItems":true}`
	pairs := `{"type":"array","prefixItems":[{"enum":["a","b"]},{"type":"string"}],"items":{"type":"integer"},"uniqueItems":true}`
	type docCase struct {
		schema, doc string
		ok          bool // the whole document is accepted
	}
	cases := []docCase{
		{strs, `["a", "b", "ab"]`, true},
		{strs, `["a", "b", "a"]`, false},
		{strs, `["A", "\u0041"]`, false},
		{strs, `["\/", "/"]`, false},
		{strs, `["\ud83d\ude00", "😀"]`, false},
		{strs, `["\ud83d\ude00", "\ud83d\ude01"]`, true},
		{strs, `["a\"b", "a\u0022b"]`, false},
		{strs, `[]`, true},
		{nums, `[1, 2, 1.5, 0.15, -1]`, true},
		{nums, `[1, 1.0]`, false},
		{nums, `[100, 1e2]`, false},
		{nums, `[0.05, 5E-2]`, false},
		{nums, `[1.5, 150e-2]`, false},
		{nums, `[0, -0.0]`, false},
		{nums, `[10, 1, 100, 0.1]`, true},
		{ints, `[0, 1, 10, -1]`, true},
		{ints, `[0, -0]`, false},
		{enum, `["a", "ab", 1, true, null]`, true},
		{enum, `["a", "a"]`, false},
		{nested, `[["a", "b"], ["a", "b"]]`, true},
		{nested, `[["a", "b"], ["b", "b"]]`, false},
		{ab, `["a", "b", "aa", "ab", "ba", "bb"]`, true},
		{ab, `["a", "b", "aa", "ab", "ba", "bb",`, false}, // no value is left
		{ab, `["a", "b", "aa", "ab", "bb", "b`, false},    // "ba" is left, "b" is used
		{ab, `["a", "b", "aa", "ab", "bb", "ba"]`, true},
		{day, `["2024-02-29", "2024-02-28", "2024-02-29"]`, false},
		{day, `["2024-02-29", "2024-02-28", "2024-02-20"]`, true},
		{obj, `{"x": ["a", "b"], "y": [1, 2]}`, true},
		{obj, `{"x": ["a", "b"], "y": [1, 1]}`, false},
		{anyv, `[1, "1", [1], {"a": 1}, true, null, [], {}]`, true},
		{anyv, `[1, 1.0]`, false},
		{anyv, `["a", "\u0061"]`, false},
		{anyv, `[{}, {}]`, false},
		{anyv, `[[], [ ]]`, false},
		{anyv, `[[1, 2], [2, 1]]`, true},
		{anyv, `[[1, 2], [1.0, 20e-1]]`, false},
		{anyv, `[{"a": 1, "b": [1, 2]}, {"b": [1.0, 2], "a": 1}]`, false},
		{anyv, `[{"ab": 1, "a": 2}, {"a": 2, "ab": 1}]`, false},
		{anyv, `[{"a": "x"}, {"a": "\u0078"}]`, false},
		{anyv, `[{"a": "b:c"}, {"a:": "bc"}, {"a:b": "c"}]`, true},
		{anyv, `[{"a": {"b": [1, {"c": null}]}}, {"a": {"b": [1, {"c": false}]}}]`, true},
		{anyv, `[{"a": {"b": [1, {"c": null}]}}, {"a": {"b": [1e0, {"c": null}]}}]`, false},
		{anyv, `[{"a": 1}, {"a": 1, "a": 1}]`, true}, // duplicate keys: not the same members
		{anyv, `[["a"], "a", ["a"]]`, false},
		{anyv, `[[0], [-0.0]]`, false},
		{anyv, `[{"a": [{"b": 1}, {"c": 2}]}, {"a": [{"c": 2}, {"b": 1}]}]`, true},
		{bools, `[true, false]`, true},
		{bools, `[true, true]`, false},
		{bools, `[false, true, 1, {"a": 1}, [1]]`, true},
		{bools, `[false, true, 1, 1.0]`, false},
		{bools, `[false, true, [1], [1.0]]`, false},
		{pairs, `["a", "b", 1, 2]`, true},
		{pairs, `["a", "a"]`, false},
		{pairs, `["a", "c", 1, 1]`, false},
	}
	// More items than the run's first table holds (16 slots, kept at most
	// half full), in one array and over several: the table grows, and its
	// size must stay a power of two (a 36-slot table once left 8 slots
	// reachable, and the ninth item looped forever).
	list := func(n, dup int, quote string) string {
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			if i == dup {
				i = 0
			}
			fmt.Fprintf(&b, "%s%d%s", quote, i, quote)
		}
		return b.String() + "]"
	}
	cases = append(cases,
		docCase{ints, list(40, -1, ""), true},
		docCase{ints, list(40, 33, ""), false},
		docCase{strs, list(300, -1, `"`), true},
		docCase{strs, list(300, 299, `"`), false},
		docCase{nested, "[" + strings.Repeat(list(7, -1, `"`)+",", 6) + list(7, -1, `"`) + "]", true},
	)
	for _, tc := range cases {
		c := uniqueCompiled(t, tc.schema)
		m := c.NewMatcher()
		ok := true
		for i := 0; i < len(tc.doc) && ok; i++ {
			ok = m.AcceptString(tc.doc[i : i+1])
		}
		require.Equal(t, tc.ok, ok && m.CanEnd(), "%s: %s", tc.schema, tc.doc)
	}
}

// uniqueWalkSchemas are arrays with distinct items whose masks the
// reference checks: item domains that run out (listed values, booleans),
// prefixes shared by listed values, integers' "0", strings with escapes,
// nested and sibling arrays.
var uniqueWalkSchemas = []string{
	`{"type":"array","items":{"enum":["a","b","c"]},"uniqueItems":true,"maxItems":5}`,
	`{"type":"array","items":{"enum":["ab","abc","a","b\"c",1,1.0,2.5]},"uniqueItems":true}`,
	`{"type":"array","items":{"type":"boolean"},"uniqueItems":true,"minItems":2}`,
	`{"type":"array","items":{"type":"integer"},"uniqueItems":true,"maxItems":8}`,
	`{"type":"array","items":{"type":"number"},"uniqueItems":true,"maxItems":8}`,
	`{"type":"array","items":{"type":["string","null"],"minLength":1},"uniqueItems":true,"maxItems":6}`,
	`{"type":"array","items":{"anyOf":[{"type":"integer"},{"enum":["x",0.5]}]},"uniqueItems":true,"maxItems":6}`,
	`{"type":"array","items":{"type":"array","items":{"enum":[0,1]},"uniqueItems":true},"maxItems":4}`,
	`{"type":"array","items":{"type":"string","pattern":"^[ab]{1,2}$"},"uniqueItems":true,"maxItems":8}`,
	`{"type":"array","items":{"type":"string","maxLength":1},"uniqueItems":true,"maxItems":6}`,
	`{"type":"array","items":{"type":"string","pattern":"^[0-9a-f]{8}-[0-9a-f]{4}$"},"uniqueItems":true,"maxItems":4}`,
	`{"type":"array","items":{"type":"string","format":"date"},"uniqueItems":true,"maxItems":4}`,
	`{"type":"array","uniqueItems":true,"maxItems":5}`,
	`{"type":"array","prefixItems":[{"type":"boolean"},{"enum":[true,"x"]},{"type":"integer"}],"items":{"enum":["x",1,true]},"uniqueItems":true,"maxItems":6}`,
	`{"type":"array","prefixItems":[{"enum":["a","b"]},{"type":"string","pattern":"^[ab]$"}],"items":false,"uniqueItems":true,"minItems":1}`,
	`{"type":"object","properties":{"v":{"type":"array","items":true,"uniqueItems":true,"maxItems":4}},"required":["v"]}`,
}

// TestUniqueItemsAnyValueMask: where an object or array item would close on
// the value of an earlier one, the mask drops every token that closes it
// and keeps those that go on, as the reference does.
func TestUniqueItemsAnyValueMask(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	g, _, err := jsonschema.Compile([]byte(`{"type":"array","uniqueItems":true}`), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
	require.NoError(t, err)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	bm := mask.NewBitmask(1, voc.Size())
	allowed := func(m *mask.Matcher, s string) bool {
		id, ok := voc.TokenID(s)
		require.True(t, ok, s)
		return bm.Row(0)[id>>5]&(1<<(id&31)) != 0
	}
	for _, tc := range []struct {
		prefix        string
		closing, more []string
	}{
		{`[{"a":[1,{"b":null}]},{"a":[1,{"b":null}]`, []string{`}`, `}]`, `},`}, []string{`,"`}},
		{`[[1,"x"],[1.0,"x"`, []string{`]`, `]]`, `],`}, []string{`,`}},
		{`[{},{`, []string{`}`, `}]`}, []string{`"`}},
	} {
		m := c.NewMatcher()
		require.NoError(t, m.AcceptText(tc.prefix))
		require.NoError(t, m.FillBitmask(bm, 0))
		assert.Empty(t, masktest.DiffRows(m, bm.Row(0), masktest.ReferenceMask(m)), tc.prefix)
		for _, s := range tc.closing {
			assert.False(t, allowed(m, s), "%s then %q closes an earlier value", tc.prefix, s)
		}
		for _, s := range tc.more {
			assert.True(t, allowed(m, s), "%s then %q goes on", tc.prefix, s)
		}
	}
}

// TestUniqueItemsMaskMatchesReference decodes with random logits under
// each schema and compares every mask with the reference, which tries
// each token on a fork of the matcher (AcceptToken: the automaton and the
// run together). Every walk must end (no dead end) in a document the
// schema's validator accepts.
func TestUniqueItemsMaskMatchesReference(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	seeds := 6
	if testing.Short() || race.Enabled {
		seeds = 2
	}
	for _, schema := range uniqueWalkSchemas {
		g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
		require.NoError(t, err, schema)
		c, err := mask.Compile(g, voc, mask.Options{})
		require.NoError(t, err)
		for seed := range seeds {
			m := c.NewMatcher()
			rng := rand.New(rand.NewPCG(uint64(seed), 7))
			doc, err := masktest.Walk(m, rng, 30, 0.05, func(step int, out []byte, row []uint32) error {
				if d := masktest.DiffRows(m, row, masktest.ReferenceMask(m)); d != "" {
					return fmt.Errorf("step %d after %q: %s", step, out, d)
				}
				return nil
			})
			require.NoError(t, err, "%s seed %d", schema, seed)
			ok, err := jsonschema.Validate([]byte(schema), doc, jsonschema.Options{})
			require.NoError(t, err)
			require.True(t, ok, "%s: %s", schema, doc)
		}
	}
}

// TestUniqueItemsRollbackAndFork decodes under distinct-items schemas,
// often taking again a token taken a few steps before, keeping every mask;
// then it checks that masks inside the arrays allocate nothing once warm,
// that rolling back token by token gives every earlier mask again, and
// that a fork taken halfway decodes the rest as the original does.
func TestUniqueItemsRollbackAndFork(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	for i, schema := range uniqueWalkSchemas {
		g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
		require.NoError(t, err, schema)
		c, err := mask.Compile(g, voc, mask.Options{})
		require.NoError(t, err)
		m := c.NewMatcher()
		bm := mask.NewBitmask(1, c.VocabSize())
		rng := rand.New(rand.NewPCG(uint64(i), 11))
		require.NoError(t, m.FillBitmask(bm, 0))
		masks := [][]uint32{slices.Clone(bm.Row(0))}
		var ids []int
		for len(ids) < 60 {
			// Allowed ordinary tokens; those that close an array only when
			// nothing else is allowed, so that arrays grow.
			var ok, closing []int
			for w, word := range bm.Row(0) {
				for ; word != 0; word &= word - 1 {
					id := w<<5 | bits.TrailingZeros32(word)
					switch b := voc.Bytes(id); {
					case voc.IsSpecial(id) || len(b) == 0:
					case bytes.IndexByte(b, ']') >= 0:
						closing = append(closing, id)
					default:
						ok = append(ok, id)
					}
				}
			}
			if len(ok) == 0 {
				ok = closing
			}
			if len(ok) == 0 {
				break
			}
			id := ok[rng.IntN(len(ok))]
			if k := len(ids) - 1 - rng.IntN(8); k >= 0 && rng.IntN(2) == 0 && bm.Allowed(0, ids[k]) {
				id = ids[k]
			}
			require.True(t, m.AcceptToken(id), "%s: %q then %q", schema, tokensText(c, ids), voc.Bytes(id))
			ids = append(ids, id)
			require.NoError(t, m.FillBitmask(bm, 0))
			masks = append(masks, slices.Clone(bm.Row(0)))
		}
		t.Logf("%s: %q", schema, tokensText(c, ids))
		allocs := testing.AllocsPerRun(20, func() { _ = m.FillBitmask(bm, 0) })
		assert.Zero(t, allocs, "%s: a warm mask allocates", schema)
		replay := func(m *mask.Matcher, from int) {
			for k := from; k < len(ids); k++ {
				require.True(t, m.AcceptToken(ids[k]), "%s: token %d", schema, k)
				require.NoError(t, m.FillBitmask(bm, 0))
				require.Equal(t, masks[k+1], bm.Row(0), "%s: mask after token %d", schema, k)
			}
		}
		for k := len(ids) - 1; k >= 0; k-- {
			require.NoError(t, m.Rollback(1))
			require.NoError(t, m.FillBitmask(bm, 0))
			require.Equal(t, masks[k], bm.Row(0), "%s: mask after rolling back to %d tokens", schema, k)
		}
		replay(m, 0)
		require.NoError(t, m.Rollback(len(ids)-len(ids)/2))
		f := m.Fork()
		replay(f, len(ids)/2)
		replay(m, len(ids)/2)
	}
}

func tokensText(c *mask.Compiled, ids []int) string {
	var b []byte
	for _, id := range ids {
		b = append(b, c.Vocab().Bytes(id)...)
	}
	return string(b)
}
