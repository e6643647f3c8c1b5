package pda

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/ctxtest"

	"github.com/reinlm/rein/grammar"
)

// TestCompileContext: CompileContext looks at its context inside every rule's
// automaton builds and between the passes over all rules, and stops at the
// first look after the context ended, whatever the stage.
func TestCompileContext(t *testing.T) {
	var b strings.Builder
	b.WriteString("root ::= r0 | r1 | r2 | r3\n")
	for i := range 4 {
		fmt.Fprintf(&b, "r%d ::= (\"a\" | \"b\")* \"a\" (\"a\" | \"b\"){11} \"%d\"\n", i, i)
	}
	g, err := grammar.ParseGBNF(b.String(), "", grammar.Limits{})
	require.NoError(t, err)

	want, err := Compile(g, grammar.Limits{})
	require.NoError(t, err)
	full := ctxtest.NewCountdown(1 << 40)
	got, err := CompileContext(full, g, grammar.Limits{})
	require.NoError(t, err)
	assert.Equal(t, want.NumNodes(), got.NumNodes())
	total := full.Calls()
	assert.Greater(t, total, int64(4*3), "looks inside the rules' builds")
	assert.Less(t, total, int64(want.NumNodes()/64), "looks rarely")

	for _, limit := range []int64{1, 2, 3, total / 3, total / 2, total - 1, total} {
		ctx := ctxtest.NewCountdown(limit)
		_, err := CompileContext(ctx, g, grammar.Limits{})
		require.ErrorIs(t, err, context.Canceled, "limit %d", limit)
		assert.Equal(t, limit, ctx.Calls(), "limit %d: went on after the end", limit)
	}
}

// BenchmarkCompileContext compiles the JSON grammar and a grammar of large
// rules with a context that can never end (no look at all) and with one
// that can (a look every few thousand steps): the looks cost nothing
// measurable.
func BenchmarkCompileContext(b *testing.B) {
	var src strings.Builder
	src.WriteString("root ::= r0 | r1\n")
	for i := range 2 {
		fmt.Fprintf(&src, "r%d ::= (\"a\" | \"b\")* \"a\" (\"a\" | \"b\"){11} \"%d\"\n", i, i)
	}
	large, err := grammar.ParseGBNF(src.String(), "", grammar.Limits{})
	require.NoError(b, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, g := range []struct {
		name string
		g    *grammar.Grammar
	}{{"json", grammar.JSON()}, {"large", large}} {
		for _, c := range []struct {
			name string
			ctx  context.Context
		}{{"background", context.Background()}, {"cancellable", ctx}} {
			b.Run(g.name+"/"+c.name, func(b *testing.B) {
				for b.Loop() {
					if _, err := CompileContext(c.ctx, g.g, grammar.Limits{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
