package mask

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/reinlm/rein/pda"
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
	sufToks  []int32 // token ids, grouped by suffix
	sufGroup []int32 // suffix i's tokens are sufToks[sufGroup[i]:sufGroup[i+1]]
	sufSkip  []int32 // the first suffix after i that starts with another byte
}

func (x *nodeIndex) numSuffixes() int { return len(x.sufGroup) - 1 }

func (x *nodeIndex) suffix(i int) []byte { return x.sufData[x.sufOff[i]:x.sufOff[i+1]] }

// sizeBytes is the memory the index takes.
func (x *nodeIndex) sizeBytes() int {
	return 4*(len(x.dense)+len(x.accepted)+len(x.sufOff)+len(x.sufLCP)+len(x.sufToks)+len(x.sufGroup)+len(x.sufSkip)) + len(x.sufData) + 120
}

// exitEntry is one way an uncertain token can leave the rule: the token and
// the position of the byte it continues with outside.
type exitEntry struct {
	id  int32
	pos int32 // sorted-vocabulary position
	at  int32 // offset of the first byte left
}

// tokenWalk follows tokens' bytes from one node: through the pushdown
// state in general, or, when no rule call is reachable from the node, along
// a plain path of DFA nodes, which is several times faster.
type tokenWalk struct {
	p    *pda.Program
	st   *pda.State // nil on the plain path
	path []int32    // path[d] is the node after d bytes
}

func (w *tokenWalk) depth() int {
	if w.st != nil {
		return w.st.Depth()
	}
	return len(w.path) - 1
}

func (w *tokenWalk) rollback(d int) {
	if w.st != nil {
		w.st.Rollback(d)
		return
	}
	w.path = w.path[:d+1]
}

func (w *tokenWalk) advance(b byte) bool {
	if w.st != nil {
		return w.st.Advance(b)
	}
	next := w.p.Next(w.path[len(w.path)-1], b)
	if next < 0 {
		return false
	}
	w.path = append(w.path, next)
	return true
}

// canEndAt reports whether the node's rule may have ended after d bytes.
func (w *tokenWalk) canEndAt(d int) bool {
	if w.st != nil {
		return w.st.CanEndAt(d)
	}
	return d > 0 && w.p.Final(w.path[d])
}

// sortExits orders exits by suffix, then token id. Nodes where a rule may
// end after a byte or two (whitespace) have tens of thousands of exits, so
// this is a radix sort on the suffixes' first eight bytes, leaving only runs
// with equal first bytes to a comparison sort.
func sortExits(exits []exitEntry, suffixOf func(exitEntry) []byte) {
	if len(exits) < 2 {
		return
	}
	keys := make([]uint64, len(exits))
	for i, e := range exits {
		var k [8]byte
		copy(k[:], suffixOf(e))
		keys[i] = binary.BigEndian.Uint64(k[:])
	}
	// Least significant byte first; a stable pass keeps earlier order, and
	// exits arrive in vocabulary order, not id order, hence the final runs.
	tmpE := make([]exitEntry, len(exits))
	tmpK := make([]uint64, len(exits))
	for shift := 0; shift < 64; shift += 8 {
		var count [257]int
		for _, k := range keys {
			count[(k>>shift)&0xff+1]++
		}
		if count[(keys[0]>>shift)&0xff+1] == len(keys) {
			continue // every key has the same byte here
		}
		for b := 1; b < 257; b++ {
			count[b] += count[b-1]
		}
		for i, k := range keys {
			j := count[(k>>shift)&0xff]
			count[(k>>shift)&0xff]++
			tmpE[j], tmpK[j] = exits[i], k
		}
		copy(exits, tmpE)
		copy(keys, tmpK)
	}
	for lo := 0; lo < len(exits); {
		hi := lo + 1
		for hi < len(exits) && keys[hi] == keys[lo] {
			hi++
		}
		if hi-lo > 1 {
			slices.SortFunc(exits[lo:hi], func(a, b exitEntry) int {
				if c := bytes.Compare(suffixOf(a), suffixOf(b)); c != 0 {
					return c
				}
				return int(a.id - b.id)
			})
		}
		lo = hi
	}
}

// classify walks the whole sorted vocabulary from node n. st is scratch,
// used unless callFree says the walk never enters another rule.
func classify(p *pda.Program, v *vocabIndex, n int32, st *pda.State, callFree bool, stride int) *nodeIndex {
	w := tokenWalk{p: p}
	if callFree {
		w.path = make([]int32, 1, v.maxLen+1)
		w.path[0] = n
	} else {
		st.ResetAt(n)
		w.st = st
	}
	var accepted []int32
	var exits []exitEntry
	failAt := -1 // the previous token died adding its byte failAt
	first := p.FirstBytes(n)
	addExits := func(i int32, tok []byte, reached int) {
		// The walk may leave the rule after d bytes wherever CanEnd held.
		for d := 1; d <= reached && d < len(tok); d++ {
			if w.canEndAt(d) {
				exits = append(exits, exitEntry{id: v.ids[i], pos: i, at: int32(d)})
			}
		}
	}
	for i := int32(0); i < int32(len(v.ids)); i++ {
		tok := v.tok(i)
		if first[tok[0]>>6]&(1<<(tok[0]&63)) == 0 {
			// Skip the whole subtree of this first byte.
			for i+1 < int32(len(v.ids)) && v.lcp[i+1] >= 1 {
				i++
			}
			failAt = -1
			w.rollback(0)
			continue
		}
		l := int(v.lcp[i])
		if failAt >= 0 && l > failAt {
			// Dies where the previous token died; it may still leave the
			// rule before that.
			addExits(i, tok, failAt)
			continue
		}
		failAt = -1
		w.rollback(min(l, w.depth()))
		for k := w.depth(); k < len(tok); k++ {
			if !w.advance(tok[k]) {
				failAt = k
				break
			}
		}
		if failAt < 0 {
			// Every byte was taken, so some stack is alive or the rule
			// ended exactly here: allowed whatever lies below.
			accepted = append(accepted, v.ids[i])
			continue
		}
		addExits(i, tok, failAt)
	}
	w.rollback(0)

	x := &nodeIndex{nAccepted: len(accepted)}
	if len(accepted) > stride {
		// Denser than one id per word: a row of bits is smaller and faster.
		x.dense = make([]uint32, stride)
		for _, id := range accepted {
			x.dense[id>>5] |= 1 << (uint32(id) & 31)
		}
	} else {
		x.accepted = accepted
	}
	suffixOf := func(e exitEntry) []byte { return v.tok(e.pos)[e.at:] }
	sortExits(exits, suffixOf)
	var prev []byte
	for k, e := range exits {
		suf := suffixOf(e)
		if k == 0 || !bytes.Equal(suf, prev) {
			x.sufGroup = append(x.sufGroup, int32(len(x.sufToks)))
			x.sufOff = append(x.sufOff, int32(len(x.sufData)))
			x.sufLCP = append(x.sufLCP, int32(commonPrefix(prev, suf)))
			x.sufData = append(x.sufData, suf...)
			prev = suf
		}
		x.sufToks = append(x.sufToks, e.id)
	}
	x.sufGroup = append(x.sufGroup, int32(len(x.sufToks)))
	x.sufOff = append(x.sufOff, int32(len(x.sufData)))
	ns := x.numSuffixes()
	x.sufSkip = make([]int32, ns)
	for i := ns - 1; i >= 0; i-- {
		if i+1 < ns && x.sufLCP[i+1] > 0 {
			x.sufSkip[i] = x.sufSkip[i+1]
		} else {
			x.sufSkip[i] = int32(i + 1)
		}
	}
	return x
}
