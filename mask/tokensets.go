package mask

import (
	"math"
	"sync"

	"github.com/reinlm/rein/internal/byteset"
	"github.com/reinlm/rein/tokenizer/toktrie"
)

// byteKey names a set of tokens by their bytes: those with a byte of
// bytes, and with wholeUTF8, also those that are not whole, valid UTF-8
// (see toktrie.Trie.Containing).
type byteKey struct {
	bytes     byteset.Set
	wholeUTF8 bool
}

// tokenSets holds what classifyWide asks of one trie, built on first use
// and kept while the trie is: lists of the tokens with some bytes, rows of
// the tokens without them, and rows of the tokens of at most n characters.
// The few sets of bytes that keep a walk alive in the automata of JSON
// Schemas (a string's inside, a key's, a pattern's) recur across grammars,
// so each costs one pass over the vocabulary once.
type tokenSets struct {
	mu    sync.Mutex
	lists map[byteKey]*tokenSet
	clean map[byteKey]*tokenSet
	short map[int]*tokenSet
	long  map[int]*tokenSet
	band  map[[2]int]*tokenSet
	start map[byteset.Set]*tokenSet
	after map[afterKey]*tokenSet // containingAfter's lists
	clear map[afterKey]*tokenSet // withoutAfter's rows
	bytes int
}

// afterKey names a set of the tokens that start with one ASCII byte by
// their bytes after it.
type afterKey struct {
	first byte
	key   byteKey
}

// tokenSet is one set, as sorted positions or as a bitmask row of ids.
type tokenSet struct {
	once sync.Once
	pos  []int32
	row  []uint32
}

// maxTokenSetBytes bounds the memory of one trie's token sets; past it no
// new set is built, and nodes that would need one are walked.
const maxTokenSetBytes = 32 << 20

// containing returns the sorted positions of the tokens in k.
func (l *tokenSets) containing(tr *toktrie.Trie, k byteKey) ([]int32, bool) {
	x, ok := getSet(l, &l.lists, k, func(x *tokenSet) { x.pos = tr.Containing(&k.bytes, k.wholeUTF8) })
	if !ok {
		return nil, false
	}
	return x.pos, true
}

// without returns the row of the trie's tokens that are not in k.
func (l *tokenSets) without(v *vocabIndex, k byteKey) ([]uint32, bool) {
	x, ok := getSet(l, &l.clean, k, func(x *tokenSet) {
		x.row = append([]uint32(nil), v.perTrie.all...)
		v.Trie.ClearContaining(x.row, &k.bytes, k.wholeUTF8)
	})
	if !ok {
		return nil, false
	}
	return x.row, true
}

// containingAfter returns the sorted positions of the tokens that start
// with b, which is ASCII, and are in k but for their first byte: they have
// a byte of k after it, or, with k.wholeUTF8, are not whole UTF-8.
func (l *tokenSets) containingAfter(v *vocabIndex, b byte, k byteKey) ([]int32, bool) {
	x, ok := getSet(l, &l.after, afterKey{b, k}, func(x *tokenSet) {
		for p := v.FirstByteStart(int(b)); p < v.FirstByteStart(int(b)+1); p++ {
			if v.Trie.ContainsAfterFirst(p, &k.bytes, k.wholeUTF8) {
				x.pos = append(x.pos, int32(p))
			}
		}
	})
	if !ok {
		return nil, false
	}
	return x.pos, true
}

// withoutAfter returns the row of the tokens that start with b, which is
// ASCII, and are not in k but for their first byte (see containingAfter).
func (l *tokenSets) withoutAfter(v *vocabIndex, b byte, k byteKey) ([]uint32, bool) {
	x, ok := getSet(l, &l.clear, afterKey{b, k}, func(x *tokenSet) {
		x.row = make([]uint32, len(v.perTrie.all))
		ids := v.IDs()
		for p := v.FirstByteStart(int(b)); p < v.FirstByteStart(int(b)+1); p++ {
			if id := ids[p]; !v.Trie.ContainsAfterFirst(p, &k.bytes, k.wholeUTF8) {
				x.row[id>>5] |= 1 << (uint32(id) & 31)
			}
		}
	})
	if !ok {
		return nil, false
	}
	return x.row, true
}

// atMost returns the row of the trie's tokens of at most n characters:
// every token's bits less the longer ones', or the shorter ones' bits,
// whichever are fewer.
func (l *tokenSets) atMost(v *vocabIndex, n int) ([]uint32, bool) {
	x, ok := getSet(l, &l.short, n, func(x *tokenSet) {
		ids := v.IDs()
		if n >= maxCountedChars || v.Len()-v.CountChars(-1, n) < v.CountChars(-1, n) {
			x.row = append([]uint32(nil), v.perTrie.all...)
			for p := range v.Chars(n, math.MaxInt) {
				id := ids[p]
				x.row[id>>5] &^= 1 << (uint32(id) & 31)
			}
			return
		}
		x.row = make([]uint32, len(v.perTrie.all))
		for p := range v.Chars(-1, n) {
			id := ids[p]
			x.row[id>>5] |= 1 << (uint32(id) & 31)
		}
	})
	if !ok {
		return nil, false
	}
	return x.row, true
}

// startingWith returns the row of the trie's tokens whose first byte is in
// first.
func (l *tokenSets) startingWith(v *vocabIndex, first byteset.Set) ([]uint32, bool) {
	x, ok := getSet(l, &l.start, first, func(x *tokenSet) {
		x.row = make([]uint32, len(v.perTrie.all))
		ids := v.IDs()
		for i := 0; i < v.Len(); {
			end := v.End(v.Node(i, 1))
			if first.Has(v.Token(i)[0]) {
				for _, id := range ids[i:end] {
					x.row[id>>5] |= 1 << (uint32(id) & 31)
				}
			}
			i = end
		}
	})
	if !ok {
		return nil, false
	}
	return x.row, true
}

// longer returns the sorted positions of the tokens of more than n
// characters.
func (l *tokenSets) longer(v *vocabIndex, n int) ([]int32, bool) {
	x, ok := getSet(l, &l.long, n, func(x *tokenSet) { x.pos = v.SortedChars(n, math.MaxInt) })
	if !ok {
		return nil, false
	}
	return x.pos, true
}

// between returns the sorted positions of the trie's tokens of more than lo
// and at most hi characters.
func (l *tokenSets) between(v *vocabIndex, lo, hi int) ([]int32, bool) {
	x, ok := getSet(l, &l.band, [2]int{lo, hi}, func(x *tokenSet) { x.pos = v.SortedChars(lo, hi) })
	if !ok {
		return nil, false
	}
	return x.pos, true
}

// getSet returns the set of m under k, building it with build on first use.
func getSet[K comparable](l *tokenSets, m *map[K]*tokenSet, k K, build func(*tokenSet)) (*tokenSet, bool) {
	l.mu.Lock()
	x := (*m)[k]
	if x == nil {
		if l.bytes >= maxTokenSetBytes {
			l.mu.Unlock()
			return nil, false
		}
		if *m == nil {
			*m = map[K]*tokenSet{}
		}
		x = new(tokenSet)
		(*m)[k] = x
	}
	l.mu.Unlock()
	x.once.Do(func() {
		build(x)
		l.mu.Lock()
		l.bytes += 4*(cap(x.pos)+cap(x.row)) + 96
		l.mu.Unlock()
	})
	return x, true
}

// sizeBytes is the memory the sets hold.
func (l *tokenSets) sizeBytes() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bytes
}

// reset forgets every set.
func (l *tokenSets) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lists, l.clean, l.short, l.long, l.band, l.start, l.after, l.clear, l.bytes = nil, nil, nil, nil, nil, nil, nil, nil, 0
}
