package jumpforward_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/maskstate"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/jumpforward"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

const houses = `{"type":"object","properties":{
	"name":{"type":"string"},
	"house":{"enum":["Gryffindor","Hufflepuff","Ravenclaw","Slytherin"]},
	"year":{"type":"integer"}},
	"required":["name","house","year"],"additionalProperties":false}`

func schemaGrammar(ws jsonschema.Whitespace) func(t *testing.T, src string) *grammar.Grammar {
	return func(t *testing.T, src string) *grammar.Grammar {
		g, _, err := jsonschema.Compile([]byte(src), jsonschema.Options{Whitespace: ws, Order: jsonschema.OrderDeclared})
		require.NoError(t, err)
		return g
	}
}

func gbnfGrammar(t *testing.T, src string) *grammar.Grammar {
	g, err := grammar.ParseGBNF(src, "root", grammar.Limits{})
	require.NoError(t, err)
	return g
}

func regexGrammar(t *testing.T, src string) *grammar.Grammar {
	g, err := grammar.FromRegex(src, grammar.Limits{})
	require.NoError(t, err)
	return g
}

func compile(t testing.TB, g *grammar.Grammar, voc *tokenizer.Vocab) (*mask.Compiled, *jumpforward.Forwarder) {
	c, err := mask.Compile(g, voc, mask.Options{})
	require.NoError(t, err)
	fw, err := jumpforward.New(c, jumpforward.Options{})
	require.NoError(t, err)
	return c, fw
}

// TestForced pins the forced strings of the front-ends: what every
// continuation starts with, and nothing where a branch or the end may come.
func TestForced(t *testing.T) {
	compact, flexible := schemaGrammar(jsonschema.WhitespaceCompact), schemaGrammar(jsonschema.WhitespaceFlexible)
	const sql = `root ::= "SELECT " cols " FROM " table ";"
cols ::= "*" | col ("," col)*
col ::= "id" | "name" | "nickname"
table ::= "users" | "user_groups"`
	tests := []struct {
		name    string
		grammar func(*testing.T, string) *grammar.Grammar
		src     string
		prefix  string
		forced  string
	}{
		{"object start", compact, houses, ``, `{"name":"`},
		{"next property", compact, houses, `{"name":"Harry"`, `,"house":"`},
		{"enum after its first letter", compact, houses, `{"name":"Harry","house":"G`, `ryffindor","year":`},
		{"enum branch", compact, houses, `{"name":"Harry","house":"`, ``},
		{"inside a string", compact, houses, `{"name":"Har`, ``},
		{"number may go on", compact, houses, `{"name":"H","house":"Slytherin","year":7`, ``},
		{"object end", compact, `{"type":"object","properties":{"a":{"type":"boolean"}},"required":["a"],"additionalProperties":false}`, `{"a":true`, `}`},
		{"const", compact, `{"const":{"kind":"point","dims":[1,2]}}`, ``, `{"kind":"point","dims":[1,2]}`},
		{"const string", compact, `{"type":"object","properties":{"v":{"const":"1.0"},"x":{"type":"number"}},"required":["v","x"],"additionalProperties":false}`, ``, `{"v":"1.0","x":`},
		{"optional property", compact, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["b"],"additionalProperties":false}`, `{"`, ``},
		{"enum with a shared prefix", compact, `{"enum":["alpha","alphabet"]}`, `"`, `alpha`},
		{"utf-8 shared lead byte", compact, `{"enum":["é","ê"]}`, `"`, "\xc3"},
		{"utf-8 whole characters", compact, `{"enum":["日本","中国"]}`, `"日`, `本"`},
		{"flexible whitespace: a space may come", flexible, houses, `{`, ``},
		{"flexible whitespace: inside a key", flexible, houses, `{"n`, `ame"`},
		{"gbnf literal", gbnfGrammar, sql, ``, `SELECT `},
		{"gbnf literal after a rule", gbnfGrammar, sql, `SELECT *`, ` FROM user`},
		{"gbnf branch", gbnfGrammar, sql, `SELECT `, ``},
		{"gbnf shared prefix across rules", gbnfGrammar, sql, `SELECT * FROM u`, `ser`},
		{"gbnf literal to the end", gbnfGrammar, sql, `SELECT id FROM user_`, `groups;`},
		{"gbnf rule may end or go on", gbnfGrammar, sql, `SELECT id`, ``},
		{"gbnf literal inside a rule", gbnfGrammar, sql, `SELECT n`, ``},
		{"gbnf literal after a choice", gbnfGrammar, sql, `SELECT ni`, `ckname`},
		{"regex literal", regexGrammar, `(INFO|WARN) \[[a-z]+\] done`, `W`, `ARN [`},
		{"regex end possible", regexGrammar, `ab(cd)?`, `ab`, ``},
		{"regex forced to the end", regexGrammar, `ab(cd)?`, `abc`, `d`},
		{"regex class", regexGrammar, `id-[0-9]{3}`, ``, `id-`},
	}
	voc := vocabtest.Core(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fw := compile(t, tt.grammar(t, tt.src), voc)
			m := c.NewMatcher()
			require.True(t, m.AcceptString(tt.prefix))
			depth := maskstate.Of(m).Depth()
			assert.Equal(t, tt.forced, string(fw.Forced(m)))
			assert.Equal(t, depth, maskstate.Of(m).Depth(), "Forced leaves the matcher as it was")
			assert.Equal(t, 1, m.NumTokens())
		})
	}
}

func strs(voc *tokenizer.Vocab, ids []int) []string {
	out := []string{}
	for _, id := range ids {
		out = append(out, string(voc.Bytes(id)))
	}
	return out
}

// TestNext pins re-tokenization on Llama-3: the tokens appended, the
// accepted tokens they replace, and the forced bytes left to the model
// because they could merge with what it writes next.
func TestNext(t *testing.T) {
	compact := schemaGrammar(jsonschema.WhitespaceCompact)
	tests := []struct {
		name     string
		grammar  func(*testing.T, string) *grammar.Grammar
		src      string
		history  []string // tokens the model wrote
		rollback int
		tokens   []string
	}{
		// `":"` would become `":""` before an empty string: left out.
		{"object start", compact, houses, nil, 0, []string{`{"`, `name`}},
		// The model's `"` becomes part of `","`.
		{"rollback", compact, houses, []string{`{"`, `name`, `":"`, `Harry`, `"`}, 1, []string{`","`, `house`}},
		// Some token goes on from `":"` with a house's first letter.
		{"before an enum", compact, houses, []string{`{"`, `name`, `":"`, `Harry`, `","`}, 0, []string{`house`}},
		{"inside an enum", compact, houses, []string{`{"`, `name`, `":"`, `Harry`, `","`, `house`, `":"`, `G`}, 0, []string{`ry`, `ff`, `ind`, `or`, `","`, `year`}},
		// Only the end may follow: nothing can merge.
		{"to the end", compact, `{"type":"object","properties":{"a":{"type":"boolean"}},"required":["a"],"additionalProperties":false}`, []string{`{"`, `a`, `":`, `true`}, 0, []string{`}`}},
		// The model's `xy` becomes `xyz`; `"` may become `",` or `"}`.
		{"merge into the model's token", compact, `{"type":"object","properties":{"a":{"enum":["xyz"]},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`, []string{`{"`, `a`, `":"`, `xy`}, 1, []string{`xyz`}},
		// `"` may become `",` or `"}`, and `"` is all that is forced.
		{"nothing stays", compact, `{"type":"object","properties":{"a":{"enum":["xyz"]},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`, []string{`{"`, `a`, `":"`, `xyz`}, 0, []string{}},
		{"regex", regexGrammar, `(INFO|WARN) \[(db|web)\] done`, []string{`W`}, 1, []string{`WARN`}},
	}
	voc := vocabtest.Load(t, "llama3")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, fw := compile(t, tt.grammar(t, tt.src), voc)
			m := c.NewMatcher()
			var hist []int
			for _, s := range tt.history {
				id, ok := voc.TokenID(s)
				require.True(t, ok, s)
				require.True(t, m.AcceptToken(id), s)
				hist = append(hist, id)
			}
			forced := string(fw.Forced(m))
			jf := fw.Next(m, hist)
			assert.Equal(t, forced, string(jf.Forced))
			assert.Equal(t, tt.rollback, jf.Rollback)
			assert.Equal(t, tt.tokens, strs(voc, jf.Tokens))
			assert.Equal(t, len(tt.tokens) == 0, jf.Empty())

			// The matcher took the step: it stands where a fresh one fed
			// the new sequence stands.
			seq := append(hist[:len(hist)-jf.Rollback:len(hist)-jf.Rollback], jf.Tokens...)
			require.Equal(t, len(seq), m.NumTokens())
			fresh := c.NewMatcher()
			text := ""
			for _, id := range seq {
				require.True(t, fresh.AcceptToken(id))
				text += string(voc.Bytes(id))
			}
			assert.Equal(t, maskstate.Of(fresh).Depth(), maskstate.Of(m).Depth())
			assert.ElementsMatch(t, maskstate.Of(fresh).Tops(), maskstate.Of(m).Tops())
			old := ""
			for _, s := range tt.history {
				old += s
			}
			assert.LessOrEqual(t, len(old), len(text))
			assert.Equal(t, old+forced[:len(text)-len(old)], text, "the sequence spells the old text and forced bytes")

			// Asked again before the model writes, it has nothing to add.
			assert.True(t, fw.Next(m, seq).Empty())
			assert.Equal(t, len(seq), m.NumTokens())
		})
	}
}

// TestNextAppendOnly: an append-only Forwarder never replaces a token the
// engine has; where the canonical encoding would, it appends nothing and
// leaves the matcher as it was, and once the model has written the
// merging token it appends the rest.
func TestNextAppendOnly(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	c, err := mask.Compile(schemaGrammar(jsonschema.WhitespaceCompact)(t, houses), voc, mask.Options{})
	require.NoError(t, err)
	fw, err := jumpforward.New(c, jumpforward.Options{AppendOnly: true})
	require.NoError(t, err)
	m := c.NewMatcher()
	ids := func(ss ...string) []int {
		var out []int
		for _, s := range ss {
			id, ok := voc.TokenID(s)
			require.True(t, ok, s)
			out = append(out, id)
		}
		return out
	}
	accept := func(seq []int, ss ...string) []int {
		for _, id := range ids(ss...) {
			require.True(t, m.AcceptToken(id))
			seq = append(seq, id)
		}
		return seq
	}

	jf := fw.Next(m, nil)
	assert.Equal(t, 0, jf.Rollback)
	assert.Equal(t, []string{`{"`, `name`}, strs(voc, jf.Tokens), "a step that replaces nothing is taken as before")
	m.Reset()
	seq := accept(nil, `{"`, `name`, `":"`, `Harry`, `"`) // as the model wrote it

	jf = fw.Next(m, seq)
	assert.True(t, jf.Empty(), "the canonical step replaces the model's `\"`: nothing is appended")
	assert.Equal(t, `,"house":"`, string(jf.Forced))
	assert.Equal(t, len(seq), m.NumTokens(), "the matcher is left as it was")

	m.Reset()
	seq = accept(nil, `{"`, `name`, `":"`, `Harry`, `","`) // the model wrote the merged token
	jf = fw.Next(m, seq)
	assert.Equal(t, 0, jf.Rollback)
	assert.Equal(t, []string{`house`}, strs(voc, jf.Tokens))
	assert.Equal(t, len(seq)+1, m.NumTokens())

	// The model left the Encoder's tokenization (`"` then `,"`): the rest
	// is encoded from the end of the sequence, still without a rollback.
	m.Reset()
	seq = accept(nil, `{"`, `name`, `":"`, `Harry`, `"`, `,"`)
	jf = fw.Next(m, seq)
	assert.Equal(t, 0, jf.Rollback)
	assert.Equal(t, []string{`house`}, strs(voc, jf.Tokens))
	assert.Equal(t, len(seq)+1, m.NumTokens())
}

// TestNextTerminated: after a stop token nothing is forced.
func TestNextTerminated(t *testing.T) {
	voc := vocabtest.Core(t)
	c, fw := compile(t, regexGrammar(t, `ab`), voc)
	m := c.NewMatcher()
	id, _ := voc.TokenID("ab")
	require.True(t, m.AcceptToken(id))
	require.True(t, m.AcceptToken(voc.StopTokens()[0]))
	assert.True(t, fw.Next(m, []int{id, voc.StopTokens()[0]}).Empty())
	assert.Empty(t, fw.Forced(m))
}

// TestNextHistoryLongerThanMatcher: extra history before the matcher's
// first token (a prompt) is ignored.
func TestNextHistoryLongerThanMatcher(t *testing.T) {
	voc := vocabtest.Core(t)
	c, fw := compile(t, schemaGrammar(jsonschema.WhitespaceCompact)(t, houses), voc)
	m := c.NewMatcher()
	prompt, _ := voc.TokenID("Hello")
	jf := fw.Next(m, []int{prompt, prompt})
	assert.Equal(t, 0, jf.Rollback)
	assert.Equal(t, []string{`{"`, `name`}, strs(voc, jf.Tokens))
}

// TestPackageNext: the one-call form does what a Forwarder does.
func TestPackageNext(t *testing.T) {
	voc := vocabtest.Core(t)
	c, fw := compile(t, schemaGrammar(jsonschema.WhitespaceCompact)(t, houses), voc)
	m1, m2 := c.NewMatcher(), c.NewMatcher()
	a, b := fw.Next(m1, nil), jumpforward.Next(m2, nil)
	assert.Equal(t, a.Rollback, b.Rollback)
	assert.Equal(t, a.Tokens, b.Tokens)
	assert.Equal(t, m1.NumTokens(), m2.NumTokens())
}

// TestNextAllocs: a step where nothing is forced allocates nothing.
func TestNextAllocs(t *testing.T) {
	voc := vocabtest.Core(t)
	c, fw := compile(t, schemaGrammar(jsonschema.WhitespaceCompact)(t, houses), voc)
	m := c.NewMatcher()
	var hist []int
	for _, s := range []string{`{"`, `name`, `":"`, `Har`} {
		id, _ := voc.TokenID(s)
		require.True(t, m.AcceptToken(id))
		hist = append(hist, id)
	}
	require.True(t, fw.Next(m, hist).Empty())
	assert.Zero(t, testing.AllocsPerRun(100, func() { fw.Next(m, hist) }))
}

// TestMaxBytes: a forced string cut short is treated as going on with its
// next forced byte, which tokens such as `"name` could take in.
func TestMaxBytes(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	c, err := mask.Compile(schemaGrammar(jsonschema.WhitespaceCompact)(t, houses), voc, mask.Options{})
	require.NoError(t, err)
	for _, tt := range []struct {
		max    int
		forced string
		tokens []string
	}{
		{3, `{"n`, []string{}},
		{9, `{"name":"`, []string{`{"`, `name`}},
	} {
		fw, err := jumpforward.New(c, jumpforward.Options{MaxBytes: tt.max})
		require.NoError(t, err)
		m := c.NewMatcher()
		assert.Equal(t, tt.forced, string(fw.Forced(m)))
		assert.Equal(t, tt.tokens, strs(voc, fw.Next(m, nil).Tokens))
	}
}
