package toktrie

import (
	"bytes"
	"math"
	"slices"
	"unicode/utf8"
	"unsafe"

	"github.com/reinlm/rein/internal/byteset"
)

// Trie is a vocabulary's tokens sorted by bytes, with the trie's nodes (see
// the package comment). It is immutable and safe for concurrent use; the
// slices its methods return are shared and must not be modified.
type Trie struct {
	size       int     // token ids are < size
	ids        []int32 // sorted position -> token id
	all        sorted  // token bytes by sorted position
	lcp        []int32 // common prefix length of positions i-1 and i (0 for i = 0)
	maxLen     int     // longest token, in bytes
	firstCount [256]int32
	firstStart [257]int32 // the sorted position of the first token with a first byte >= b

	// The node of depth d first met at position i (d > lcp[i]) is
	// base[i] + d - lcp[i] - 1. Its tokens are positions i up to end, and
	// rest describes their bytes from depth d on.
	base  []int32
	nodes []Rest // per node, its Rest with its end: one record, so that a subtree test (Rest, then End) reads one cache line

	prefixTables
	sums summaries // per token, its bytes in short (see Containing)
}

// sorted is a list of byte strings in increasing order: entry i is
// data[off[i]:off[i+1]].
type sorted struct {
	data []byte
	off  []int32
}

func (s *sorted) len() int { return len(s.off) - 1 }

func (s *sorted) at(i int) []byte { return s.data[s.off[i]:s.off[i+1]:s.off[i+1]] }

func (s *sorted) add(b []byte) {
	if s.off == nil {
		s.off = []int32{0}
	}
	s.data = append(s.data, b...)
	s.off = append(s.off, int32(len(s.data)))
}

// New builds the trie of the tokens with ids 0 to size-1, token(id) giving
// each one's bytes. Ids whose bytes are empty are left out: a caller leaves
// out special tokens, holes and whatever else no walk should meet by giving
// no bytes for them. Tokens with equal bytes are all kept, in id order.
func New(size int, token func(id int) []byte) *Trie {
	t := &Trie{size: size}
	total := 0
	for id := range size {
		if b := token(id); len(b) > 0 {
			t.ids = append(t.ids, int32(id))
			total += len(b)
		}
	}
	slices.SortFunc(t.ids, func(a, b int32) int {
		if c := bytes.Compare(token(int(a)), token(int(b))); c != 0 {
			return c
		}
		return int(a - b)
	})
	t.all.data = make([]byte, 0, total)
	t.all.off = make([]int32, 1, len(t.ids)+1)
	t.lcp = make([]int32, len(t.ids))
	var prev []byte
	for i, id := range t.ids {
		b := token(int(id))
		t.all.add(b)
		t.lcp[i] = int32(commonPrefix(prev, b))
		t.maxLen = max(t.maxLen, len(b))
		t.firstCount[b[0]]++
		prev = b
	}
	for b := range 256 {
		t.firstStart[b+1] = t.firstStart[b] + t.firstCount[b]
	}
	t.buildNodes()
	t.buildPrefixTables()
	return t
}

// Size is the number of token ids the trie was built for: ids are below it.
func (t *Trie) Size() int { return t.size }

// Len is the number of tokens in the trie.
func (t *Trie) Len() int { return len(t.ids) }

// MaxLen is the length of the longest token, in bytes.
func (t *Trie) MaxLen() int { return t.maxLen }

// IDs returns the token ids by sorted position. The slice is shared by
// every user of the trie: read it, never write it.
func (t *Trie) IDs() []int32 { return t.ids }

// Token returns the bytes of the token at sorted position i. The slice is
// shared: read it, never write it. Its capacity ends with the token, so
// appending to it copies.
func (t *Trie) Token(i int) []byte { return t.all.at(i) }

// LCP is how many leading bytes the token at sorted position i shares with
// the one before it (0 for the first).
func (t *Trie) LCP(i int) int { return int(t.lcp[i]) }

// FirstByteCount is the number of tokens that start with b.
func (t *Trie) FirstByteCount(b byte) int { return int(t.firstCount[b]) }

// FirstByteStart is the sorted position of the first token whose first byte
// is b or more (Len for b = 256): the tokens that start with b are the
// positions from FirstByteStart(b) to FirstByteStart(b+1).
func (t *Trie) FirstByteStart(b int) int { return int(t.firstStart[b]) }

// SizeBytes is the memory the trie holds, in bytes.
func (t *Trie) SizeBytes() int {
	return cap(t.all.data) + cap(t.long.data) + len(t.byPair) + int(unsafe.Sizeof(Rest{}))*cap(t.nodes) +
		t.sums.sizeBytes() +
		4*(cap(t.ids)+cap(t.all.off)+cap(t.lcp)+cap(t.base)+cap(t.long.off)+cap(t.pairStart)) +
		4*len(t.firstCount) + len(t.byByte)
}

// Node is a node of the trie: the tokens that share one prefix.
type Node int32

// Node returns the node of depth d on the path of the token at sorted
// position i, where it is first met: LCP(i) < d <= len(Token(i)). A walk in
// sorted order meets every node first that way. Outside those bounds the
// result is meaningless (it is an index, not checked, on the walk's hot path).
func (t *Trie) Node(i, d int) Node { return Node(int(t.base[i]) + d - int(t.lcp[i]) - 1) }

// End returns the sorted position after the last token of n's subtree: n's
// tokens are the positions from the one it was met at (see Node) to End.
func (t *Trie) End(n Node) int { return int(t.nodes[n].end) }

// Rest describes the bytes the tokens of a node have below it.
type Rest struct {
	ASCII     [2]uint64 // the ASCII bytes among them: byte b is bit b&63 of ASCII[b>>6]
	NonASCII  bool      // some token has a byte from 128 up there
	ValidUTF8 bool      // in every token, the bytes below the node are whole, valid UTF-8
	Depth     uint16    // the most bytes a token has below the node (0 when every token ends there)
	end       int32     // the node's End, kept here to share the record (24 bytes)
}

// Rest describes the bytes n's tokens have below n. The Rest is the trie's
// own, shared: read it, never write it.
func (t *Trie) Rest(n Node) *Rest { return &t.nodes[n] }

// ascii is r's ASCII set as a byteset.ASCII.
func (r *Rest) ascii() *byteset.ASCII { return (*byteset.ASCII)(&r.ASCII) }

// buildNodes fills the node tables in one pass over the sorted tokens,
// keeping the nodes on the current token's path open and folding each node
// into its parent when the walk leaves it.
func (t *Trie) buildNodes() {
	n := len(t.ids)
	t.base = make([]int32, n+1)
	total := int32(0)
	for i := range n {
		t.base[i] = total
		total += int32(len(t.Token(i))) - t.lcp[i]
	}
	t.base[n] = total
	t.nodes = make([]Rest, total)
	var open []Node  // open[d-1]: the node of depth d on the current path
	var valid []bool // valid[d]: tok[d:] is whole, valid UTF-8
	var edge []byte  // edge[d-1]: the byte leading into open[d-1]
	closeTo := func(depth, end int) {
		for len(open) > depth {
			d := len(open)
			node := open[d-1]
			t.nodes[node].end = int32(end)
			if d > 1 {
				parent := open[d-2]
				t.nodes[parent].ascii().Union(t.nodes[node].ascii())
				t.nodes[parent].NonASCII = t.nodes[parent].NonASCII || t.nodes[node].NonASCII
				if e := edge[d-1]; e < 0x80 {
					t.nodes[parent].ascii().Add(e)
				} else {
					t.nodes[parent].NonASCII = true
				}
			}
			open, edge = open[:d-1], edge[:d-1]
		}
	}
	for i := range n {
		tok := t.Token(i)
		closeTo(int(t.lcp[i]), i)
		valid = utf8Suffixes(valid, tok)
		for d := len(open) + 1; d <= len(tok); d++ {
			node := t.Node(i, d)
			t.nodes[node].ValidUTF8 = true
			open = append(open, node)
			edge = append(edge, tok[d-1])
		}
		for d := 1; d <= len(tok); d++ {
			r := &t.nodes[open[d-1]]
			if !valid[d] {
				r.ValidUTF8 = false
			}
			r.Depth = max(r.Depth, uint16(min(len(tok)-d, math.MaxUint16)))
		}
	}
	closeTo(0, n)
}

// utf8Suffixes sets dst, for d from 0 to len(tok), to whether tok[d:] is
// whole, valid UTF-8.
func utf8Suffixes(dst []bool, tok []byte) []bool {
	dst = slices.Grow(dst[:0], len(tok)+1)[:len(tok)+1]
	dst[len(tok)] = true
	for d := len(tok) - 1; d >= 0; d-- {
		r, size := utf8.DecodeRune(tok[d:])
		dst[d] = !(r == utf8.RuneError && size == 1) && dst[d+size]
	}
	return dst
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
