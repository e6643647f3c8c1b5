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
	base      []int32 // node -> offset of its row in trans
	classOff  []int32 // node -> offset of its rule's byte-class table in classes
	classes   []uint8 // 256 entries per rule
	nclasses  []int32 // byte classes per rule
	trans     []int32 // rows of NumClasses targets (global node ids, -1 dead)
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
}

// RuleInfo describes one compiled rule.
type RuleInfo struct {
	Name      string
	MaxTokens int   // grammar.Rule.MaxTokens
	Start     int32 // global start node
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

// HasBytes reports whether node n has any byte transition.
func (p *Program) HasBytes(n int32) bool { return p.hasBytes[n] }

// FirstBytes reports the bytes with a live transition from n. The set is
// the program's and must not be modified.
func (p *Program) FirstBytes(n int32) *byteset.Set { return &p.firstByte[n] }

// MemoryBytes estimates the memory the program's tables take.
func (p *Program) MemoryBytes() int {
	n := len(p.nodeRule)*(4*3+2+32) + len(p.classes) + 4*len(p.trans)
	for _, c := range p.calls {
		n += 24 + 12*len(c)
	}
	return n
}
