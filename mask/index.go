package mask

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"math/bits"
	"slices"
	"sync"

	"github.com/reinlm/rein/internal/byteset"
	"github.com/reinlm/rein/internal/pda"
)

// nodeIndex is the token classification of one automaton node, computed with
// an unknown caller below the node's rule:
//   - accepted: the token is consumed inside the rule (or ends exactly where
//     the rule may end), so it is allowed whatever the stack holds;
//   - uncertain: the token can leave the rule before its last byte, so only
//     the real stack can tell whether the rest is taken;
//   - rejected: everything else.
//
// Accepted tokens are kept as a bitmask row when there are many, else as a
// list of ids. Uncertain tokens are kept by the bytes they have left after
// leaving the rule (their suffix): at run time each distinct suffix is
// checked once against what the caller continues with, in byte order so
// shared prefixes are walked once, and decides every token that has it.
type nodeIndex struct {
	dense     []uint32 // accepted, as a row of bits (nil when sparse)
	accepted  []int32  // accepted token ids (when dense is nil)
	nAccepted int

	sufData  []byte  // distinct suffixes, sorted, concatenated
	sufOff   []int32 // suffix i is sufData[sufOff[i]:sufOff[i+1]]
	sufLCP   []int32 // common prefix of suffixes i-1 and i
	sufToks  []int32 // token ids, grouped by suffix, in vocabulary order
	sufGroup []int32 // suffix i's tokens are sufToks[sufGroup[i]:sufGroup[i+1]]
	sufSkip  []int32 // the first suffix after i that starts with another byte

	// Uncertain tokens by whole subtrees: where every token with some
	// prefix dies at the same byte after it could have left the rule (the
	// tens of thousands of tokens " word" at a node where whitespace may
	// end), the subtree is kept as one run of the sorted vocabulary, and
	// its suffixes are walked at run time straight from the trie.
	ranges []exitRange

	// A classification derived from its reference's (derive.go) holds no
	// row: it is base's, the classification of the loop its rule falls
	// into, but for the tokens walked apart from it, whose verdicts are its
	// own (accepted: the list above; uncertain: the tables above). Where
	// starts is set (a row the vocabulary's grammars share), only base's
	// tokens in it count; drop holds base's accepted tokens walked apart,
	// by word in order; bit j of keepSuf says base.sufToks[j] is uncertain
	// here too, with the same suffix. dense is nil.
	base    *nodeIndex
	starts  []uint32
	drop    []wordMask
	keepSuf []uint64

	uncertain int // tokens among suffixes and ranges, base's included (at most)

	err error // the classification failed (a step limit): masks here fail
}

// exitRange is a run of uncertain tokens: those at sorted positions lo to
// hi-1, which share their first common bytes and leave the rule after at
// of them (at < common).
type exitRange struct {
	lo, hi, at, common int32
}

// minExitRange is the smallest subtree of uncertain tokens kept as an
// exitRange rather than token by token.
const minExitRange = 4

func (x *nodeIndex) numSuffixes() int { return len(x.sufGroup) - 1 }

func (x *nodeIndex) suffix(i int) []byte { return x.sufData[x.sufOff[i]:x.sufOff[i+1]] }

// sizeBytes is the memory the index takes (not its base's, which is
// counted where it was made).
func (x *nodeIndex) sizeBytes() int {
	return 4*(cap(x.dense)+cap(x.accepted)+cap(x.sufOff)+cap(x.sufLCP)+cap(x.sufToks)+cap(x.sufGroup)+cap(x.sufSkip)+2*cap(x.drop)+2*cap(x.keepSuf)) + cap(x.sufData) +
		16*cap(x.ranges) + 200
}

// exitEntry is one way an uncertain token can leave the rule: the token and
// the position of the byte it continues with outside.
type exitEntry struct {
	id  int32
	pos int32 // sorted-vocabulary position
	at  int32 // offset of the first byte left
}

// sortExits orders exits by suffix, and by sorted position among exits
// with equal suffixes. Nodes where a rule may end after a byte or two
// (whitespace) have tens of thousands of exits, so this is a radix sort on
// the suffixes' first eight bytes, most significant first, leaving only
// runs that agree on eight bytes to a comparison sort.
func sortExits(exits []exitEntry, suffixOf func(exitEntry) []byte) {
	if len(exits) < 2 {
		return
	}
	sc := sortPool.Get().(*sortScratch)
	defer sortPool.Put(sc)
	keys := slices.Grow(sc.keys[:0], len(exits))[:len(exits)]
	for i, e := range exits {
		var k [8]byte
		copy(k[:], suffixOf(e))
		keys[i] = binary.BigEndian.Uint64(k[:])
	}
	sc.tmpE = slices.Grow(sc.tmpE[:0], len(exits))
	sc.tmpK = slices.Grow(sc.tmpK[:0], len(exits))
	radixExits(exits, keys, sc.tmpE[:len(exits)], sc.tmpK[:len(exits)], 56)
	sc.keys = keys
	run := sc.run[:0] // scratch for the runs that agree on eight bytes
	for lo := 0; lo < len(exits); {
		hi := lo + 1
		same := true // the run's suffixes are all equal
		n := len(suffixOf(exits[lo]))
		for hi < len(exits) && keys[hi] == keys[lo] {
			if m := len(suffixOf(exits[hi])); m != n || m > 8 {
				same = false
			}
			hi++
		}
		if !same {
			// Each suffix looked up once, not at every comparison.
			run = run[:0]
			for _, e := range exits[lo:hi] {
				run = append(run, sufExit{suffixOf(e), e})
			}
			slices.SortFunc(run, func(a, b sufExit) int {
				return cmp.Or(bytes.Compare(a.suf, b.suf), cmp.Compare(a.e.pos, b.e.pos))
			})
			for k, r := range run {
				exits[lo+k] = r.e
			}
		}
		lo = hi
	}
	clear(run) // the suffixes are the vocabulary's: hold none of it
	sc.run = run[:0]
}

// sortScratch is sortExits' scratch, kept between calls: the exits of a
// node where whitespace may end run to tens of thousands.
type sortScratch struct {
	keys, tmpK []uint64
	tmpE       []exitEntry
	run        []sufExit
}

var sortPool = sync.Pool{New: func() any { return new(sortScratch) }}

// sufExit is an exit with its suffix, for sortExits.
type sufExit struct {
	suf []byte
	e   exitEntry
}

// radixExits sorts exits stably by keys, whose bytes above shift+8 are
// equal, one byte at a time from the top; tmpE and tmpK are scratch.
func radixExits(exits []exitEntry, keys []uint64, tmpE []exitEntry, tmpK []uint64, shift int) {
	if len(exits) <= 64 {
		for i := 1; i < len(exits); i++ {
			for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
				keys[j], keys[j-1] = keys[j-1], keys[j]
				exits[j], exits[j-1] = exits[j-1], exits[j]
			}
		}
		return
	}
	same := true
	for _, k := range keys {
		same = same && k == keys[0]
	}
	if same {
		return
	}
	var count [257]int
	for _, k := range keys {
		count[(k>>shift)&0xff+1]++
	}
	for b := 1; b < 257; b++ {
		count[b] += count[b-1]
	}
	start := count
	var used byteset.Set // the bytes some key has here
	for i, k := range keys {
		used.Add(byte(k >> shift))
		j := count[(k>>shift)&0xff]
		count[(k>>shift)&0xff]++
		tmpE[j], tmpK[j] = exits[i], k
	}
	copy(exits, tmpE)
	copy(keys, tmpK)
	if shift == 0 {
		return
	}
	for w, word := range used {
		for ; word != 0; word &= word - 1 {
			b := w<<6 + bits.TrailingZeros64(word)
			if lo, hi := start[b], start[b+1]; hi-lo > 1 {
				radixExits(exits[lo:hi], keys[lo:hi], tmpE[lo:hi], tmpK[lo:hi], shift-8)
			}
		}
	}
}

// classify classifies the sorted vocabulary from node n: a wide node from
// the vocabulary's rows of tokens (classifyWide) or, where no set of bytes
// serves, through the folded trie (classifyFolded), others by a walk of the
// trie through a walkDFA, and, for the rare node whose walk meets too many
// configurations, through the pushdown state st. It also returns the work it took, in steps: trie
// positions visited, bytes stepped and exits recorded (a count, so tests of
// what classification costs on the decode path are exact).
func classify(p *pda.Program, v *vocabIndex, n int32, st *pda.State, stride int) (*nodeIndex, int) {
	return classifyAside(p, v, n, st, stride, false)
}

// classifyAside is classify, whose walk steps aside for fills (walkDFA.tick)
// where bg is set: for background work.
func classifyAside(p *pda.Program, v *vocabIndex, n int32, st *pda.State, stride int, bg bool) (*nodeIndex, int) {
	a := takeWalk(p, n)
	a.bg = bg
	x, ok := a.classifyWide(v, n, stride, false)
	work := a.work
	wideStart := !ok && startsWide(v, &a.first)
	if wideStart {
		// Every character to one state (a pattern's dot): walk only the
		// tokens that state takes on.
		x, ok = a.classifyPastChar(v, stride)
		work += a.work
	}
	if !ok && wideStart {
		// Most of the vocabulary is alive past the first byte: fold it.
		x, ok = a.classifyFolded(v, stride, 0)
		work += a.work
	}
	if !ok {
		x, ok = a.classify(v, n, stride)
		work += a.work
	}
	putWalk(p, a)
	if !ok && !p.HasBytes(n) {
		// A reference (derive.go) too tangled to walk: none.
		return &nodeIndex{err: errNoWalk}, work
	}
	if !ok {
		var w int
		x, w = classifyStackWork(p, v, n, st, stride)
		work += w
	}
	return x, work
}

// errNoWalk marks a classification that only a walk could make (of a node
// without bytes, derive.go's reference, or within a return, within.go)
// where the walk met more configurations than it keeps: the node's own
// classification serves instead.
var errNoWalk = errors.New("mask: too many configurations to classify by a walk")

// classifyStack classifies the sorted vocabulary from node n by running
// every token through the pushdown state st, reusing the walk of the
// previous token's shared prefix. It is the plain definition of a node's
// classification: the fallback of classify and its reference in tests.
func classifyStack(p *pda.Program, v *vocabIndex, n int32, st *pda.State, stride int) *nodeIndex {
	x, _ := classifyStackWork(p, v, n, st, stride)
	return x
}

// classifyStackWork is classifyStack, also returning its work (see classify).
func classifyStackWork(p *pda.Program, v *vocabIndex, n int32, st *pda.State, stride int) (*nodeIndex, int) {
	st.ResetAt(n)
	work := 0
	acc := make([]uint32, stride)
	count := 0
	var exits []exitEntry
	failAt := -1 // the previous token died adding its byte failAt
	first := p.FirstBytes(n)
	ids := v.IDs()
	addExits := func(i int, tok []byte, reached int) {
		for d := 1; d <= reached && d < len(tok); d++ {
			if st.CanEndAt(d) {
				exits = append(exits, exitEntry{id: ids[i], pos: int32(i), at: int32(d)})
			}
		}
	}
	for i := range ids {
		work++
		tok := v.Token(i)
		if !first.Has(tok[0]) {
			failAt = -1
			st.Rollback(0)
			continue
		}
		l := v.LCP(i)
		if failAt >= 0 && l > failAt {
			addExits(i, tok, failAt)
			continue
		}
		failAt = -1
		st.Rollback(min(l, st.Depth()))
		for k := st.Depth(); k < len(tok); k++ {
			work++
			if !st.Advance(tok[k]) {
				failAt = k
				break
			}
		}
		if failAt < 0 {
			id := ids[i]
			acc[id>>5] |= 1 << (uint32(id) & 31)
			count++
			continue
		}
		addExits(i, tok, failAt)
	}
	st.Rollback(0)
	work += len(exits)
	if err := st.Err(); err != nil {
		return &nodeIndex{err: err}, work
	}
	return newNodeIndex(v, acc, nil, count, exits, nil, stride), work
}

// newNodeIndex builds a node's index from its accepted tokens, a row of
// count bits (and, where the caller kept them, list: their ids, each once),
// and its exits. It takes out the stop tokens of the trie,
// which acc and exits may hold (their bytes were walked like any token's):
// a stop token is allowed where the grammar can end, whatever its bytes.
func newNodeIndex(v *vocabIndex, acc []uint32, list []int32, count int, exits []exitEntry, ranges []exitRange, stride int) *nodeIndex {
	if len(v.trieStops) > 0 {
		for _, id := range v.trieStops {
			if acc[id>>5]&(1<<(uint32(id)&31)) != 0 {
				acc[id>>5] &^= 1 << (uint32(id) & 31)
				count--
			}
		}
		exits = slices.DeleteFunc(exits, func(e exitEntry) bool { return v.isStop(e.id) })
	}
	x := &nodeIndex{nAccepted: count}
	if len(ranges) > 0 {
		x.ranges = slices.Clone(ranges)
	}
	if count > stride {
		// Denser than one id per word: a row of bits is smaller and faster.
		x.dense = slices.Clone(acc)
	} else if list != nil {
		// The caller kept the ids as it set them: no pass over the row. Their
		// order is the walk's; a mask ORs them in, in any order.
		x.accepted = make([]int32, 0, count)
		for _, id := range list {
			if acc[id>>5]&(1<<(uint32(id)&31)) != 0 { // not a stop token taken out
				x.accepted = append(x.accepted, id)
			}
		}
	} else {
		x.accepted = idsOf(acc, count)
	}
	suffixOf := func(e exitEntry) []byte { return v.Token(int(e.pos))[e.at:] }
	sortExits(exits, suffixOf)
	// Sized first, so that each table is one allocation of its exact size.
	groups, data := 0, 0
	var prev []byte
	for k, e := range exits {
		if suf := suffixOf(e); k == 0 || !bytes.Equal(suf, prev) {
			groups++
			data += len(suf)
			prev = suf
		}
	}
	var t suffixTable
	t.begin(x, groups, len(exits), data)
	for _, e := range exits {
		t.add(suffixOf(e), e.id)
	}
	t.finish()
	return x
}

// idsOf returns the ids of the count bits set in row, in increasing order.
func idsOf(row []uint32, count int) []int32 {
	ids := make([]int32, 0, count)
	for w, word := range row {
		for ; word != 0; word &= word - 1 {
			ids = append(ids, int32(w<<5+bits.TrailingZeros32(word)))
		}
	}
	return ids
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
