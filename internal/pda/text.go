package pda

import (
	"slices"
	"unicode/utf8"
)

// text adds to b's NFA, between from and to, the UTF-8 texts in which none
// of excludes occurs (grammar.OpText). It is the Aho–Corasick automaton of
// the excludes over code points, without the states that complete one:
// state q is the longest suffix of the text so far that is a proper prefix
// of some exclude, every state may end, and a code point that no exclude
// continues with from q or any of its suffixes goes back to the start.
func (b *ruleBuilder) text(excludes []string, from, to int) error {
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
	var pairs, other []rune
	var live []rune
	for q := range ac.nodes {
		if ac.nodes[q].dead {
			continue
		}
		// The code points that lead somewhere other than the start: those
		// that continue an exclude from q or one of its suffixes.
		live = live[:0]
		for r := q; ; r = ac.nodes[r].fail {
			for c := range ac.nodes[r].next {
				live = append(live, c)
			}
			if r == 0 {
				break
			}
		}
		slices.Sort(live)
		live = slices.Compact(live)
		other = other[:0]
		for _, c := range live {
			if t := ac.step(q, c); !ac.nodes[t].dead {
				b.n.Runes(states[q], states[t], append(pairs[:0], c, c))
			}
			other = append(other, c)
		}
		// Every other code point goes back to the start.
		pairs = pairs[:0]
		next := rune(0)
		for _, c := range other {
			if c > next {
				pairs = append(pairs, next, c-1)
			}
			next = c + 1
		}
		if next <= utf8.MaxRune {
			pairs = append(pairs, next, utf8.MaxRune)
		}
		b.n.Runes(states[q], states[0], pairs)
	}
	return nil
}

// runeAC is an Aho–Corasick automaton over code points.
type runeAC struct{ nodes []acNode }

type acNode struct {
	next map[rune]int
	fail int
	dead bool // this node, or a suffix of it, completes an exclude
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
	return a
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
