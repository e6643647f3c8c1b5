package mask_test

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/maskstate"
	"github.com/reinlm/rein/internal/masktest"
	"github.com/reinlm/rein/internal/oracle"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// realWorldRegexes are the patterns the oracle and random-decoding tests run.
var realWorldRegexes = []struct{ name, pattern string }{
	{"email", `[a-zA-Z0-9._%+-]{1,20}@[a-zA-Z0-9-]{1,20}(\.[a-zA-Z0-9-]{1,10}){0,2}\.[a-zA-Z]{2,6}`},
	{"iso-datetime", `\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)`},
	{"ipv4", `((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)`},
	{"phone", `\+?1?[ -]?\(?\d{3}\)?[ -]?\d{3}-\d{4}`},
	{"float", `-?(0|[1-9]\d{0,15})(\.\d{1,10})?([eE][+-]?\d{1,3})?`},
	{"uuid", `[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`},
	{"hex-color", `#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})`},
	{"semver", `(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?`},
	{"url", `https?://[a-z0-9-]{1,30}(\.[a-z0-9-]{1,30}){1,3}(/[a-zA-Z0-9_.~-]{1,20}){0,4}`},
	{"mac", `([0-9A-F]{2}:){5}[0-9A-F]{2}`},
	{"words", `\p{Lu}\p{Ll}{0,12}( \p{Ll}{1,12}){0,5}\.`},
	{"yes-no", `(?i)(yes|no|maybe)`},
}

// anyOrderSchemas are objects whose declared properties come in any order
// (jsonschema.OrderAuto): an open one, whose key positions offer the names
// left and any other key, and a closed one with property counts.
var anyOrderSchemas = []struct{ name, schema string }{
	{"any order, open", `{"type":"object","properties":{"name":{"type":"string","maxLength":8},"names":{"type":"array","items":{"type":"integer"},"maxItems":3},"n":{"type":"boolean"},"id":{"type":"integer"}},"required":["name","id"]}`},
	{"any order, counted", `{"type":"object","properties":{"a":{"enum":["x","y"]},"ab":{"type":"boolean"},"b":{"type":"null"},"c":{"type":"integer"}},"minProperties":2,"maxProperties":3,"additionalProperties":false}`},
}

var gbnfFiles = []string{"json.gbnf", "c.gbnf", "arithmetic.gbnf", "japanese.gbnf"}

func loadGBNF(t testing.TB, name string) *grammar.Grammar {
	src, err := os.ReadFile(datadir.Shared(t, "gbnf", "llama.cpp", "grammars", name))
	require.NoError(t, err)
	g, err := grammar.ParseGBNF(string(src), "root", grammar.Limits{})
	require.NoError(t, err, name)
	return g
}

type testGrammar struct {
	name  string
	g     *grammar.Grammar
	valid func([]byte) bool // an independent check of a finished output
}

func testGrammars(t testing.TB) []testGrammar {
	var out []testGrammar
	for _, f := range gbnfFiles {
		g := loadGBNF(t, f)
		valid := func(b []byte) bool { ok, err := oracle.Accepts(g, b); return err == nil && ok }
		if f == "json.gbnf" {
			valid = func(b []byte) bool { return json.Valid(b) }
		}
		out = append(out, testGrammar{f, g, valid})
	}
	for _, sc := range anyOrderSchemas {
		g, _, err := jsonschema.Compile([]byte(sc.schema), jsonschema.Options{})
		require.NoError(t, err, sc.name)
		schema := []byte(sc.schema)
		out = append(out, testGrammar{sc.name, g, func(b []byte) bool {
			ok, err := jsonschema.Validate(schema, b, jsonschema.Options{})
			return err == nil && ok
		}})
	}
	for _, r := range realWorldRegexes {
		g, err := grammar.FromRegex(r.pattern, grammar.Limits{})
		require.NoError(t, err, r.name)
		re := regexp.MustCompile(`^(?:` + r.pattern + `)$`)
		out = append(out, testGrammar{r.name, g, re.Match})
	}
	return out
}

// TestMaskMatchesReference compares FillBitmask with the reference (every
// token's bytes tried on a fork) at every step of random-logit walks, on
// three real vocabularies (GPT-2's embedded one where none is present).
// Equality is soundness and completeness at once.
func TestMaskMatchesReference(t *testing.T) {
	walks, maxTokens := 3, 24
	if race.Enabled || testing.Short() {
		walks, maxTokens = 1, 6
	}
	for _, vname := range vocabtest.Available("llama3", "qwen3", "mistral") {
		voc := vocabtest.Load(t, vname)
		for _, tg := range testGrammars(t) {
			t.Run(vname+"/"+tg.name, func(t *testing.T) {
				c, err := mask.Compile(tg.g, voc, mask.Options{})
				require.NoError(t, err)
				rng := rand.New(rand.NewPCG(1, uint64(len(tg.name))))
				for w := 0; w < walks; w++ {
					m := c.NewMatcher()
					out, err := masktest.Walk(m, rng, maxTokens, 0.2, func(step int, _ []byte, row []uint32) error {
						if d := masktest.DiffRows(m, row, masktest.ReferenceMask(m)); d != "" {
							return fmt.Errorf("step %d: %s", step, d)
						}
						return nil
					})
					require.NoError(t, err, "walk %d", w)
					assert.True(t, tg.valid(out), "output %q is not valid", out)
				}
			})
		}
	}
}

// TestMaskAgreesWithEarley checks, on walks over json.gbnf and c.gbnf, that
// every allowed token keeps the text a viable prefix for an independent
// Earley recognizer and that a sample of refused tokens does not.
func TestMaskAgreesWithEarley(t *testing.T) {
	voc := vocabtest.Core(t)
	walks, maxTokens := 4, 20
	if race.Enabled || testing.Short() {
		walks, maxTokens = 1, 8
	}
	for _, name := range []string{"json.gbnf", "c.gbnf", "arithmetic.gbnf"} {
		t.Run(name, func(t *testing.T) { agreeWithEarley(t, loadGBNF(t, name), voc, walks, maxTokens) })
	}
}

// TestLeftRecursiveGrammarsAgreeWithEarley compiles left-recursive
// grammars, which the automaton runs rewritten (grammar.RemoveLeftRecursion),
// and checks their masks against the Earley recognizer of the grammar as
// written, on Llama-3.
func TestLeftRecursiveGrammarsAgreeWithEarley(t *testing.T) {
	voc := vocabtest.Core(t)
	walks, maxTokens := 6, 30
	if race.Enabled || testing.Short() {
		walks, maxTokens = 2, 10
	}
	for _, tc := range []struct{ name, src string }{
		{"arithmetic", `root ::= expr
expr ::= expr ws [-+] ws term | term
term ::= term ws [*/] ws factor | factor
factor ::= "(" ws expr ws ")" | "-" factor | [0-9]+ ("." [0-9]+)?
ws ::= " "?`},
		{"list", `root ::= "[" list "]"
list ::= list ", " item | item
item ::= [a-z]+ | "'" [a-z ]* "'"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := grammar.ParseGBNF(tc.src, "root", grammar.Limits{})
			require.NoError(t, err)
			agreeWithEarley(t, g, voc, walks, maxTokens)
		})
	}
}

// agreeWithEarley decodes g with random logits and, at every step, checks
// up to 400 tokens (every allowed one first, a sample of the refused) against
// the Earley recognizer of g: a token is allowed exactly when it leaves the
// recognizer viable.
func agreeWithEarley(t *testing.T, g *grammar.Grammar, voc *tokenizer.Vocab, walks, maxTokens int) {
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(7, 7))
	for w := 0; w < walks; w++ {
		m := c.NewMatcher()
		rec, err := oracle.New(g)
		require.NoError(t, err)
		var text []byte
		out, err := masktest.Walk(m, rng, maxTokens, 0.1, func(step int, out []byte, row []uint32) error {
			// Catch up the recognizer with what the walk accepted.
			if !rec.Feed(out[len(text):]) {
				return fmt.Errorf("Earley refuses %q, which the walk produced", out)
			}
			text = append(text[:0], out...)
			checked := 0
			for id := 0; id < voc.Size() && checked < 400; id++ {
				allowed := row[id>>5]&(1<<(uint(id)&31)) != 0
				if voc.IsSpecial(id) || (!allowed && rng.IntN(200) != 0) {
					continue
				}
				checked++
				r := rec.Clone()
				viable := r.Feed(voc.Bytes(id))
				if viable != allowed {
					return fmt.Errorf("step %d, token %d %q after %q: mask says %v, Earley says %v", step, id, voc.Bytes(id), text, allowed, viable)
				}
			}
			return nil
		})
		require.NoError(t, err)
		r, err := oracle.New(g)
		require.NoError(t, err)
		r.Feed(out)
		require.True(t, r.Complete(), "Earley refuses the finished %q", out)
	}
}

// TestRandomDecoding decodes many sequences with random logits under the
// mask; every output must be valid by an independent check.
func TestRandomDecoding(t *testing.T) {
	runs := 1000
	if race.Enabled || testing.Short() {
		runs = 30
	}
	voc := vocabtest.Core(t)
	for _, tg := range testGrammars(t) {
		t.Run(tg.name, func(t *testing.T) {
			c, err := mask.Compile(tg.g, voc, mask.Options{})
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(3, uint64(len(tg.name))))
			m := c.NewMatcher()
			for r := 0; r < runs; r++ {
				m.Reset()
				out, err := masktest.Walk(m, rng, 16, 0.3, nil)
				require.NoError(t, err, "run %d", r)
				require.True(t, m.IsTerminated())
				require.True(t, tg.valid(out), "run %d: output %q is not valid", r, out)
			}
		})
	}
}

// TestRollbackProperty accepts k tokens, rolls back k, and compares the mask,
// termination and byte depth with what they were.
func TestRollbackProperty(t *testing.T) {
	voc := vocabtest.Core(t)
	g := loadGBNF(t, "json.gbnf")
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(11, 12))
	bm := mask.NewBitmask(2, voc.Size())
	for trial := 0; trial < 40; trial++ {
		m := c.NewMatcher()
		_, err := masktest.Walk(m, rng, rng.IntN(12), 0, nil)
		require.NoError(t, err)
		require.NoError(t, m.Rollback(1)) // undo the stop token
		require.False(t, m.IsTerminated())
		before := maskstate.Of(m).Depth()
		require.NoError(t, m.FillBitmask(bm, 0))
		k := 1 + rng.IntN(6)
		accepted := 0
		for i := 0; i < k; i++ {
			require.NoError(t, m.FillBitmask(bm, 1))
			n := bm.Count(1)
			if n == 0 {
				break
			}
			id := nth(bm.Row(1), rng.IntN(n))
			require.True(t, m.AcceptToken(id))
			accepted++
			if m.IsTerminated() {
				break
			}
		}
		require.NoError(t, m.Rollback(accepted))
		require.NoError(t, m.FillBitmask(bm, 1))
		assert.Equal(t, bm.Row(0), bm.Row(1), "trial %d: mask differs after rollback of %d", trial, accepted)
		assert.Equal(t, before, maskstate.Of(m).Depth())
		assert.False(t, m.IsTerminated())
	}
	m := c.NewMatcher()
	assert.ErrorIs(t, m.Rollback(1), mask.ErrRollback)
}

func nth(row []uint32, k int) int {
	for i, w := range row {
		n := bits.OnesCount32(w)
		if k >= n {
			k -= n
			continue
		}
		for {
			j := bits.TrailingZeros32(w)
			if k == 0 {
				return 32*i + j
			}
			k--
			w &^= 1 << j
		}
	}
	return -1
}

func TestStopAndSpecialTokens(t *testing.T) {
	voc := vocabtest.Core(t)
	g, err := grammar.FromRegex(`ab?`, grammar.Limits{})
	require.NoError(t, err)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	m := c.NewMatcher()
	bm := mask.NewBitmask(1, voc.Size())
	require.NoError(t, m.FillBitmask(bm, 0))
	for _, s := range voc.StopTokens() {
		assert.False(t, bm.Allowed(0, s), "stop token allowed before the grammar may end")
		assert.False(t, m.AcceptToken(s))
	}
	require.True(t, m.AcceptString("a"))
	require.NoError(t, m.FillBitmask(bm, 0))
	for _, s := range voc.StopTokens() {
		assert.True(t, bm.Allowed(0, s), "stop token refused where the grammar may end")
	}
	for id := 0; id < voc.Size(); id++ {
		if voc.IsSpecial(id) && !isStop(voc, id) {
			assert.False(t, bm.Allowed(0, id), "special token %d allowed", id)
			assert.False(t, m.AcceptToken(id))
		}
	}
	stop := voc.StopTokens()[0]
	require.True(t, m.AcceptToken(stop))
	assert.True(t, m.IsTerminated())
	require.NoError(t, m.FillBitmask(bm, 0))
	assert.Zero(t, bm.Count(0))
	assert.False(t, m.AcceptToken(stop))
	require.NoError(t, m.Rollback(1))
	assert.False(t, m.IsTerminated())
}

// BytesToEnd counts what is left to complete the output, and is 0 once the
// grammar may end or has ended.
func TestBytesToEnd(t *testing.T) {
	voc := vocabtest.Core(t)
	g, err := grammar.FromRegex(`abc(de)?`, grammar.Limits{})
	require.NoError(t, err)
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	m := c.NewMatcher()
	assert.Equal(t, 3, m.BytesToEnd())
	require.True(t, m.AcceptString("a"))
	assert.Equal(t, 2, m.BytesToEnd())
	require.True(t, m.AcceptString("bc"))
	assert.Zero(t, m.BytesToEnd())
	require.True(t, m.AcceptString("d"))
	assert.Equal(t, 1, m.BytesToEnd())
	require.NoError(t, m.Rollback(1))
	require.True(t, m.AcceptToken(voc.StopTokens()[0]))
	assert.Zero(t, m.BytesToEnd())
}

// Options.Limits reach every stage: the automaton's size at compile time,
// and the token walk, whose bound changes how a mask is built, never what it
// holds.
func TestOptionsLimits(t *testing.T) {
	voc := vocabtest.Core(t)
	_, err := mask.Compile(grammar.JSON(), voc, mask.Options{Limits: grammar.Limits{TotalStates: 10}})
	require.ErrorIs(t, err, grammar.ErrLimit)
	assert.Contains(t, err.Error(), "Limits.TotalStates")

	want, err := mask.Compile(grammar.JSON(), voc, mask.Options{})
	require.NoError(t, err)
	got, err := mask.Compile(grammar.JSON(), voc, mask.Options{Limits: grammar.Limits{WalkStates: 2}})
	require.NoError(t, err)
	mw, mg := want.NewMatcher(), got.NewMatcher()
	bw, bg := mask.NewBitmask(1, voc.Size()), mask.NewBitmask(1, voc.Size())
	for _, s := range []string{"", `{"`, `a": [1, `, `"x\u00`, `e9"], "b": {`} {
		require.True(t, mw.AcceptString(s) && mg.AcceptString(s), "%q", s)
		require.NoError(t, mw.FillBitmask(bw, 0))
		require.NoError(t, mg.FillBitmask(bg, 0))
		assert.Equal(t, bw.Row(0), bg.Row(0), "after %q", s)
	}
}

func isStop(v *tokenizer.Vocab, id int) bool {
	for _, s := range v.StopTokens() {
		if s == id {
			return true
		}
	}
	return false
}

// TestHotPathDoesNotAllocate pins zero allocations for FillBitmask and
// AcceptToken once the visited nodes are indexed.
func TestHotPathDoesNotAllocate(t *testing.T) {
	voc := vocabtest.Core(t)
	c, err := mask.Compile(loadGBNF(t, "json.gbnf"), voc, mask.Options{})
	require.NoError(t, err)
	enc, err := voc.Encoder()
	require.NoError(t, err)
	ids := enc.Encode(`{"name": "rein", "tags": ["a", "b"], "n": -12.5e3, "ok": true}`)
	m := c.NewMatcher()
	bm := mask.NewBitmask(1, voc.Size())
	run := func() { decodeIDs(m, bm, ids) }
	run()
	assert.Zero(t, testing.AllocsPerRun(20, run))
}

// decodeIDs resets m and decodes ids, filling the mask before each: the
// loop the allocation tests measure. It panics on an error or a refusal.
func decodeIDs(m *mask.Matcher, bm *mask.Bitmask, ids []int) {
	m.Reset()
	for _, id := range ids {
		if err := m.FillBitmask(bm, 0); err != nil {
			panic(err)
		}
		if !m.AcceptToken(id) {
			panic("refused")
		}
	}
}
