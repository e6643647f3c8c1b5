package mask

import (
	"bytes"
	"cmp"
	"math/bits"
	"slices"

	"github.com/reinlm/rein/internal/byteset"
)

// Classifications derived from the loop a node falls into.
//
// The positions of a key that must not be one of its object's names differ
// only in the names they may still spell: every other byte leads each of
// them into the rest of the key, which takes any character from then on. A
// token whose walk from the node and whose walk from that loop meet in the
// same configuration after the same bytes, having passed no rule end on
// the way, has one verdict from both (accepted, refused, or leaving the
// rule with the same suffix), since what follows depends on the
// configuration alone. So such a node's classification is the loop's, but
// for the tokens whose walks never meet, which are walked from the node
// itself: those that spell on into a name. The loop is where the node's
// most common byte leads (its reference: a node of the rule, often one
// without bytes of its own that calls the rest of the key), classified
// once from the tops it stands for, and shared by the grammars of the
// vocabulary where its shape recurs (every key's rest is alike); each
// position of every key then costs a walk of a few trie branches instead of
// one of every token with a quote in it.

// maxDerivedShare: a derived classification takes at most a number of
// steps (trie positions and bytes) that is 1/maxDerivedShare of the
// vocabulary's tokens; past it the node is classified as others are.
const maxDerivedShare = 16

// deriveIndex classifies wide node n from its reference's classification,
// reporting false where n's most common byte leads to no loop standing for
// a node of the program, where more than 1/maxDerivedShare of the tokens
// start with a byte n takes elsewhere than the loop does, where the reference's
// classification keeps whole runs of uncertain tokens (exitRange), or
// where its walk takes too many steps. It also returns its work (see
// classify); the reference's classification is counted where it is made.
func (c *Compiled) deriveIndex(n int32, warm bool) (*nodeIndex, int, bool) {
	p, v := c.prog, c.voc
	a := takeWalk(p, n)
	defer putWalk(p, a)
	a.work, a.bg = 0, warm
	start := a.start
	a.probe(start)
	loop := a.loops[start].succ
	if loop < 0 || loop == start || a.canEnd[loop] {
		return nil, 0, false
	}
	a.probe(loop)
	if a.loops[loop].succ != loop {
		return nil, 0, false
	}
	// The reference: the node the loop stands for, where one of the bytes
	// leading there takes n in its own rule.
	r := int32(-1)
	for b := range 128 {
		if a.loops[start].ascii.Has(byte(b)) {
			r = p.Next(n, byte(b))
			break
		}
	}
	first := a.first
	if r < 0 || r == n || !a.begin(r) || a.start != loop {
		return nil, 0, false
	}
	a.start, a.first = start, first
	// The tokens walked apart are those whose first byte n takes into
	// another configuration than the loop's; those it refuses are refused
	// by their first byte, without a walk.
	apart := 0
	for b := range 256 {
		t, u := a.next(start, byte(b)), a.next(loop, byte(b))
		if t == stateFull || u == stateFull {
			return nil, 0, false
		}
		if t >= 0 && t != u {
			apart += v.FirstByteCount(byte(b))
		}
	}
	if apart*maxDerivedShare > v.Len() {
		return nil, 0, false
	}
	base := c.indexNode(r, warm)
	if base.err != nil || len(base.ranges) > 0 || base.base != nil || base.uncertain >= minShapedExits {
		// A derived classification's base is decided token by token at
		// every mask (checkDerived), not by caller shape (exits.go).
		return nil, 0, false
	}
	if !a.walkApart(v, loop) {
		return nil, 0, false
	}
	x := a.derived(v, base)
	return x, a.work, x != nil
}

// walkApart walks the sorted vocabulary from the start and, beside it, from
// state twin, and classifies the tokens whose two walks never meet: into
// a.accepted, a.exits and a.except (every such token, whatever its
// verdict). It reports false where it takes more steps than 1/maxDerivedShare
// of the vocabulary's tokens, or where the walk met more configurations than
// it keeps.
func (a *walkDFA) walkApart(v *vocabIndex, twin int32) bool {
	tr := v.Trie
	ids := tr.IDs()
	stride := WordsPerRow(v.size)
	a.except = growClear(a.except, stride)
	a.accepted, a.exits = a.accepted[:0], a.exits[:0]
	limit := v.Len() / maxDerivedShare
	mark := func(lo, hi int) {
		for _, id := range ids[lo:hi] {
			a.except[id>>5] |= 1 << (uint32(id) & 31)
		}
	}
	addExits := func(i int, tok []byte, reached int) {
		if v.isStop(ids[i]) {
			return // allowed where the grammar may end, not by its bytes
		}
		for d := 1; d <= reached && d < len(tok); d++ {
			if a.canEnd[a.path[d]] {
				a.exits = append(a.exits, exitEntry{id: ids[i], pos: int32(i), at: int32(d)})
			}
		}
	}
	// path[d] and twin[d]: the states after d bytes from the start and
	// from twin; clean[d]: no rule may end after 1 to d bytes of either.
	a.path = append(a.path[:0], a.start)
	a.twin = append(a.twin[:0], twin)
	a.clean = append(a.clean[:0], true)
	failAt := -1 // the previous token died adding its byte failAt
	a.refusedFirst = byteset.Set{}
outer:
	for i := 0; i < len(ids); i++ {
		if a.work > limit {
			return false
		}
		a.work++
		a.tick()
		tok := tr.Token(i)
		if l := tr.LCP(i); l == 0 && a.next(a.start, tok[0]) < 0 {
			// Refused by its first byte, with every token after it that has
			// it: the reference's verdict where it refuses them too, else
			// taken out by that byte (derived), not token by token.
			if a.next(twin, tok[0]) >= 0 {
				a.refusedFirst.Add(tok[0])
			}
			i = tr.FirstByteStart(int(tok[0])+1) - 1
			failAt = -1
			continue
		}
		l := tr.LCP(i)
		if failAt >= 0 && l > failAt {
			// Dies where the previous token died, apart from the loop's walk.
			mark(i, i+1)
			addExits(i, tok, failAt)
			continue
		}
		failAt = -1
		keep := min(l, len(a.path)-1)
		a.path, a.twin, a.clean = a.path[:keep+1], a.twin[:keep+1], a.clean[:keep+1]
		for k := keep; k < len(tok); k++ {
			a.work++
			s, u := a.path[k], a.twin[k]
			t := int32(a.trans[int(s)<<8|int(tok[k])])
			if t == stateUnknown {
				t = a.next(s, tok[k])
			}
			if t == stateFull {
				return false
			}
			if t < 0 {
				failAt = k
				break
			}
			if u >= 0 {
				if u = a.next(u, tok[k]); u == stateFull {
					return false
				}
			}
			if t == u && a.clean[k] {
				// The walks meet: every token with these k+1 bytes has the
				// loop's verdict.
				i = tr.End(tr.Node(i, k+1)) - 1
				continue outer
			}
			a.path = append(a.path, t)
			a.twin = append(a.twin, u)
			a.clean = append(a.clean, a.clean[k] && !a.canEnd[t] && (u < 0 || !a.canEnd[u]))
		}
		if failAt < 0 {
			mark(i, i+1)
			if id := ids[i]; !v.isStop(id) {
				a.accepted = append(a.accepted, id)
			}
			continue
		}
		if !a.leavesBeforeOn(a.path, failAt) {
			// Every token with these failAt+1 bytes dies here, apart.
			end := tr.End(tr.Node(i, failAt+1))
			mark(i, end)
			i = end - 1
			failAt = -1
			continue
		}
		mark(i, i+1)
		addExits(i, tok, failAt)
	}
	return a.work <= limit
}

// derived builds the classification walkApart found: base's, less the
// tokens in a.except and those starting with a byte of a.refusedFirst,
// plus a.accepted and a.exits. It holds no row of its own (nodeIndex.base):
// a key's every position is such a classification, and copying base's row
// and tables into each cost more than the walk. It returns nil where a row
// of tokens by first byte is over its budget.
func (a *walkDFA) derived(v *vocabIndex, base *nodeIndex) *nodeIndex {
	// The tokens that keep the reference's verdict: all but those walked
	// apart (a.except) and those starting with a byte the start refuses
	// alone, which a row the vocabulary's grammars share leaves out.
	x := &nodeIndex{base: base}
	if a.refusedFirst != (byteset.Set{}) {
		var rest byteset.Set
		for b := range 256 {
			if !a.refusedFirst.Has(byte(b)) {
				rest.Add(byte(b))
			}
		}
		starts, ok := v.perTrie.sets.startingWith(v, rest)
		if !ok {
			return nil
		}
		x.starts = starts
	}
	keeps := func(id int32) bool {
		bit := uint32(1) << (uint32(id) & 31)
		return a.except[id>>5]&bit == 0 && (x.starts == nil || x.starts[id>>5]&bit != 0)
	}
	// Base's accepted tokens walked apart, by word; those starting with a
	// refused byte are left out by x.starts.
	kept := 0
	if base.dense != nil {
		for w, acc := range base.dense {
			if x.starts != nil {
				acc &= x.starts[w]
			}
			if d := acc & a.except[w]; d != 0 {
				x.drop = append(x.drop, wordMask{w: int32(w), m: d})
			}
			kept += bits.OnesCount32(acc &^ a.except[w])
		}
	} else {
		for _, id := range base.accepted {
			bit := uint32(1) << (uint32(id) & 31)
			switch {
			case keeps(id):
				kept++
			case x.starts == nil || x.starts[id>>5]&bit != 0:
				x.drop = append(x.drop, wordMask{w: id >> 5, m: bit})
			}
		}
		// In word order, one entry a word (base.accepted is in the order
		// its walk met the tokens).
		slices.SortFunc(x.drop, func(p, q wordMask) int { return cmp.Compare(p.w, q.w) })
		merged := x.drop[:0]
		for _, d := range x.drop {
			if k := len(merged) - 1; k >= 0 && merged[k].w == d.w {
				merged[k].m |= d.m
			} else {
				merged = append(merged, d)
			}
		}
		x.drop = merged
	}
	x.accepted = slices.Clone(a.accepted) // no stop tokens: walkApart left them out
	x.nAccepted = kept + len(x.accepted)
	if len(base.sufToks) > 0 {
		x.keepSuf = make([]uint64, (len(base.sufToks)+63)/64)
		for j, id := range base.sufToks {
			if keeps(id) {
				x.keepSuf[j>>6] |= 1 << (j & 63)
			}
		}
	}
	// The suffixes of the tokens walked apart.
	suffixOf := func(e exitEntry) []byte { return v.Token(int(e.pos))[e.at:] }
	own := a.exits
	sortExits(own, suffixOf)
	data := 0
	for _, e := range own {
		data += len(suffixOf(e))
	}
	var t suffixTable
	t.begin(x, len(own), len(own), data)
	for _, e := range own {
		t.add(suffixOf(e), e.id)
	}
	t.finish()
	x.uncertain += base.uncertain
	return x
}

// wordMask is the bits of one word of a vocabulary row.
type wordMask struct {
	w int32
	m uint32
}

// orDerived ORs into out the tokens derived classification x accepts:
// its base's but those in x.drop and, with x.starts, those not in it, and
// its own.
func (x *nodeIndex) orDerived(out []uint32) {
	b := x.base
	switch {
	case b.dense != nil:
		or := func(lo, hi int) {
			if x.starts == nil {
				orWords(out[lo:hi], b.dense[lo:hi])
				return
			}
			for w := lo; w < hi; w++ {
				out[w] |= b.dense[w] & x.starts[w]
			}
		}
		prev := 0
		for _, d := range x.drop {
			or(prev, int(d.w))
			v := b.dense[d.w] &^ d.m
			if x.starts != nil {
				v &= x.starts[d.w]
			}
			out[d.w] |= v
			prev = int(d.w) + 1
		}
		or(prev, len(out))
	default:
		for _, id := range b.accepted {
			bit := uint32(1) << (uint32(id) & 31)
			if x.starts != nil && x.starts[id>>5]&bit == 0 {
				continue
			}
			if k, ok := slices.BinarySearchFunc(x.drop, id>>5, func(d wordMask, w int32) int { return cmp.Compare(d.w, w) }); ok && x.drop[k].m&bit != 0 {
				continue
			}
			out[id>>5] |= bit
		}
	}
	for _, id := range x.accepted {
		out[id>>5] |= 1 << (uint32(id) & 31)
	}
}

// suffixTable fills a nodeIndex's suffix tables from (suffix, token) pairs
// in suffix order.
type suffixTable struct {
	x    *nodeIndex
	prev []byte
}

// begin starts x's tables, sized for groups suffixes of data bytes in all
// and toks tokens.
func (t *suffixTable) begin(x *nodeIndex, groups, toks, data int) {
	t.x, t.prev = x, nil
	x.sufData = make([]byte, 0, data)
	x.sufGroup = make([]int32, 0, groups+1)
	x.sufOff = make([]int32, 0, groups+1)
	x.sufLCP = make([]int32, 0, groups)
	x.sufToks = make([]int32, 0, toks)
}

// add adds token id, which leaves the rule with suffix suf.
func (t *suffixTable) add(suf []byte, id int32) {
	x := t.x
	if len(x.sufToks) == 0 || !bytes.Equal(suf, t.prev) {
		x.sufGroup = append(x.sufGroup, int32(len(x.sufToks)))
		x.sufOff = append(x.sufOff, int32(len(x.sufData)))
		x.sufLCP = append(x.sufLCP, int32(commonPrefix(t.prev, suf)))
		x.sufData = append(x.sufData, suf...)
		t.prev = suf
	}
	x.sufToks = append(x.sufToks, id)
}

// finish closes the tables: their ends, the count of uncertain tokens and
// the skips past suffixes with one first byte.
func (t *suffixTable) finish() {
	x := t.x
	x.sufGroup = append(x.sufGroup, int32(len(x.sufToks)))
	x.sufOff = append(x.sufOff, int32(len(x.sufData)))
	x.uncertain = len(x.sufToks)
	for _, r := range x.ranges {
		x.uncertain += int(r.hi - r.lo)
	}
	ns := x.numSuffixes()
	x.sufSkip = make([]int32, ns)
	for i := ns - 1; i >= 0; i-- {
		if i+1 < ns && x.sufLCP[i+1] > 0 {
			x.sufSkip[i] = x.sufSkip[i+1]
		} else {
			x.sufSkip[i] = int32(i + 1)
		}
	}
	t.x, t.prev = nil, nil
}
