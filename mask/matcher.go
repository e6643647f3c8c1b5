package mask

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/reinlm/rein/internal/byteset"
	"github.com/reinlm/rein/internal/maskstate"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/internal/recovered"
)

func init() {
	maskstate.Of = func(m any) *pda.State {
		if m, ok := m.(*Matcher); ok && m != nil {
			return m.st
		}
		return nil
	}
}

// ErrRollback reports a rollback of more tokens than were accepted.
var ErrRollback = errors.New("mask: rollback past the start")

// ErrRow reports a bitmask row that does not fit the matcher's vocabulary.
var ErrRow = errors.New("mask: bad bitmask row")

// Matcher is the grammar state of one sequence. It is used by one goroutine
// at a time; many matchers share one Compiled. Make one with
// Compiled.NewMatcher: on a nil or zero Matcher, FillBitmask, Accept and
// Rollback return ErrMatcher and AcceptToken false, and the other methods
// panic.
type Matcher struct {
	c          *Compiled
	st         *pda.State
	hist       []histEntry
	terminated bool
	budget     budgetState
	scratch    []uint32   // a row for checkSuffixesByShape
	topx       []topIndex // FillBitmask's: each top's classification
	unodes     []int32    // unionFor's: the tops' nodes, sorted
	ukey       []byte     // unionFor's: the union's key
	ulast      lastUnion  // unionFor's: the last union it found
	verdicts   verdicts   // checkSuffixes': the exit verdicts of the last few frames
	// With distinct items (Compiled.uniq): the run through the open
	// array, and its state before each step of hist.
	uniq    uniqueRun
	umarks  []uniqueMark
	usearch []searchLevel // uniqueSearch's stack
	ubyte   [1]byte
}

// topIndex is a stack top's classification in FillBitmask, and the frame
// its uncertain tokens return into.
type topIndex struct {
	x      *nodeIndex
	node   int32
	frame  int32
	within bool // x is classified within the top's return node (within.go)
	union  bool // x is the top's part of a union (union.go): its uncertain tokens only
}

type histEntry struct {
	depth  int32       // byte depth before the token
	stop   bool        // the token was a stop token
	budget budgetState // before the token
}

// budgetState follows the tokens spent in a rule with a token budget
// (grammar.Rule.MaxTokens): the rule and the frame it returns into, and
// the tokens that started and ended inside it.
type budgetState struct {
	in          bool
	rule, frame int32
	spent       int32
}

// NewMatcher returns a matcher at the start of the grammar.
func (c *Compiled) NewMatcher() *Matcher {
	m := &Matcher{c: c, st: pda.NewState(c.prog)}
	m.uniq.reset()
	return m
}

// Compiled returns the grammar the matcher runs.
func (m *Matcher) Compiled() *Compiled { return m.c }

// Reset returns the matcher to the start of the grammar.
func (m *Matcher) Reset() {
	m.st.Reset()
	m.hist = m.hist[:0]
	m.terminated = false
	m.budget = budgetState{}
	m.uniq.reset()
	m.umarks = m.umarks[:0]
}

// Fork returns an independent copy of the matcher.
func (m *Matcher) Fork() *Matcher {
	f := &Matcher{
		c:          m.c,
		st:         m.st.Clone(),
		hist:       append([]histEntry(nil), m.hist...),
		terminated: m.terminated,
		budget:     m.budget,
		umarks:     append([]uniqueMark(nil), m.umarks...),
	}
	f.uniq.copyFrom(&m.uniq)
	return f
}

// IsTerminated reports whether a stop token has been accepted.
func (m *Matcher) IsTerminated() bool { return m.terminated }

// CanEnd reports whether the output so far is complete, so that a stop token
// would be accepted.
func (m *Matcher) CanEnd() bool { return !m.terminated && m.st.CanEnd() }

// NumTokens is the number of tokens accepted (and not rolled back).
func (m *Matcher) NumTokens() int { return len(m.hist) }

// BytesToEnd is the fewest bytes that complete the output so far into a
// document the grammar accepts: 0 when it may end now or has terminated.
// Engines use it to steer a sequence that must finish soon (a token budget
// running out) towards the tokens that end it quickest.
func (m *Matcher) BytesToEnd() int {
	if m.terminated {
		return 0
	}
	return m.st.BytesToEnd()
}

// AcceptToken advances by token id and reports whether the grammar allows
// it. A rejected token leaves the matcher unchanged.
func (m *Matcher) AcceptToken(id int) bool {
	if m == nil || m.c == nil || m.terminated || id < 0 || id >= m.c.voc.size {
		return false
	}
	m.st.ClearErr()
	d := m.st.Depth()
	m.markUnique()
	if m.c.isStop(id) {
		// A stop token ends the output where the grammar may end, and is
		// a step of it where a token terminal names it; it ends the output
		// there too if the grammar may end after it.
		if !m.st.CanEnd() && !m.st.AdvanceToken(m.c.tok.class(id)) {
			m.unmarkUnique()
			return false
		}
		m.terminated = m.st.CanEnd()
		m.hist = append(m.hist, histEntry{depth: int32(d), stop: m.terminated, budget: m.budget})
		return true
	}
	// A special token is a token terminal's or nothing; an ordinary token
	// is text, and a token terminal's too where one holds it: the state
	// then keeps both readings.
	b, k := m.c.vocab.Bytes(id), m.c.tok.class(id)
	var ok bool
	switch {
	case m.c.vocab.IsSpecial(id) || len(b) == 0:
		ok = m.st.AdvanceToken(k)
	case k >= 0:
		ok = m.st.AdvanceEither(b, k)
	case m.c.uniq != nil:
		ok = m.advanceUnique(b)
	default:
		ok = m.st.AdvanceBytes(b)
	}
	if !ok {
		m.unmarkUnique()
		return false
	}
	m.hist = append(m.hist, histEntry{depth: int32(d), budget: m.budget})
	if m.c.prog.HasBudgets() {
		m.spend()
	}
	return true
}

// spend counts the token just taken against the budget of the rule it
// ended in, if that rule has one, and once the budget is spent ends the
// rule there: the state goes on with what follows the rule. A token counts
// when it starts and ends inside the same match of the rule.
func (m *Matcher) spend() {
	t, ok := m.st.Budgeted()
	if !ok {
		m.budget = budgetState{}
		return
	}
	rule := int32(m.c.prog.RuleOf(t.Node))
	b := m.budget
	if b.in && b.rule == rule && b.frame == t.Frame {
		b.spent++
	} else {
		b = budgetState{in: true, rule: rule, frame: t.Frame}
	}
	if int(b.spent) >= m.c.prog.Rules[rule].MaxTokens && m.st.PushReturn(t.Frame) {
		b = budgetState{}
	}
	m.budget = b
}

// AcceptString advances by raw bytes, outside any token boundary, and
// reports whether the grammar allows them; rejected input leaves the matcher
// unchanged. The bytes count as one step for Rollback.
func (m *Matcher) AcceptString(s string) bool {
	if m.terminated {
		return false
	}
	m.st.ClearErr()
	d := m.st.Depth()
	m.markUnique()
	if m.c.uniq != nil {
		if !m.advanceUnique([]byte(s)) {
			m.unmarkUnique()
			return false
		}
	} else {
		for i := 0; i < len(s); i++ {
			if !m.st.Advance(s[i]) {
				m.st.Rollback(d)
				return false
			}
		}
	}
	m.hist = append(m.hist, histEntry{depth: int32(d), budget: m.budget})
	return true
}

// Rollback undoes the last n accepted steps (tokens or strings). A negative n
// or more steps than were accepted is an error wrapping ErrRollback, a nil or
// zero matcher ErrMatcher; the matcher is then unchanged.
func (m *Matcher) Rollback(n int) error {
	if m == nil || m.c == nil {
		return ErrMatcher
	}
	if n < 0 || n > len(m.hist) {
		return fmt.Errorf("%w: %d steps asked, %d accepted", ErrRollback, n, len(m.hist))
	}
	if n == 0 {
		return nil
	}
	k := len(m.hist) - n
	m.st.Rollback(int(m.hist[k].depth))
	m.budget = m.hist[k].budget
	if m.c.uniq != nil {
		m.uniq.restore(m.umarks[k])
		m.umarks = m.umarks[:k]
	}
	for _, h := range m.hist[k:] {
		if h.stop {
			m.terminated = false
		}
	}
	m.hist = m.hist[:k]
	return nil
}

// mayClassify reports whether the next FillBitmask may classify a node: a
// top's node has no classification of its own yet. Nodes classified with
// their return (within.go) or in a union (union.go) have none of their own
// either, so it errs towards yes. False for a nil, zero or terminated
// matcher.
func (m *Matcher) mayClassify() bool {
	if m == nil || m.c == nil || m.terminated {
		return false
	}
	for _, t := range m.st.Tops() {
		if int(t.Node) < len(m.c.index) && m.c.index[t.Node].Load() == nil {
			return true
		}
	}
	return false
}

// FillBitmask writes the tokens allowed next into row of b: all tokens the
// grammar allows, stop tokens when it may end or where a token terminal
// names them, special tokens only where a token terminal names them.
// After termination the row is all zeros. It allocates nothing once the
// nodes it visits are indexed. It writes nothing and returns an error
// wrapping ErrMatcher for a nil or zero matcher, ErrShape for a bitmask that
// Bitmask.Check refuses, and ErrRow for a row outside b or a bitmask of
// another vocabulary size. An error wrapping grammar.ErrLimit means the
// pushdown step limit tripped (see Accept): the row is cleared and the
// sequence should be failed.
func (m *Matcher) FillBitmask(b *Bitmask, row int) error {
	if err := checkFill(m, b, row); err != nil {
		return err
	}
	out := b.Row(row)
	if m.terminated {
		clear(out)
		return nil
	}
	c := m.c
	m.st.ClearErr()
	if tops := m.st.Tops(); len(tops) > 0 {
		// Tell warming where this matcher is (see Compiled.WarmNext).
		c.warm.setHint(tops[0].Node, m.st.ReturnNode(tops[0].Frame))
	}
	// The state holds one top per node (stacks meeting at a node are
	// merged), so each node's accepted set is added once. The first dense
	// row is copied rather than added to a cleared one: one pass over the
	// row, not two, for the many masks with one top.
	clean := false
	m.topx = m.topx[:0]
	u := m.unionFor(m.st.Tops())
	if u != nil {
		clean = orAccepted(out, u.acc, clean)
	}
	for _, t := range m.st.Tops() {
		if u != nil {
			if x := u.part(t.Node); x != nil {
				m.topx = append(m.topx, topIndex{x: x, node: t.Node, frame: t.Frame, union: true})
				continue
			}
		}
		// A node near its rule's end is classified with the node its rule
		// returns to (within.go); its uncertain tokens then leave that
		// node's rule, into the frame below.
		var x *nodeIndex
		f, within := t.Frame, false
		if t.Frame >= 0 && c.useWithin(t.Node) {
			x, f = m.withinIndex(t.Node, t.Frame)
			within = x != nil
		}
		if !within {
			x, f = c.nodeIndex(t.Node), t.Frame
		}
		if x.err != nil {
			clear(out)
			return fmt.Errorf("mask: classifying node %d: %w", t.Node, x.err)
		}
		m.topx = append(m.topx, topIndex{x: x, node: t.Node, frame: f, within: within})
		clean = orAccepted(out, x, clean)
	}
	if !clean {
		clear(out)
	}
	for _, t := range m.topx {
		switch {
		case t.frame < 0:
		case t.within, t.union:
			m.checkSuffixes(out, t.x, t.frame, nil, nil)
		case t.x.base != nil:
			m.checkDerived(out, t.x, t.frame)
		case !m.checkSuffixesByShape(out, t.node, t.x, t.frame):
			m.checkSuffixes(out, t.x, t.frame, nil, nil)
		}
	}
	if err := m.st.Err(); err != nil {
		m.st.ClearErr()
		clear(out)
		return fmt.Errorf("mask: %w", err)
	}
	if m.st.CanEnd() {
		for _, id := range c.voc.stops {
			out[id>>5] |= 1 << (uint32(id) & 31)
		}
	}
	if c.tok != nil {
		m.st.TokenClasses(func(k int) { c.tok.fill(out, k) })
		if err := m.st.Err(); err != nil {
			m.st.ClearErr()
			clear(out)
			return fmt.Errorf("mask: %w", err)
		}
	}
	if c.uniq != nil {
		m.filterUnique(out)
	}
	return nil
}

// orAccepted adds x's accepted tokens to out, which holds a mask's earlier
// tops' where clean is set (else its content is stale), and reports that
// out is clean now. The first dense row is copied rather than added to a
// cleared one.
func orAccepted(out []uint32, x *nodeIndex, clean bool) bool {
	switch {
	case x.base != nil:
		if !clean {
			clear(out)
		}
		x.orDerived(out)
	case x.dense != nil && clean:
		orWords(out, x.dense)
	case x.dense != nil:
		clear(out[copy(out, x.dense):])
	default:
		if !clean {
			clear(out)
		}
		for _, id := range x.accepted {
			out[id>>5] |= 1 << (uint32(id) & 31)
		}
	}
	return true
}

// checkDerived decides the uncertain tokens of x, a classification derived
// from its reference's (derive.go), at a top returning into frame f: its
// own, and those of its base that keep their verdicts (x.keepSuf).
func (m *Matcher) checkDerived(out []uint32, x *nodeIndex, f int32) {
	m.checkSuffixes(out, x, f, nil, nil)
	if x.keepSuf != nil {
		m.checkSuffixes(out, x.base, f, nil, x.keepSuf)
	}
}

// checkSuffixes decides the uncertain tokens of node index x at a top
// whose rule returns into frame f: each distinct suffix is run from what f
// continues with, reusing the walk of the previous suffix's shared prefix,
// and a suffix taken whole allows every token that leaves the rule with it.
//
// With rec, the frame below f is watched (State.WatchPops) and rec collects
// the verdicts that depended on it: the suffixes and ranges whose walks
// ended the rule f returns into, the refused ones included. With only, a
// bit per entry of x.sufToks, only the tokens whose bits are set are
// allowed (a derived classification's share of its base's: checkDerived).
func (m *Matcher) checkSuffixes(out []uint32, x *nodeIndex, f int32, rec *exitRecord, only []uint64) {
	ns := x.numSuffixes()
	if ns == 0 && len(x.ranges) == 0 {
		return
	}
	st := m.st
	// Without rec, the suffixes' verdicts and the tokens x's ranges allow
	// are kept for the next mask that asks about x at this frame
	// (verdicts.go); one kept before is taken, and x's ranges are walked
	// only where their tokens were too many to keep.
	var kept, record *verdict
	if rec == nil && f >= 0 {
		stamp := st.FrameStamp(f)
		if kept = m.verdicts.find(x, f, stamp); kept != nil {
			orTaken(out, x, kept.taken, only)
			if kept.ranges != nil {
				m.verdicts.rangeHits++
				for _, id := range kept.ranges {
					out[id>>5] |= 1 << (uint32(id) & 31)
				}
				return
			}
			if len(x.ranges) == 0 {
				return
			}
		} else {
			record = m.verdicts.start(ns, f, stamp)
		}
	}
	top := st.Depth()
	pushed := st.PushReturn(f)
	if rec != nil && st.Popped() {
		rec.all = true // the return node itself may end its rule
	}
	if !pushed {
		if record != nil && st.Err() == nil {
			record.x = x // nothing can follow the rule: no suffix is taken
		}
		return
	}
	// The bytes the caller takes first: a suffix starting with another byte
	// is refused, with every suffix sharing that byte, without a step.
	var first byteset.Set
	for _, t := range st.Tops() {
		first.Union(m.c.prog.FirstBytes(t.Node))
	}
	base := top + 1
	if kept != nil {
		m.checkRanges(out, x, base, &first, nil, nil)
		st.Rollback(top)
		return
	}
	const noPop = math.MaxInt
	failAt := -1     // the previous suffix died adding its byte failAt
	failDep := false // and that depended on the stack below (rec)
	popFrom := noPop // with rec: the first byte of the walk held whose step popped
	for i := 0; i < ns; i++ {
		l := int(x.sufLCP[i])
		if l == 0 && !first.Has(x.sufData[x.sufOff[i]]) {
			i = int(x.sufSkip[i]) - 1
			failAt = -1
			continue
		}
		if failAt >= 0 && l > failAt {
			if failDep {
				rec.sufs = append(rec.sufs, int32(i))
			}
			continue
		}
		failAt = -1
		suf := x.suffix(i)
		keep := min(l, st.Depth()-base)
		st.Rollback(base + keep)
		if popFrom >= keep {
			popFrom = noPop
		}
		for k := st.Depth() - base; k < len(suf); k++ {
			if rec != nil {
				st.ClearPopped()
			}
			ok := st.Advance(suf[k])
			popped := rec != nil && st.Popped()
			if !ok {
				failAt = k
				failDep = popped || popFrom < k
				break
			}
			if popped {
				popFrom = min(popFrom, k)
			}
		}
		if failAt == 0 {
			// The caller refuses this first byte: skip every suffix with it.
			next := int(x.sufSkip[i])
			if failDep {
				for j := i; j < next; j++ {
					rec.sufs = append(rec.sufs, int32(j))
				}
			}
			i = next - 1
			continue
		}
		if failAt < 0 {
			if popFrom < len(suf) {
				rec.sufs = append(rec.sufs, int32(i))
			}
			if record != nil {
				record.taken[i>>6] |= 1 << (i & 63)
			}
			if only == nil {
				for _, id := range x.sufToks[x.sufGroup[i]:x.sufGroup[i+1]] {
					out[id>>5] |= 1 << (uint32(id) & 31)
				}
			} else {
				for j := x.sufGroup[i]; j < x.sufGroup[i+1]; j++ {
					if only[j>>6]&(1<<(j&63)) != 0 {
						id := x.sufToks[j]
						out[id>>5] |= 1 << (uint32(id) & 31)
					}
				}
			}
		} else if failDep {
			rec.sufs = append(rec.sufs, int32(i))
		}
	}
	m.checkRanges(out, x, base, &first, rec, record)
	st.Rollback(top)
	if record != nil && st.Err() == nil {
		record.x = x // every suffix decided, none cut short by the step limit
	}
}

// orTaken adds to out the tokens of x's suffixes whose bits are set in
// taken, those whose bits are set in only where only is not nil (see
// checkSuffixes).
func orTaken(out []uint32, x *nodeIndex, taken, only []uint64) {
	for w, bitsLeft := range taken {
		for bitsLeft != 0 {
			i := w<<6 | bits.TrailingZeros64(bitsLeft)
			bitsLeft &= bitsLeft - 1
			for j := x.sufGroup[i]; j < x.sufGroup[i+1]; j++ {
				if only == nil || only[j>>6]&(1<<(j&63)) != 0 {
					id := x.sufToks[j]
					out[id>>5] |= 1 << (uint32(id) & 31)
				}
			}
		}
	}
}

// checkRanges decides x's ranges of uncertain tokens from the state st
// holds at depth base (see checkSuffixes), each range as checkRange does,
// recording in rec those whose walks ended the rule below. With v, the
// tokens allowed are kept in v for the next mask (see verdict.ranges).
func (m *Matcher) checkRanges(out []uint32, x *nodeIndex, base int, first *byteset.Set, rec *exitRecord, v *verdict) {
	var keep *verdict
	if v != nil && len(x.ranges) > 0 {
		m.verdicts.roomForRanges(v)
		v.ranges, v.rangesOver = v.rangesBuf[:0], false
		keep = v
	}
	for k, r := range x.ranges {
		if rec != nil {
			m.st.ClearPopped()
		}
		m.checkRange(out, r, base, first, keep)
		if rec != nil && m.st.Popped() {
			rec.ranges = append(rec.ranges, int32(k))
		}
	}
	if keep != nil {
		keep.keepRanges()
	}
}

// checkSome decides the uncertain tokens of x among the suffixes sufs and
// the ranges ranges, as checkSuffixes does, at a top returning into frame f.
func (m *Matcher) checkSome(out []uint32, x *nodeIndex, f int32, sufs, ranges []int32) {
	st := m.st
	top := st.Depth()
	if !st.PushReturn(f) {
		return
	}
	var first byteset.Set
	for _, t := range st.Tops() {
		first.Union(m.c.prog.FirstBytes(t.Node))
	}
	base := top + 1
	for _, i := range sufs {
		st.Rollback(base)
		if st.AdvanceBytes(x.suffix(int(i))) {
			for _, id := range x.sufToks[x.sufGroup[i]:x.sufGroup[i+1]] {
				out[id>>5] |= 1 << (uint32(id) & 31)
			}
		}
	}
	for _, k := range ranges {
		m.checkRange(out, x.ranges[k], base, &first, nil)
	}
	st.Rollback(top)
}

// checkRange decides the uncertain tokens of r from the state st holds at
// depth base (the caller's continuation): each token's suffix after r.at
// bytes is run, reusing the walk of the previous token's shared prefix,
// and a subtree whose suffixes die at a shared byte is skipped at once.
// With keep, the tokens allowed are kept in it too (verdict.keepRange).
func (m *Matcher) checkRange(out []uint32, r exitRange, base int, first *byteset.Set, keep *verdict) {
	tr := m.c.voc.Trie
	ids := tr.IDs()
	stops := m.c.voc.trieStops
	st := m.st
	at := int(r.at)
	if !first.Has(tr.Token(int(r.lo))[at]) {
		return // every suffix starts with this byte
	}
	st.Rollback(base)
	failAt := -1 // the previous suffix died adding its byte failAt
	for i := int(r.lo); i < int(r.hi); i++ {
		tok := tr.Token(i)
		l := 0
		if i > int(r.lo) {
			l = tr.LCP(i) - at
		}
		if failAt >= 0 && l > failAt {
			continue
		}
		failAt = -1
		st.Rollback(base + min(l, st.Depth()-base))
		for k := st.Depth() - base; at+k < len(tok); k++ {
			if !st.Advance(tok[at+k]) {
				failAt = k
				break
			}
		}
		if failAt < 0 {
			// A stop token among ordinary ones is allowed where the
			// grammar may end, not by its bytes (see newNodeIndex).
			if id := ids[i]; len(stops) == 0 || !slices.Contains(stops, id) {
				out[id>>5] |= 1 << (uint32(id) & 31)
				if keep != nil {
					keep.keepRange(id)
				}
			}
			continue
		}
		d := at + failAt + 1 // every token with tok[:d] dies here
		if d <= int(r.common) {
			return
		}
		if d > tr.LCP(i) {
			i = min(int(r.hi), tr.End(tr.Node(i, d))) - 1
			failAt = -1
		}
	}
}

func orWords(dst, src []uint32) {
	for i, w := range src {
		dst[i] |= w
	}
}

func (c *Compiled) isStop(id int) bool {
	for _, s := range c.voc.stops {
		if int(s) == id {
			return true
		}
	}
	return false
}

// ErrTerminated reports a token offered to a matcher that has already
// accepted a stop token.
var ErrTerminated = errors.New("mask: matcher already terminated")

// ErrRejected reports a token the grammar does not allow at this point, or an
// id outside the vocabulary.
var ErrRejected = errors.New("mask: token rejected by the grammar")

// ErrPanic is wrapped by every *PanicError.
var ErrPanic = errors.New("panic in grammar work")

// PanicError is a panic recovered inside one sequence's grammar work (a
// compile, a mask fill, an accept), turned into that sequence's error so
// the rest of the batch and the process go on. Error is one line; Stack holds
// the frames where the panic happened, for the log.
type PanicError struct {
	Op    string // what was running: "FillBitmask", "Accept", "compile"
	Value any    // the value passed to panic
	Stack string // an excerpt of the panicking goroutine's stack
}

// newPanicError records v, just recovered while op was running. Call it from
// the deferred function that recovered, so Stack shows where the panic
// happened.
func newPanicError(op string, v any) *PanicError {
	return &PanicError{Op: op, Value: v, Stack: recovered.Stack()}
}

func (e *PanicError) Error() string { return fmt.Sprintf("mask: panic in %s: %v", e.Op, e.Value) }

// Unwrap returns ErrPanic, and the panic value when it is an error (a
// runtime.Error for a nil dereference or an index out of range).
func (e *PanicError) Unwrap() []error {
	if err, ok := e.Value.(error); ok {
		return []error{ErrPanic, err}
	}
	return []error{ErrPanic}
}

// ValidateTokens reports how many of ids, from the first, the grammar
// accepts in turn (llguidance's validate_tokens), and leaves the matcher as
// it was. A speculative decoder checks a draft model's k tokens with it:
// the target model's verdicts are kept for the first n, the rest are
// dropped, and the matcher then accepts the n it keeps. A stop token
// counts where the grammar may end, and nothing after it does. A nil or
// zero matcher accepts none.
func (m *Matcher) ValidateTokens(ids []int) int {
	if m == nil || m.c == nil {
		return 0
	}
	n := 0
	for _, id := range ids {
		if !m.AcceptToken(id) {
			break
		}
		n++
	}
	if n > 0 {
		_ = m.Rollback(n) // n steps were just accepted
	}
	m.st.ClearErr()
	return n
}

// Accept is AcceptToken for engines that need the reason for a refusal: it
// returns ErrTerminated once a stop token has been accepted, and an error
// wrapping ErrRejected, naming the token, for a token the grammar does not
// allow here or an id outside the vocabulary, and an error wrapping
// grammar.ErrLimit (pda.ErrStepLimit) for a token the grammar might allow
// but whose bytes need more pushdown work than the step limit (a grammar
// ambiguous enough for its live stacks to grow with the input): fail that
// sequence. A refused token leaves the matcher unchanged. A panic inside is recovered as a *PanicError; the
// matcher's state is then unspecified and the sequence should be failed (or
// the matcher Reset). An accepted token allocates nothing once the history
// has grown to the sequence's length.
func (m *Matcher) Accept(id int) (err error) {
	if m == nil || m.c == nil {
		return ErrMatcher
	}
	defer func() {
		if r := recover(); r != nil {
			err = newPanicError("Accept", r)
		}
	}()
	if m.terminated {
		return ErrTerminated
	}
	if m.AcceptToken(id) {
		return nil
	}
	if err := m.st.Err(); err != nil {
		m.st.ClearErr()
		return fmt.Errorf("mask: token %d: %w", id, err)
	}
	if id < 0 || id >= m.c.voc.size {
		return fmt.Errorf("%w: token id %d outside the vocabulary of %d tokens", ErrRejected, id, m.c.voc.size)
	}
	b := m.c.vocab.Bytes(id)
	off := 0
	if !m.c.vocab.IsSpecial(id) && !m.c.isStop(id) {
		off = m.takes(b)
	}
	return &RejectError{Token: id, Bytes: b, Offset: off}
}

// RejectError is a token or text the grammar refuses, and where: Offset is
// the first byte of Bytes it does not take (0 for a special or stop token;
// len(Bytes) when every byte is taken but the text as a whole is not, as
// when it would repeat an item that must be distinct). It wraps
// ErrRejected.
type RejectError struct {
	Token  int // the token id; -1 for text (AcceptText)
	Bytes  []byte
	Offset int
}

func (e *RejectError) Error() string {
	what := fmt.Sprintf("token %d %q", e.Token, e.Bytes)
	if e.Token < 0 {
		what = fmt.Sprintf("text %q", e.Bytes)
	}
	return fmt.Sprintf("%v: %s, refused at byte %d", ErrRejected, what, e.Offset)
}

func (e *RejectError) Unwrap() error { return ErrRejected }

// takes returns how many leading bytes of b the grammar takes in turn,
// leaving the matcher as it was.
func (m *Matcher) takes(b []byte) int {
	n := 0
	for n < len(b) && m.AcceptString(string(b[n:n+1])) {
		n++
	}
	if n > 0 {
		_ = m.Rollback(n) // n steps were just accepted
	}
	m.st.ClearErr()
	return n
}

// AcceptText is AcceptString for engines that need the reason for a
// refusal: the text is taken as one step, or refused, leaving the matcher
// unchanged, with a *RejectError (wrapping ErrRejected) whose Offset is the
// first byte the grammar does not take; ErrTerminated after a stop token;
// ErrMatcher for a nil or zero matcher.
func (m *Matcher) AcceptText(s string) error {
	if m == nil || m.c == nil {
		return ErrMatcher
	}
	if m.terminated {
		return ErrTerminated
	}
	if m.AcceptString(s) {
		return nil
	}
	if err := m.st.Err(); err != nil {
		m.st.ClearErr()
		return fmt.Errorf("mask: text: %w", err)
	}
	return &RejectError{Token: -1, Bytes: []byte(s), Offset: m.takes([]byte(s))}
}

// MustEnd reports whether the output is complete and the grammar allows
// nothing more but a stop token: the engine can end the sequence without
// sampling. It is false once a stop token has been accepted (IsTerminated
// says so) and wherever any other token may come.
func (m *Matcher) MustEnd() bool {
	return !m.terminated && m.st.CanEnd() && len(m.st.Tops()) == 0
}

// StopReason says why a matcher has stopped, or must.
type StopReason uint8

// The stop reasons.
const (
	NotStopped     StopReason = iota // tokens other than stop tokens may come
	StoppedByToken                   // a stop token was accepted (IsTerminated)
	MustStop                         // complete, and nothing but a stop token may come (MustEnd)
)

func (r StopReason) String() string {
	switch r {
	case StoppedByToken:
		return "stopped by a stop token"
	case MustStop:
		return "complete: only a stop token may come"
	}
	return "not stopped"
}

// StopReason says why the matcher has stopped or must stop now, or that it
// has not.
func (m *Matcher) StopReason() StopReason {
	switch {
	case m.terminated:
		return StoppedByToken
	case m.MustEnd():
		return MustStop
	}
	return NotStopped
}
