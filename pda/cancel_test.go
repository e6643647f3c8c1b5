package pda

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
)

// countdownCtx is a context that ends at its limit-th call to Err, and
// counts the calls.
type countdownCtx struct {
	context.Context
	limit int64
	calls atomic.Int64
	done  chan struct{}
}

func countdown(limit int64) *countdownCtx {
	return &countdownCtx{Context: context.Background(), limit: limit, done: make(chan struct{})}
}

func (c *countdownCtx) Done() <-chan struct{} { return c.done }

func (c *countdownCtx) Err() error {
	if c.calls.Add(1) >= c.limit {
		return context.Canceled
	}
	return nil
}

// TestCompileContext: CompileContext looks at its context inside every rule's
// automaton builds and between the passes over all rules, and stops at the
// first look after the context ended, whatever the stage.
func TestCompileContext(t *testing.T) {
	var b strings.Builder
	b.WriteString("root ::= r0 | r1 | r2 | r3\n")
	for i := range 4 {
		fmt.Fprintf(&b, "r%d ::= (\"a\" | \"b\")* \"a\" (\"a\" | \"b\"){11} \"%d\"\n", i, i)
	}
	g, err := grammar.ParseGBNF(b.String(), "")
	require.NoError(t, err)

	want, err := Compile(g, Limits{})
	require.NoError(t, err)
	full := countdown(1 << 40)
	got, err := CompileContext(full, g, Limits{})
	require.NoError(t, err)
	assert.Equal(t, want.NumNodes(), got.NumNodes())
	total := full.calls.Load()
	assert.Greater(t, total, int64(4*3), "looks inside the rules' builds")
	assert.Less(t, total, int64(want.NumNodes()/64), "looks rarely")

	for _, limit := range []int64{1, 2, 3, total / 3, total / 2, total - 1, total} {
		ctx := countdown(limit)
		_, err := CompileContext(ctx, g, Limits{})
		require.ErrorIs(t, err, context.Canceled, "limit %d", limit)
		assert.Equal(t, limit, ctx.calls.Load(), "limit %d: went on after the end", limit)
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
	large, err := grammar.ParseGBNF(src.String(), "")
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
					if _, err := CompileContext(c.ctx, g.g, Limits{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
