package oracle_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/oracle"
)

// jsonGrammar is JSON (RFC 8259) written by hand in the IR: left-recursive
// member lists, a repeat of elements, a regex for numbers, code-point classes
// for string characters.
func jsonGrammar() *grammar.Grammar {
	const (
		root = iota
		value
		object
		members
		member
		array
		element
		str
		ws
	)
	lit := grammar.Lit
	call := grammar.Call
	hex := grammar.Chars(false, rng('0', '9'), rng('a', 'f'), rng('A', 'F'))
	char := grammar.Or(
		grammar.Chars(true, rng(0, 0x1F), rng('"', '"'), rng('\\', '\\')),
		grammar.Cat(lit(`\`), grammar.Or(grammar.Chars(false, rng('"', '"'), rng('\\', '\\'), rng('/', '/'), rng('b', 'b'), rng('f', 'f'), rng('n', 'n'), rng('r', 'r'), rng('t', 't')),
			grammar.Cat(lit("u"), grammar.Rep(hex, 4, 4)))),
	)
	return &grammar.Grammar{Root: root, Rules: []grammar.Rule{
		root:  {Name: "root", Body: grammar.Cat(call(ws), call(value), call(ws))},
		value: {Name: "value", Body: grammar.Or(call(object), call(array), call(str), re(`-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?`), lit("true"), lit("false"), lit("null"))},
		// object ::= "{" ws "}" | "{" members "}"
		object: {Name: "object", Body: grammar.Or(grammar.Cat(lit("{"), call(ws), lit("}")), grammar.Cat(lit("{"), call(members), lit("}")))},
		// members ::= member | members "," member
		members: {Name: "members", Body: grammar.Or(call(member), grammar.Cat(call(members), lit(","), call(member)))},
		member:  {Name: "member", Body: grammar.Cat(call(ws), call(str), call(ws), lit(":"), call(element))},
		array:   {Name: "array", Body: grammar.Or(grammar.Cat(lit("["), call(ws), lit("]")), grammar.Cat(lit("["), call(element), grammar.Rep(grammar.Cat(lit(","), call(element)), 0, -1), lit("]")))},
		element: {Name: "element", Body: grammar.Cat(call(ws), call(value), call(ws))},
		str:     {Name: "string", Body: grammar.Cat(lit(`"`), grammar.Rep(char, 0, -1), lit(`"`))},
		ws:      {Name: "ws", Body: grammar.Rep(grammar.Chars(false, rng(' ', ' '), rng('\t', '\t'), rng('\n', '\n'), rng('\r', '\r')), 0, -1)},
	}}
}

// validJSON is what the grammar must accept: encoding/json's syntax, where
// strings must also be valid UTF-8.
func validJSON(s string) bool { return json.Valid([]byte(s)) && utf8.ValidString(s) }

var jsonSamples = []string{
	`0`, `-0`, `12`, `-3.25e+10`, `1E5`, `0.5`, `true`, `false`, `null`, `""`, `"a"`,
	`"\u00e9\n\t\"\\\/\b\f\r"`, `"日本語😀"`, ` [ ] `, `{}`, "\t{ }\r\n", `[1,2,3]`, `[[[]]]`,
	`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`, `{ "k" : [ 1 , { "x" : -0.0e-0 } ] }`,
	`[{"a":[{"b":[{"c":[]}]}]}]`, `"\uD83D\uDE00"`,
	// invalid
	``, ` `, `01`, `-`, `1.`, `.5`, `1e`, `+1`, `0x10`, `tru`, `nul`, `True`, `"`, `"\x"`, `"\u12"`, `"\u12G4"`,
	"\"tab\there\"", `[1,]`, `[,1]`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{,}`, `{a:1}`, `[1 2]`, `{"a":1 "b":2}`,
	`[`, `]`, `{"a":[}`, `"unterminated`, `1 1`, `[]]`, `{}}`, `'a'`, "\"\x01\"", "\"\xff\"", "\"\xe6\x97\"",
}

func TestJSONGrammarSamples(t *testing.T) {
	g := jsonGrammar()
	for _, s := range jsonSamples {
		ok, err := oracle.Accepts(g, []byte(s))
		require.NoError(t, err)
		assert.Equal(t, validJSON(s), ok, "%q", s)
	}
}

// randomJSON writes a random JSON value with random whitespace.
func randomJSON(rng *rand.Rand, b *strings.Builder, depth int) {
	ws := func() {
		for rng.IntN(4) == 0 {
			b.WriteByte(" \t\n\r"[rng.IntN(4)])
		}
	}
	strs := []string{`""`, `"a"`, `"key"`, `"\"q\""`, `"\u00E9t\u00e9"`, `"日本"`, `"😀 \\ \/ \b\f\n\r\t"`}
	nums := []string{`0`, `-1`, `42`, `3.14`, `-0.5e-3`, `6E+2`, `10e1`}
	kind := rng.IntN(7)
	if depth == 0 {
		kind = 2 + rng.IntN(5)
	}
	switch kind {
	case 0:
		b.WriteByte('{')
		ws()
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			b.WriteString(strs[rng.IntN(len(strs))])
			ws()
			b.WriteByte(':')
			ws()
			randomJSON(rng, b, depth-1)
			ws()
		}
		b.WriteByte('}')
	case 1:
		b.WriteByte('[')
		ws()
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			ws()
			randomJSON(rng, b, depth-1)
			ws()
		}
		b.WriteByte(']')
	case 2:
		b.WriteString(strs[rng.IntN(len(strs))])
	case 3:
		b.WriteString(nums[rng.IntN(len(nums))])
	default:
		b.WriteString([]string{"true", "false", "null"}[kind-4])
	}
}

// TestJSONGrammarRandom compares the grammar with encoding/json on random
// documents and on random one-byte edits of them; every prefix of a valid
// document must be viable.
func TestJSONGrammarRandom(t *testing.T) {
	g := jsonGrammar()
	fresh, err := oracle.New(g)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 5))
	edits := []byte("{}[],:\"\\ 0-.eE+atrufnl\x00\x80\xff")
	valid, invalid := 0, 0
	for range 300 {
		var b strings.Builder
		randomJSON(rng, &b, 4)
		doc := b.String()
		require.True(t, validJSON(doc), doc)
		docs := []string{doc}
		for range 5 {
			i := rng.IntN(len(doc) + 1)
			c := string(edits[rng.IntN(len(edits))])
			switch rng.IntN(3) {
			case 0: // insert
				docs = append(docs, doc[:i]+c+doc[i:])
			case 1: // replace
				if i < len(doc) {
					docs = append(docs, doc[:i]+c+doc[i+1:])
				}
			case 2: // delete
				if i < len(doc) {
					docs = append(docs, doc[:i]+doc[i+1:])
				}
			}
		}
		for _, s := range docs {
			want := validJSON(s)
			r := fresh.Clone()
			for i := range len(s) {
				if !r.Feed([]byte{s[i]}) {
					require.False(t, want, "%q: prefix %q of a valid document is not viable", s, s[:i+1])
					break
				}
			}
			require.Equal(t, want, r.Complete(), "%q", s)
			if want {
				valid++
			} else {
				invalid++
			}
		}
	}
	t.Logf("%d valid, %d invalid documents", valid, invalid)
	assert.Greater(t, invalid, 300)
}

func TestJSONGrammarDeepNesting(t *testing.T) {
	g := jsonGrammar()
	for _, n := range []int{1, 10, 200} {
		open, closed := strings.Repeat(`[{"a":`, n), strings.Repeat(`}]`, n)
		ok, err := oracle.Accepts(g, []byte(open+"1"+closed))
		require.NoError(t, err)
		assert.True(t, ok, n)
		ok, err = oracle.Accepts(g, []byte(open+"1"+closed[1:]))
		require.NoError(t, err)
		assert.False(t, ok, n)
		ok, err = oracle.ViablePrefix(g, []byte(open))
		require.NoError(t, err)
		assert.True(t, ok, n)
	}
}
