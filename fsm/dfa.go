package fsm

// Call is a symbol edge of a DFA state: reading symbol Sym leads to state To.
type Call struct{ Sym, To int32 }

// DFA is a deterministic finite automaton over bytes and symbols. Its states
// are numbered from 0 to NumStates()-1; -1 stands for the dead state, from
// which nothing is accepted.
//
// Bytes are read through byte classes: Classes maps each byte to its class,
// and all bytes of one class lead every state to the same next state, so the
// transition table has one column per class rather than per byte.
//
// A DFA is not modified by its methods, so it is safe for concurrent use once
// built; ComputeForced is the exception and must run before sharing.
type DFA struct {
	Start      int32        // the start state, -1 if the language is empty
	Final      []bool       // per state: accepting
	Classes    [256]uint8   // byte -> class index
	NumClasses int          // number of byte classes, at least 1
	Trans      []int32      // Trans[s*NumClasses+class]: next state, or -1
	Calls      [][]Call     // per state: symbol edges sorted by Sym, one per symbol
	forced     *forcedTable // ForcedBytes, once ComputeForced ran
}

// NumStates returns the number of states.
func (d *DFA) NumStates() int { return len(d.Final) }

// Next returns the state that byte b leads s to, or -1. Next(-1, b) is -1.
func (d *DFA) Next(s int32, b byte) int32 {
	if s < 0 {
		return -1
	}
	return d.Trans[int(s)*d.NumClasses+int(d.Classes[b])]
}

// NextSymbol returns the state that symbol sym leads s to, or -1.
func (d *DFA) NextSymbol(s int32, sym int32) int32 {
	if s < 0 {
		return -1
	}
	cs := d.Calls[s]
	lo, hi := 0, len(cs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cs[m].Sym < sym {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(cs) && cs[lo].Sym == sym {
		return cs[lo].To
	}
	return -1
}

// Match reports whether d accepts all of b from its start state, reading bytes
// only (symbol edges are ignored).
func (d *DFA) Match(b []byte) bool {
	s := d.Start
	for _, c := range b {
		if s < 0 {
			return false
		}
		s = d.Trans[int(s)*d.NumClasses+int(d.Classes[c])]
	}
	return s >= 0 && d.Final[s]
}
