package rein

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/reinlm/rein/grammar"
)

// grammarKey writes the cache key of a hand-built grammar: every rule and
// expression, unambiguously, in a walk bounded by lim's Rules and
// ExprNodes (a grammar may share an expression between many parents, so
// the count is of visits, and a grammar whose walk is too long is refused
// before anything else walks it).
func grammarKey(b *strings.Builder, g *grammar.Grammar, lim grammar.Limits) error {
	if g == nil {
		return fmt.Errorf("%w: nil grammar", ErrSpec)
	}
	lim = lim.WithDefaults()
	if len(g.Rules) > lim.Rules {
		return fmt.Errorf("%w: grammar: %d rules, more than Limits.Rules (%d)", grammar.ErrLimit, len(g.Rules), lim.Rules)
	}
	var buf []byte
	num := func(x int) { buf = binary.AppendVarint(buf, int64(x)) }
	str := func(s string) { num(len(s)); buf = append(buf, s...) }
	num(g.Root)
	num(len(g.Rules))
	visits := 0
	var stack []*grammar.Expr
	for _, r := range g.Rules {
		str(r.Name)
		stack = append(stack[:0], r.Body)
		for len(stack) > 0 {
			e := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if visits++; visits > lim.ExprNodes {
				return fmt.Errorf("%w: grammar: more than Limits.ExprNodes (%d) expression nodes", grammar.ErrLimit, lim.ExprNodes)
			}
			if e == nil {
				num(-1)
				continue
			}
			num(int(e.Op))
			str(string(e.Bytes))
			if e.Special {
				num(1)
			} else {
				num(0)
			}
			num(len(e.Ranges))
			for _, rr := range e.Ranges {
				num(int(rr.Lo))
				num(int(rr.Hi))
			}
			num(e.Min)
			num(e.Max)
			num(e.Rule)
			if e.Regexp != nil {
				str(e.Regexp.String())
			} else {
				num(-1)
			}
			num(len(e.TokenNames))
			for _, n := range e.TokenNames {
				str(n)
			}
			num(len(e.Tokens))
			for _, t := range e.Tokens {
				num(t.Lo)
				num(t.Hi)
			}
			if e.Negate {
				num(1)
			} else {
				num(0)
			}
			num(len(e.Excludes))
			for _, x := range e.Excludes {
				str(x)
			}
			num(len(e.Subs))
			for i := len(e.Subs) - 1; i >= 0; i-- {
				stack = append(stack, e.Subs[i])
			}
		}
		if len(buf) > 1<<16 {
			b.Write(buf)
			buf = buf[:0]
		}
	}
	b.Write(buf)
	return nil
}
