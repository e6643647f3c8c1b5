package jumpforward

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/pda"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// TestExtends compares the index with a scan of the whole vocabulary, for
// prefixes cut from tokens, JSON text and random bytes.
func TestExtends(t *testing.T) {
	voc, err := gpt2.Vocab()
	require.NoError(t, err)
	x := indexFor(voc)
	require.Same(t, x, indexFor(voc), "built once per vocabulary")
	var toks [][]byte
	for id := 0; id < voc.Size(); id++ {
		if b := voc.Bytes(id); len(b) > 0 && !voc.IsSpecial(id) {
			toks = append(toks, b)
		}
	}
	brute := func(p []byte, next *pda.ByteSet) bool {
		for _, t := range toks {
			if len(t) > len(p) && bytes.HasPrefix(t, p) && next.Has(t[len(p)]) {
				return true
			}
		}
		return false
	}
	rng := rand.New(rand.NewPCG(1, 2))
	text := []byte(`{"name":"Harry","house":"Gryffindor","tags":["a","b"],"n":-12.5e3}` + "    ----////====\n\t日本語")
	sets := []pda.ByteSet{
		{}, byteSetOf(`"`), byteSetOf(`,}`), byteSetOf(`0123456789-`), byteSetOf(`{["tfn-0123456789`),
		{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}, byteSetOf("GHRS"), byteSetOf(" \n"),
	}
	for i := 0; i < 3000; i++ {
		var p []byte
		switch i % 3 {
		case 0:
			t := toks[rng.IntN(len(toks))]
			p = t[:rng.IntN(len(t)+1)]
		case 1:
			a := rng.IntN(len(text))
			p = text[a : a+rng.IntN(min(len(text)-a, 20)+1)]
		default:
			for n := rng.IntN(4); n > 0; n-- {
				p = append(p, byte(rng.IntN(256)))
			}
		}
		next := &sets[rng.IntN(len(sets))]
		if rng.IntN(4) == 0 {
			var s pda.ByteSet
			for n := rng.IntN(12); n > 0; n-- {
				b := byte(rng.IntN(256))
				s[b>>6] |= 1 << (b & 63)
			}
			next = &s
		}
		require.Equal(t, brute(p, next), x.extends(p, next), "prefix %q", p)
	}
}

func byteSetOf(s string) pda.ByteSet {
	var set pda.ByteSet
	for i := 0; i < len(s); i++ {
		set[s[i]>>6] |= 1 << (s[i] & 63)
	}
	return set
}

func TestCompleteUTF8(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0}, {"abc", 3}, {"é", 2}, {"a\xc3", 1}, {"日", 3}, {"a\xe6\x97", 1}, {"\xe6", 0},
		{"😀", 4}, {"x\xf0\x9f\x98", 1}, {"\x80", 1}, {"a\xff", 2},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, completeUTF8([]byte(tt.in)), "%q", tt.in)
	}
}

// TestApplyUndo: when the grammar refuses a token, apply leaves the matcher
// where it was, the tokens rolled back accepted again.
func TestApplyUndo(t *testing.T) {
	voc, err := gpt2.Vocab()
	require.NoError(t, err)
	g, err := grammar.FromRegex(`(abc|abd)e`)
	require.NoError(t, err)
	c, err := mask.Compile(g, voc)
	require.NoError(t, err)
	m := c.NewMatcher()
	a, _ := voc.TokenID("a")
	b, _ := voc.TokenID("b")
	cc, _ := voc.TokenID("c")
	x, _ := voc.TokenID("x")
	require.True(t, m.AcceptToken(a))
	require.True(t, m.AcceptToken(b))
	depth := m.State().Depth()
	assert.False(t, apply(m, []int{a, b}, 1, []int{b, cc, x}))
	assert.Equal(t, 2, m.NumTokens())
	assert.Equal(t, depth, m.State().Depth())
	assert.True(t, apply(m, []int{a, b}, 1, []int{b, cc}))
	assert.Equal(t, 3, m.NumTokens())
	assert.False(t, apply(m, []int{a, b, cc}, 4, nil), "rollback past the start")
	assert.Equal(t, 3, m.NumTokens())
}

func BenchmarkBuildPrefixIndex(b *testing.B) {
	voc, err := gpt2.Vocab()
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		buildPrefixIndex(voc)
	}
}
