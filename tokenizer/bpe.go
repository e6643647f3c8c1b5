package tokenizer

import (
	"sync"
	"unicode/utf8"
)

// mergeTable tells whether two adjacent symbols of a word merge, with what
// rank (lower merges first) and into which token. Hugging Face and GPT-2
// files list their merges; tiktoken's follow from the ranks: two adjacent
// symbols merge when together they spell a token, whose id is the rank.
type mergeTable struct {
	pairs  map[uint64]uint64 // left<<32 | right → rank<<32 | result; nil for tiktoken
	v      *Vocab            // tiktoken: the tokens
	maxLen int               // tiktoken: the longest token, in bytes
}

func pairKey(l, r int32) uint64 { return uint64(uint32(l))<<32 | uint64(uint32(r)) }

func newMergeTable(merges []merge) mergeTable {
	t := mergeTable{pairs: make(map[uint64]uint64, len(merges))}
	for rank, m := range merges {
		// A pair listed twice takes its last rank, as in Hugging Face tokenizers.
		t.pairs[pairKey(m.left, m.right)] = uint64(rank)<<32 | uint64(uint32(m.result))
	}
	return t
}

func rankMergeTable(v *Vocab) mergeTable {
	t := mergeTable{v: v}
	for id := range v.kind {
		t.maxLen = max(t.maxLen, int(v.off[id+1]-v.off[id]))
	}
	return t
}

// lookup returns the merge of symbols l and r, which spell word[from:to].
func (t *mergeTable) lookup(word string, l, r int32, from, to int32) (rank uint32, result int32, ok bool) {
	if l < 0 || r < 0 {
		return 0, 0, false // fallback bytes never merge
	}
	if t.pairs != nil {
		x, ok := t.pairs[pairKey(l, r)]
		return uint32(x >> 32), int32(uint32(x)), ok
	}
	if int(to-from) > t.maxLen {
		return 0, 0, false
	}
	id, ok := t.v.byBytes[word[from:to]]
	if !ok || t.v.kind[id] != kindNormal {
		return 0, 0, false
	}
	return uint32(id), id, true
}

// bpe encodes one word and appends its token ids to out.
func (e *Encoder) bpe(word string, out []int) []int {
	s := symbolsPool.Get().(*symbols)
	defer symbolsPool.Put(s)
	s.word = word
	s.ids, s.start = s.ids[:0], s.start[:0]
	if e.spec.hf == hfSentencePiece {
		e.pieceSymbols(s)
	} else {
		for i := 0; i < len(word); i++ {
			s.ids = append(s.ids, e.byteIDs[word[i]])
			s.start = append(s.start, int32(i))
		}
	}
	if len(s.ids) <= naiveBPEMax {
		s.mergeNaive(&e.table)
	} else {
		s.mergeHeap(&e.table)
	}
	for _, id := range s.ids {
		if id <= -2 {
			id = -2 - id // a fallback byte
		}
		out = append(out, int(id))
	}
	s.word = ""
	return out
}

// pieceSymbols splits a SentencePiece word into its characters' tokens. A
// character with no token becomes its bytes' <0xXX> tokens (byte fallback)
// or, without byte fallback, the unknown token (a run of them one token with
// fuse_unk). Fallback bytes take no part in merges: their ids are stored negated
// minus two so that no merge rule matches them and -1 stays free.
func (e *Encoder) pieceSymbols(s *symbols) {
	word := s.word
	unk := false
	for i := 0; i < len(word); {
		r, n := utf8.DecodeRuneInString(word[i:])
		at := int32(i)
		ch := word[i : i+n]
		i += n
		if r != utf8.RuneError || n > 1 {
			if id, ok := e.runeIDs[r]; ok {
				s.ids = append(s.ids, id)
				s.start = append(s.start, at)
				unk = false
				continue
			}
		}
		if e.spec.byteFallback && e.fallbackOK(ch) {
			for j := 0; j < len(ch); j++ {
				s.ids = append(s.ids, -2-e.byteIDs[ch[j]])
				s.start = append(s.start, at+int32(j))
			}
			unk = false
			continue
		}
		if e.spec.unk >= 0 && !(unk && e.spec.fuseUnk) {
			s.ids = append(s.ids, e.spec.unk)
			s.start = append(s.start, at)
		}
		unk = true
	}
}

func (e *Encoder) fallbackOK(ch string) bool {
	for j := 0; j < len(ch); j++ {
		if e.byteIDs[ch[j]] < 0 {
			return false
		}
	}
	return true
}

// naiveBPEMax is the word length up to which the quadratic scan beats the
// heap.
const naiveBPEMax = 12

// symbols is the scratch state of one BPE run over word: symbol i is token
// ids[i] and starts at byte start[i]; the heap keeps them in a doubly linked
// list.
type symbols struct {
	word       string
	ids        []int32
	start      []int32
	prev, next []int32
	heap       []heapEntry
}

var symbolsPool = sync.Pool{New: func() any { return new(symbols) }}

// end returns where symbol i of the compact list ends.
func (s *symbols) end(i int) int32 {
	if i+1 < len(s.start) {
		return s.start[i+1]
	}
	return int32(len(s.word))
}

// mergeNaive repeatedly merges the lowest-ranked adjacent pair (the leftmost
// among equals) in place.
func (s *symbols) mergeNaive(t *mergeTable) {
	for len(s.ids) > 1 {
		best, bestRank, bestRes := -1, uint32(0), int32(0)
		for i := 0; i+1 < len(s.ids); i++ {
			rank, res, ok := t.lookup(s.word, s.ids[i], s.ids[i+1], s.start[i], s.end(i+1))
			if ok && (best < 0 || rank < bestRank) {
				best, bestRank, bestRes = i, rank, res
			}
		}
		if best < 0 {
			return
		}
		s.ids[best] = bestRes
		s.ids = append(s.ids[:best+1], s.ids[best+2:]...)
		s.start = append(s.start[:best+1], s.start[best+2:]...)
	}
}

type heapEntry struct {
	rank        uint32
	pos         int32
	left, right int32
	result      int32
}

func (a heapEntry) less(b heapEntry) bool {
	return a.rank < b.rank || a.rank == b.rank && a.pos < b.pos
}

// mergeHeap does what mergeNaive does in O(n log n): candidate merges wait in
// a heap ordered by (rank, position); a popped merge whose pair has changed
// since it was pushed is stale and skipped. Merged symbols keep the position
// of their left part; the right part's id becomes -1.
func (s *symbols) mergeHeap(t *mergeTable) {
	n := len(s.ids)
	if n < 2 {
		return
	}
	s.prev = grow(s.prev, n)
	s.next = grow(s.next, n)
	for i := range n {
		s.prev[i] = int32(i - 1)
		s.next[i] = int32(i + 1)
	}
	s.next[n-1] = -1
	s.heap = s.heap[:0]
	for i := 0; i+1 < n; i++ {
		s.push(t, int32(i), int32(i+1))
	}
	ids := s.ids
	for len(s.heap) > 0 {
		e := s.pop()
		nx := s.next[e.pos]
		if ids[e.pos] != e.left || nx < 0 || ids[nx] != e.right {
			continue
		}
		ids[e.pos] = e.result
		ids[nx] = -1
		after := s.next[nx]
		s.next[e.pos] = after
		if after >= 0 {
			s.prev[after] = e.pos
		}
		if p := s.prev[e.pos]; p >= 0 {
			s.push(t, p, e.pos)
		}
		if after >= 0 {
			s.push(t, e.pos, after)
		}
	}
	k := 0
	for i := int32(0); i >= 0; i = s.next[i] {
		ids[k] = ids[i]
		s.start[k] = s.start[i]
		k++
	}
	s.ids, s.start = ids[:k], s.start[:k]
}

func grow(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

// push queues the merge of linked symbols l and r, if they merge.
func (s *symbols) push(t *mergeTable, l, r int32) {
	to := int32(len(s.word))
	if nx := s.next[r]; nx >= 0 {
		to = s.start[nx]
	}
	a, b := s.ids[l], s.ids[r]
	rank, res, ok := t.lookup(s.word, a, b, s.start[l], to)
	if !ok {
		return
	}
	h := append(s.heap, heapEntry{rank: rank, pos: l, left: a, right: b, result: res})
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	s.heap = h
}

func (s *symbols) pop() heapEntry {
	h := s.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].less(h[m]) {
			m = l
		}
		if r < len(h) && h[r].less(h[m]) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	s.heap = h
	return top
}
