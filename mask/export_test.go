package mask

import "time"

// BrokenMatcher returns a matcher of c without a state: it passes the
// argument checks and then panics inside, for tests of panic isolation.
func BrokenMatcher(c *Compiled) *Matcher { return &Matcher{c: c} }

// KeptRangeHits is how many times m took the tokens of a classification's
// ranges from a kept verdict rather than walking them (verdicts.go).
func KeptRangeHits(m *Matcher) int { return m.verdicts.rangeHits }

// NumNodes is the number of automaton nodes of c's grammar.
func NumNodes(c *Compiled) int { return c.prog.NumNodes() }

// ShapedExits is the number of verdicts c keeps by caller shape (exits.go).
func ShapedExits(c *Compiled) int {
	c.exits.mu.Lock()
	defer c.exits.mu.Unlock()
	return len(c.exits.sets)
}

// ClassifyWithinReturns turns classifications within a return node's shape
// (within.go) on or off, returning the previous setting. It is for tests
// that run alone: it applies to every grammar at once.
func ClassifyWithinReturns(on bool) bool {
	was := classifyWithinReturns
	classifyWithinReturns = on
	return was
}

// WithinIndexes is the number of classifications c keeps of nodes near
// their rule's end, within a return node's shape (within.go).
func WithinIndexes(c *Compiled) int {
	c.exits.mu.Lock()
	defer c.exits.mu.Unlock()
	return len(c.exits.within)
}

// ClassifyUnions turns the classification of tops together (union.go) on
// or off, returning the previous setting. It is for tests that run alone:
// it applies to every grammar at once.
func ClassifyUnions(on bool) bool {
	was := classifyUnions
	classifyUnions = on
	return was
}

// Unions is the number of unions c has classified (union.go).
func Unions(c *Compiled) int {
	c.unions.mu.Lock()
	defer c.unions.mu.Unlock()
	n := 0
	for k, u := range c.unions.m {
		if k[0] == 1 && u != nil { // a union's own key, not the tops' it was found for
			n++
		}
	}
	return n
}

// NewStalledBatchFiller is NewBatchFiller, whose callers wake the helpers
// at once and whose woken helpers wait for stall to close before they take
// a row.
func NewStalledBatchFiller(workers int, stall chan struct{}) *BatchFiller {
	return newBatchFiller(workers, 0, stall)
}

// NewBatchFillerWakingAfter is NewBatchFiller, whose callers wake the
// helpers, where no row may classify a node, after filling rows alone for
// wake.
func NewBatchFillerWakingAfter(workers int, wake time.Duration) *BatchFiller {
	return newBatchFiller(workers, wake, nil)
}

// MayClassify reports whether m's next FillBitmask may classify a node.
func MayClassify(m *Matcher) bool { return m.mayClassify() }
