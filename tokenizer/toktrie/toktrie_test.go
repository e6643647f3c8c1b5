package toktrie_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/toktrie"
)

// ordinary returns voc's tokens that are in its trie, by id.
func ordinary(voc *tokenizer.Vocab) [][]byte {
	toks := make([][]byte, voc.Size())
	for id := range toks {
		if !voc.IsSpecial(id) {
			toks[id] = voc.Bytes(id)
		}
	}
	return toks
}

// TestSorted: the trie holds every token with bytes once, sorted by bytes
// then id, with the common prefix of each with the one before.
func TestSorted(t *testing.T) {
	voc := vocabtest.Core(t)
	tr := voc.Trie()
	toks := ordinary(voc)
	var want []int32
	for id, b := range toks {
		if len(b) > 0 {
			want = append(want, int32(id))
		}
	}
	require.Equal(t, voc.Size(), tr.Size())
	require.Equal(t, len(want), tr.Len())
	got := slices.Clone(tr.IDs())
	slices.Sort(got)
	require.Equal(t, want, got)
	maxLen := 0
	var first [256]int
	for i := range tr.Len() {
		tok := tr.Token(i)
		require.Equal(t, toks[tr.IDs()[i]], tok)
		maxLen = max(maxLen, len(tok))
		first[tok[0]]++
		if i == 0 {
			assert.Zero(t, tr.LCP(i))
			continue
		}
		prev := tr.Token(i - 1)
		c := bytes.Compare(prev, tok)
		require.True(t, c < 0 || c == 0 && tr.IDs()[i-1] < tr.IDs()[i], "%q before %q", prev, tok)
		l := tr.LCP(i)
		require.Equal(t, prev[:l], tok[:l])
		require.True(t, l == len(prev) || l == len(tok) || prev[l] != tok[l])
	}
	assert.Equal(t, maxLen, tr.MaxLen())
	for b := range 256 {
		assert.Equal(t, first[b], tr.FirstByteCount(byte(b)))
	}
}

// TestNodes checks the node tables against their definition, computed from
// the sorted tokens directly, on sampled nodes of real vocabularies.
func TestNodes(t *testing.T) {
	for _, name := range vocabtest.Available("gpt2", "llama3", "mistral", "qwen3") {
		t.Run(name, func(t *testing.T) {
			tr := vocabtest.Load(t, name).Trie()
			rng := rand.New(rand.NewPCG(3, 4))
			kinds := map[[2]bool]int{}
			for range 3000 {
				i := rng.IntN(tr.Len())
				tok := tr.Token(i)
				if tr.LCP(i) >= len(tok) {
					continue
				}
				d := tr.LCP(i) + 1 + rng.IntN(len(tok)-tr.LCP(i))
				node := tr.Node(i, d)
				end := i + 1
				for end < tr.Len() && bytes.HasPrefix(tr.Token(end), tok[:d]) {
					end++
				}
				require.Equal(t, end, tr.End(node), "%q depth %d", tok, d)
				want := toktrie.Rest{ValidUTF8: true}
				for j := i; j < end; j++ {
					rest := tr.Token(j)[d:]
					for _, b := range rest {
						if b < 0x80 {
							want.ASCII[b>>6] |= 1 << (b & 63)
						} else {
							want.NonASCII = true
						}
					}
					want.ValidUTF8 = want.ValidUTF8 && utf8.Valid(rest)
					want.Depth = max(want.Depth, uint16(len(rest)))
				}
				got := tr.Rest(node)
				require.Equal(t, want.ASCII, got.ASCII, "%q depth %d", tok, d)
				require.Equal(t, want.NonASCII, got.NonASCII, "%q depth %d", tok, d)
				require.Equal(t, want.ValidUTF8, got.ValidUTF8, "%q depth %d", tok, d)
				require.Equal(t, want.Depth, got.Depth, "%q depth %d", tok, d)
				kinds[[2]bool{want.NonASCII, want.ValidUTF8}]++
			}
			// Every kind of node was met (an ASCII-only remainder is
			// always valid UTF-8, so there are three).
			assert.Len(t, kinds, 3, "%v", kinds)
		})
	}
}

// TestPrefixAndExtends compares Prefix and Extends with a scan of the whole
// vocabulary, for prefixes cut from tokens, JSON text and random bytes.
func TestPrefixAndExtends(t *testing.T) {
	voc := vocabtest.Core(t)
	tr := voc.Trie()
	var toks [][]byte
	for _, b := range ordinary(voc) {
		if len(b) > 0 {
			toks = append(toks, b)
		}
	}
	brute := func(p []byte, next *[4]uint64) (n int, extends bool) {
		for _, tok := range toks {
			if bytes.HasPrefix(tok, p) {
				n++
				b := 0
				if len(tok) > len(p) {
					b = int(tok[len(p)])
				}
				extends = extends || len(tok) > len(p) && next[b>>6]&(1<<(b&63)) != 0
			}
		}
		return n, extends
	}
	setOf := func(s string) (set [4]uint64) {
		for i := range len(s) {
			set[s[i]>>6] |= 1 << (s[i] & 63)
		}
		return set
	}
	rng := rand.New(rand.NewPCG(1, 2))
	text := []byte(`{"name":"Harry","house":"Gryffindor","tags":["a","b"],"n":-12.5e3}` + "    ----////====\n\t日本語")
	sets := [][4]uint64{
		{}, setOf(`"`), setOf(`,}`), setOf(`0123456789-`), setOf(`{["tfn-0123456789`),
		{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}, setOf("GHRS"), setOf(" \n"),
	}
	long := slices.MaxFunc(toks, func(a, b []byte) int { return len(a) - len(b) })
	for i := range 3000 {
		var p []byte
		switch i % 4 {
		case 0:
			tok := toks[rng.IntN(len(toks))]
			p = tok[:rng.IntN(len(tok)+1)]
		case 1:
			a := rng.IntN(len(text))
			p = text[a : a+rng.IntN(min(len(text)-a, 20)+1)]
		case 2:
			p = long[:rng.IntN(len(long)+1)]
		default:
			for n := rng.IntN(4); n > 0; n-- {
				p = append(p, byte(rng.IntN(256)))
			}
		}
		next := sets[rng.IntN(len(sets))]
		if rng.IntN(4) == 0 {
			next = [4]uint64{}
			for n := rng.IntN(12); n > 0; n-- {
				b := byte(rng.IntN(256))
				next[b>>6] |= 1 << (b & 63)
			}
		}
		n, extends := brute(p, &next)
		lo, hi := tr.Prefix(p)
		require.Equal(t, n, hi-lo, "prefix %q", p)
		for j := lo; j < hi; j++ {
			require.True(t, bytes.HasPrefix(tr.Token(j), p), "prefix %q", p)
		}
		require.Equal(t, extends, tr.Extends(p, &next), "prefix %q", p)
	}
}

// TestSharedByCopies: the copies of a vocabulary that With* makes share its
// trie instead of building their own.
func TestSharedByCopies(t *testing.T) {
	voc := vocabtest.Core(t)
	wide, err := voc.WithLogitWidth(voc.Size() + 7)
	require.NoError(t, err)
	stops, err := voc.WithStopTokens(nil)
	require.NoError(t, err)
	assert.Same(t, voc.Trie(), wide.Trie())
	assert.Same(t, voc.Trie(), stops.Trie())
}

// BenchmarkNew builds the trie of real vocabularies; heap-MiB is the memory
// one trie holds.
func BenchmarkNew(b *testing.B) {
	for _, name := range vocabtest.Available("gpt2", "llama3") {
		voc := vocabtest.Load(b, name)
		toks := ordinary(voc)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var tr *toktrie.Trie
			for b.Loop() {
				tr = toktrie.New(len(toks), func(id int) []byte { return toks[id] })
			}
			b.ReportMetric(float64(tr.SizeBytes())/(1<<20), "heap-MiB")
		})
	}
}

// TestEmpty: a trie without tokens, such as a zero Vocab's, answers every
// question with nothing.
func TestEmpty(t *testing.T) {
	for _, tr := range []*toktrie.Trie{new(tokenizer.Vocab).Trie(), toktrie.New(3, func(int) []byte { return nil })} {
		assert.Zero(t, tr.Len())
		assert.Zero(t, tr.MaxLen())
		lo, hi := tr.Prefix([]byte("a"))
		assert.Equal(t, lo, hi)
		all := [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
		assert.False(t, tr.Extends(nil, &all))
		assert.False(t, tr.Extends([]byte("ab"), &all))
	}
}

// Tokens of 255 bytes and more: the per-pair length table saturates at 255,
// which must read "255 or more", not "at most 255".
func TestLongTokens(t *testing.T) {
	long := "ab" + strings.Repeat("x", 298)
	toks := []string{"a", "ab", long, "abz"}
	tr := toktrie.New(len(toks), func(id int) []byte { return []byte(toks[id]) })
	var x [4]uint64
	x['x'>>6] |= 1 << ('x' & 63)
	for _, n := range []int{2, 100, 254, 255, 256, 260, 299} {
		assert.True(t, tr.Extends([]byte(long[:n]), &x), "a %d-byte prefix of the 300-byte token goes on with x", n)
	}
	assert.False(t, tr.Extends([]byte(long), &x), "nothing goes on after the whole token")
	assert.False(t, tr.Extends([]byte("ab"), nil), "a nil set is empty")
}

// Token's slices end at the token: appending to one cannot overwrite the
// next token's bytes, which every grammar of the vocabulary reads.
func TestTokenAppendCopies(t *testing.T) {
	toks := []string{"aa", "ab", "ac"}
	tr := toktrie.New(len(toks), func(id int) []byte { return []byte(toks[id]) })
	_ = append(tr.Token(0), 'Z', 'Z')
	for i := range tr.Len() {
		assert.Equal(t, toks[tr.IDs()[i]], string(tr.Token(i)))
	}
}
