package pda

import (
	"sync"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/byteset"
)

// Call is a rule call edge of a node: push Return (unless Tail) and enter
// the called rule at Start.
type Call struct {
	Start  int32 // first node of the called rule
	Return int32 // node to continue with once the callee ends
	Tail   bool  // Return only ends its rule: pop straight to the caller's caller
}

// Program is a compiled grammar: every rule's minimized DFA, numbered into one
// global node space. It is immutable and safe for concurrent use.
type Program struct {
	Rules     []RuleInfo
	Root      int32 // the root rule's start node
	numNodes  int32
	nodeRule  []int32
	base      []int32      // node -> offset of its row in trans
	classOff  []int32      // node -> offset of its rule's byte-class table in classes
	classes   []uint8      // 256 entries per rule
	rings     []byte       // 256 entries per rule: each class's bytes as a ring (ClassRing)
	nclasses  []int32      // byte classes per rule
	classRuns [][]classRun // per rule: its class table as runs of bytes with one class
	trans     []int32      // rows of NumClasses targets (global node ids, -1 dead)
	final     []bool
	hasBytes  []bool
	calls     [][]Call
	firstByte []byteset.Set // bytes with a live transition, per node
	distOnce  sync.Once
	dist      []int32 // fewest bytes to the end of the node's rule, on first use
	pathOnce  sync.Once
	paths     *fsm.Paths     // bytes each node's rule forces from it (forced.go), on first use
	lim       grammar.Limits // what it was compiled with, defaults filled in
	hasTokens bool           // some rule has a token terminal
	budgets   bool           // some rule has a token budget
	unique    bool           // some rule has distinct items
	memBytes  int            // MemoryBytes
}

// RuleInfo describes one compiled rule.
type RuleInfo struct {
	Name      string
	MaxTokens int                  // grammar.Rule.MaxTokens
	Unique    *grammar.UniqueItems // grammar.Rule.Unique
	Prepare   bool                 // grammar.Rule.Prepare
	Start     int32                // global start node
	NumNodes  int32
	FirstNode int32
}

// Limits returns the limits the program was compiled with, every field set:
// StepWork bounds its States, and the other match-time fields are there for
// the layers above (mask reads WalkStates).
func (p *Program) Limits() grammar.Limits { return p.lim }

// RuleOf is the index in Rules of node n's rule.
func (p *Program) RuleOf(n int32) int { return int(p.nodeRule[n]) }

// HasBudgets reports whether some rule has a token budget (MaxTokens).
func (p *Program) HasBudgets() bool { return p.budgets }

// HasUnique reports whether some rule's items must be distinct
// (grammar.Rule.Unique).
func (p *Program) HasUnique() bool { return p.unique }

// NumNodes is the number of automaton nodes of all rules together.
func (p *Program) NumNodes() int { return int(p.numNodes) }

// Next is the node reached from node n on byte b, or -1.
func (p *Program) Next(n int32, b byte) int32 {
	return p.trans[p.base[n]+int32(p.classes[p.classOff[n]+int32(b)])]
}

// ByteClasses returns the byte classes of node n's rule: bytes of one class
// lead from any node of the rule to the same node.
func (p *Program) ByteClasses(n int32) []uint8 {
	return p.classes[p.classOff[n] : p.classOff[n]+256]
}

// ClassRing returns the ring of node n's byte classes (see LinkClasses):
// ring[b] is the next byte of b's class. It is the program's and must not
// be modified.
func (p *Program) ClassRing(n int32) []byte {
	return p.rings[p.classOff[n] : p.classOff[n]+256]
}

// LinkClasses links the bytes of each class of the class table cls into a
// ring: ring[b] is the next byte after b of b's class, wrapping around to
// its first, so a class's bytes are visited in as many steps as it has.
// grammar.ReservedByte, which no text has, is left out of every ring and
// linked to itself.
func LinkClasses(cls []uint8, ring []byte) {
	var first, last [256]int16
	for c := range first {
		first[c] = -1
	}
	for x := range grammar.ReservedByte {
		c := cls[x]
		if first[c] < 0 {
			first[c] = int16(x)
		} else {
			ring[last[c]] = byte(x)
		}
		last[c] = int16(x)
	}
	for c, f := range first {
		if f >= 0 {
			ring[last[c]] = byte(f)
		}
	}
	ring[grammar.ReservedByte] = grammar.ReservedByte
}

// HasBytes reports whether node n has any byte transition.
func (p *Program) HasBytes(n int32) bool { return p.hasBytes[n] }

// FirstBytes reports the bytes with a live transition from n. The set is
// the program's and must not be modified.
func (p *Program) FirstBytes(n int32) *byteset.Set { return &p.firstByte[n] }

// MemoryBytes estimates the memory the program's tables take. It is
// computed once, when the program is built: a cache measures its entries
// often.
func (p *Program) MemoryBytes() int { return p.memBytes }

// classRun is a run of consecutive bytes, lo to hi, in one byte class.
type classRun struct {
	lo, hi byte
	class  uint8
}

// runsOf returns the class table cls as runs.
func runsOf(cls []uint8) []classRun {
	var runs []classRun
	for b := 0; b < 256; {
		e := b
		for e+1 < 256 && cls[e+1] == cls[b] {
			e++
		}
		runs = append(runs, classRun{byte(b), byte(e), cls[b]})
		b = e + 1
	}
	return runs
}

func (p *Program) computeMemoryBytes() int {
	n := len(p.nodeRule)*(4*3+2+32) + len(p.classes) + len(p.rings) + 4*len(p.trans)
	for _, r := range p.classRuns {
		n += 24 + 3*len(r)
	}
	for _, c := range p.calls {
		n += 24 + 12*len(c)
	}
	return n
}

// Neighbors calls fn with every node one step from n: its byte successors,
// the start nodes of the rules it calls and those calls' return nodes
// (possibly more than once each).
func (p *Program) Neighbors(n int32, fn func(m int32)) {
	if p.hasBytes[n] {
		for _, t := range p.trans[p.base[n] : p.base[n]+p.nclasses[p.nodeRule[n]]] {
			if t >= 0 {
				fn(t)
			}
		}
	}
	for _, c := range p.calls[n] {
		fn(c.Start)
		fn(c.Return)
	}
}
