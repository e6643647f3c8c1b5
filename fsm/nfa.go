package fsm

// NFA is a nondeterministic finite automaton whose edges read one byte from a
// range, read one symbol, or read nothing (epsilon). It is built edge by edge;
// it has no start or final states of its own, Determinize is told them.
// The zero NFA is empty and ready to use.
type NFA struct {
	// MaxStates bounds the states that Regexp may grow the NFA to, so that
	// nested counted repetitions fail with ErrTooLarge rather than exhaust
	// memory; 0 means DefaultMaxNFAStates. Other methods do not check it.
	MaxStates int

	states int
	edges  []nfaEdge
}

// DefaultMaxNFAStates is the bound Regexp uses when NFA.MaxStates is 0.
const DefaultMaxNFAStates = 1 << 20

type edgeKind uint8

const (
	byteEdge edgeKind = iota
	symbolEdge
	epsilonEdge
)

type nfaEdge struct {
	from, to int32
	sym      int32 // symbolEdge only
	kind     edgeKind
	lo, hi   byte // byteEdge only
}

// NewState adds a state and returns its number; states are numbered from 0.
func (n *NFA) NewState() int {
	n.states++
	return n.states - 1
}

// NumStates returns the number of states added so far.
func (n *NFA) NumStates() int { return n.states }

// Bytes adds an edge from one state to another that reads one byte in [lo, hi].
// It adds nothing when lo > hi.
func (n *NFA) Bytes(from, to int, lo, hi byte) {
	n.check(from, to)
	if lo > hi {
		return
	}
	n.edges = append(n.edges, nfaEdge{from: int32(from), to: int32(to), kind: byteEdge, lo: lo, hi: hi})
}

// Symbol adds an edge that reads the symbol sym. Symbols are not bytes: they
// stand for whatever the caller gives them a meaning for (package pda uses them
// for rule calls). Determinize keeps them as DFA.Calls.
func (n *NFA) Symbol(from, to int, sym int32) {
	n.check(from, to)
	n.edges = append(n.edges, nfaEdge{from: int32(from), to: int32(to), kind: symbolEdge, sym: sym})
}

// Epsilon adds an edge that reads nothing.
func (n *NFA) Epsilon(from, to int) {
	n.check(from, to)
	if from == to {
		return
	}
	n.edges = append(n.edges, nfaEdge{from: int32(from), to: int32(to), kind: epsilonEdge})
}

// check panics on a state that NewState did not return: that is a bug in the
// caller, like an index out of range.
func (n *NFA) check(from, to int) {
	if uint(from) >= uint(n.states) || uint(to) >= uint(n.states) {
		panic("fsm: NFA edge between states that do not exist")
	}
}
