package pda

import (
	"regexp/syntax"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/grammar"
)

// rules builds a grammar from named bodies; the first rule is the root.
func rules(named ...any) *grammar.Grammar {
	g := &grammar.Grammar{}
	for i := 0; i < len(named); i += 2 {
		g.Rules = append(g.Rules, grammar.Rule{Name: named[i].(string), Body: named[i+1].(*grammar.Expr)})
	}
	return g
}

func re(t testing.TB, pattern string) *grammar.Expr {
	r, err := syntax.Parse(pattern, syntax.Perl)
	require.NoError(t, err)
	return grammar.Re(r.Simplify())
}

func accepts(p *Program, s string) (viable, complete bool) {
	st := NewState(p)
	if !st.AdvanceBytes([]byte(s)) {
		return false, false
	}
	return true, st.CanEnd()
}

func TestAcceptance(t *testing.T) {
	lit, cat, or, rep, call := grammar.Lit, grammar.Cat, grammar.Or, grammar.Rep, grammar.Call
	digit := grammar.Chars(false, grammar.RuneRange{Lo: '0', Hi: '9'})
	tests := []struct {
		name   string
		g      *grammar.Grammar
		accept []string
		prefix []string // viable but incomplete
		reject []string // not even a prefix
	}{
		{"literal", rules("root", lit("abc")), []string{"abc"}, []string{"", "a", "ab"}, []string{"b", "abcd", "abd"}},
		{"alternation", rules("root", or(lit("ab"), lit("cd"), lit("a"))), []string{"ab", "cd", "a"}, []string{"c"}, []string{"ac", "abc", "d"}},
		{"bounded repeat", rules("root", rep(lit("x"), 2, 3)), []string{"xx", "xxx"}, []string{"x"}, []string{"xxxx", "y"}},
		{"unbounded repeat", rules("root", rep(digit, 1, -1)), []string{"0", "0123456789"}, []string{""}, []string{"a", "1a"}},
		{"optional rule", rules("root", cat(lit("<"), rep(call(1), 0, 1), lit(">")), "x", lit("x")), []string{"<>", "<x>"}, []string{"<", "<x"}, []string{"<xx>", ">"}},
		{"nested calls", rules("root", cat(call(1), lit(";"), call(1)), "n", rep(digit, 1, 3)), []string{"1;2", "123;456"}, []string{"12", "1;"}, []string{"1234", ";1"}},
		{"right recursion", rules("root", call(1), "list", or(lit("a"), cat(lit("a"), lit(","), call(1)))), []string{"a", "a,a", "a,a,a,a,a,a,a,a"}, []string{"a,"}, []string{"a,,", ",a"}},
		{"balanced parens", rules("root", rep(call(1), 0, -1), "p", cat(lit("("), rep(call(1), 0, -1), lit(")"))), []string{"", "()", "(())()", "((()()))"}, []string{"(", "(()"}, []string{")", "())"}},
		{"nullable callee", rules("root", cat(call(1), call(1), lit("!")), "e", rep(lit("e"), 0, 1)), []string{"!", "e!", "ee!"}, []string{"e", "ee"}, []string{"eee", "!e"}},
		{"ambiguous", rules("root", rep(or(call(1), call(2)), 0, -1), "a", lit("a"), "aa", lit("aa")), []string{"", "a", "aaaaaaa"}, nil, []string{"b"}},
		{"utf-8 class", rules("root", rep(grammar.Chars(false, grammar.RuneRange{Lo: 'あ', Hi: 'ん'}), 1, -1)), []string{"あいう"}, []string{"\xe3", "\xe3\x81"}, []string{"a", "\xe3\x81\x00"}},
		{"regex terminal", rules("root", cat(lit("id:"), re(t, `[a-z]+[0-9]{2}`))), []string{"id:abc12"}, []string{"id:", "id:a1"}, []string{"id:12", "id:a123"}},
		// Rules of one structure share an automaton, renamed (template.go):
		// each keeps its own callees, a callee named twice stays one slot,
		// and an unproductive callee is trimmed from its renamed copy only.
		{"templates", rules(
			"root", or(cat(lit("1"), call(1)), cat(lit("2"), call(2)), cat(lit("3"), call(3)), cat(lit("4"), call(4))),
			"t1", or(cat(lit("x"), call(5), call(6)), lit("y")),
			"t2", or(cat(lit("x"), call(7), call(5)), lit("y")),
			"t3", or(cat(lit("x"), call(5), call(5)), lit("y")),
			"t4", or(cat(lit("x"), call(5), call(8)), lit("y")),
			"a", lit("a"), "b", lit("b"), "c", lit("c"), "loop", cat(lit("l"), call(8))),
			[]string{"1xab", "1y", "2xca", "2y", "3xaa", "3y", "4y"}, []string{"1xa", "2xc", "3xa"}, []string{"1xba", "1xaa", "2xac", "2xab", "3xab", "4xa", "4xal"}},
		{"unproductive branch removed", rules("root", or(lit("ok"), cat(lit("x"), call(1))), "loop", cat(lit("y"), call(1))), []string{"ok"}, nil, []string{"x", "xy"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.g, grammar.Limits{})
			require.NoError(t, err)
			for _, s := range tc.accept {
				v, c := accepts(p, s)
				assert.True(t, v && c, "should accept %q", s)
			}
			for _, s := range tc.prefix {
				v, c := accepts(p, s)
				assert.True(t, v && !c, "should be an incomplete prefix: %q", s)
			}
			for _, s := range tc.reject {
				v, _ := accepts(p, s)
				assert.False(t, v, "should reject %q", s)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	lit, cat, or, call := grammar.Lit, grammar.Cat, grammar.Or, grammar.Call
	tests := []struct {
		name string
		g    *grammar.Grammar
		lim  grammar.Limits
		is   []error
		msg  string
	}{
		{"indirect through nullable", rules("root", call(1), "a", or(cat(call(2), call(1), lit("x")), lit("y")), "opt", grammar.Rep(lit("o"), 0, 1)), grammar.Limits{}, []error{ErrLeftRecursion}, `"a"`},
		{"empty language", rules("root", cat(lit("x"), call(1)), "loop", cat(lit("y"), call(1))), grammar.Limits{}, []error{ErrEmptyLanguage}, "root"},
		{"too large", rules("root", grammar.Rep(grammar.Rep(lit("ab"), 0, 1000), 0, 1000)), grammar.Limits{}, []error{grammar.ErrLimit}, "Limits.NFAStates"},
		{"regex NFA too large", rules("root", re(t, "a{500}b{500}c{500}")), grammar.Limits{NFAStates: 1000}, []error{grammar.ErrLimit, fsm.ErrTooLarge}, "Limits.NFAStates is 1000"},
		{"rule DFA too large", rules("root", re(t, "[ab]*a[ab]{12}")), grammar.Limits{RuleStates: 100}, []error{grammar.ErrLimit, fsm.ErrTooLarge}, "Limits.RuleStates is 100"},
		{"all rules too large", rules("root", cat(call(1), call(2)), "a", lit("abcdef"), "b", lit("ghijkl")), grammar.Limits{TotalStates: 8}, []error{grammar.ErrLimit}, "Limits.TotalStates"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.g, tc.lim)
			require.Error(t, err)
			for _, is := range tc.is {
				assert.ErrorIs(t, err, is)
			}
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}

func TestRollbackRestoresState(t *testing.T) {
	g := rules("root", grammar.Rep(grammar.Call(1), 0, -1), "p", grammar.Cat(grammar.Lit("("), grammar.Rep(grammar.Call(1), 0, -1), grammar.Lit(")")))
	p, err := Compile(g, grammar.Limits{})
	require.NoError(t, err)
	in := []byte("(()(()))()((()))")
	st := NewState(p)
	type snap struct {
		tops   []Top
		canEnd bool
		toEnd  int
	}
	var snaps []snap
	for i := 0; i <= len(in); i++ {
		snaps = append(snaps, snap{append([]Top(nil), st.Tops()...), st.CanEnd(), st.BytesToEnd()})
		if i < len(in) {
			require.True(t, st.Advance(in[i]))
		}
	}
	for d := len(in); d >= 0; d-- {
		st.Rollback(d)
		assert.Equal(t, snaps[d].canEnd, st.CanEnd(), "depth %d", d)
		assert.Equal(t, snaps[d].toEnd, st.BytesToEnd(), "depth %d", d)
		assert.Equal(t, len(snaps[d].tops), len(st.Tops()), "depth %d", d)
		// Re-advancing from here gives the same result as before.
		c := st.Clone()
		assert.True(t, c.AdvanceBytes(in[d:]))
		assert.True(t, c.CanEnd())
	}
}

func TestBytesToEnd(t *testing.T) {
	g := rules("root", grammar.Cat(grammar.Lit("{"), grammar.Call(1), grammar.Lit("}")), "v", grammar.Or(grammar.Lit("true"), grammar.Lit("0")))
	p, err := Compile(g, grammar.Limits{})
	require.NoError(t, err)
	st := NewState(p)
	assert.Equal(t, 3, st.BytesToEnd())
	require.True(t, st.AdvanceBytes([]byte("{t")))
	assert.Equal(t, 4, st.BytesToEnd())
	require.True(t, st.AdvanceBytes([]byte("rue}")))
	assert.Equal(t, 0, st.BytesToEnd())
}

// An ambiguous grammar must not multiply stacks: the tops stay bounded by the
// number of distinct (node, frame) pairs.
func TestAmbiguityStaysBounded(t *testing.T) {
	g := rules("root", grammar.Rep(grammar.Or(grammar.Call(1), grammar.Call(2), grammar.Call(3)), 0, -1),
		"a", grammar.Lit("a"), "aa", grammar.Lit("aa"), "aaa", grammar.Cat(grammar.Call(1), grammar.Call(2)))
	p, err := Compile(g, grammar.Limits{})
	require.NoError(t, err)
	st := NewState(p)
	for i := 0; i < 2000; i++ {
		require.True(t, st.Advance('a'))
		require.LessOrEqual(t, len(st.Tops()), 16)
	}
	assert.True(t, st.CanEnd())
}

func TestAdvanceDoesNotAllocate(t *testing.T) {
	g := rules("root", grammar.Rep(grammar.Call(1), 0, -1), "p", grammar.Cat(grammar.Lit("("), grammar.Rep(grammar.Call(1), 0, -1), grammar.Lit(")")))
	p, err := Compile(g, grammar.Limits{})
	require.NoError(t, err)
	st := NewState(p)
	in := []byte("((()())(()))")
	st.AdvanceBytes(in)
	st.Rollback(0)
	allocs := testing.AllocsPerRun(100, func() {
		st.AdvanceBytes(in)
		st.Rollback(0)
	})
	assert.Zero(t, allocs)
}

// A hand-built grammar may carry a regex fsm cannot build (the front-ends
// refuse one); Compile says so with the one grammar.ErrUnsupported.
func TestCompileUnsupportedRegexp(t *testing.T) {
	re, err := syntax.Parse(`a\bb`, syntax.Perl)
	require.NoError(t, err)
	g := &grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: grammar.Re(re)}}}
	_, err = Compile(g, grammar.Limits{})
	require.ErrorIs(t, err, grammar.ErrUnsupported)
	require.ErrorIs(t, err, fsm.ErrUnsupportedRegexp)
}
