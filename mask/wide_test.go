package mask

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
)

// wideGrammars have wide nodes of every kind: the inside of strings with
// escapes; keys that must not be one of their object's names; counted
// strings, short and long (chains of positions, with and without a
// minimum); unanchored patterns (a closure of many states); character
// classes that take some multi-byte characters and not others (Japanese);
// loops that may end the rule after any byte (a number's digits, free
// text); and rules that call rules.
func wideGrammars(t *testing.T) map[string]*grammar.Grammar {
	t.Helper()
	grammars := map[string]*grammar.Grammar{"json": grammar.JSON()}
	for _, schema := range []string{
		`{"type":"object","properties":{"uuid":{"type":"string","pattern":"[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}"},"title":{"type":"string","maxLength":40}}}`,
		`{"type":"object","properties":{"name":{"type":"string","minLength":3,"maxLength":20},"email":{"type":"string","format":"email"},"address":{"type":"string"},"age":{"type":"number"}}}`,
		`{"type":"array","items":{"type":"string","minLength":2,"maxLength":30}}`,
		`{"type":"string","maxLength":300}`,
		`{"type":"object","properties":{"n":{"type":"integer"},"tags":{"type":"array","items":{"enum":["red","green","日本"]}},"d":{"type":"string","format":"date-time"}}}`,
		`{"type":"string","pattern":"^[А-Яа-я ]+$"}`,
		`{"type":"object","patternProperties":{"^x-[a-z]+$":{"type":"string"}},"additionalProperties":false}`,
		// ECMAScript's "." counts a character outside the Basic
		// Multilingual Plane as two: its positions take the others alike.
		`{"type":"object","patternProperties":{"^.{1,40}$":{}}}`,
		`{"type":"string","pattern":"^.{2,30}$"}`,
		// Unanchored: a closure of 164 states, every one alive.
		`{"type":"string","pattern":"[a-zA-Z0-9_-]{162}"}`,
		// Counted and unanchored: each position leads on with a digit seen
		// or not (layerSet); a phone number's count of some characters.
		`{"type":"object","properties":{"clientId":{"type":"string","minLength":12,"maxLength":12,"pattern":"[0-9a-fA-F]+"},"phone":{"type":"string","pattern":"^$|^\\+?([\\d\\s()-]){9,20}$"}}}`,
		// Unanchored alternatives, and keys that must not contain some
		// words: states that refuse the closing quote, or one letter,
		// and that most bytes lead to.
		`{"type":"object","properties":{"flag":{"type":"string","pattern":"^alpha|beta|rc|stable$"}},"patternProperties":{"net_[a-z]+[0-9]+":{"type":"integer"}}}`,
		`{"type":"object","properties":{"path":{"type":"string","pattern":"^file:.+\\.km[lz]$"},"words":{"type":"string","pattern":"^[\\S]+(\\s[\\S]+)?$"}}}`,
		`{"type":"string","pattern":"^(\\s*|((\\s*[^,:&\\s]+\\s*:[^,:&]*)(,\\s*[^,:&\\s]+\\s*:[^,:&]*)*))$"}`,
		`{"type":"string","pattern":"^[^@^\\s]+@[^@^\\.^\\s]+(\\.[^@^\\.^\\s]*)*.gov.uk"}`,
	} {
		g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
		require.NoError(t, err, schema)
		grammars[schema] = g
	}
	for _, src := range []string{
		`root ::= "<think>" %text -("</think>") "</think>" [a-z ]* "!"`,
		`root ::= item ("," item)*
item ::= "'" [^'\\]* "'" | [0-9]+`,
	} {
		g, err := grammar.ParseGBNF(src, "root", grammar.Limits{})
		require.NoError(t, err, src)
		grammars[src] = g
	}
	src, err := os.ReadFile(filepath.Join(datadir.Root(), "testdata", "gbnf", "llama.cpp", "grammars", "japanese.gbnf"))
	require.NoError(t, err)
	g, err := grammar.ParseGBNF(string(src), "root", grammar.Limits{})
	require.NoError(t, err)
	grammars["japanese.gbnf"] = g
	return grammars
}

// eachWideNode runs classify at every wide node of every grammar, a walk
// reset to the node, and checks each classification it gives against the
// reference. It returns how many wide nodes there were and how many
// classify took.
func eachWideNode(t *testing.T, grammars map[string]*grammar.Grammar, voc *vocabIndex, classify func(a *walkDFA, n int32, stride int) (*nodeIndex, bool)) (wide, taken int) {
	t.Helper()
	stride := WordsPerRow(voc.size)
	for gname, g := range grammars {
		p, err := pda.Compile(g, grammar.Limits{})
		require.NoError(t, err, gname)
		st := pda.NewState(p)
		for n := int32(0); n < int32(p.NumNodes()); n++ {
			if !p.HasBytes(n) || !isWide(p, voc, n) {
				continue
			}
			wide++
			a := walkPool.Get()
			a.reset(p, n)
			x, ok := classify(a, n, stride)
			walkPool.Put(a)
			if !ok {
				continue
			}
			taken++
			assertSameIndex(t, voc, classifyStack(p, voc, n, st, stride), x, fmt.Sprintf("%s node %d", gname, n))
		}
	}
	return wide, taken
}

// TestClassifyWide checks the classification of wide nodes from the
// vocabulary's rows (classifyWide) against the reference, every token run
// through the pushdown state, at every wide node of grammars of every
// kind, on byte-level and byte-fallback vocabularies; and that it takes
// most wide nodes, so that the check is not empty.
func TestClassifyWide(t *testing.T) {
	grammars := wideGrammars(t)
	names := vocabtest.Available("gpt2", "llama3", "qwen3", "mistral")
	if race.Enabled || testing.Short() {
		names = names[:1] // make test runs it in full without the detector
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			voc := indexVocab(vocabtest.Load(t, name))
			wide, taken := eachWideNode(t, grammars, voc, func(a *walkDFA, n int32, stride int) (*nodeIndex, bool) {
				return a.classifyWide(voc, n, stride, false)
			})
			t.Logf("%d wide nodes, %d classified from rows", wide, taken)
			assert.Greater(t, 2*taken, wide, "most wide nodes are classified from rows")
		})
	}
}

// stringInside compiles schema, a string's, and returns Llama-3's index,
// the program and the node after the string's opening quote.
func stringInside(t *testing.T, schema string) (*vocabIndex, *pda.Program, int32) {
	t.Helper()
	p := schemaProgram(t, schema)
	return indexVocab(vocabtest.Load(t, "llama3")), p, p.Next(p.Rules[0].Start, '"')
}

// schemaProgram compiles a JSON Schema's pushdown automaton.
func schemaProgram(t *testing.T, schema string) *pda.Program {
	t.Helper()
	g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
	require.NoError(t, err)
	p, err := pda.Compile(g, grammar.Limits{})
	require.NoError(t, err)
	return p
}

// TestClassifyLongUnanchoredCount checks that the positions inside an
// unanchored count of 162 characters (any string that has 162 word
// characters in a row) are classified from rows: their closure, counts 0
// to 162, takes every byte inside a string, so only the tokens with a
// quote or a backslash are walked, not the trie (about 120,000 steps).
func TestClassifyLongUnanchoredCount(t *testing.T) {
	voc, p, n := stringInside(t, `{"type":"string","pattern":"[a-zA-Z0-9_-]{162}"}`)
	stride := WordsPerRow(voc.size)
	st := pda.NewState(p)
	for k := range 170 {
		require.GreaterOrEqual(t, n, int32(0), "after %d characters", k)
		if k%40 == 1 {
			x, work := classify(p, voc, n, st, stride)
			assert.Less(t, work, 20_000, "after %d characters", k)
			assertSameIndex(t, voc, classifyStack(p, voc, n, st, stride), x, fmt.Sprintf("after %d characters", k))
		}
		n = p.Next(n, 'a')
	}
}

// TestClassifyUnanchoredPatterns checks every wide node of strings whose
// patterns keep most positions alive on nearly every byte against the
// reference, and that none is classified by a walk of the trie (117,000
// to 220,000 steps on Llama-3; the positions of "file:" take about 30,000):
//   - must contain one of some words (an unanchored alternation): the
//     state with nothing matched refuses only the closing quote, and most
//     bytes lead to it, so safe cuts the quote, not the way in;
//   - must end in a suffix after ECMAScript's ".", which refuses U+2028
//     and U+2029: safe keeps the characters of every other lead byte than
//     theirs (E2), so that only the tokens with those, a quote or a
//     backslash are walked;
//   - two words: inside the first, a space leads to the second, and
//     about half of the vocabulary starts with one; classifyThrough takes
//     those tokens by their bytes after the space (apartRun);
//   - "key: value" pairs: inside a key, a white space character leads to
//     the space before the colon, which refuses letters; safe cuts the
//     lead bytes of those characters (C2, E1-E3, EF), not every one;
//   - an address ending in ".gov.uk", unanchored, whose "." is any
//     character: a space leads to a state that takes only "g", so only
//     the tokens " g..." are walked of those that start with a space;
//   - a timestamp, unanchored: after k characters a position may be in
//     any of k+1 places of a partial match, so layerSet's layers grow by
//     a state a character (16,400 steps when a layer held at most 8);
//   - up to 50 words: a layer holds the places in a word and in the
//     space after it that k characters reach (118,000 steps when a layer
//     held at most 8).
func TestClassifyUnanchoredPatterns(t *testing.T) {
	voc := indexVocab(vocabtest.Load(t, "llama3"))
	for _, tc := range []struct {
		pattern string
		most    int // steps of the costliest node
	}{
		{`^alpha|beta|rc|stable$`, 40_000},
		{`^file:.+\\.km[lz]$`, 40_000},
		{`^[\\S]+(\\s[\\S]+)?$`, 40_000},
		{`^(\\s*|((\\s*[^,:&\\s]+\\s*:[^,:&]*)(,\\s*[^,:&\\s]+\\s*:[^,:&]*)*))$`, 40_000},
		{`^[^@^\\s]+@[^@^\\.^\\s]+(\\.[^@^\\.^\\s]*)*.gov.uk`, 40_000},
		{`\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}.\\d{6}`, 10_000},
		{`^(?:\\S+\\s+){0,49}\\S+$`, 60_000},
	} {
		pattern := tc.pattern
		p := schemaProgram(t, `{"type":"object","properties":{"flag":{"type":"string","pattern":"`+pattern+`"}}}`)
		stride := WordsPerRow(voc.size)
		st := pda.NewState(p)
		checked := 0
		for n := int32(0); n < int32(p.NumNodes()); n++ {
			if !p.HasBytes(n) || !strings.HasPrefix(p.Rules[p.RuleOf(n)].Name, "properties-flag") || !isWide(p, voc, n) {
				continue
			}
			checked++
			x, work := classify(p, voc, n, st, stride)
			assert.Less(t, work, tc.most, "%s: node %d", pattern, n)
			assertSameIndex(t, voc, classifyStack(p, voc, n, st, stride), x, fmt.Sprintf("%s: node %d", pattern, n))
		}
		assert.Greater(t, checked, 1, "%s: the pattern's positions", pattern)
	}
}

// TestClassifyPatternKeys checks every wide node of the keys of an object
// whose patternProperties are unanchored and partly incompatible (a key
// spelling both "netdir_work" and "net_a1" must be an object of two
// required properties and of one only) against the reference, and that
// most are classified cheaply, each rule's first position among them. Each
// key rule refuses the keys some other pattern matches, and some keys
// altogether, which only a long string spells: safe cuts the underscore,
// which every match passes, and walks the 1,400 tokens with one, a quote
// or a backslash. Cutting the way into the refusing state, a letter, left
// a third of Llama-3 to walk: 95 of the 373 positions took under 40,000
// steps (248 now), and two rules' first positions 72,655 and 125,559.
func TestClassifyPatternKeys(t *testing.T) {
	voc := indexVocab(vocabtest.Load(t, "llama3"))
	p := schemaProgram(t, `{"type":"object","patternProperties":{`+
		`"netdir_(projects|work|scratch|share)":{"$ref":"#/$defs/dir"},"netdrv_([a-z]+)":{"$ref":"#/$defs/drv"},"net_[a-z]+[0-9]+":{"$ref":"#/$defs/drv"}},`+
		`"$defs":{"dir":{"type":"object","properties":{"name":{"type":"string"},"type":{"enum":["work","home"]}},"required":["name","type"],"additionalProperties":false},`+
		`"drv":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}}}`)
	stride := WordsPerRow(voc.size)
	st := pda.NewState(p)
	checked, cheap := 0, 0
	for n := int32(0); n < int32(p.NumNodes()); n++ {
		r := p.Rules[p.RuleOf(n)]
		if !p.HasBytes(n) || !strings.HasPrefix(r.Name, "key") || !isWide(p, voc, n) {
			continue
		}
		checked++
		x, work := classify(p, voc, n, st, stride)
		if work < 40_000 {
			cheap++
		}
		if n == p.Next(r.Start, '"') {
			assert.Less(t, work, 30_000, "the first position of %s", r.Name)
		}
		assertSameIndex(t, voc, classifyStack(p, voc, n, st, stride), x, fmt.Sprintf("node %d of %s", n, r.Name))
	}
	t.Logf("%d of %d key positions classified in under 40,000 steps", cheap, checked)
	assert.Greater(t, checked, 100, "the keys' positions")
	assert.Greater(t, 2*cheap, checked, "most key positions are classified from rows")
}

// TestClassifyCountedUnanchored checks the positions of a string of
// exactly 12 characters with a hex digit somewhere against the reference.
// Each position leads every character to the next one, with or without a
// digit seen, so the first is classified from rows (layerSet): only the
// tokens of 12 characters, and those with a backslash, are walked, not
// the trie (about 148,000 steps).
func TestClassifyCountedUnanchored(t *testing.T) {
	voc, p, n := stringInside(t, `{"type":"string","minLength":12,"maxLength":12,"pattern":"[0-9a-fA-F]+"}`)
	stride := WordsPerRow(voc.size)
	st := pda.NewState(p)
	for k := range 12 {
		require.GreaterOrEqual(t, n, int32(0), "after %d characters", k)
		x, work := classify(p, voc, n, st, stride)
		if k == 0 {
			assert.Less(t, work, 30_000)
		}
		assertSameIndex(t, voc, classifyStack(p, voc, n, st, stride), x, fmt.Sprintf("after %d characters", k))
		n = p.Next(n, 'z')
	}
}

// TestClassifyWorkOwn checks that a classification's work is its own: the
// walk kept from the program's previous classification does not add
// that one's steps to it. (The second walk knows the first one's states
// and loops, so it may take fewer steps, never more.)
func TestClassifyWorkOwn(t *testing.T) {
	voc, p, n := stringInside(t, `{"type":"string","pattern":"^[0-9]{3}-[0-9]{4}$"}`)
	stride := WordsPerRow(voc.size)
	st := pda.NewState(p)
	require.False(t, isWide(p, voc, n), "a node the trie walk classifies")
	_, first := classify(p, voc, n, st, stride)
	_, again := classify(p, voc, n, st, stride)
	assert.Positive(t, again)
	assert.LessOrEqual(t, again, first)
}

// TestPlanCommonByte checks that plan gives up on a set of bytes one of
// whose walked bytes alone is inside more tokens than classifyThrough would
// walk ('e', in about a third of Llama-3's), before a list of the tokens
// with the walked bytes is built (a pass over the vocabulary), and keeps a
// set whose walked bytes are rare. The set is a string's inside less one
// byte.
func TestPlanCommonByte(t *testing.T) {
	voc := indexVocab(vocabtest.Load(t, "llama3"))
	g, _, err := jsonschema.Compile([]byte(`{"type":"string"}`), jsonschema.Options{})
	require.NoError(t, err)
	p, err := pda.Compile(g, grammar.Limits{})
	require.NoError(t, err)
	n := int32(-1)
	for _, r := range p.Rules {
		if r.Name == "string" {
			n = p.Next(r.Start, '"')
		}
	}
	require.GreaterOrEqual(t, n, int32(0))
	a := takeWalk(p, n)
	defer putWalk(p, a)
	inside := a.safe(a.start).ascii
	for _, tc := range []struct {
		drop byte
		ok   bool
	}{{'~', true}, {'e', false}} {
		w := wideSet{ascii: inside, chars: allChars, states: []int32{a.start}, limit: -1}
		w.ascii.Remove(tc.drop)
		assert.Equal(t, tc.ok, a.plan(voc, &w), "without %q: %d tokens have it after their first byte", tc.drop, voc.WithByteInside(tc.drop))
	}
}

// TestLayerSetMatchesReference classifies every wide node of wideGrammars,
// and of rules that may end along a count, through layerSet's set wherever
// it has one (whether or not classifyWide would choose it), and checks the
// classification against the reference on Llama-3. A token longer than the
// layers that leaves a rule on the way (two characters, or four and a
// "!", then the caller's) must be walked, not refused.
func TestLayerSetMatchesReference(t *testing.T) {
	grammars := wideGrammars(t)
	for _, src := range []string{
		`root ::= id [a-z]* "!"
id ::= [a-z0-9]{1,8}`,
		`root ::= hex "-" [a-z]+
hex ::= [0-9a-f]{4} | [0-9a-z]{2,6}`,
		`root ::= x [^!]* "!"
x ::= [^!]{2} | [^!]{4} "!"`,
	} {
		g, err := grammar.ParseGBNF(src, "root", grammar.Limits{})
		require.NoError(t, err, src)
		grammars[src] = g
	}
	voc := indexVocab(vocabtest.Load(t, "llama3"))
	_, taken := eachWideNode(t, grammars, voc, func(a *walkDFA, _ int32, stride int) (*nodeIndex, bool) {
		w, ok := a.layerSet(a.start)
		if !ok || !a.plan(voc, &w) {
			return nil, false
		}
		return a.classifyThrough(voc, &w, stride, false)
	})
	t.Logf("%d wide nodes classified through layers", taken)
	assert.Positive(t, taken)
}

// TestClassifyResettingCount checks the positions of a key that must not
// hold 32 hex digits in a row (patternProperties "[0-9a-f]{32}", and any
// other key) against the reference. A position leads a hex digit to the
// next count and any other character back to the first, so no chain or
// closure holds, and the trie walk classifies it; from the counts whose
// layers take every byte for a while, layerCovers takes whole subtrees
// without walking them (246,222 steps at the costliest position before,
// `o78130`).
func TestClassifyResettingCount(t *testing.T) {
	voc := indexVocab(vocabtest.Load(t, "llama3"))
	p := schemaProgram(t, `{"type":"object","patternProperties":{"[0-9a-f]{32}":{"type":"integer"}}}`)
	stride := WordsPerRow(voc.size)
	st := pda.NewState(p)
	checked := 0
	for n := int32(0); n < int32(p.NumNodes()); n++ {
		if !p.HasBytes(n) || p.Rules[p.RuleOf(n)].Name != "key" || !isWide(p, voc, n) {
			continue
		}
		checked++
		x, work := classify(p, voc, n, st, stride)
		assert.Less(t, work, 120_000, "node %d", n)
		assertSameIndex(t, voc, classifyStack(p, voc, n, st, stride), x, fmt.Sprintf("node %d", n))
	}
	assert.Greater(t, checked, 30, "the key's positions")
}

// TestClassifyWideCheap checks that a cheap classification (cheapIndex,
// for a node that a union of nodes would classify otherwise) walks only
// where a set is clearly good. In up to 50 words, some positions' layers
// leave tens of thousands of steps to walk: a middling set, which
// classifyWide takes on its own and which a cheap classification leaves,
// without a step, to the union, whose one walk serves every node in it.
func TestClassifyWideCheap(t *testing.T) {
	p := schemaProgram(t, `{"type":"string","pattern":"^(?:\\S+\\s+){0,49}\\S+$"}`)
	voc := indexVocab(vocabtest.Load(t, "llama3"))
	stride := WordsPerRow(voc.size)
	middling := 0
	for n := int32(0); n < int32(p.NumNodes()); n++ {
		if !p.HasBytes(n) || !isWide(p, voc, n) {
			continue
		}
		a := takeWalk(p, n)
		_, cheap := a.classifyWide(voc, n, stride, true)
		cheapWork := a.work
		require.True(t, a.begin(n))
		_, ok := a.classifyWide(voc, n, stride, false)
		putWalk(p, a)
		if ok && !cheap {
			middling++
			assert.Zero(t, cheapWork, "node %d: a cheap classification that gives up walks nothing", n)
		}
	}
	assert.Positive(t, middling, "positions with a middling set")
}
