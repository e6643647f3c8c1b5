package fsm

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
)

// DefaultMaxStates is the bound Determinize uses when given maxStates <= 0.
const DefaultMaxStates = 1 << 16

// Bounds on Determinize besides the number of states: the NFA states all DFA
// states stand for together (memory), and the steps of the construction
// (time), both far beyond what grammars need.
const (
	maxSetData = 1 << 24
	maxWork    = 1 << 28
)

// Determinize builds the DFA equivalent to n run from start, accepting at any
// of finals, by the subset construction. Its alphabet is the byte classes that
// the NFA's byte ranges induce (bytes that no range tells apart share a class)
// plus the symbols on its edges.
//
// A DFA state stands for the set of NFA states that have byte or symbol edges
// or are final, closed under epsilon edges; an empty set is the dead state -1
// (so the result has no states and Start -1 when start reaches no such state).
// The result may have states that cannot reach a final state and equivalent
// states; Minimize removes both.
//
// maxStates bounds the number of DFA states (DefaultMaxStates if it is <= 0):
// a larger result is an error wrapping ErrTooLarge, returned as soon as the
// bound is passed. Fixed bounds on the memory and the steps of the
// construction fail the same way, so that no NFA makes it hang.
func Determinize(n *NFA, start int, finals []int, maxStates int) (*DFA, error) {
	return DeterminizeContext(context.Background(), n, start, finals, maxStates)
}

// DeterminizeContext is Determinize that stops once ctx ends, with an error
// wrapping ctx.Err(). It looks at ctx every few thousand steps of the
// construction, so it returns within about a millisecond of the end.
func DeterminizeContext(ctx context.Context, n *NFA, start int, finals []int, maxStates int) (*DFA, error) {
	b, err := newBuilder(ctx, n, start, finals, maxStates)
	if err != nil {
		return nil, err
	}
	d, err := b.run(int32(start))
	b.release()
	return d, err
}

// MinimalDFAContext returns what DeterminizeContext followed by
// MinimizeContext would, without keeping the DFA between the two: it is
// built in working memory that the next construction reuses, which spares
// the allocations of a table grown state by state. A pushdown automaton
// compiles one such DFA per grammar rule.
func MinimalDFAContext(ctx context.Context, n *NFA, start int, finals []int, maxStates int) (*DFA, error) {
	b, err := newBuilder(ctx, n, start, finals, maxStates)
	if err != nil {
		return nil, err
	}
	d := b.dfa
	d.Final, d.Trans, d.Calls = b.scratchFinal[:0], b.scratchTrans[:0], b.scratchCalls[:0]
	b.callData = b.scratchCallData[:0]
	d, err = b.run(int32(start))
	var m *DFA
	if err == nil {
		m, err = d.MinimizeContext(ctx)
	}
	// Take the storage back, grown as it may be; d is dropped.
	d = b.dfa
	clear(d.Calls) // they point into callData, kept below
	b.scratchFinal, b.scratchTrans, b.scratchCalls = d.Final[:0], d.Trans[:0], d.Calls[:0]
	b.scratchCallData = b.callData[:0]
	b.release()
	return m, err
}

// newBuilder checks the arguments of a construction from n and returns a
// pooled builder loaded with n, ready to run from start under ctx.
func newBuilder(ctx context.Context, n *NFA, start int, finals []int, maxStates int) (*subsetBuilder, error) {
	if start < 0 || start >= n.states {
		return nil, fmt.Errorf("fsm: start state %d out of range [0,%d)", start, n.states)
	}
	for _, f := range finals {
		if f < 0 || f >= n.states {
			return nil, fmt.Errorf("fsm: final state %d out of range [0,%d)", f, n.states)
		}
	}
	if maxStates <= 0 {
		maxStates = DefaultMaxStates
	}
	stop := newStopper(ctx)
	if err := stop.check(); err != nil {
		return nil, err
	}
	b := builderPool.Get().(*subsetBuilder)
	b.init(n, finals, maxStates)
	b.stop = stop
	return b, nil
}

// release returns b to builderPool unless it grew too large to keep.
func (b *subsetBuilder) release() {
	b.dfa, b.stop = nil, stopper{}
	if len(b.mark)+len(b.bytes)+len(b.setData)+len(b.table)+cap(b.scratchTrans)+cap(b.scratchCallData) <= maxPooled {
		builderPool.Put(b)
	}
}

// builderPool keeps subset builders for reuse: pda determinizes one small
// automaton per grammar rule, and reusing the working memory saves most of
// the allocations. Builders that grew past maxPooled elements are dropped.
var builderPool = sync.Pool{New: func() any { return new(subsetBuilder) }}

const maxPooled = 1 << 18

// resize returns s with length n and zeroed contents, reusing its storage
// when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// classEdge is an NFA byte or code-point edge in class terms: classes lo..hi
// lead to to.
type classEdge struct {
	lo, hi int32
	to     int32
}

// subsetBuilder holds the NFA in compressed adjacency form and the DFA under
// construction.
type subsetBuilder struct {
	nc    int
	final []bool // per NFA state
	kept  []bool // per NFA state: final or has byte or symbol edges

	offs    []int32 // epsOff, byteOff and symOff, one after the other
	epsOff  []int32 // per NFA state + 1: its epsilon targets are eps[epsOff[q]:epsOff[q+1]]
	eps     []int32
	byteOff []int32
	bytes   []classEdge
	symOff  []int32
	syms    []Call
	fill    []int32

	mark  []uint32 // per NFA state: == gen when in the closure being built
	gen   uint32
	stack []int32
	set   []int32 // the closure being built, kept states only

	// The DFA states found so far: their sets, and a hash table over them.
	setOff  []int32 // per DFA state + 1: its set is setData[setOff[s]:setOff[s+1]]
	setData []int32
	hashes  []uint64 // per DFA state: hash of its set
	table   []int32  // open addressing: DFA state + 1, or 0 for a free slot
	max     int
	work    int // steps taken, bounded by maxWork
	stop    stopper

	buckets  [][]int32 // per class: NFA targets of the state being expanded
	touched  []int
	pairs    []Call
	seeds    []int32
	callData []Call
	dfa      *DFA

	// The storage of the DFA that MinimalDFAContext builds and drops, kept
	// for the next one.
	scratchFinal    []bool
	scratchTrans    []int32
	scratchCalls    [][]Call
	scratchCallData []Call
}

func (b *subsetBuilder) init(n *NFA, finals []int, maxStates int) {
	// Byte classes: a class starts at 0 and wherever some range starts or
	// ends, so every range is a union of whole classes.
	var cut [257]bool
	for _, e := range n.edges {
		if e.kind == byteEdge {
			cut[e.lo] = true
			cut[int(e.hi)+1] = true
		}
	}
	d := &DFA{Start: -1}
	c := -1
	for i := range 256 {
		if i == 0 || cut[i] {
			c++
		}
		d.Classes[i] = uint8(c)
	}
	d.NumClasses = c + 1
	loadEdges(b, d, n.states, finals, maxStates, n.edges, func(e *nfaEdge) (edgeKind, int32, int32, classEdge) {
		return e.kind, e.from, e.sym, classEdge{int32(d.Classes[e.lo]), int32(d.Classes[e.hi]), e.to}
	})
}

// loadEdges readies b to determinize an NFA of ns states with the given
// edges into d, whose NumClasses is set: view tells an edge's kind, source,
// symbol (for a symbol edge) and target, and for a byte or code-point edge
// its classes. Byte and code-point automata share the construction from here
// on; only their alphabets differ.
func loadEdges[E any](b *subsetBuilder, d *DFA, ns int, finals []int, maxStates int, edges []E, view func(*E) (kind edgeKind, from, sym int32, e classEdge)) {
	b.nc = d.NumClasses
	b.dfa = d
	b.final = resize(b.final, ns)
	b.kept = resize(b.kept, ns)
	for _, f := range finals {
		b.final[f] = true
		b.kept[f] = true
	}
	// Adjacency by counting sort on the source state, one array per kind.
	b.offs = resize(b.offs, 3*(ns+1))
	b.epsOff, b.byteOff, b.symOff = b.offs[:ns+1], b.offs[ns+1:2*(ns+1)], b.offs[2*(ns+1):]
	for i := range edges {
		kind, from, _, _ := view(&edges[i])
		switch kind {
		case epsilonEdge:
			b.epsOff[from+1]++
		case byteEdge:
			b.byteOff[from+1]++
			b.kept[from] = true
		case symbolEdge:
			b.symOff[from+1]++
			b.kept[from] = true
		}
	}
	for q := range ns {
		b.epsOff[q+1] += b.epsOff[q]
		b.byteOff[q+1] += b.byteOff[q]
		b.symOff[q+1] += b.symOff[q]
	}
	b.eps = resize(b.eps, int(b.epsOff[ns]))
	b.bytes = resize(b.bytes, int(b.byteOff[ns]))
	b.syms = resize(b.syms, int(b.symOff[ns]))
	b.fill = resize(b.fill, 3*ns)
	fe, fb, fs := b.fill[:ns], b.fill[ns:2*ns], b.fill[2*ns:]
	copy(fe, b.epsOff[:ns])
	copy(fb, b.byteOff[:ns])
	copy(fs, b.symOff[:ns])
	for i := range edges {
		kind, from, sym, ce := view(&edges[i])
		switch kind {
		case epsilonEdge:
			b.eps[fe[from]] = ce.to
			fe[from]++
		case byteEdge:
			b.bytes[fb[from]] = ce
			fb[from]++
		case symbolEdge:
			b.syms[fs[from]] = Call{sym, ce.to}
			fs[from]++
		}
	}

	b.mark = resize(b.mark, ns)
	b.gen = 0
	b.setOff = append(b.setOff[:0], 0)
	b.setData = b.setData[:0]
	b.hashes = b.hashes[:0]
	b.table = resize(b.table, 64)
	b.max = maxStates
	b.work = 0
	if cap(b.buckets) < b.nc {
		b.buckets = append(b.buckets[:cap(b.buckets)], make([][]int32, b.nc-cap(b.buckets))...)
	}
	b.buckets = b.buckets[:b.nc]
	for c := range b.buckets {
		b.buckets[c] = b.buckets[c][:0]
	}
	b.callData = nil // owned by the DFA
}

func (b *subsetBuilder) run(start int32) (*DFA, error) {
	d := b.dfa
	b.seeds = append(b.seeds[:0], start)
	s0, err := b.state(b.seeds)
	if err != nil {
		return nil, err
	}
	d.Start = s0
	if s0 < 0 {
		return d, nil // the empty language
	}
	touched := b.touched[:0]
	defer func() { b.touched = touched }()
	for s := 0; s < len(d.Final); s++ {
		set := b.setData[b.setOff[s]:b.setOff[s+1]]

		// Byte transitions: gather each class's targets, then close them.
		for _, c := range touched {
			b.buckets[c] = b.buckets[c][:0]
		}
		touched = touched[:0]
		for _, q := range set {
			for _, e := range b.bytes[b.byteOff[q]:b.byteOff[q+1]] {
				b.work += int(e.hi-e.lo) + 1
				for c := int(e.lo); c <= int(e.hi); c++ {
					if len(b.buckets[c]) == 0 {
						touched = append(touched, c)
					}
					b.buckets[c] = append(b.buckets[c], e.to)
				}
			}
		}
		prev := int32(-1)
		for c := range b.nc {
			bucket := b.buckets[c]
			if len(bucket) == 0 {
				prev = -1
				continue
			}
			if c == 0 || !slices.Equal(bucket, b.buckets[c-1]) {
				if prev, err = b.state(bucket); err != nil {
					return nil, err
				}
			}
			d.Trans[s*b.nc+c] = prev
		}

		// Symbol transitions: group the targets by symbol.
		b.pairs = b.pairs[:0]
		for _, q := range set {
			b.pairs = append(b.pairs, b.syms[b.symOff[q]:b.symOff[q+1]]...)
		}
		if len(b.pairs) == 0 {
			continue
		}
		slices.SortFunc(b.pairs, func(x, y Call) int { return cmp.Compare(x.Sym, y.Sym) })
		first := len(b.callData)
		for i := 0; i < len(b.pairs); {
			j := i
			b.seeds = b.seeds[:0]
			for ; j < len(b.pairs) && b.pairs[j].Sym == b.pairs[i].Sym; j++ {
				b.seeds = append(b.seeds, b.pairs[j].To)
			}
			t, err := b.state(b.seeds)
			if err != nil {
				return nil, err
			}
			if t >= 0 {
				b.callData = append(b.callData, Call{b.pairs[i].Sym, t})
			}
			i = j
		}
		d.Calls[s] = b.callData[first:len(b.callData):len(b.callData)]
	}
	return d, nil
}

// state returns the DFA state for the epsilon closure of seeds, adding it if
// it is new, or -1 if the closure keeps no NFA state.
func (b *subsetBuilder) state(seeds []int32) (int32, error) {
	b.gen++
	if b.gen == 0 {
		clear(b.mark)
		b.gen = 1
	}
	gen := b.gen
	stack, set := b.stack[:0], b.set[:0]
	for _, q := range seeds {
		if b.mark[q] != gen {
			b.mark[q] = gen
			stack = append(stack, q)
		}
	}
	b.work += len(seeds)
	for len(stack) > 0 {
		q := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if b.kept[q] {
			set = append(set, q)
		}
		b.work += int(b.epsOff[q+1]-b.epsOff[q]) + 1
		for _, t := range b.eps[b.epsOff[q]:b.epsOff[q+1]] {
			if b.mark[t] != gen {
				b.mark[t] = gen
				stack = append(stack, t)
			}
		}
	}
	b.stack, b.set = stack, set
	if err := b.stop.at(b.work); err != nil {
		return -1, err
	}
	if b.work > maxWork {
		return -1, fmt.Errorf("%w: subset construction exceeds %d steps", ErrTooLarge, maxWork)
	}
	if len(set) == 0 {
		return -1, nil
	}
	slices.Sort(set)
	// FNV-1a over the state numbers.
	h := uint64(14695981039346656037)
	final := false
	for _, q := range set {
		h = (h ^ uint64(q)) * 1099511628211
		final = final || b.final[q]
	}
	mask := uint64(len(b.table) - 1)
	i := h & mask
	for ; b.table[i] != 0; i = (i + 1) & mask {
		s := b.table[i] - 1
		if b.hashes[s] == h && slices.Equal(b.setData[b.setOff[s]:b.setOff[s+1]], set) {
			return s, nil
		}
	}
	d := b.dfa
	s := int32(len(d.Final))
	if int(s) >= b.max {
		return -1, fmt.Errorf("%w: more than %d DFA states", ErrTooManyStates, b.max)
	}
	if len(b.setData)+len(set) > maxSetData {
		return -1, fmt.Errorf("%w: DFA states hold more than %d NFA states in all", ErrTooLarge, maxSetData)
	}
	b.table[i] = s + 1
	b.hashes = append(b.hashes, h)
	b.setData = append(b.setData, set...)
	b.setOff = append(b.setOff, int32(len(b.setData)))
	d.Final = append(d.Final, final)
	d.Calls = append(d.Calls, nil)
	d.Trans = slices.Grow(d.Trans, b.nc)
	for range b.nc {
		d.Trans = append(d.Trans, -1)
	}
	if 2*len(b.hashes) > len(b.table) {
		b.rehash()
	}
	return s, nil
}

// rehash doubles the hash table.
func (b *subsetBuilder) rehash() {
	b.table = resize(b.table, 2*len(b.table))
	mask := uint64(len(b.table) - 1)
	for s, h := range b.hashes {
		i := h & mask
		for b.table[i] != 0 {
			i = (i + 1) & mask
		}
		b.table[i] = int32(s) + 1
	}
}
