package fsm

// Trim returns a DFA without the states that cannot be reached from Start or
// from which no final state can be reached, where a symbol edge can be passed
// only if usable(sym) holds (a nil usable passes every symbol). Unusable
// symbol edges are dropped. If the start state goes too, the result has no
// states and Start -1. States keep their relative order; byte classes are
// recomputed and the ForcedBytes table computed.
func (d *DFA) Trim(usable func(sym int32) bool) *DFA {
	w := getWorkspace()
	defer w.put()
	useful := w.useful(d, usable)
	n, k := d.NumStates(), d.NumClasses
	w.id = resize(w.id, n)
	id := w.id
	m := 0
	for s := range n {
		id[s] = -1
		if useful[s] {
			id[s] = int32(m)
			m++
		}
	}
	if m == 0 {
		return emptyDFA()
	}
	out := &DFA{
		Start: id[d.Start],
		Final: make([]bool, 0, m),
		Trans: make([]int32, 0, m*k),
		Calls: make([][]Call, 0, m),
	}
	var callData []Call
	for s := range n {
		if !useful[s] {
			continue
		}
		out.Final = append(out.Final, d.Final[s])
		for _, t := range d.Trans[s*k : (s+1)*k] {
			if t >= 0 {
				t = id[t]
			}
			out.Trans = append(out.Trans, t)
		}
		first := len(callData)
		for _, c := range d.Calls[s] {
			if id[c.To] >= 0 && (usable == nil || usable(c.Sym)) {
				callData = append(callData, Call{c.Sym, id[c.To]})
			}
		}
		var calls []Call
		if len(callData) > first {
			calls = callData[first:len(callData):len(callData)]
		}
		out.Calls = append(out.Calls, calls)
	}
	out.Trans, out.Classes, out.NumClasses = w.compactClasses(out.Trans, m, k, &d.Classes)
	out.forced = w.forcedTable(out, nil)
	return out
}

// CanReachFinal reports whether a final state can be reached from Start, where
// a symbol edge can be passed only if usable(sym) holds (a nil usable passes
// every symbol).
func (d *DFA) CanReachFinal(usable func(sym int32) bool) bool {
	w := getWorkspace()
	defer w.put()
	reach := w.reachable(d, usable)
	for s, r := range reach {
		if r && d.Final[s] {
			return true
		}
	}
	return false
}

func emptyDFA() *DFA { return &DFA{Start: -1, NumClasses: 1} }

// reachable returns, per state, whether it can be reached from Start through
// bytes and the symbols usable passes. The result lives in w.reach.
func (w *workspace) reachable(d *DFA, usable func(int32) bool) []bool {
	n, k := d.NumStates(), d.NumClasses
	w.reach = resize(w.reach, n)
	reach := w.reach
	if d.Start < 0 {
		return reach
	}
	reach[d.Start] = true
	stack := append(w.stack[:0], d.Start)
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, t := range d.Trans[int(s)*k : (int(s)+1)*k] {
			if t >= 0 && !reach[t] {
				reach[t] = true
				stack = append(stack, t)
			}
		}
		for _, c := range d.Calls[s] {
			if !reach[c.To] && (usable == nil || usable(c.Sym)) {
				reach[c.To] = true
				stack = append(stack, c.To)
			}
		}
	}
	w.stack = stack
	return reach
}

// useful returns, per state, whether it is reachable from Start and can reach
// a final state, through bytes and the symbols usable passes. The result
// lives in w.live.
func (w *workspace) useful(d *DFA, usable func(int32) bool) []bool {
	return w.coReachable(d, w.reachable(d, usable), usable)
}

// coReachable returns, per state in among (all states if among is nil),
// whether it can reach a final state through bytes and the symbols usable
// passes, staying within among. The result lives in w.live.
func (w *workspace) coReachable(d *DFA, among []bool, usable func(int32) bool) []bool {
	n, k := d.NumStates(), d.NumClasses
	// Predecessor lists, then a search back from the final states.
	w.off = resize(w.off, n+1)
	off := w.off
	for s := range n {
		if among != nil && !among[s] {
			continue
		}
		for _, t := range d.Trans[s*k : (s+1)*k] {
			if t >= 0 {
				off[t+1]++
			}
		}
		for _, c := range d.Calls[s] {
			if usable == nil || usable(c.Sym) {
				off[c.To+1]++
			}
		}
	}
	for s := range n {
		off[s+1] += off[s]
	}
	w.pred = resize(w.pred, int(off[n]))
	w.fill = append(w.fill[:0], off[:n]...)
	pred, fill := w.pred, w.fill
	for s := range n {
		if among != nil && !among[s] {
			continue
		}
		for _, t := range d.Trans[s*k : (s+1)*k] {
			if t >= 0 {
				pred[fill[t]] = int32(s)
				fill[t]++
			}
		}
		for _, c := range d.Calls[s] {
			if usable == nil || usable(c.Sym) {
				pred[fill[c.To]] = int32(s)
				fill[c.To]++
			}
		}
	}
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
		for _, s := range pred[off[t]:off[t+1]] {
			if !live[s] {
				live[s] = true
				stack = append(stack, s)
			}
		}
	}
	w.stack = stack
	return live
}
