package mask

import (
	"bytes"
	"fmt"
	"slices"
	"sort"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/internal/pervocab"
	"github.com/reinlm/rein/tokenizer"
)

// Token terminals (grammar.OpToken) name tokens by identity. Compiling a
// grammar for a vocabulary resolves them: names become ids, and the ids of
// all the grammar's token terminals are cut into classes, the coarsest
// partition of the vocabulary in which every terminal is a union of
// classes. The automaton spells a terminal as the alternatives of its
// classes (pda.CompileTokens), so a token, being in one class, takes one
// step whichever terminals hold it; the matcher maps a token to its class
// by binary search and a live class to its ids for the mask.
//
// What a token terminal allows is in the package comment (doc.go).

// ErrSpecialLiteral reports a grammar literal that is exactly the text of a
// special token of the vocabulary (see grammar.Token).
var ErrSpecialLiteral = fmt.Errorf("%w: a literal is the text of a special token", grammar.ErrUnsupported)

// tokenTerms is what a compiled grammar knows of its token terminals.
type tokenTerms struct {
	starts  []int32      // elementary id intervals: interval i is [starts[i], starts[i+1])
	classOf []int32      // per interval, its class or -1
	classes [][][2]int32 // per class, its id intervals [lo, hi)
}

// class returns the class of token id, or -1.
func (t *tokenTerms) class(id int) int {
	if t == nil {
		return -1
	}
	i := sort.Search(len(t.starts), func(i int) bool { return int(t.starts[i]) > id }) - 1
	if i < 0 || i >= len(t.classOf) {
		return -1
	}
	return int(t.classOf[i])
}

// memoryBytes is what t holds.
func (t *tokenTerms) memoryBytes() int {
	if t == nil {
		return 0
	}
	n := 4*len(t.starts) + 4*len(t.classOf) + 24*len(t.classes)
	for _, c := range t.classes {
		n += 8 * len(c)
	}
	return n
}

// fill sets the bits of class k's tokens in row.
func (t *tokenTerms) fill(row []uint32, k int) {
	for _, r := range t.classes[k] {
		setBits(row, int(r[0]), int(r[1]))
	}
}

// setBits sets the bits of ids lo to hi-1.
func setBits(row []uint32, lo, hi int) {
	for lo < hi && lo&31 != 0 {
		row[lo>>5] |= 1 << (uint(lo) & 31)
		lo++
	}
	for ; lo+32 <= hi; lo += 32 {
		row[lo>>5] = ^uint32(0)
	}
	for ; lo < hi; lo++ {
		row[lo>>5] |= 1 << (uint(lo) & 31)
	}
}

// vocabTokens is what token terminals need of a vocabulary, built once per
// vocabulary: its special tokens by text and its holes.
type vocabTokens struct {
	special map[string]int32
	first   [256][]string // special texts by first byte, longest first
	holes   [][2]int32    // id intervals [lo, hi) with no token
}

var vocabTokenInfo pervocab.Cache[tokenizer.Vocab, vocabTokens]

func buildVocabTokens(voc *tokenizer.Vocab) *vocabTokens {
	vt := &vocabTokens{special: map[string]int32{}}
	n := voc.Size()
	for id := 0; id < n; id++ {
		b := voc.Bytes(id)
		if b == nil {
			if k := len(vt.holes); k > 0 && vt.holes[k-1][1] == int32(id) {
				vt.holes[k-1][1]++
			} else {
				vt.holes = append(vt.holes, [2]int32{int32(id), int32(id + 1)})
			}
			continue
		}
		if voc.IsSpecial(id) {
			if _, dup := vt.special[string(b)]; !dup {
				vt.special[string(b)] = int32(id)
				vt.first[b[0]] = append(vt.first[b[0]], string(b))
			}
		}
	}
	for i := range vt.first {
		slices.SortFunc(vt.first[i], func(a, b string) int { return len(b) - len(a) })
	}
	return vt
}

// resolveTokens prepares g for voc: it refuses literals that are a special
// token's text, rewrites LitTokens literals into text and special tokens,
// and partitions the token terminals into classes. It returns g itself and
// nil classes when g has no token terminal.
func resolveTokens(g *grammar.Grammar, voc *tokenizer.Vocab, lim grammar.Limits) (*grammar.Grammar, *tokenTerms, pda.TokenClasses, error) {
	vt := vocabTokenInfo.Get(voc, buildVocabTokens)
	r := resolver{vt: vt, maxVisits: lim.WithDefaults().ExprNodes}
	if err := r.scan(g); err != nil {
		return nil, nil, nil, err
	}
	if !r.tokens && !r.special {
		return g, nil, nil, nil
	}
	if r.special {
		g = r.rewrite(g)
	}
	tt, classes, err := r.partition(g, voc)
	if err != nil {
		return nil, nil, nil, err
	}
	return g, tt, classes, nil
}

type resolver struct {
	vt        *vocabTokens
	maxVisits int                             // Limits.ExprNodes: a walk of a grammar that shares expressions stops there
	rewritten map[*grammar.Expr]*grammar.Expr // rewriteExpr's results, so that a shared expression is rewritten once
	tokens    bool                            // g has a token terminal
	special   bool                            // g has a LitTokens literal holding a special token's text
}

// errVisits reports a grammar whose expressions, shared between parents,
// unfold into more than Limits.ExprNodes.
func (r *resolver) errVisits() error {
	return fmt.Errorf("%w: grammar: more than Limits.ExprNodes (%d) expression nodes, counting each shared one once per parent", grammar.ErrLimit, r.maxVisits)
}

// scan walks g's expressions once.
func (r *resolver) scan(g *grammar.Grammar) error {
	var stack []*grammar.Expr
	visits := 0
	for i, rule := range g.Rules {
		stack = append(stack[:0], rule.Body)
		for len(stack) > 0 {
			e := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if visits++; visits > r.maxVisits {
				return r.errVisits()
			}
			if e == nil {
				continue // Validate reports it
			}
			switch e.Op {
			case grammar.OpToken:
				r.tokens = true
			case grammar.OpBytes:
				if e.Special {
					r.special = r.special || r.nextSpecial(e.Bytes, 0) >= 0
				} else if id, ok := r.vt.special[string(e.Bytes)]; ok {
					return fmt.Errorf("%w: rule %q (%d): literal %s is the text of special token %d, which no text matches; for the token write the token terminal <[%d]> (grammar.Token(%q))", ErrSpecialLiteral, rule.Name, i, e, id, id, e.Bytes)
				}
			}
			stack = append(stack, e.Subs...)
		}
	}
	return nil
}

// nextSpecial returns the first position from i where a special token's
// text starts in b, or -1.
func (r *resolver) nextSpecial(b []byte, i int) int {
	for ; i < len(b); i++ {
		for _, s := range r.vt.first[b[i]] {
			if bytes.HasPrefix(b[i:], []byte(s)) {
				return i
			}
		}
	}
	return -1
}

// rewrite returns a copy of g in which every LitTokens literal is a
// sequence of text and, for each special token's text in it (leftmost,
// longest), the choice of that text or that token.
func (r *resolver) rewrite(g *grammar.Grammar) *grammar.Grammar {
	out := &grammar.Grammar{Root: g.Root, Rules: make([]grammar.Rule, len(g.Rules))}
	for i, rule := range g.Rules {
		rule.Body = r.rewriteExpr(rule.Body) // the other fields as they were
		out.Rules[i] = rule
	}
	return out
}

func (r *resolver) rewriteExpr(e *grammar.Expr) *grammar.Expr {
	if e == nil {
		return nil
	}
	if x, ok := r.rewritten[e]; ok {
		return x
	}
	if r.rewritten == nil {
		r.rewritten = map[*grammar.Expr]*grammar.Expr{}
	}
	x := r.rewriteOne(e)
	r.rewritten[e] = x
	return x
}

func (r *resolver) rewriteOne(e *grammar.Expr) *grammar.Expr {
	switch {
	case e.Op == grammar.OpBytes && e.Special:
		b := e.Bytes
		var parts []*grammar.Expr
		for len(b) > 0 {
			i := r.nextSpecial(b, 0)
			if i < 0 {
				parts = append(parts, grammar.Lit(string(b)))
				break
			}
			if i > 0 {
				parts = append(parts, grammar.Lit(string(b[:i])))
			}
			for _, s := range r.vt.first[b[i]] {
				if bytes.HasPrefix(b[i:], []byte(s)) {
					parts = append(parts, grammar.Or(grammar.Lit(s), grammar.TokenIDs(int(r.vt.special[s]))))
					b = b[i+len(s):]
					break
				}
			}
		}
		return grammar.Cat(parts...)
	case len(e.Subs) > 0:
		c := *e
		c.Subs = make([]*grammar.Expr, len(e.Subs))
		changed := false
		for i, s := range e.Subs {
			c.Subs[i] = r.rewriteExpr(s)
			changed = changed || c.Subs[i] != s
		}
		if changed {
			return &c
		}
	}
	return e
}

// maxTokenWork bounds the work of partitioning the token terminals:
// terminals times id intervals.
const maxTokenWork = 1 << 22

// partition cuts the ids of g's token terminals into classes.
func (r *resolver) partition(g *grammar.Grammar, voc *tokenizer.Vocab) (*tokenTerms, pda.TokenClasses, error) {
	n := int32(voc.Size())
	type set struct {
		e      *grammar.Expr
		ranges [][2]int32 // [lo, hi), sorted, merged
	}
	var sets []set
	seen := map[*grammar.Expr]bool{}
	points := []int32{0, n}
	var stack []*grammar.Expr
	visits := 0
	for _, rule := range g.Rules {
		stack = append(stack[:0], rule.Body)
		for len(stack) > 0 {
			e := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if visits++; visits > r.maxVisits {
				return nil, nil, r.errVisits()
			}
			if e == nil {
				continue
			}
			stack = append(stack, e.Subs...)
			if e.Op != grammar.OpToken || seen[e] {
				continue
			}
			seen[e] = true
			var rs [][2]int32
			for _, name := range e.TokenNames {
				id, ok := voc.TokenID(name)
				if !ok {
					return nil, nil, fmt.Errorf("%w: token terminal %s: %s has no token %q", ErrVocab, e, voc.Name(), name)
				}
				rs = append(rs, [2]int32{int32(id), int32(id + 1)})
			}
			for _, t := range e.Tokens {
				lo, hi := max(t.Lo, 0), min(t.Hi, int(n)-1)+1 // Hi+1 could overflow
				if lo < hi {
					rs = append(rs, [2]int32{int32(lo), int32(hi)})
				}
			}
			slices.SortFunc(rs, func(a, b [2]int32) int { return int(a[0] - b[0]) })
			merged := rs[:0]
			for _, x := range rs {
				if k := len(merged); k > 0 && x[0] <= merged[k-1][1] {
					merged[k-1][1] = max(merged[k-1][1], x[1])
					continue
				}
				merged = append(merged, x)
			}
			for _, x := range merged {
				points = append(points, x[0], x[1])
			}
			sets = append(sets, set{e: e, ranges: merged})
		}
	}
	for _, h := range r.vt.holes {
		points = append(points, h[0], h[1])
	}
	stops := voc.StopTokens()
	for _, id := range stops {
		points = append(points, int32(id), int32(id+1))
	}
	slices.Sort(points)
	points = slices.Compact(points)
	if len(points)*max(len(sets), 1) > maxTokenWork {
		return nil, nil, fmt.Errorf("%w: token terminals: %d terminals over %d id intervals", grammar.ErrLimit, len(sets), len(points))
	}
	tt := &tokenTerms{starts: points[:len(points)-1], classOf: make([]int32, len(points)-1)}
	ids := map[string]int32{}
	sig := make([]byte, (len(sets)+7)/8)
	pos := make([]int, len(sets)) // per set, its first range not wholly before the interval
	hole, stop := 0, 0
	classes := pda.TokenClasses{}
	for i := range tt.starts {
		lo, hi := points[i], points[i+1]
		for hole < len(r.vt.holes) && r.vt.holes[hole][1] <= lo {
			hole++
		}
		isHole := hole < len(r.vt.holes) && r.vt.holes[hole][0] <= lo
		for stop < len(stops) && int32(stops[stop]) < lo {
			stop++
		}
		isStop := stop < len(stops) && int32(stops[stop]) == lo && hi == lo+1
		clear(sig)
		any := false
		for k := range sets {
			rs := sets[k].ranges
			for pos[k] < len(rs) && rs[pos[k]][1] <= lo {
				pos[k]++
			}
			in := pos[k] < len(rs) && rs[pos[k]][0] <= lo
			if sets[k].e.Negate {
				in = !in && !isStop
			}
			if in && !isHole {
				sig[k>>3] |= 1 << (k & 7)
				any = true
			}
		}
		if !any {
			tt.classOf[i] = -1
			continue
		}
		c, ok := ids[string(sig)]
		if !ok {
			c = int32(len(tt.classes))
			if c >= pda.MaxTokenClasses {
				return nil, nil, fmt.Errorf("%w: token terminals need more than %d token classes", grammar.ErrLimit, pda.MaxTokenClasses)
			}
			ids[string(sig)] = c
			tt.classes = append(tt.classes, nil)
			for k := range sets {
				if sig[k>>3]&(1<<(k&7)) != 0 {
					classes[sets[k].e] = append(classes[sets[k].e], int(c))
				}
			}
		}
		tt.classOf[i] = c
		cr := tt.classes[c]
		if k := len(cr); k > 0 && cr[k-1][1] == lo {
			cr[k-1][1] = hi
		} else {
			tt.classes[c] = append(cr, [2]int32{lo, hi})
		}
	}
	for _, s := range sets {
		if _, ok := classes[s.e]; !ok {
			classes[s.e] = nil // matches no token of this vocabulary
		}
	}
	return tt, classes, nil
}
