package grammar_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/oracle"
	"github.com/reinlm/rein/internal/pda"
)

// leftRecursive holds left-recursive grammars, with an alphabet and a length:
// every string over the alphabet up to that length is a test input.
var leftRecursive = []struct {
	name, src, alphabet string
	maxLen              int
}{
	{"arithmetic", `root ::= expr
expr ::= expr "+" term | expr "-" term | term
term ::= term "*" factor | factor
factor ::= "(" expr ")" | [0-9]`, "1+-*()", 7},
	{"list", `root ::= list
list ::= list "," item | item
item ::= [a-b]+`, "ab,", 9},
	{"indirect", `root ::= a
a ::= b "x" | "y"
b ::= a "z" | "w"`, "xyzw", 8},
	{"three rules, groups", `root ::= a
a ::= (b | c) "1" | "0"
b ::= a "2" | c "3"
c ::= b "4" | "5"`, "012345", 6},
	{"starred prefix", `root ::= a
a ::= "q"* a "y" | "z"`, "qyz", 9},
	{"repeated call", `root ::= a
a ::= a{1,2} "x" | "y"`, "xy", 10},
	{"self loop", `root ::= a
a ::= a | "z" | a "z"`, "z", 6},
	{"nullable in the cycle", `root ::= "<" a ">"
a ::= a "x" | ""`, "<>x", 8},
	{"cycle entered twice", `root ::= s
s ::= s "a" s | "b"`, "ab", 9},
}

// TestRemoveLeftRecursion rewrites each grammar and compares the two with
// the Earley recognizer, which runs left recursion as it is, on every
// string over the case's alphabet up to its length; the rewritten grammar
// must compile without left recursion.
func TestRemoveLeftRecursion(t *testing.T) {
	for _, tc := range leftRecursive {
		t.Run(tc.name, func(t *testing.T) {
			g, err := grammar.ParseGBNF(tc.src, "", grammar.Limits{})
			require.NoError(t, err)
			g2, err := grammar.RemoveLeftRecursion(g, grammar.Limits{})
			require.NoError(t, err)
			_, err = pda.Compile(g2, grammar.Limits{})
			require.NoError(t, err, "rewritten:\n%s", g2)
			want, err := oracle.New(g)
			require.NoError(t, err)
			got, err := oracle.New(g2)
			require.NoError(t, err)
			accepts := func(r *oracle.Recognizer, s string) bool {
				r = r.Clone()
				r.Feed([]byte(s))
				return r.Complete()
			}
			in, checked := 0, 0
			var walk func(prefix string)
			walk = func(prefix string) {
				w := accepts(want, prefix)
				require.Equal(t, w, accepts(got, prefix), "%q\nrewritten:\n%s", prefix, g2)
				checked++
				if w {
					in++
				}
				if len(prefix) < tc.maxLen {
					for _, c := range tc.alphabet {
						walk(prefix + string(c))
					}
				}
			}
			walk("")
			t.Logf("%d strings, %d in the language", checked, in)
			assert.Positive(t, in)
		})
	}
}

func TestRemoveLeftRecursionErrors(t *testing.T) {
	g, err := grammar.ParseGBNF("root ::= a\na ::= o a \"x\" | \"y\"\no ::= \"o\"?", "", grammar.Limits{})
	require.NoError(t, err)
	_, err = grammar.RemoveLeftRecursion(g, grammar.Limits{})
	require.ErrorIs(t, err, grammar.ErrUnsupported)
	assert.Contains(t, err.Error(), `rule "a" calls itself behind rule "o", which may match the empty string`)

	// A cycle of n rules, each of two alternatives: Paull's substitution
	// grows it quadratically, past a small budget of expression nodes.
	var b strings.Builder
	b.WriteString("root ::= r0\n")
	const n = 40
	for i := range n {
		fmt.Fprintf(&b, "r%d ::= r%d \"a\" | \"b\"\n", i, (i+1)%n)
	}
	g, err = grammar.ParseGBNF(b.String(), "", grammar.Limits{})
	require.NoError(t, err)
	_, err = grammar.RemoveLeftRecursion(g, grammar.Limits{ExprNodes: 500})
	require.ErrorIs(t, err, grammar.ErrLimit)
	assert.Contains(t, err.Error(), "Limits.ExprNodes")
	g2, err := grammar.RemoveLeftRecursion(g, grammar.Limits{})
	require.NoError(t, err, "under the default budget")
	_, err = pda.Compile(g2, grammar.Limits{})
	require.NoError(t, err)

	// No left recursion: the grammar itself comes back.
	g, err = grammar.ParseGBNF(`root ::= "a" root | "b"`, "", grammar.Limits{})
	require.NoError(t, err)
	g2, err = grammar.RemoveLeftRecursion(g, grammar.Limits{})
	require.NoError(t, err)
	assert.Same(t, g, g2)
}

// TestRemoveLeftRecursionCancel: a long cycle's rewrite stops once its
// context is cancelled.
func TestRemoveLeftRecursionCancel(t *testing.T) {
	var b strings.Builder
	b.WriteString("root ::= r0\n")
	const n = 20000
	for i := range n {
		fmt.Fprintf(&b, "r%d ::= r%d \"a\" | \"b\"\n", i, (i+1)%n)
	}
	g, err := grammar.ParseGBNF(b.String(), "", grammar.Limits{})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = grammar.RemoveLeftRecursionContext(ctx, g, grammar.Limits{})
	require.ErrorIs(t, err, context.Canceled)
}

// FuzzRemoveLeftRecursion: for any grammar the rewrite takes, the Earley
// recognizer, which runs left recursion as written, must give the original
// and the rewritten grammar the same verdict on the input and its prefixes,
// and the rewritten one must compile.
func FuzzRemoveLeftRecursion(f *testing.F) {
	for _, tc := range leftRecursive {
		f.Add(tc.src, tc.alphabet)
	}
	f.Add("root ::= a\na ::= o a \"x\" | \"y\"\no ::= \"o\"?", "oxy")
	f.Fuzz(func(t *testing.T, src, input string) {
		if len(src) > 2000 || len(input) > 64 {
			return
		}
		g, err := grammar.ParseGBNF(src, "", grammar.Limits{})
		if err != nil {
			return
		}
		g2, err := grammar.RemoveLeftRecursion(g, grammar.Limits{ExprNodes: 1 << 14})
		if err != nil {
			require.True(t, errors.Is(err, grammar.ErrUnsupported) || errors.Is(err, grammar.ErrLimit), "%v", err)
			return
		}
		if g2 == g {
			return
		}
		if _, err := pda.Compile(g2, grammar.Limits{}); err != nil {
			require.False(t, errors.Is(err, pda.ErrLeftRecursion), "still left-recursive: %v\n%s", err, g2)
			return
		}
		want, err := oracle.New(g)
		if err != nil {
			return
		}
		got, err := oracle.New(g2)
		require.NoError(t, err)
		for i := 0; i <= len(input); i++ {
			w, o := want.Clone(), got.Clone()
			w.Feed([]byte(input[:i]))
			o.Feed([]byte(input[:i]))
			require.Equal(t, w.Complete(), o.Complete(), "%q\n%s\nrewritten:\n%s", input[:i], src, g2)
		}
	})
}
