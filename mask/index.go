package mask

import (
	"bytes"
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
}

func (x *nodeIndex) numSuffixes() int { return len(x.sufGroup) - 1 }

func (x *nodeIndex) suffix(i int) []byte { return x.sufData[x.sufOff[i]:x.sufOff[i+1]] }

// sizeBytes is the memory the index takes.
func (x *nodeIndex) sizeBytes() int {
	return 4*(len(x.dense)+len(x.accepted)+len(x.sufOff)+len(x.sufLCP)+len(x.sufToks)+len(x.sufGroup)) + len(x.sufData) + 96
}

// exitEntry is one way an uncertain token can leave the rule: the token and
// the position of the byte it continues with outside.
type exitEntry struct {
	id  int32
	pos int32 // sorted-vocabulary position
	at  int32 // offset of the first byte left
}

// classify walks the whole sorted vocabulary from node n. st is scratch.
func classify(p *pda.Program, v *vocabIndex, n int32, st *pda.State, stride int) *nodeIndex {
	st.ResetAt(n)
	var accepted []int32
	var exits []exitEntry
	failAt := -1 // the previous token died adding its byte failAt
	first := p.FirstBytes(n)
	addExits := func(i int32, tok []byte, reached int) {
		// The walk may leave the rule after d bytes wherever CanEnd held.
		for d := 1; d <= reached && d < len(tok); d++ {
			if st.CanEndAt(d) {
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
			st.Rollback(0)
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
		st.Rollback(min(l, st.Depth()))
		for k := st.Depth(); k < len(tok); k++ {
			if !st.Advance(tok[k]) {
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
	st.Rollback(0)

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
	slices.SortFunc(exits, func(a, b exitEntry) int {
		if c := bytes.Compare(suffixOf(a), suffixOf(b)); c != 0 {
			return c
		}
		return int(a.id - b.id)
	})
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
	return x
}
