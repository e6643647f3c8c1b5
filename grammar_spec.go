package rein

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/reinlm/rein/grammar"
)

// grammarKey writes the cache key of a hand-built grammar: every rule and
// expression, unambiguously. A grammar may share an expression between many
// parents; the key writes each distinct node once, the first time the walk
// meets it, and a back-reference to it every time after, so the key follows
// the sharing and its bytes grow with the distinct nodes. Equal grammars
// built apart have equal keys; grammars whose trees are equal but shared
// differently may have different keys, and then compile apart.
//
// Two bounds hold, both errors wrapping grammar.ErrLimit: the key's bytes
// are bounded by lim.SchemaBytes, as the source of any spec kind that a
// request carries; and the grammar's size as a tree, which is what
// Validate and the automaton builder walk, is bounded by lim.ExprNodes,
// counting a shared node once per parent (a node that holds itself is an
// infinite tree). The tree size is counted once per distinct node too, so
// computing the key takes time linear in the distinct nodes.
func grammarKey(b *strings.Builder, g *grammar.Grammar, lim grammar.Limits) error {
	if g == nil {
		return fmt.Errorf("%w: nil grammar", ErrSpec)
	}
	lim = lim.WithDefaults()
	if len(g.Rules) > lim.Rules {
		return fmt.Errorf("%w: grammar: %d rules, more than Limits.Rules (%d)", grammar.ErrLimit, len(g.Rules), lim.Rules)
	}
	k := keyWriter{max: lim.SchemaBytes - b.Len(), ids: make(map[*grammar.Expr]int)}
	k.num(g.Root)
	k.num(len(g.Rules))
	visits := 0
	for _, r := range g.Rules {
		k.str(r.Name)
		k.num(r.MaxTokens)
		k.flag(r.Unique != nil)
		if u := r.Unique; u != nil {
			k.unique(u)
			k.num(len(u.Prefix))
			for i := range u.Prefix {
				k.unique(&u.Prefix[i])
			}
		}
		n, ok := k.expr(r.Body, lim.ExprNodes-visits)
		if !ok {
			return fmt.Errorf("%w: grammar: more than Limits.ExprNodes (%d) expression nodes as a tree", grammar.ErrLimit, lim.ExprNodes)
		}
		visits += n
		if k.over {
			return fmt.Errorf("%w: grammar: its key is more than Limits.SchemaBytes (%d) bytes", grammar.ErrLimit, lim.SchemaBytes)
		}
	}
	b.Write(k.buf)
	return nil
}

// keyWriter writes a grammar's key into buf, at most max bytes (over tells
// it ran past them), numbering the distinct nodes in the order it writes
// them.
type keyWriter struct {
	buf  []byte
	max  int
	over bool
	ids  map[*grammar.Expr]int // node -> its number, the index in sizes
	// sizes holds each numbered node's size as a tree, 0 while the walk is
	// inside it.
	sizes []int
}

func (k *keyWriter) num(x int) { k.buf = binary.AppendVarint(k.buf, int64(x)) }

func (k *keyWriter) flag(f bool) {
	if f {
		k.num(1)
	} else {
		k.num(0)
	}
}

// unique writes a UniqueItems less its Prefix.
func (k *keyWriter) unique(u *grammar.UniqueItems) {
	k.flag(u.AnyValue)
	k.num(int(u.Strings))
	k.num(int(u.Numbers))
	k.num(len(u.Values))
	for _, v := range u.Values {
		k.str(v)
	}
}

func (k *keyWriter) str(s string) {
	if k.over || len(k.buf)+len(s)+binary.MaxVarintLen64 > k.max {
		k.over = true
		return
	}
	k.num(len(s))
	k.buf = append(k.buf, s...)
}

// The markers that start a node's entry; a written node starts with its Op,
// which is never negative.
const (
	keyNil  = -1 // a nil node
	keyBack = -2 // a node written before, then its number
)

// expr writes the key of the tree at root and returns its size as a tree;
// false once that passes limit. It walks with an explicit stack, each
// distinct node entered once, and stops when the key passes its bytes.
func (k *keyWriter) expr(root *grammar.Expr, limit int) (int, bool) {
	type frame struct {
		e    *grammar.Expr
		next int // the next sub to enter
		size int // 1 and the sizes of the subs entered so far
	}
	var stack []frame
	// enter writes e's entry and returns its size when it is known, or
	// pushes a frame and returns 0; false when e holds itself.
	enter := func(e *grammar.Expr) (int, bool) {
		if e == nil {
			k.num(keyNil)
			return 1, true
		}
		if id, ok := k.ids[e]; ok {
			k.num(keyBack)
			k.num(id)
			return k.sizes[id], k.sizes[id] > 0
		}
		k.ids[e] = len(k.sizes)
		k.sizes = append(k.sizes, 0)
		k.node(e)
		stack = append(stack, frame{e: e, size: 1})
		return 0, true
	}
	size, ok := enter(root)
	for ok && len(stack) > 0 && !k.over {
		f := &stack[len(stack)-1]
		if f.next < len(f.e.Subs) {
			f.next++
			var n int
			if n, ok = enter(f.e.Subs[f.next-1]); n > 0 {
				f.size += n
			}
		} else {
			k.sizes[k.ids[f.e]] = f.size
			size = f.size
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				stack[len(stack)-1].size += size
			}
		}
		if len(stack) > 0 && stack[len(stack)-1].size > limit {
			ok = false
		}
	}
	return size, ok && size <= limit
}

// node writes e's own fields; its subs follow as entries of their own.
func (k *keyWriter) node(e *grammar.Expr) {
	k.num(int(e.Op))
	k.str(string(e.Bytes))
	k.flag(e.Special)
	k.num(len(e.Ranges))
	for _, rr := range e.Ranges {
		k.num(int(rr.Lo))
		k.num(int(rr.Hi))
	}
	k.num(e.Min)
	k.num(e.Max)
	k.num(e.Rule)
	if e.Regexp != nil {
		k.str(e.Regexp.String())
	} else {
		k.num(-1)
	}
	k.num(len(e.TokenNames))
	for _, n := range e.TokenNames {
		k.str(n)
	}
	k.num(len(e.Tokens))
	for _, t := range e.Tokens {
		k.num(t.Lo)
		k.num(t.Hi)
	}
	k.flag(e.Negate)
	k.num(len(e.Excludes))
	for _, x := range e.Excludes {
		k.str(x)
	}
	k.num(len(e.Subs))
	if len(k.buf) > k.max {
		k.over = true
	}
}
