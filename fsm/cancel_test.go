package fsm

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/ctxtest"
)

// slowPattern determinizes to 16,384 states and minimizes to as many.
const slowPattern = `(a|b)*a(a|b){13}`

func TestDeterminizeContext(t *testing.T) {
	n, start, end, err := build(slowPattern)
	require.NoError(t, err)

	d, err := DeterminizeContext(ctxtest.NewCountdown(1<<40), n, start, []int{end}, 0)
	require.NoError(t, err)
	full := ctxtest.NewCountdown(1 << 40)
	_, err = DeterminizeContext(full, n, start, []int{end}, 0)
	require.NoError(t, err)
	assert.Greater(t, full.Calls(), int64(2), "looks at the context while building")
	assert.Less(t, full.Calls(), int64(d.NumStates()/64), "looks at the context rarely")

	for _, limit := range []int64{1, 2, 5} {
		ctx := ctxtest.NewCountdown(limit)
		_, err := DeterminizeContext(ctx, n, start, []int{end}, 0)
		require.ErrorIs(t, err, context.Canceled, "limit %d", limit)
		assert.Equal(t, limit, ctx.Calls(), "stops at the first look after the end")
	}
}

func TestMinimizeContext(t *testing.T) {
	d, err := determinize(slowPattern, 0)
	require.NoError(t, err)
	full := ctxtest.NewCountdown(1 << 40)
	m, err := d.MinimizeContext(full)
	require.NoError(t, err)
	assert.Equal(t, 1<<14, m.NumStates())
	assert.Equal(t, d.Minimize().Trans, m.Trans)
	assert.Greater(t, full.Calls(), int64(2), "looks at the context while refining")
	assert.Less(t, full.Calls(), int64(d.NumStates()/64), "looks at the context rarely")

	for _, limit := range []int64{1, 2} {
		ctx := ctxtest.NewCountdown(limit)
		_, err := d.MinimizeContext(ctx)
		require.ErrorIs(t, err, context.Canceled, "limit %d", limit)
		assert.Equal(t, limit, ctx.Calls())
	}
}
