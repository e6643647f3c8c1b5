package reintest_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/reintest"
)

// Every output is one the grammar accepts, token by token and as text, and
// the same seed gives it again.
func TestDecode(t *testing.T) {
	quote := token(t, `"`)
	tests := []struct {
		name string
		spec rein.Spec
		opts reintest.DecodeOptions
	}{
		{"regex", answer, reintest.DecodeOptions{}},
		{"choice", colors, reintest.DecodeOptions{}},
		{"gbnf", lines, reintest.DecodeOptions{MaxTokens: 64}},
		{"schema", city, reintest.DecodeOptions{MaxTokens: 64, Bias: map[int]float32{quote: 10}}},
		{"schema, unbiased", city, reintest.DecodeOptions{MaxTokens: 32}},
		{"json", rein.JSON(), reintest.DecodeOptions{MaxTokens: 48}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := compile(t, tt.spec)
			texts := map[string]bool{}
			for seed := range uint64(8) {
				opts := tt.opts
				opts.Seed = seed
				d, err := reintest.Decode(c, opts)
				require.NoError(t, err)
				budget := orDefault(opts.MaxTokens, reintest.DefaultMaxTokens)
				assert.LessOrEqual(t, len(d.Tokens), budget)
				want := reintest.Incomplete
				if d.Complete {
					want = reintest.Complete
				}
				assert.Equal(t, want, reintest.MatchTokens(c, d.Tokens).Status, "seed %d: %q", seed, d.Text)
				assert.Equal(t, want, reintest.Match(c, d.Text).Status, "seed %d: %q", seed, d.Text)
				if !d.Complete {
					assert.Len(t, d.Tokens, budget, "seed %d: stopped early and incomplete", seed)
				}
				again, err := reintest.Decode(c, opts)
				require.NoError(t, err)
				assert.Equal(t, d, again, "seed %d: not reproducible", seed)
				texts[d.Text] = true
			}
			assert.Greater(t, len(texts), 1, "eight seeds, one output")
		})
	}
}

// orDefault returns a, or b when a is zero.
func orDefault(a, b int) int {
	if a == 0 {
		return b
	}
	return a
}

func TestDecodeStop(t *testing.T) {
	c := compile(t, colors)
	stop := vocab(t).StopTokens()[0]
	d, err := reintest.Decode(c, reintest.DecodeOptions{Seed: 1})
	require.NoError(t, err)
	require.True(t, d.Complete)
	assert.Equal(t, stop, d.Tokens[len(d.Tokens)-1], "a stop token ends the output")
	assert.NotContains(t, d.Text, "<|endoftext|>", "Text leaves the stop token out")
	assert.Contains(t, []string{"red", "green", "blue"}, d.Text)
}

func TestDecodeBudget(t *testing.T) {
	c := compile(t, answer)
	d, err := reintest.Decode(c, reintest.DecodeOptions{MaxTokens: 1})
	require.NoError(t, err)
	assert.Len(t, d.Tokens, 1)
	assert.False(t, d.Complete)
	assert.Equal(t, reintest.Incomplete, reintest.Match(c, d.Text).Status)

	// The budget may run out where the grammar may end: that is complete.
	c = compile(t, rein.Regex(`[0-9]+`))
	d, err = reintest.Decode(c, reintest.DecodeOptions{MaxTokens: 3, Bias: map[int]float32{vocab(t).StopTokens()[0]: float32(math.Inf(-1))}})
	require.NoError(t, err)
	assert.Len(t, d.Tokens, 3)
	assert.True(t, d.Complete)
}

func TestDecodeBias(t *testing.T) {
	c := compile(t, rein.Choice("yes", "no"))
	no := token(t, "no")
	for seed := range uint64(20) {
		d, err := reintest.Decode(c, reintest.DecodeOptions{Seed: seed, Bias: map[int]float32{no: 30}})
		require.NoError(t, err)
		assert.Equal(t, "no", d.Text, "seed %d", seed)
		assert.Equal(t, no, d.Tokens[0], "seed %d", seed)
	}

	// A bias that bans every token the grammar allows leaves nothing to
	// sample.
	ban := map[int]float32{}
	for _, s := range []string{"y", "ye", "yes", "n", "no"} {
		ban[token(t, s)] = float32(math.Inf(-1))
	}
	d, err := reintest.Decode(c, reintest.DecodeOptions{Bias: ban})
	assert.ErrorIs(t, err, reintest.ErrNoToken)
	assert.Empty(t, d.Tokens)
}

func TestDecodeOptionsErrors(t *testing.T) {
	c := compile(t, answer)
	size := vocab(t).Size()
	for _, opts := range []reintest.DecodeOptions{
		{MaxTokens: -1},
		{Bias: map[int]float32{-1: 1}},
		{Bias: map[int]float32{size: 1}},
		{Bias: map[int]float32{1 << 40: 1}},
		{Bias: map[int]float32{3: float32(math.NaN())}},
		{Bias: map[int]float32{3: float32(math.Inf(1))}},
	} {
		d, err := reintest.Decode(c, opts)
		assert.ErrorIs(t, err, reintest.ErrOptions, "%+v", opts)
		assert.Empty(t, d.Tokens)
	}
}

// A large bias is a weight, not an overflow.
func TestDecodeLargeBias(t *testing.T) {
	c := compile(t, rein.Choice("yes", "no"))
	yes, no := token(t, "yes"), token(t, "no")
	d, err := reintest.Decode(c, reintest.DecodeOptions{Bias: map[int]float32{yes: 1e30, no: 3e38}})
	require.NoError(t, err)
	assert.Equal(t, "no", d.Text)
}
