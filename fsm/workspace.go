package fsm

import (
	"slices"
	"sync"
)

// workspace is the working memory of Minimize, Trim, CanReachFinal and the
// forced-bytes table. Workspaces are pooled, like subset builders, so that
// transforming many small DFAs does not allocate their scratch each time.
type workspace struct {
	// load: the defined transitions of a DFA, letters being its byte
	// classes and then its symbols (syms, in increasing order).
	syms                     []int32
	outOff, outLetter, outTo []int32 // by source: outLetter[e], outTo[e] for e in [outOff[s], outOff[s+1])
	inOff, inLetter, inFrom  []int32 // by target, likewise
	fill, stack              []int32
	reach, live              []bool

	// refine: the partition, the splitter and its predecessors by letter
	elems, loc, blockOf      []int32
	start, end, marked       []int32
	work, splitter, touched  []int32
	letterCount, letterStart []int32
	letters, bucket          []int32

	// Minimize, Trim and build: the new states and their columns
	newOf, reps, order        []int32
	colOff, colState, colTo   []int32
	colHash                   []uint64
	colTable, first, newClass []int32

	// forcedTable
	next, length, path []int32
	by                 []byte
	done, heads        []bool
}

var workspacePool = sync.Pool{New: func() any { return new(workspace) }}

func getWorkspace() *workspace { return workspacePool.Get().(*workspace) }

// put returns w to the pool unless it grew large.
func (w *workspace) put() {
	if cap(w.outTo)+cap(w.inFrom)+cap(w.outOff) <= maxPooled {
		workspacePool.Put(w)
	}
}

// load reads the defined transitions of d into sparse lists, by source and
// by target, keeping only the symbol edges that usable passes (all if nil).
// This is the only pass over the whole transition table; the rest of the
// work is proportional to the transitions that exist.
func (w *workspace) load(d *DFA, usable func(int32) bool) {
	n, k := d.NumStates(), d.NumClasses
	syms := w.syms[:0]
	for _, cs := range d.Calls {
		for _, c := range cs {
			if usable == nil || usable(c.Sym) {
				syms = append(syms, c.Sym)
			}
		}
	}
	slices.Sort(syms)
	w.syms = slices.Compact(syms)

	w.outOff = resize(w.outOff, n+1)
	letter, to := w.outLetter[:0], w.outTo[:0]
	for s := range n {
		for c, t := range d.Trans[s*k : (s+1)*k] {
			if t >= 0 {
				letter, to = append(letter, int32(c)), append(to, t)
			}
		}
		for _, c := range d.Calls[s] {
			if usable == nil || usable(c.Sym) {
				a, _ := slices.BinarySearch(w.syms, c.Sym)
				letter, to = append(letter, int32(k+a)), append(to, c.To)
			}
		}
		w.outOff[s+1] = int32(len(to))
	}
	w.outLetter, w.outTo = letter, to

	w.inOff = resize(w.inOff, n+1)
	for _, t := range to {
		w.inOff[t+1]++
	}
	for s := range n {
		w.inOff[s+1] += w.inOff[s]
	}
	w.inLetter, w.inFrom = resize(w.inLetter, len(to)), resize(w.inFrom, len(to))
	w.fill = append(w.fill[:0], w.inOff[:n]...)
	for s := range n {
		for e := w.outOff[s]; e < w.outOff[s+1]; e++ {
			t := to[e]
			w.inLetter[w.fill[t]], w.inFrom[w.fill[t]] = letter[e], int32(s)
			w.fill[t]++
		}
	}
}

// useful loads d and returns, per state, whether it is reachable from Start
// and can reach a final state. The result lives in w.live.
func (w *workspace) useful(d *DFA, usable func(int32) bool) []bool {
	w.load(d, usable)
	n := d.NumStates()
	w.reach = resize(w.reach, n)
	reach := w.reach
	stack := w.stack[:0]
	if d.Start >= 0 {
		reach[d.Start] = true
		stack = append(stack, d.Start)
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, t := range w.outTo[w.outOff[s]:w.outOff[s+1]] {
			if !reach[t] {
				reach[t] = true
				stack = append(stack, t)
			}
		}
	}
	w.stack = stack
	return w.coReachable(d, reach)
}

// coReachable returns, per state in among (all states if among is nil),
// whether it can reach a final state staying within among. It reads the
// transitions load left in w; the result lives in w.live.
func (w *workspace) coReachable(d *DFA, among []bool) []bool {
	n := d.NumStates()
	w.live = resize(w.live, n)
	live := w.live
	stack := w.stack[:0]
	for s := range n {
		if (among == nil || among[s]) && d.Final[s] {
			live[s] = true
			stack = append(stack, int32(s))
		}
	}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, s := range w.inFrom[w.inOff[t]:w.inOff[t+1]] {
			if !live[s] && (among == nil || among[s]) {
				live[s] = true
				stack = append(stack, s)
			}
		}
	}
	w.stack = stack
	return live
}

// build returns the DFA whose states are reps (states of d, loaded into w),
// in order, where newOf maps each state of d to its new number or -1. Byte
// classes that the new states do not tell apart are merged, numbered in the
// order bytes first use them; the ForcedBytes table is computed.
func (w *workspace) build(d *DFA, reps, newOf []int32) *DFA {
	var units [256]int32
	for b := range 256 {
		units[b] = int32(d.Classes[b])
	}
	out := w.buildTable(d, reps, newOf, units[:])
	for b := range 256 {
		out.Classes[b] = uint8(units[b])
	}
	out.forced = w.forcedTable(out, nil)
	return out
}

// buildTable is build for any alphabet: units maps each letter of the
// alphabet (a byte, a run of code points) to its class in d, and is
// rewritten to map it to its class in the result. Classes are numbered in
// the order units first use them; the result's Classes is left zero and its
// ForcedBytes table is not computed.
func (w *workspace) buildTable(d *DFA, reps, newOf []int32, units []int32) *DFA {
	k, m := d.NumClasses, len(reps)

	// The columns of the new table, as sparse lists of (state, target) in
	// state order: colState[colOff[c]:colOff[c+1]] and colTo likewise.
	w.colOff = resize(w.colOff, k+1)
	for _, r := range reps {
		for e := w.outOff[r]; e < w.outOff[r+1]; e++ {
			if c := w.outLetter[e]; int(c) < k && newOf[w.outTo[e]] >= 0 {
				w.colOff[c+1]++
			}
		}
	}
	for c := range k {
		w.colOff[c+1] += w.colOff[c]
	}
	w.colState, w.colTo = resize(w.colState, int(w.colOff[k])), resize(w.colTo, int(w.colOff[k]))
	w.fill = append(w.fill[:0], w.colOff[:k]...)
	w.colHash = resize(w.colHash, k)
	for i, r := range reps {
		for e := w.outOff[r]; e < w.outOff[r+1]; e++ {
			c := w.outLetter[e]
			if int(c) >= k {
				continue
			}
			if t := newOf[w.outTo[e]]; t >= 0 {
				w.colState[w.fill[c]], w.colTo[w.fill[c]] = int32(i), t
				w.fill[c]++
				w.colHash[c] = (w.colHash[c] ^ uint64(i)<<32 ^ uint64(t)) * 1099511628211
			}
		}
	}
	first := w.sameColumns(k)

	// Number the distinct columns in the order units first use them.
	out := &DFA{Start: 0, Final: make([]bool, m), Calls: make([][]Call, m)}
	w.newClass = resize(w.newClass, k)
	nk := int32(0)
	for u, old := range units {
		c := first[old]
		if w.newClass[c] == 0 {
			nk++
			w.newClass[c] = nk
		}
		units[u] = w.newClass[c] - 1
	}
	out.NumClasses = int(nk)
	out.Trans = make([]int32, m*int(nk))
	for i := range out.Trans {
		out.Trans[i] = -1
	}
	for c := range k {
		if first[c] != int32(c) {
			continue
		}
		nc := w.newClass[c] - 1
		for e := w.colOff[c]; e < w.colOff[c+1]; e++ {
			out.Trans[w.colState[e]*nk+nc] = w.colTo[e]
		}
	}

	var callData []Call
	for i, r := range reps {
		out.Final[i] = d.Final[r]
		at := len(callData)
		for e := w.outOff[r]; e < w.outOff[r+1]; e++ {
			if a := int(w.outLetter[e]); a >= k {
				if t := newOf[w.outTo[e]]; t >= 0 {
					callData = append(callData, Call{w.syms[a-k], t})
				}
			}
		}
		if len(callData) > at {
			out.Calls[i] = callData[at:len(callData):len(callData)]
		}
	}
	return out
}

// sameColumns returns, for each of the k columns build gathered, the first
// column equal to it. The result lives in w.first.
func (w *workspace) sameColumns(k int) []int32 {
	size := 16
	for size < 2*k {
		size *= 2
	}
	w.colTable = resize(w.colTable, size) // column + 1, or 0 for a free slot
	w.first = resize(w.first, k)
	table, first, hash := w.colTable, w.first, w.colHash
	mask := uint64(size - 1)
	for c := range k {
		first[c] = int32(c)
		i := hash[c] & mask
		for ; table[i] != 0; i = (i + 1) & mask {
			r := table[i] - 1
			if hash[r] == hash[c] && w.sameColumn(r, int32(c)) {
				first[c] = r
				break
			}
		}
		if first[c] == int32(c) {
			table[i] = int32(c) + 1
		}
	}
	return first
}

func (w *workspace) sameColumn(a, b int32) bool {
	x, y := w.colOff[a], w.colOff[b]
	n := w.colOff[a+1] - x
	return n == w.colOff[b+1]-y &&
		slices.Equal(w.colState[x:x+n], w.colState[y:y+n]) &&
		slices.Equal(w.colTo[x:x+n], w.colTo[y:y+n])
}
