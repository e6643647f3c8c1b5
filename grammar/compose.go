package grammar

import (
	"fmt"
	"slices"
)

// Composition: building one grammar from others. A front-end that embeds a
// sublanguage (GBNF's %json, a tool-call format around argument schemas)
// appends the sublanguage's rules to its own with Embed and calls the
// embedded root with Call; AddRule adds a hand-written rule beside them.
// None of these validates: call Grammar.Validate on the finished grammar.

// Clone returns a deep copy of g: its rules, expressions and their slices
// are new, so changing the copy leaves g as it was. An expression that g
// shares between several places is shared the same way in the copy. The
// parsed regular expressions of OpRegex terminals are not copied but shared,
// since nothing changes a syntax.Regexp once parsed. Clone works with an
// explicit stack, whatever the depth of the expressions.
func (g *Grammar) Clone() *Grammar {
	c := exprCopier{rule: func(i int) int { return i }, done: map[*Expr]*Expr{}}
	out := &Grammar{Rules: make([]Rule, len(g.Rules)), Root: g.Root}
	for i, r := range g.Rules {
		out.Rules[i] = Rule{Name: r.Name, Body: c.copy(r.Body)}
	}
	return out
}

// Embed appends a copy of sub's rules to g and returns the index that sub's
// root has in g, or -1 when sub has no rules. Each copied rule is named
// prefix followed by its name in sub; where g already has a rule of that
// name, a suffix "-2", "-3", ... makes it unique. References inside the copy
// are renumbered to the copied rules; g's own rules, their names and indices
// are left as they were, and sub is not changed.
func (g *Grammar) Embed(sub *Grammar, prefix string) int {
	if len(sub.Rules) == 0 {
		return -1
	}
	base := len(g.Rules)
	names := g.ruleNames()
	c := exprCopier{rule: func(i int) int { return base + i }, done: map[*Expr]*Expr{}}
	g.Rules = slices.Grow(g.Rules, len(sub.Rules))
	for _, r := range sub.Rules {
		name := uniqueName(names, prefix+r.Name)
		g.Rules = append(g.Rules, Rule{Name: name, Body: c.copy(r.Body)})
	}
	return base + sub.Root
}

// AddRule appends a rule named name (with a suffix "-2", "-3", ... where g
// already has a rule of that name) and returns its index, for Call. body may
// be nil and set later through g.Rules[i].Body, which is how a rule that
// refers to itself is built.
func (g *Grammar) AddRule(name string, body *Expr) int {
	name = uniqueName(g.ruleNames(), name)
	g.Rules = append(g.Rules, Rule{Name: name, Body: body})
	return len(g.Rules) - 1
}

// ruleNames returns the set of g's rule names.
func (g *Grammar) ruleNames() map[string]bool {
	names := make(map[string]bool, len(g.Rules))
	for _, r := range g.Rules {
		names[r.Name] = true
	}
	return names
}

// uniqueName returns name, or name with the first suffix "-2", "-3", ...
// that is not in names, and adds the result to names.
func uniqueName(names map[string]bool, name string) string {
	out := name
	for n := 2; names[out]; n++ {
		out = fmt.Sprintf("%s-%d", name, n)
	}
	names[out] = true
	return out
}

// exprCopier deep-copies expressions, mapping the rule of every reference
// through rule. done remembers the copies made, so that an expression
// shared between places stays shared and is copied once.
type exprCopier struct {
	rule func(int) int
	done map[*Expr]*Expr
}

// copy returns the copy of e, built with an explicit stack: each node is
// copied when first met, and its parts are filled in as they are copied.
func (c *exprCopier) copy(e *Expr) *Expr {
	if e == nil {
		return nil
	}
	if d, ok := c.done[e]; ok {
		return d
	}
	root := c.node(e)
	stack := []*Expr{e}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		d := c.done[x]
		for i, s := range x.Subs {
			if s == nil {
				continue
			}
			if ds, ok := c.done[s]; ok {
				d.Subs[i] = ds
				continue
			}
			d.Subs[i] = c.node(s)
			stack = append(stack, s)
		}
	}
	return root
}

// node returns a copy of e's own fields, with its parts still to be filled
// in, and records it in done.
func (c *exprCopier) node(e *Expr) *Expr {
	d := new(Expr)
	*d = *e
	d.Bytes = slices.Clone(e.Bytes)
	d.Ranges = slices.Clone(e.Ranges)
	d.TokenNames = slices.Clone(e.TokenNames)
	d.Tokens = slices.Clone(e.Tokens)
	d.Excludes = slices.Clone(e.Excludes)
	d.Subs = nil
	if e.Subs != nil {
		d.Subs = make([]*Expr, len(e.Subs))
	}
	if e.Op == OpRef {
		d.Rule = c.rule(e.Rule)
	}
	c.done[e] = d
	return d
}
