package oracle

import (
	"slices"
	"strings"

	"github.com/reinlm/rein/grammar"
)

// text returns a symbol deriving the UTF-8 texts in which no string of
// excludes occurs (each is non-empty and valid UTF-8).
//
// Read left to right, such a text is in one state at a time: the longest
// suffix of the text so far that is a proper prefix of some exclude (for
// "<tool_call>", after "Sure. <tool" the state is "<tool"). Appending a code
// point c to a text in state q yields an exclude exactly when some exclude
// is a suffix of q+c, since an exclude ending at c starts within q; else the
// new state is the longest such suffix of q+c. A code point that occurs in
// no exclude always leads back to state "". The grammar is left-linear, one
// nonterminal per state deriving the texts that end in it, which Earley's
// algorithm runs in constant work per byte:
//
//	state("") ::= ""
//	state(q') ::= state(q) c    for each edge q -c-> q'
//	text      ::= state(q)      for each state q
func (c *converter) text(excludes []string) symbol {
	var runes []rune
	for _, x := range excludes {
		for _, r := range x {
			if !slices.Contains(runes, r) {
				runes = append(runes, r)
			}
		}
	}
	slices.Sort(runes)
	ranges := make([]grammar.RuneRange, len(runes))
	classes := make([]symbol, len(runes)) // classes[i] derives runes[i]
	for i, r := range runes {
		ranges[i] = grammar.RuneRange{Lo: r, Hi: r}
		classes[i] = c.b.class(ranges[i : i+1])
	}
	other := c.b.class(grammar.NegateRanges(grammar.NormalizeRanges(ranges)))

	states := map[string]symbol{}
	var queue []string
	state := func(q string) symbol {
		s, ok := states[q]
		if !ok {
			s = c.b.nonterminal()
			states[q] = s
			queue = append(queue, q)
		}
		return s
	}
	text := c.b.nonterminal()
	c.b.add(state(""))
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		c.b.add(text, state(q))
		for i, r := range runes {
			w := q + string(r)
			if containsAny(w, excludes) {
				continue
			}
			c.b.add(state(longestPartial(w, excludes)), state(q), classes[i])
		}
		c.b.add(state(""), state(q), other)
	}
	return text
}

// longestPartial returns the longest suffix of w that is a proper prefix of
// some string of excludes ("" when there is none).
func longestPartial(w string, excludes []string) string {
	for i := range len(w) {
		for _, x := range excludes {
			if len(w)-i < len(x) && strings.HasPrefix(x, w[i:]) {
				return w[i:]
			}
		}
	}
	return ""
}

func containsAny(w string, excludes []string) bool {
	for _, x := range excludes {
		if strings.Contains(w, x) {
			return true
		}
	}
	return false
}
