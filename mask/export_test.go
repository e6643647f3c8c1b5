package mask

// BrokenMatcher returns a matcher of c without a state: it passes the
// argument checks and then panics inside, for tests of panic isolation.
func BrokenMatcher(c *Compiled) *Matcher { return &Matcher{c: c} }

// NumNodes is the number of automaton nodes of c's grammar.
func NumNodes(c *Compiled) int { return c.prog.NumNodes() }

// ShapedExits is the number of verdicts c keeps by caller shape (exits.go).
func ShapedExits(c *Compiled) int {
	c.exits.mu.Lock()
	defer c.exits.mu.Unlock()
	return len(c.exits.sets)
}
