package fsm

import "slices"

// Trim returns a DFA without the states that cannot be reached from Start or
// from which no final state can be reached, where a symbol edge can be passed
// only if usable(sym) holds (a nil usable passes every symbol). Unusable
// symbol edges are dropped. If the start state goes too, the result has no
// states and Start -1. States keep their relative order; byte classes are
// recomputed and the ForcedBytes table computed. Where nothing goes, and d
// already has them (as every DFA this package builds does), d itself is
// returned.
func (d *DFA) Trim(usable func(sym int32) bool) *DFA {
	w := getWorkspace()
	defer w.put()
	useful := w.useful(d, usable)
	if d.forced != nil && d.Start >= 0 && !slices.Contains(useful, false) && callsUsable(d, usable) {
		return d // nothing to trim: d is its own result
	}
	w.newOf = resize(w.newOf, d.NumStates())
	reps := w.reps[:0]
	for s, u := range useful {
		w.newOf[s] = -1
		if u {
			w.newOf[s] = int32(len(reps))
			reps = append(reps, int32(s))
		}
	}
	w.reps = reps
	if len(reps) == 0 {
		return emptyDFA()
	}
	out := w.build(d, reps, w.newOf)
	out.Start = w.newOf[d.Start]
	return out
}

// CanReachFinal reports whether a final state can be reached from Start, where
// a symbol edge can be passed only if usable(sym) holds (a nil usable passes
// every symbol).
func (d *DFA) CanReachFinal(usable func(sym int32) bool) bool {
	if d.Start < 0 {
		return false
	}
	w := getWorkspace()
	defer w.put()
	k := d.NumClasses
	w.reach = resize(w.reach, d.NumStates())
	seen := w.reach
	seen[d.Start] = true
	stack := append(w.stack[:0], d.Start)
	defer func() { w.stack = stack }()
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if d.Final[s] {
			return true
		}
		for _, t := range d.Trans[int(s)*k : (int(s)+1)*k] {
			if t >= 0 && !seen[t] {
				seen[t] = true
				stack = append(stack, t)
			}
		}
		for _, c := range d.Calls[s] {
			if !seen[c.To] && (usable == nil || usable(c.Sym)) {
				seen[c.To] = true
				stack = append(stack, c.To)
			}
		}
	}
	return false
}

func emptyDFA() *DFA { return &DFA{Start: -1, NumClasses: 1} }

// callsUsable reports whether every symbol edge of d is usable.
func callsUsable(d *DFA, usable func(sym int32) bool) bool {
	if usable == nil {
		return true
	}
	for _, cs := range d.Calls {
		for _, c := range cs {
			if !usable(c.Sym) {
				return false
			}
		}
	}
	return true
}
