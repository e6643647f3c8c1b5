package fsm

import "context"

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
// It refines the partition {final, non-final} of the useful states with
// Hopcroft's algorithm, over the transitions that exist rather than a table
// completed with a dead state, so that its cost follows the number of
// transitions, which for UTF-8 classes is well below states × classes.
func (d *DFA) Minimize() *DFA {
	m, _ := d.MinimizeContext(context.Background())
	return m
}

// MinimizeContext is Minimize that stops once ctx ends, with an error
// wrapping ctx.Err(). It looks at ctx every few thousand steps of the
// partition refinement.
func (d *DFA) MinimizeContext(ctx context.Context) (*DFA, error) {
	stop := newStopper(ctx)
	if err := stop.check(); err != nil {
		return nil, err
	}
	w := getWorkspace()
	defer w.put()
	reps, newOf, err := w.minimal(d, &stop)
	if err != nil {
		return nil, err
	}
	if reps == nil {
		return emptyDFA(), nil
	}
	return w.build(d, reps, newOf), nil
}

// minimal loads d into w and returns its minimal states: one representative
// per block of equivalent useful states, in breadth-first order from Start's
// block, and per state of d its new number or -1. reps is nil when no state
// is useful. DFA and RuneDFA share it.
func (w *workspace) minimal(d *DFA, stop *stopper) (reps, newOf []int32, err error) {
	useful := w.useful(d, nil)
	if d.Start < 0 || !useful[d.Start] {
		return nil, nil, nil
	}
	if err := w.refine(d, useful, stop); err != nil {
		return nil, nil, err
	}

	// One state per block, in breadth-first order from Start's block.
	n, blockOf := d.NumStates(), w.blockOf
	w.newOf = resize(w.newOf, len(w.start)) // block -> new state + 1
	blockID := w.newOf
	order := append(w.order[:0], blockOf[d.Start])
	blockID[blockOf[d.Start]] = 1
	for i := 0; i < len(order); i++ {
		r := w.elems[w.start[order[i]]]
		for _, t := range w.outTo[w.outOff[r]:w.outOff[r+1]] {
			if b := blockOf[t]; b >= 0 && blockID[b] == 0 {
				blockID[b] = int32(len(order)) + 1
				order = append(order, b)
			}
		}
	}
	w.order = order
	reps = w.reps[:0]
	for _, b := range order {
		reps = append(reps, w.elems[w.start[b]])
	}
	w.reps = reps
	// From here on blockOf maps each state to its new number, -1 if useless.
	for s := range n {
		if b := blockOf[s]; b >= 0 {
			blockOf[s] = blockID[b] - 1
		}
	}
	return reps, blockOf, nil
}

// refine computes the coarsest partition of the useful states of d (loaded
// into w) that separates final from non-final states and is stable: the
// states of a block have transitions on the same letters, into the same
// blocks. This is Hopcroft's algorithm: split blocks by the predecessors of a
// splitter block, and after a split queue only the smaller half (a block
// still queued stays so, and then both halves are). Both initial blocks are
// queued because the DFA is partial: a missing transition has to split
// states apart like a transition into another block does.
//
// The partition is left in w: block b is w.elems[w.start[b]:w.end[b]], and
// w.blockOf maps states to blocks, -1 for useless states. It returns the
// error of stop, which it is told the work done as it goes, and then leaves
// the partition unfinished.
func (w *workspace) refine(d *DFA, useful []bool, stop *stopper) error {
	n := d.NumStates()
	nl := d.NumClasses + len(w.syms)
	w.elems, w.loc, w.blockOf = resize(w.elems, n), resize(w.loc, n), resize(w.blockOf, n)
	elems, loc, blockOf := w.elems, w.loc, w.blockOf
	start, end, marked := w.start[:0], w.end[:0], w.marked[:0]
	work := w.work[:0]
	count := int32(0)
	for _, wantFinal := range [2]bool{true, false} {
		first := count
		for s := range n {
			if useful[s] && d.Final[s] == wantFinal {
				elems[count], loc[s] = int32(s), count
				count++
			}
		}
		if count > first {
			b := int32(len(start))
			for _, s := range elems[first:count] {
				blockOf[s] = b
			}
			start, end, marked = append(start, first), append(end, count), append(marked, 0)
			work = append(work, b)
		}
	}
	for s := range n {
		if !useful[s] {
			blockOf[s] = -1
		}
	}

	w.letterCount, w.letterStart = resize(w.letterCount, nl), resize(w.letterStart, nl)
	letterCount, letterStart := w.letterCount, w.letterStart
	splitter, touched, letters, bucket := w.splitter[:0], w.touched[:0], w.letters[:0], w.bucket[:0]
	steps := 0
	var err error
	for len(work) > 0 {
		a := work[len(work)-1]
		work = work[:len(work)-1]
		splitter = append(splitter[:0], elems[start[a]:end[a]]...)
		steps += len(splitter)
		if err = stop.at(steps); err != nil {
			break
		}
		// Group the useful predecessors of the splitter by letter.
		letters = letters[:0]
		total := 0
		for _, t := range splitter {
			for e := w.inOff[t]; e < w.inOff[t+1]; e++ {
				if blockOf[w.inFrom[e]] < 0 {
					continue
				}
				l := w.inLetter[e]
				if letterCount[l] == 0 {
					letters = append(letters, l)
				}
				letterCount[l]++
				total++
			}
		}
		pos := int32(0)
		for _, l := range letters {
			letterStart[l] = pos
			pos += letterCount[l]
			letterCount[l] = 0
		}
		steps += total
		bucket = resize(bucket, total)
		for _, t := range splitter {
			for e := w.inOff[t]; e < w.inOff[t+1]; e++ {
				if q := w.inFrom[e]; blockOf[q] >= 0 {
					l := w.inLetter[e]
					bucket[letterStart[l]+letterCount[l]] = q
					letterCount[l]++
				}
			}
		}
		for _, l := range letters {
			// Mark the states with an l-transition into the splitter:
			// they move to the front of their block.
			touched = touched[:0]
			for _, q := range bucket[letterStart[l] : letterStart[l]+letterCount[l]] {
				y := blockOf[q]
				i, m := loc[q], start[y]+marked[y]
				if i < m || end[y]-start[y] == 1 {
					continue // marked already, or nothing to split
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
				// splitting by the smaller half is enough.
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
				work = append(work, z)
			}
		}
	}
	w.start, w.end, w.marked = start, end, marked
	w.work = work
	w.splitter, w.touched, w.letters, w.bucket = splitter, touched, letters, bucket
	return err
}
