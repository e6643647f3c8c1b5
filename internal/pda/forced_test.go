package pda

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/byteset"
)

func byteSet(bs string) byteset.Set {
	var s byteset.Set
	for i := 0; i < len(bs); i++ {
		s.Add(bs[i])
	}
	return s
}

func TestForced(t *testing.T) {
	lit, cat, or, rep, call := grammar.Lit, grammar.Cat, grammar.Or, grammar.Rep, grammar.Call
	digit := grammar.Chars(false, grammar.RuneRange{Lo: '0', Hi: '9'})
	tests := []struct {
		name   string
		g      *grammar.Grammar
		prefix string
		forced string
		next   string // the bytes that may follow
		end    bool   // the grammar may end after forced
	}{
		{"literal", rules("root", lit("abc")), "", "abc", "", true},
		{"literal, midway", rules("root", lit("abc")), "a", "bc", "", true},
		{"common prefix", rules("root", or(lit("abx"), lit("aby"))), "", "ab", "xy", false},
		{"branch first", rules("root", or(lit("x"), lit("y"))), "", "", "xy", false},
		{"end possible", rules("root", cat(lit("a"), rep(lit("b"), 0, 1))), "a", "", "b", true},
		{"end possible later", rules("root", cat(lit("ab"), rep(lit("c"), 0, 1))), "", "ab", "c", true},
		{"into a call", rules("root", cat(lit("<"), call(1), lit(">")), "n", cat(lit("#"), rep(digit, 1, 2))), "", "<#", "0123456789", false},
		{"out of a call", rules("root", cat(lit("<"), call(1), lit(">;")), "n", rep(digit, 1, 2)), "<12", ">;", "", true},
		{"return with a choice", rules("root", cat(lit("<"), call(1), lit(">")), "n", rep(digit, 1, 2)), "<1", "", "0123456789>", false},
		{"nested returns", rules("root", cat(call(1), lit("!")), "a", cat(lit("("), call(2), lit(")")), "b", lit("x")), "(", "x)!", "", true},
		{"both stacks agree", rules("root", or(cat(call(1), lit("z")), cat(call(2), lit("z"))), "a", lit("pq"), "b", lit("pr")), "", "p", "qr", false},
		{"both stacks agree after return", rules("root", or(cat(call(1), lit("!z")), cat(call(2), lit("!z"))), "a", lit("q"), "b", rep(lit("q"), 1, 2)), "q", "", "!q", false},
		{"ambiguous, same bytes", rules("root", cat(or(call(1), call(2)), lit(";")), "a", lit("key"), "b", lit("key")), "", "key;", "", true},
		{"utf-8 lead", rules("root", or(lit("é"), lit("ê"))), "", "\xc3", "\xa9\xaa", false},
		{"utf-8 whole", rules("root", lit("日本")), "", "日本", "", true},
		{"after the end", rules("root", lit("ab")), "ab", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Compile(tt.g, grammar.Limits{})
			require.NoError(t, err)
			st := NewState(p)
			require.True(t, st.AdvanceBytes([]byte(tt.prefix)))
			depth, tops := st.Depth(), append([]Top(nil), st.Tops()...)
			forced, next, end := st.Forced(nil, 100)
			assert.Equal(t, tt.forced, string(forced))
			assert.Equal(t, byteSet(tt.next), next)
			assert.Equal(t, tt.end, end)
			assert.Equal(t, depth, st.Depth(), "state left as it was")
			assert.ElementsMatch(t, tops, st.Tops())
		})
	}
}

func TestForcedMax(t *testing.T) {
	p, err := Compile(rules("root", grammar.Cat(grammar.Lit("abcdef"), grammar.Rep(grammar.Lit("g"), 0, 1))), grammar.Limits{})
	require.NoError(t, err)
	st := NewState(p)
	for max, want := range []string{"", "a", "ab", "abc"} {
		forced, next, end := st.Forced(nil, max)
		assert.Equal(t, want, string(forced))
		assert.Equal(t, byteSet("abcdef"[max:max+1]), next, "the next forced byte")
		assert.False(t, end)
	}
}

// forcedByDefinition follows the definition: while the grammar may not end
// and exactly one byte can be taken, take it.
func forcedByDefinition(st *State, max int) (string, byteset.Set, bool) {
	c := st.Clone()
	var out []byte
	for {
		var next byteset.Set
		for b := 0; b < 256; b++ {
			if c.Advance(byte(b)) {
				next[b>>6] |= 1 << (b & 63)
				c.Rollback(c.Depth() - 1)
			}
		}
		if c.CanEnd() || next.Len() != 1 || len(out) == max {
			return string(out), next, c.CanEnd()
		}
		b, _ := next.First()
		c.Advance(b)
		out = append(out, b)
	}
}

// TestForcedRandom compares Forced with its definition along random byte
// walks through grammars with calls, returns, ambiguity and UTF-8.
func TestForcedRandom(t *testing.T) {
	var gs []*grammar.Grammar
	for _, schema := range []string{
		`{"type":"object","properties":{"name":{"type":"string"},"house":{"enum":["Gryffindor","Hufflepuff","Ravenclaw","Slytherin"]},"age":{"type":"integer"}},"required":["name","house"]}`,
		`{"type":"array","items":{"type":"object","properties":{"id":{"const":"fixed-id"},"tags":{"type":"array","items":{"enum":["alpha","alphabet","beta"]}}},"required":["id","tags"]}}`,
		`{"anyOf":[{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number"}},"required":["kind","r"]},{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}]}`,
	} {
		for _, ws := range []jsonschema.Whitespace{jsonschema.WhitespaceCompact, jsonschema.WhitespaceFlexible} {
			g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{Whitespace: ws, MaxIndent: 2})
			require.NoError(t, err)
			gs = append(gs, g)
		}
	}
	for _, src := range []string{
		`root ::= "say " greeting " to " name "."
greeting ::= "hello" | "help me"
name ::= [a-z]+ | "日本"`,
		`root ::= (call ";")+
call ::= "f(" args ")"
args ::= arg ("," arg)*
arg ::= "x" | "xy" | call`,
	} {
		g, err := grammar.ParseGBNF(src, "root", grammar.Limits{})
		require.NoError(t, err)
		gs = append(gs, g)
	}
	g, err := grammar.FromRegex(`(INFO|WARN|ERROR) \[[a-z]{2,5}\] (done|failed: [0-9]+)`, grammar.Limits{})
	require.NoError(t, err)
	gs = append(gs, g)

	rng := rand.New(rand.NewPCG(4, 4))
	for gi, g := range gs {
		p, err := Compile(g, grammar.Limits{})
		require.NoError(t, err)
		for walk := 0; walk < 20; walk++ {
			st := NewState(p)
			for step := 0; step < 200; step++ {
				max := 1 + rng.IntN(64)
				want, wantNext, wantEnd := forcedByDefinition(st, max)
				depth := st.Depth()
				forced, next, end := st.Forced(nil, max)
				require.Equal(t, want, string(forced), "grammar %d walk %d step %d", gi, walk, step)
				require.Equal(t, wantNext, next, "grammar %d walk %d step %d after %q", gi, walk, step, forced)
				require.Equal(t, wantEnd, end)
				require.Equal(t, depth, st.Depth())
				all := st.NextBytes()
				if all.Len() == 0 || (st.CanEnd() && rng.IntN(8) == 0) {
					break
				}
				k := rng.IntN(all.Len())
				for b := 0; b < 256; b++ {
					if all.Has(byte(b)) {
						if k == 0 {
							require.True(t, st.Advance(byte(b)))
							break
						}
						k--
					}
				}
			}
		}
	}
}

// TestRulePath checks the table against the bytes one stack would be forced
// to take inside its rule.
func TestRulePath(t *testing.T) {
	g, err := grammar.ParseGBNF(`root ::= "{" ws "\"name\":" str "}"
ws ::= " "?
str ::= "\"" [a-z]* "\""`, "root", grammar.Limits{})
	require.NoError(t, err)
	p, err := Compile(g, grammar.Limits{})
	require.NoError(t, err)
	for n := int32(0); n < int32(p.NumNodes()); n++ {
		var want []byte
		for u := n; !p.final[u] && len(p.calls[u]) == 0; {
			fb := *p.FirstBytes(u)
			if fb.Len() != 1 {
				break
			}
			b, _ := fb.First()
			want = append(want, b)
			u = p.Next(u, b)
		}
		assert.Equal(t, string(want), string(p.rulePath(n)), "node %d", n)
	}
	assert.Nil(t, p.rulePath(-1))
	assert.Nil(t, p.rulePath(int32(p.NumNodes())))
}

func TestForcedAllocs(t *testing.T) {
	g, _, err := jsonschema.Compile([]byte(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"const":"bbb"}},"required":["b"],"additionalProperties":false}},"required":["a"],"additionalProperties":false}`), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact})
	require.NoError(t, err)
	p, err := Compile(g, grammar.Limits{})
	require.NoError(t, err)
	st := NewState(p)
	buf := make([]byte, 0, 64)
	forced, _, _ := st.Forced(buf, 64)
	require.Equal(t, `{"a":{"b":"bbb"}}`, string(forced))
	allocs := testing.AllocsPerRun(100, func() { st.Forced(buf, 64) })
	assert.Zero(t, allocs)
}
