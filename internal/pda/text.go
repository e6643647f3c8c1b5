package pda

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/reinlm/rein/grammar"
)

// text adds to b's NFA, between from and to, the UTF-8 texts in which none
// of excludes occurs (grammar.OpText). It is the Aho–Corasick automaton of
// the excludes over code points, without the states that complete one:
// state q is the longest suffix of the text so far that is a proper prefix
// of some exclude, every state may end, and a code point that no exclude
// continues with from q or any of its suffixes goes back to the start.
func (b *ruleBuilder) text(excludes []string, from, to int) error {
	n := 0
	for _, x := range excludes {
		n += len(x)
	}
	if n > b.lim.TextExcludeBytes {
		return fmt.Errorf("%w: free text excludes %d bytes of strings, more than Limits.TextExcludeBytes (%d)", grammar.ErrLimit, n, b.lim.TextExcludeBytes)
	}
	ac := newRuneAC(excludes)
	states := make([]int, len(ac.nodes))
	for q := range ac.nodes {
		if ac.nodes[q].dead {
			continue
		}
		s, err := b.state()
		if err != nil {
			return err
		}
		states[q] = s
		b.n.Epsilon(s, to)
	}
	b.n.Epsilon(from, states[0])
	// The multi-byte characters no exclude holds lead every state back to
	// the start: one shared automaton for them, entered by an epsilon from
	// each state, so that the UTF-8 states are not repeated per state.
	var wide []rune // the non-ASCII code points some exclude holds, sorted
	for q := range ac.nodes {
		for c := range ac.nodes[q].next {
			if c >= utf8.RuneSelf {
				wide = append(wide, c)
			}
		}
	}
	slices.Sort(wide)
	wide = slices.Compact(wide)
	other, err := b.state()
	if err != nil {
		return err
	}
	b.n.Runes(other, states[0], complementRunes(utf8.RuneSelf, wide))
	var pairs []rune
	for q := range ac.nodes {
		if ac.nodes[q].dead {
			continue
		}
		if q%1024 == 1023 {
			if err := stopped(b.ctx); err != nil {
				return err
			}
		}
		b.n.Epsilon(states[q], other)
		// ASCII: the bytes that continue an exclude from q or one of its
		// suffixes go there, the others back to the start.
		pairs = pairs[:0]
		next := rune(0)
		for _, c := range ac.nodes[q].live {
			if c >= utf8.RuneSelf {
				break
			}
			if t := ac.step(q, c); !ac.nodes[t].dead {
				b.n.Bytes(states[q], states[t], byte(c), byte(c))
			}
			if c > next {
				pairs = append(pairs, next, c-1)
			}
			next = c + 1
		}
		if next < utf8.RuneSelf {
			pairs = append(pairs, next, utf8.RuneSelf-1)
		}
		for i := 0; i < len(pairs); i += 2 {
			b.n.Bytes(states[q], states[0], byte(pairs[i]), byte(pairs[i+1]))
		}
		// The multi-byte characters excludes hold, one by one.
		for _, c := range wide {
			if t := ac.step(q, c); !ac.nodes[t].dead {
				b.n.Runes(states[q], states[t], append(pairs[:0], c, c))
			}
		}
		if b.n.NumStates() > b.max {
			return errNFATooLarge
		}
	}
	return nil
}

// complementRunes returns, as range pairs, the code points from lo up that
// are not in sorted.
func complementRunes(lo rune, sorted []rune) []rune {
	var pairs []rune
	for _, c := range sorted {
		if c > lo {
			pairs = append(pairs, lo, c-1)
		}
		lo = c + 1
	}
	if lo <= utf8.MaxRune {
		pairs = append(pairs, lo, utf8.MaxRune)
	}
	return pairs
}

// runeAC is an Aho–Corasick automaton over code points.
type runeAC struct{ nodes []acNode }

type acNode struct {
	next map[rune]int
	fail int
	dead bool   // this node, or a suffix of it, completes an exclude
	live []rune // sorted: the code points with a goto edge from this node or a suffix of it
}

func newRuneAC(words []string) *runeAC {
	a := &runeAC{nodes: []acNode{{next: map[rune]int{}}}}
	for _, w := range words {
		q := 0
		for _, c := range w {
			t, ok := a.nodes[q].next[c]
			if !ok {
				t = len(a.nodes)
				a.nodes = append(a.nodes, acNode{next: map[rune]int{}})
				a.nodes[q].next[c] = t
			}
			q = t
		}
		a.nodes[q].dead = true
	}
	// Breadth first, so that a node's fail link is final before its
	// children's.
	queue := []int{0}
	for i := 0; i < len(queue); i++ {
		q := queue[i]
		for _, c := range sortedKeys(a.nodes[q].next) {
			t := a.nodes[q].next[c]
			if q != 0 {
				a.nodes[t].fail = a.step(a.nodes[q].fail, c)
			}
			a.nodes[t].dead = a.nodes[t].dead || a.nodes[a.nodes[t].fail].dead
			queue = append(queue, t)
		}
	}
	// A node's live code points are its own edges' and its fail node's,
	// which breadth-first order has done already: one merge per node, not
	// a walk of the fail chain.
	for _, q := range queue {
		own := sortedKeys(a.nodes[q].next)
		if q == 0 {
			a.nodes[q].live = own
			continue
		}
		a.nodes[q].live = mergeRunes(own, a.nodes[a.nodes[q].fail].live)
	}
	return a
}

// mergeRunes returns the sorted union of two sorted lists.
func mergeRunes(x, y []rune) []rune {
	out := make([]rune, 0, len(x)+len(y))
	for len(x) > 0 || len(y) > 0 {
		switch {
		case len(y) == 0 || len(x) > 0 && x[0] < y[0]:
			out, x = append(out, x[0]), x[1:]
		case len(x) == 0 || y[0] < x[0]:
			out, y = append(out, y[0]), y[1:]
		default:
			out, x, y = append(out, x[0]), x[1:], y[1:]
		}
	}
	return out
}

// step is the node after c from q.
func (a *runeAC) step(q int, c rune) int {
	for {
		if t, ok := a.nodes[q].next[c]; ok {
			return t
		}
		if q == 0 {
			return 0
		}
		q = a.nodes[q].fail
	}
}

func sortedKeys(m map[rune]int) []rune {
	ks := make([]rune, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
