package mask

import (
	"bytes"
	"slices"
	"unicode/utf8"

	"github.com/reinlm/rein/internal/pervocab"
	"github.com/reinlm/rein/tokenizer"
)

// vocabIndex is a vocabulary sorted by bytes: walking it in order is a
// depth-first walk of the token trie, and lcp tells how much of the previous
// token's path to keep. Special tokens and empty tokens are left out; stop
// tokens are kept apart. It is built once per Vocab and shared, and holds no
// reference to the Vocab, so that it can be dropped with it.
type vocabIndex struct {
	size   int     // token ids are < size
	ids    []int32 // sorted position -> token id
	data   []byte  // token bytes in sorted order, concatenated
	off    []int32 // sorted position i spans data[off[i]:off[i+1]]
	lcp    []int32 // common prefix length of sorted tokens i-1 and i (0 for i = 0)
	stops  []int32 // stop token ids
	maxLen int     // longest token, in bytes

	all        []uint32   // every token of ids, as a bitmask row
	firstCount [256]int32 // tokens of ids starting with each byte

	// The token trie's nodes, for pruning: the node of depth d first met at
	// sorted position i (d > lcp[i]) is trieBase[i] + d - lcp[i] - 1. Its
	// tokens are sorted positions i up to trieEnd; trieASCII holds the ASCII
	// bytes they have from depth d on, and trieFlags whether they have other
	// bytes (trieNonASCII) and whether what they have from depth d on is
	// whole, valid UTF-8 in every token (trieUTF8).
	trieBase  []int32
	trieEnd   []int32
	trieASCII [][2]uint64
	trieFlags []uint8

	shared indexCache // node classifications shared between grammars
}

func (v *vocabIndex) tok(i int32) []byte { return v.data[v.off[i]:v.off[i+1]] }

// vocabIndexes holds the index of every vocabulary in use; an index is
// dropped, with its shared classifications, once nothing holds its Vocab.
var vocabIndexes pervocab.Cache[vocabIndex]

func lookupVocab(voc *tokenizer.Vocab) *vocabIndex { return vocabIndexes.Lookup(voc) }

func indexVocab(voc *tokenizer.Vocab) *vocabIndex { return vocabIndexes.Get(voc, buildVocabIndex) }

func buildVocabIndex(voc *tokenizer.Vocab) *vocabIndex {
	n := voc.Size()
	v := &vocabIndex{size: n}
	v.shared.budget.Store(DefaultSharedIndexBudget)
	stop := make(map[int]bool)
	for _, id := range voc.StopTokens() {
		if id >= 0 && id < n && !stop[id] {
			stop[id] = true
			v.stops = append(v.stops, int32(id))
		}
	}
	for id := 0; id < n; id++ {
		if stop[id] || voc.IsSpecial(id) || len(voc.Bytes(id)) == 0 {
			continue
		}
		v.ids = append(v.ids, int32(id))
	}
	slices.SortFunc(v.ids, func(a, b int32) int {
		if c := bytes.Compare(voc.Bytes(int(a)), voc.Bytes(int(b))); c != 0 {
			return c
		}
		return int(a - b)
	})
	v.off = make([]int32, len(v.ids)+1)
	v.lcp = make([]int32, len(v.ids))
	var prev []byte
	for i, id := range v.ids {
		b := voc.Bytes(int(id))
		v.off[i] = int32(len(v.data))
		v.data = append(v.data, b...)
		v.lcp[i] = int32(commonPrefix(prev, b))
		v.maxLen = max(v.maxLen, len(b))
		prev = b
	}
	v.off[len(v.ids)] = int32(len(v.data))
	v.all = make([]uint32, WordsPerRow(n))
	for i, id := range v.ids {
		v.all[id>>5] |= 1 << (uint32(id) & 31)
		v.firstCount[v.tok(int32(i))[0]]++
	}
	v.buildTrie()
	return v
}

const (
	trieNonASCII = 1 << iota
	trieUTF8
)

// trieNode is the trie node of depth d on sorted position i's token; it
// must have been met first there (d > lcp[i]).
func (v *vocabIndex) trieNode(i int32, d int) int32 {
	return v.trieBase[i] + int32(d) - v.lcp[i] - 1
}

// buildTrie fills the trie node tables in one pass over the sorted tokens,
// keeping the nodes on the current token's path open and folding each node
// into its parent when the walk leaves it.
func (v *vocabIndex) buildTrie() {
	n := len(v.ids)
	v.trieBase = make([]int32, n+1)
	total := int32(0)
	for i := range n {
		v.trieBase[i] = total
		total += v.off[i+1] - v.off[i] - v.lcp[i]
	}
	v.trieBase[n] = total
	v.trieEnd = make([]int32, total)
	v.trieASCII = make([][2]uint64, total)
	v.trieFlags = make([]uint8, total)
	var open []int32 // open[d-1]: the node of depth d on the current path
	var valid []bool // valid[d]: tok[d:] is whole, valid UTF-8
	var edge []byte  // edge[d-1]: the byte leading into open[d-1]
	closeTo := func(depth, end int) {
		for len(open) > depth {
			d := len(open)
			node := open[d-1]
			v.trieEnd[node] = int32(end)
			if d > 1 {
				parent := open[d-2]
				e := edge[d-1]
				v.trieASCII[parent][0] |= v.trieASCII[node][0]
				v.trieASCII[parent][1] |= v.trieASCII[node][1]
				v.trieFlags[parent] |= v.trieFlags[node] & trieNonASCII
				if e < 0x80 {
					v.trieASCII[parent][e>>6] |= 1 << (e & 63)
				} else {
					v.trieFlags[parent] |= trieNonASCII
				}
			}
			open, edge = open[:d-1], edge[:d-1]
		}
	}
	for i := range n {
		tok := v.tok(int32(i))
		closeTo(int(v.lcp[i]), i)
		valid = utf8Suffixes(valid[:0], tok)
		for d := len(open) + 1; d <= len(tok); d++ {
			node := v.trieNode(int32(i), d)
			v.trieFlags[node] = trieUTF8
			open = append(open, node)
			edge = append(edge, tok[d-1])
		}
		for d := 1; d <= len(tok); d++ {
			if !valid[d] {
				v.trieFlags[open[d-1]] &^= trieUTF8
			}
		}
	}
	closeTo(0, n)
}

// utf8Suffixes appends, for d from 0 to len(tok), whether tok[d:] is whole,
// valid UTF-8.
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
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
