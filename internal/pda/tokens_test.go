package pda

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
)

// containsAny is the obvious definition OpText is checked against.
func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func TestTextExcludes(t *testing.T) {
	tests := [][]string{
		{"<tool_call>"},
		{"ab", "b"},
		{"aab", "ab"},
		{"é世", "世a"},
		{"a"},
		{},
	}
	alphabet := []string{"a", "b", "<", "é", "世", "x"}
	for _, ex := range tests {
		g := &grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Text(ex...)}}}
		p, err := Compile(g, grammar.Limits{})
		require.NoError(t, err, "%q", ex)
		// Every string of up to 5 pieces: accepted exactly when it holds no
		// exclude; a prefix is always viable (a text may end anywhere).
		var rec func(s string, n int)
		rec = func(s string, n int) {
			st := NewState(p)
			ok := st.AdvanceBytes([]byte(s)) && st.CanEnd()
			assert.Equal(t, !containsAny(s, ex), ok, "excludes %q, text %q", ex, s)
			if n == 0 {
				return
			}
			for _, a := range alphabet {
				rec(s+a, n-1)
			}
		}
		rec("", 5)
		st := NewState(p)
		assert.False(t, st.AdvanceBytes([]byte("a\xffb")), "0xFF is never text")
		assert.False(t, st.AdvanceBytes([]byte("\xed\xa0\x80")), "no surrogates")
	}
	long := strings.Repeat("<tool_call>", 1000)
	g := &grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Text("<tool_call>", "</think>")}}}
	p, err := Compile(g, grammar.Limits{})
	require.NoError(t, err)
	st := NewState(p)
	assert.True(t, st.AdvanceBytes([]byte(long[:10])), "a trigger's proper prefix is text")
	assert.True(t, st.CanEnd())
	assert.False(t, st.Advance('>'))
}

func TestTokenClasses(t *testing.T) {
	a, b := grammar.Token("<a>"), grammar.TokenIDs(7)
	// root ::= "x" (<a> | <[7]>) "y" | <[7]> "z"
	b2 := grammar.TokenIDs(7)
	g := &grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Or(
		grammar.Cat(grammar.Lit("x"), grammar.Or(a, b), grammar.Lit("y")),
		grammar.Cat(b2, grammar.Lit("z")),
	)}}}
	_, err := Compile(g, grammar.Limits{})
	require.ErrorIs(t, err, grammar.ErrUnsupported, "token terminals need classes")

	classes := TokenClasses{a: {3}, b: {300}, b2: {300}}
	p, err := CompileTokens(context.Background(), g, grammar.Limits{}, classes)
	require.NoError(t, err)
	require.True(t, p.HasTokens())
	st := NewState(p)
	var got []int
	st.TokenClasses(func(k int) { got = append(got, k) })
	assert.Equal(t, []int{300}, got)
	require.True(t, st.Advance('x'))
	got = got[:0]
	st.TokenClasses(func(k int) { got = append(got, k) })
	assert.Equal(t, []int{3, 300}, got)
	d := st.Depth()
	assert.False(t, st.AdvanceToken(4))
	assert.Equal(t, d, st.Depth(), "a refused class leaves the state")
	assert.False(t, st.Advance(grammar.ReservedByte), "Advance never takes the escape")
	require.True(t, st.AdvanceToken(3))
	assert.True(t, st.Advance('y'))
	assert.True(t, st.CanEnd())

	st.Reset()
	require.True(t, st.AdvanceToken(300))
	assert.True(t, st.Advance('z'))
	assert.True(t, st.CanEnd())

	// A grammar without token terminals has no classes.
	plain, err := Compile(&grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Lit("x")}}}, grammar.Limits{})
	require.NoError(t, err)
	assert.False(t, plain.HasTokens())
	assert.False(t, NewState(plain).AdvanceToken(0))
}

// TestAdvanceEither: a token that is both text and a token terminal's keeps
// both readings, so what either allows next is allowed.
func TestAdvanceEither(t *testing.T) {
	tok := grammar.TokenIDs(9)
	// root ::= <[9]> "A" | "</t>" "B" | "</t>"
	g := &grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Or(
		grammar.Cat(tok, grammar.Lit("A")),
		grammar.Cat(grammar.Lit("</t>"), grammar.Lit("B")),
		grammar.Lit("</t>"),
	)}}}
	p, err := CompileTokens(context.Background(), g, grammar.Limits{}, TokenClasses{tok: {7}})
	require.NoError(t, err)
	st := NewState(p)
	require.True(t, st.AdvanceEither([]byte("</t>"), 7))
	assert.True(t, st.CanEnd(), "as text, the third branch")
	next := st.NextBytes()
	assert.True(t, next.Has('A'), "as the token")
	assert.True(t, next.Has('B'), "as text")
	d := st.Depth()
	require.True(t, st.Advance('A'))
	assert.True(t, st.CanEnd())
	st.Rollback(d)
	require.True(t, st.Advance('B'))
	st.Rollback(0)
	assert.Equal(t, 0, st.Depth())

	// One reading only: the other is dropped cleanly.
	require.True(t, st.AdvanceEither([]byte("zz"), 7))
	assert.False(t, st.CanEnd())
	assert.True(t, st.Advance('A'))
	st.Reset()
	require.True(t, st.AdvanceEither([]byte("</"), 8), "no class 8: text alone")
	assert.False(t, st.AdvanceEither([]byte("x"), 8), "neither")
}

// TestTextExcludeBounds: a long exclude costs time linear in its length,
// and past Limits.TextExcludeBytes it is refused before any work.
func TestTextExcludeBounds(t *testing.T) {
	long := strings.Repeat("a", 15000) // quadratic work would take minutes
	g := &grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Text(long)}}}
	p, err := Compile(g, grammar.Limits{})
	require.NoError(t, err)
	st := NewState(p)
	assert.True(t, st.AdvanceBytes([]byte(long[1:])))
	assert.False(t, st.Advance('a'))

	g = &grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Text(strings.Repeat("a", 1<<14+1))}}}
	_, err = Compile(g, grammar.Limits{})
	require.ErrorIs(t, err, grammar.ErrLimit)
	assert.ErrorContains(t, err, "TextExcludeBytes")
}
