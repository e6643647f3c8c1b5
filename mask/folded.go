package mask

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/reinlm/rein/tokenizer/toktrie"
)

// The folded trie is the token trie with some bytes folded together: every
// lowercase ASCII letter is one edge, every uppercase letter one, every
// digit one, and every UTF-8 continuation byte one. Llama-3's 274,520 trie
// positions fold into 22,264 (Qwen3's 333,009 into 22,872). A walk state
// whose successor is the same for every byte of a group (inside a string,
// a word of a pattern, a position of a long maxLength: nearly every state
// of a string's automaton) steps a folded edge once for every token below
// it; where it tells the bytes of a group apart (a hex digit, an escape's
// letter), the tokens below the edge are walked byte by byte.
type foldedTrie struct {
	// The nodes, in depth-first preorder; node 0 is the root.
	fold  []byte  // the folded byte of the edge into the node
	step  []byte  // a byte of that edge, from one of its tokens: the one walked
	depth []int32 // bytes from the root
	end   []int32 // the node after the node's subtree
	// toks[at[i]:at[i+1]] are the positions (in the trie's sorted order) of
	// the tokens that end at node i; those of its subtree are
	// toks[at[i]:at[end[i]]].
	toks []int32
	at   []int32
	// rest[i] describes the bytes of node i's tokens below it, as the
	// trie's Rest does, for the walk to accept a subtree at once.
	rest []toktrie.Rest
}

// foldGroup is the group of bytes a byte folds into (noFold: none), and
// foldOf the byte it folds to.
const noFold = 0xFF

var foldGroup, foldOf = func() (g, f [256]byte) {
	for b := range 256 {
		g[b], f[b] = noFold, byte(b)
		switch {
		case 'a' <= b && b <= 'z':
			g[b], f[b] = 0, 'a'
		case 'A' <= b && b <= 'Z':
			g[b], f[b] = 1, 'A'
		case '0' <= b && b <= '9':
			g[b], f[b] = 2, '0'
		case 0x80 <= b && b <= 0xBF:
			g[b], f[b] = 3, 0x80
		}
	}
	return
}()

// foldGroups is the number of groups, and every group's bit set.
const (
	foldGroups = 4
	allFolds   = 1<<foldGroups - 1
)

// buildFolded folds tr. A token's folded path continues the previous
// token's where their bytes agree (the trie's LCP), so the folding costs a
// map lookup per trie position.
func buildFolded(tr *toktrie.Trie) *foldedTrie {
	// Nodes in the order they are made, each child found by its parent and
	// folded byte; children and tokens in lists by node.
	type made struct {
		fold, step       byte
		depth            int32
		child, sib, toks int32     // heads of the lists, -1 when empty
		ascii            [2]uint64 // the ASCII bytes of the edge into it
		nonASCII         bool      // and whether it has others
		invalid          bool      // some token's bytes below it are not whole, valid UTF-8
	}
	nodes := []made{{child: -1, sib: -1, toks: -1}}
	var whole []bool // whole[d]: the token's bytes from d on are whole, valid UTF-8
	children := make(map[uint64]int32)
	tokNext := make([]int32, tr.Len())
	path := []int32{0}
	for i := range tr.Len() {
		tok := tr.Token(i)
		path = path[:min(tr.LCP(i), len(path)-1)+1]
		for k := len(path) - 1; k < len(tok); k++ {
			parent := path[k]
			key := uint64(parent)<<8 | uint64(foldOf[tok[k]])
			c, ok := children[key]
			if !ok {
				c = int32(len(nodes))
				nodes = append(nodes, made{fold: foldOf[tok[k]], step: tok[k], depth: int32(k + 1), child: -1, sib: nodes[parent].child, toks: -1})
				nodes[parent].child = c
				children[key] = c
			}
			if b := tok[k]; b < utf8.RuneSelf {
				nodes[c].ascii[b>>6] |= 1 << (b & 63)
			} else {
				nodes[c].nonASCII = true
			}
			path = append(path, c)
		}
		whole = slices.Grow(whole[:0], len(tok)+1)[:len(tok)+1]
		whole[len(tok)] = true
		for d := len(tok) - 1; d >= 0; d-- {
			r, size := utf8.DecodeRune(tok[d:])
			whole[d] = (r != utf8.RuneError || size > 1) && d+size <= len(tok) && whole[d+size]
		}
		for d, n := range path {
			if !whole[d] {
				nodes[n].invalid = true
			}
		}
		n := path[len(tok)]
		tokNext[i] = nodes[n].toks
		nodes[n].toks = int32(i)
	}
	// Depth-first preorder, without recursion.
	f := &foldedTrie{
		fold: make([]byte, 0, len(nodes)), step: make([]byte, 0, len(nodes)),
		depth: make([]int32, 0, len(nodes)), end: make([]int32, len(nodes)),
		toks: make([]int32, 0, tr.Len()), at: make([]int32, 0, len(nodes)+1),
		rest: make([]toktrie.Rest, len(nodes)),
	}
	madeOf := make([]int32, 0, len(nodes)) // the made node of each node
	parent := make([]int32, len(nodes))    // each node's parent, in preorder
	stack := []int32{0}
	var open []int32 // preorder numbers of the nodes whose subtrees are open, by depth
	for len(stack) > 0 {
		mi := stack[len(stack)-1]
		m := &nodes[mi]
		stack = stack[:len(stack)-1]
		for len(open) > 0 && f.depth[open[len(open)-1]] >= m.depth {
			f.end[open[len(open)-1]] = int32(len(f.fold))
			open = open[:len(open)-1]
		}
		o := int32(len(f.fold))
		if len(open) > 0 {
			parent[o] = open[len(open)-1]
		}
		madeOf = append(madeOf, mi)
		open = append(open, o)
		f.fold, f.step, f.depth = append(f.fold, m.fold), append(f.step, m.step), append(f.depth, m.depth)
		f.at = append(f.at, int32(len(f.toks)))
		for t := m.toks; t >= 0; t = tokNext[t] {
			f.toks = append(f.toks, t)
		}
		for c := m.child; c >= 0; c = nodes[c].sib {
			stack = append(stack, c)
		}
	}
	for _, o := range open {
		f.end[o] = int32(len(f.fold))
	}
	f.at = append(f.at, int32(len(f.toks)))
	// The rests, children before parents.
	for i := len(f.fold) - 1; i >= 0; i-- {
		r, m := &f.rest[i], &nodes[madeOf[i]]
		r.ValidUTF8 = !m.invalid
		if i == 0 {
			break
		}
		up := &f.rest[parent[i]]
		up.ASCII[0] |= m.ascii[0] | r.ASCII[0]
		up.ASCII[1] |= m.ascii[1] | r.ASCII[1]
		up.NonASCII = up.NonASCII || m.nonASCII || r.NonASCII
		up.Depth = max(up.Depth, r.Depth+1)
	}
	return f
}

// foldsUnknown marks a state whose groups foldsAt has not computed yet.
const foldsUnknown = 1 << 7

// foldsAt is foldsOf(s), computed once per state.
func (a *walkDFA) foldsAt(s int32) uint8 {
	if a.folds[s] == foldsUnknown {
		a.folds[s] = a.foldsOf(s)
	}
	return a.folds[s]
}

// foldsOf is the groups of bytes that state s steps alike: bit g is set
// where every top of s goes to one node (or none) on every byte of group
// g. Its byte classes, which are its tops' rules' (the rule of an escape
// tells letters apart, though its first node takes a backslash alone),
// would say so of fewer.
func (a *walkDFA) foldsOf(s int32) uint8 {
	alike := uint8(allFolds)
	for _, t := range a.tops[a.topOff[s]:a.topOff[s+1]] {
		// Bytes of one class of the rule go to one node: only where the
		// class changes within a group are the nodes compared.
		cls := a.p.ByteClasses(t.Node)
		for g, r := range foldRanges {
			if alike&(1<<g) == 0 {
				continue
			}
			first := a.p.Next(t.Node, r[0])
			for b := int(r[0]) + 1; b <= int(r[1]); b++ {
				if cls[b] != cls[b-1] && a.p.Next(t.Node, byte(b)) != first {
					alike &^= 1 << g
					break
				}
			}
		}
		if alike == 0 {
			break
		}
	}
	return alike
}

// foldRanges are the groups' bytes, first and last.
var foldRanges = [foldGroups][2]byte{{'a', 'z'}, {'A', 'Z'}, {'0', '9'}, {0x80, 0xBF}}

// foldedShare: a wide classification walks the folded trie instead of its
// list of tokens where the list would take over foldedShare times as many
// steps as the folded trie has nodes (a folded walk of a string's position
// takes about that many, more where multi-byte characters are told apart).
const foldedShare = 2

// maxFoldedBytewise bounds, as a share of the vocabulary, the tokens a
// folded walk may walk byte by byte (below a folded edge whose bytes its
// state tells apart) before it gives up: past it the trie walk does better.
const maxFoldedBytewise = 4

// classifyFolded classifies from the walk's start through the folded trie
// (see foldedTrie), reporting false where the walk met more configurations
// than it keeps, where too many tokens had to be walked byte by byte, or
// where it took more than budget steps (0: no bound).
// The classification is the trie walk's: a token is accepted where all its
// bytes are taken, and otherwise may leave the rule wherever it could end
// before the byte that killed it.
func (a *walkDFA) classifyFolded(v *vocabIndex, stride, budget int) (*nodeIndex, bool) {
	a.work, a.layerSteps, a.layerStates = 0, 0, 0
	if budget <= 0 {
		budget = math.MaxInt
	}
	if a.foldsAt(a.start)&(1<<foldGroup['a']) == 0 {
		// The start tells lowercase letters apart (a word of a pattern,
		// a hex digit): most of the walk would be byte by byte.
		return nil, false
	}
	f := v.perTrie.folded
	a.acc = growClear(a.acc, stride)
	a.exits, a.ranges = a.exits[:0], a.ranges[:0]
	ids := v.IDs()
	count := 0
	bytewise, most := 0, v.Len()/maxFoldedBytewise
	path := append(a.path[:0], a.start)
	defer func() { a.path = path }()
	for i := int32(1); i < int32(len(f.fold)); {
		if a.work > budget {
			return nil, false
		}
		d := f.depth[i]
		path = path[:d]
		s := path[d-1]
		if g := foldGroup[f.fold[i]]; g != noFold && a.foldsAt(s)&(1<<g) == 0 {
			// s tells the bytes of this edge apart: walk its tokens.
			sub := f.toks[f.at[i]:f.at[f.end[i]]]
			if bytewise += len(sub); bytewise > most {
				return nil, false
			}
			// In the trie's order, each token's walk picks up the
			// previous one's where their bytes agree.
			n, ok := a.walkFrom(v, path, a.inTrieOrder(sub), true)
			if !ok {
				return nil, false
			}
			count += n
			i = f.end[i]
			continue
		}
		a.work++
		a.tick()
		t := a.next(s, f.step[i])
		if t == stateFull {
			return nil, false
		}
		if t < 0 {
			// Every token below dies here, after d-1 bytes: each may leave
			// the rule wherever it could end before.
			if a.leavesBeforeOn(path, int(d-1)) {
				a.dieBelow(v, path, f.toks[f.at[i]:f.at[f.end[i]]], int(d-1))
			}
			i = f.end[i]
			continue
		}
		path = append(path, t)
		if li := &a.loops[t]; !li.candidate {
			li.visits++
			li.candidate = t == s || li.visits >= loopVisits
		}
		if r := &f.rest[i]; a.loops[t].candidate && (a.coversSubtree(t, r) || a.layerCovers(t, r)) {
			// All of the subtree stays in the loop: all accepted.
			count += a.acceptAll(ids, f.toks[f.at[i]:f.at[f.end[i]]])
			i = f.end[i]
			continue
		}
		count += a.acceptAll(ids, f.toks[f.at[i]:f.at[i+1]])
		i++
	}
	a.work += len(a.exits) + len(a.ranges) + a.layerSteps // layerCovers' steps are the walk's too
	return newNodeIndex(v, a.acc, nil, count, a.exits, a.ranges, stride), true
}

// acceptAll accepts the tokens at positions toks, returning how many.
func (a *walkDFA) acceptAll(ids []int32, toks []int32) int {
	for _, p := range toks {
		id := ids[p]
		a.acc[id>>5] |= 1 << (uint32(id) & 31)
	}
	return len(toks)
}

// dieBelow records where the tokens at positions toks, which all die at
// their byte failAt along path, may leave the rule. Those that share their
// first failAt+1 bytes are a subtree of the trie, a run of positions: as
// in the trie walk, a long run is one range for each place to leave.
func (a *walkDFA) dieBelow(v *vocabIndex, path []int32, toks []int32, failAt int) {
	ids := v.IDs()
	sorted := a.inTrieOrder(toks)
	for lo := 0; lo < len(sorted); {
		hi := lo + 1
		for hi < len(sorted) && sorted[hi] == sorted[hi-1]+1 && v.LCP(int(sorted[hi])) > failAt {
			hi++
		}
		if hi-lo >= minExitRange {
			a.addRangesOn(path, sorted[lo], sorted[hi-1]+1, failAt)
		} else {
			for _, p := range sorted[lo:hi] {
				a.addExitsOn(path, ids[p], p, failAt)
			}
		}
		lo = hi
	}
}

// inTrieOrder returns the positions toks sorted, in scratch. Below edges
// that fold nothing (a lead byte, a quote) a folded node's tokens are all
// of a subtree of the trie, a run of positions: no sort.
func (a *walkDFA) inTrieOrder(toks []int32) []int32 {
	lo, hi := int32(math.MaxInt32), int32(-1)
	for _, p := range toks {
		lo, hi = min(lo, p), max(hi, p)
	}
	sorted := a.foldSorted[:0]
	if int(hi-lo)+1 == len(toks) {
		for p := lo; p <= hi; p++ {
			sorted = append(sorted, p)
		}
	} else {
		sorted = append(sorted, toks...)
		slices.Sort(sorted)
	}
	a.foldSorted = sorted
	return sorted
}

// walkFrom walks the tokens at positions toks, in the trie's order, byte
// by byte from the states of path, whose last is the state after their
// first len(path)-1 bytes, which they share; false where the walk met more
// configurations than it keeps. It returns how many it accepted (their
// bits set in a.acc). As in the trie walk, the tokens that share the
// bytes up to one that kills them die together, recording where they could
// have left the rule before (a.exits); with subtrees, toks are whole
// subtrees of the trie (those of a folded node: every token with their
// first len(path)-1 bytes), and many such tokens are recorded as one range
// (a.ranges).
func (a *walkDFA) walkFrom(v *vocabIndex, path []int32, toks []int32, subtrees bool) (accepted int, ok bool) {
	base := len(path) - 1
	own := append(a.foldPath[:0], path...)
	defer func() { a.foldPath = own }()
	ids := v.IDs()
	var prev []byte
	for j := 0; j < len(toks); j++ {
		a.work++
		a.tick()
		p := toks[j]
		tok := v.Token(int(p))
		l := max(base, min(commonPrefix(prev, tok), len(own)-1))
		own = own[:l+1]
		prev = tok
		var failAt int
		if own, failAt, ok = a.stepThrough(own, tok); !ok {
			return accepted, false
		}
		id := ids[p]
		if failAt < 0 {
			a.acc[id>>5] |= 1 << (uint32(id) & 31)
			accepted++
			continue
		}
		prev = tok[:failAt] // own holds this token's states up to its death only
		end := int32(v.End(v.Node(int(p), failAt+1)))
		last := j
		for last+1 < len(toks) && toks[last+1] < end {
			last++
		}
		switch {
		case !a.leavesBeforeOn(own, failAt):
			// All die without leaving the rule: refused.
		case subtrees && end-p >= minExitRange:
			a.addRangesOn(own, p, end, failAt)
		default:
			for _, q := range toks[j : last+1] {
				a.addExitsOn(own, ids[q], q, failAt)
			}
		}
		j = last
	}
	return accepted, true
}
