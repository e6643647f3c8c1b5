package fsm

import "slices"

// Minimize returns the DFA with the fewest states that accepts the same
// strings, symbols counting as letters: two states are merged when every
// string of bytes and symbols leads both to acceptance or neither. States
// that are unreachable from Start or from which no final state can be reached
// are dropped (their transitions become -1); if no state is left, Start is -1.
//
// The states of the result are numbered in breadth-first order from Start,
// which is 0, and its byte classes are recomputed: bytes that every state
// treats alike share one class. Its ForcedBytes table is computed.
//
// It refines the partition {final, non-final} with Hopcroft's algorithm over
// the DFA completed by a sink state.
func (d *DFA) Minimize() *DFA {
	w := getWorkspace()
	defer w.put()
	useful := w.useful(d, nil)
	n, k := d.NumStates(), d.NumClasses

	// Number the useful states; m is the sink.
	w.id = resize(w.id, n)
	id, orig, syms := w.id, w.orig[:0], w.syms[:0]
	for s := range n {
		id[s] = -1
		if useful[s] {
			id[s] = int32(len(orig))
			orig = append(orig, int32(s))
			for _, c := range d.Calls[s] {
				if useful[c.To] {
					syms = append(syms, c.Sym)
				}
			}
		}
	}
	w.orig = orig
	m := len(orig)
	if m == 0 {
		return emptyDFA()
	}
	slices.Sort(syms)
	syms = slices.Compact(syms)
	w.syms = syms

	// The completed transition function: letters are the byte classes, then
	// the symbols in increasing order.
	nq, nl := m+1, k+len(syms)
	sink := int32(m)
	w.delta = resize(w.delta, nq*nl)
	w.final = resize(w.final, nq)
	delta, final := w.delta, w.final
	for q, s := range orig {
		row := delta[q*nl : (q+1)*nl]
		for c, t := range d.Trans[int(s)*k : (int(s)+1)*k] {
			row[c] = sink
			if t >= 0 && useful[t] {
				row[c] = id[t]
			}
		}
		for a := k; a < nl; a++ {
			row[a] = sink
		}
		for _, c := range d.Calls[s] {
			if useful[c.To] {
				a, _ := slices.BinarySearch(syms, c.Sym)
				row[k+a] = id[c.To]
			}
		}
		final[q] = d.Final[s]
	}
	for a := range nl {
		delta[m*nl+a] = sink
	}

	// Letters that every state treats alike split alike: refine by one of
	// each (byte classes of the input often are finer than needed).
	first := w.sameColumns(delta, nq, nl)
	letters := w.letterSet[:0]
	for a, f := range first {
		if int(f) == a {
			letters = append(letters, int32(a))
		}
	}
	w.letterSet = letters
	if len(letters) < nl {
		w.delta2 = resize(w.delta2, nq*len(letters))
		for q := range nq {
			row := delta[q*nl : (q+1)*nl]
			for j, a := range letters {
				w.delta2[q*len(letters)+j] = row[a]
			}
		}
		w.refine(w.delta2, nq, len(letters), final)
	} else {
		w.refine(delta, nq, nl, final)
	}
	blockOf := w.blockOf

	// One state per block but the sink's, in breadth-first order.
	w.newID = resize(w.newID, len(w.start))
	newID := w.newID
	for i := range newID {
		newID[i] = -1
	}
	start := blockOf[id[d.Start]]
	newID[start] = 0
	order := append(w.order[:0], start)
	for i := 0; i < len(order); i++ {
		r := w.elems[w.start[order[i]]]
		for _, t := range delta[int(r)*nl : (int(r)+1)*nl] {
			if b := blockOf[t]; b != blockOf[sink] && newID[b] < 0 {
				newID[b] = int32(len(order))
				order = append(order, b)
			}
		}
	}
	w.order = order
	out := &DFA{
		Start: 0,
		Final: make([]bool, len(order)),
		Trans: make([]int32, len(order)*k),
		Calls: make([][]Call, len(order)),
	}
	var callData []Call
	for i, b := range order {
		r := int(w.elems[w.start[b]])
		out.Final[i] = final[r]
		for c := range k {
			out.Trans[i*k+c] = newID[blockOf[delta[r*nl+c]]]
		}
		first := len(callData)
		for a, sym := range syms {
			if t := newID[blockOf[delta[r*nl+k+a]]]; t >= 0 {
				callData = append(callData, Call{sym, t})
			}
		}
		if len(callData) > first {
			out.Calls[i] = callData[first:len(callData):len(callData)]
		}
	}
	out.Trans, out.Classes, out.NumClasses = w.compactClasses(out.Trans, len(order), k, &d.Classes)
	out.forced = w.forcedTable(out, nil)
	return out
}

// refine computes the coarsest partition of the states of the complete DFA
// delta (nq states, nl letters, delta[q*nl+a] the successor) that separates
// final from non-final states and is stable: states of one block lead, on
// each letter, into one block. This is Hopcroft's algorithm: split blocks by
// the predecessors of a splitter block, and after a split queue only the
// smaller half unless the block was queued already.
//
// The partition is left in w: block b is w.elems[w.start[b]:w.end[b]], and
// w.blockOf maps states to blocks.
func (w *workspace) refine(delta []int32, nq, nl int, final []bool) {
	// Incoming transitions by target: for t, the letters inLetter[e] from
	// the states inFrom[e], for e in [inOff[t], inOff[t+1]).
	w.inOff = resize(w.inOff, nq+1)
	inOff := w.inOff
	for _, t := range delta[:nq*nl] {
		inOff[t+1]++
	}
	for t := range nq {
		inOff[t+1] += inOff[t]
	}
	w.inLetter, w.inFrom = resize(w.inLetter, nq*nl), resize(w.inFrom, nq*nl)
	w.predFill = append(w.predFill[:0], inOff[:nq]...)
	inLetter, inFrom, fill := w.inLetter, w.inFrom, w.predFill
	for q := range nq {
		for a, t := range delta[q*nl : (q+1)*nl] {
			inLetter[fill[t]], inFrom[fill[t]] = int32(a), int32(q)
			fill[t]++
		}
	}
	// Per letter: how many predecessors of the splitter it has, and where
	// they start in bucket.
	w.letterCount, w.letterStart = resize(w.letterCount, nl), resize(w.letterStart, nl)
	letterCount, letterStart := w.letterCount, w.letterStart

	// The initial partition: final states, then the others.
	w.elems, w.loc, w.blockOf = resize(w.elems, nq), resize(w.loc, nq), resize(w.blockOf, nq)
	elems, loc, blockOf := w.elems, w.loc, w.blockOf
	start, end, marked := w.start[:0], w.end[:0], w.marked[:0]
	queued, work := w.queued[:0], w.work[:0]
	nf := int32(0)
	for q := range nq {
		if final[q] {
			elems[nf] = int32(q)
			nf++
		}
	}
	j := nf
	for q := range nq {
		if !final[q] {
			elems[j] = int32(q)
			j++
		}
	}
	for _, r := range [2][2]int32{{0, nf}, {nf, int32(nq)}} {
		if r[0] < r[1] {
			b := int32(len(start))
			start, end = append(start, r[0]), append(end, r[1])
			marked, queued = append(marked, 0), append(queued, false)
			for i := r[0]; i < r[1]; i++ {
				loc[elems[i]] = i
				blockOf[elems[i]] = b
			}
		}
	}
	// Splitting by one block suffices: the partition is stable with respect
	// to the set of all states, hence to the other block too.
	if len(start) == 2 {
		b := int32(0)
		if end[1]-start[1] < end[0]-start[0] {
			b = 1
		}
		work = append(work, b)
		queued[b] = true
	}

	splitter, touched, letters, bucket := w.splitter[:0], w.touched[:0], w.letters[:0], w.bucket[:0]
	for len(work) > 0 {
		a := work[len(work)-1]
		work = work[:len(work)-1]
		queued[a] = false
		splitter = append(splitter[:0], elems[start[a]:end[a]]...)
		// Group the predecessors of the splitter by letter, visiting only
		// transitions that exist rather than every letter of every state.
		letters = letters[:0]
		n := int32(0)
		for _, t := range splitter {
			for _, l := range inLetter[inOff[t]:inOff[t+1]] {
				if letterCount[l] == 0 {
					letters = append(letters, l)
				}
				letterCount[l]++
				n++
			}
		}
		pos := int32(0)
		for _, l := range letters {
			letterStart[l] = pos
			pos += letterCount[l]
			letterCount[l] = 0
		}
		bucket = resize(bucket, int(n))
		for _, t := range splitter {
			for e := inOff[t]; e < inOff[t+1]; e++ {
				l := inLetter[e]
				bucket[letterStart[l]+letterCount[l]] = inFrom[e]
				letterCount[l]++
			}
		}
		for _, l := range letters {
			touched = touched[:0]
			for _, q := range bucket[letterStart[l] : letterStart[l]+letterCount[l]] {
				y := blockOf[q]
				if end[y]-start[y] == 1 {
					continue
				}
				i, m := loc[q], start[y]+marked[y]
				if i < m {
					continue // marked already
				}
				if marked[y] == 0 {
					touched = append(touched, y)
				}
				elems[i], elems[m] = elems[m], q
				loc[elems[i]], loc[q] = i, m
				marked[y]++
			}
			letterCount[l] = 0
			for _, y := range touched {
				mk, size := marked[y], end[y]-start[y]
				marked[y] = 0
				if mk == size {
					continue
				}
				// The smaller part becomes the new block z and is queued:
				// if y was queued it stays, so both halves are; if not,
				// splitting by the smaller half is enough (Hopcroft).
				z := int32(len(start))
				if mk <= size-mk {
					start, end = append(start, start[y]), append(end, start[y]+mk)
					start[y] += mk
				} else {
					start, end = append(start, start[y]+mk), append(end, end[y])
					end[y] = start[y] + mk
				}
				marked = append(marked, 0)
				for _, q := range elems[start[z]:end[z]] {
					blockOf[q] = z
				}
				queued = append(queued, true)
				work = append(work, z)
			}
		}
	}
	w.letters, w.bucket = letters, bucket
	w.start, w.end, w.marked = start, end, marked
	w.queued, w.work, w.splitter, w.touched = queued, work, splitter, touched
}

// compactClasses merges the byte classes that lead every state to the same
// place. trans has n rows of k classes; classes maps bytes to them. It returns
// the new table, byte map and class count, classes numbered in byte order.
func (w *workspace) compactClasses(trans []int32, n, k int, classes *[256]uint8) ([]int32, [256]uint8, int) {
	first := w.sameColumns(trans, n, k)
	// Number the distinct columns in the order bytes first use them.
	var newClasses [256]uint8
	w.remap = resize(w.remap, k)
	remap, reps := w.remap, w.reps[:0] // remap: first equal column -> new class + 1
	for b := range 256 {
		c := first[classes[b]]
		if remap[c] == 0 {
			reps = append(reps, c)
			remap[c] = int16(len(reps))
		}
		newClasses[b] = uint8(remap[c] - 1)
	}
	w.reps = reps
	if len(reps) == k && slices.IsSorted(reps) {
		return trans, newClasses, k
	}
	out := make([]int32, n*len(reps))
	for s := range n {
		row := trans[s*k : (s+1)*k]
		for nc, c := range reps {
			out[s*len(reps)+nc] = row[c]
		}
	}
	return out, newClasses, len(reps)
}

// sameColumns returns, for each column of trans (n rows of k columns), the
// first column equal to it. The result lives in w.first.
func (w *workspace) sameColumns(trans []int32, n, k int) []int32 {
	w.colHash = resize(w.colHash, k)
	hash := w.colHash
	for s := range n {
		for c, t := range trans[s*k : (s+1)*k] {
			hash[c] = (hash[c] ^ uint64(uint32(t))) * 1099511628211
		}
	}
	size := 16
	for size < 2*k {
		size *= 2
	}
	w.colTable = resize(w.colTable, size) // column + 1, or 0 for a free slot
	w.first = resize(w.first, k)
	table, first := w.colTable, w.first
	mask := uint64(size - 1)
	for c := range k {
		first[c] = int32(c)
		i := hash[c] & mask
		for ; table[i] != 0; i = (i + 1) & mask {
			r := int(table[i] - 1)
			if hash[r] == hash[c] && sameColumn(trans, n, k, r, c) {
				first[c] = int32(r)
				break
			}
		}
		if first[c] == int32(c) {
			table[i] = int32(c) + 1
		}
	}
	return first
}

func sameColumn(trans []int32, n, k, a, b int) bool {
	for s := range n {
		if trans[s*k+a] != trans[s*k+b] {
			return false
		}
	}
	return true
}
