package oracle

import (
	"sync"

	"github.com/reinlm/rein/grammar"
)

// A symbol is a nonterminal when it is >= 0 and the terminal ^s when it is < 0.
type symbol = int32

// byteRange is one byte in [lo, hi].
type byteRange struct{ lo, hi byte }

// terminal is one input symbol a production can scan: a byte in the range
// bytes when tokens is nil, else one whole token that tokens matches. The
// input is a sequence of both: Feed scans bytes, FeedToken a token.
type terminal struct {
	bytes  byteRange
	tokens *tokenSet
}

type production struct {
	lhs symbol
	rhs []symbol
}

// builder collects the productions of a context-free grammar over bytes.
type builder struct {
	nonterminals int
	prods        []production
	terms        []terminal
	termIDs      map[byteRange]symbol // the byte terminals made so far
	eps          symbol               // the shared nonterminal that derives only ""; -1 until made
}

func newBuilder() *builder {
	return &builder{termIDs: map[byteRange]symbol{}, eps: -1}
}

// nonterminal returns a fresh nonterminal with no productions.
func (b *builder) nonterminal() symbol {
	b.nonterminals++
	return symbol(b.nonterminals - 1)
}

func (b *builder) add(lhs symbol, rhs ...symbol) {
	b.prods = append(b.prods, production{lhs, rhs})
}

// term returns the terminal for one byte in [lo, hi].
func (b *builder) term(lo, hi byte) symbol {
	r := byteRange{lo, hi}
	if s, ok := b.termIDs[r]; ok {
		return s
	}
	s := ^symbol(len(b.terms))
	b.terms = append(b.terms, terminal{bytes: r})
	b.termIDs[r] = s
	return s
}

// token returns a new terminal for one whole token that set matches.
func (b *builder) token(set *tokenSet) symbol {
	s := ^symbol(len(b.terms))
	b.terms = append(b.terms, terminal{tokens: set})
	return s
}

// empty returns a nonterminal that derives only the empty string.
func (b *builder) empty() symbol {
	if b.eps < 0 {
		b.eps = b.nonterminal()
		b.add(b.eps)
	}
	return b.eps
}

// seq returns a symbol deriving syms one after the other.
func (b *builder) seq(syms []symbol) symbol {
	switch len(syms) {
	case 0:
		return b.empty()
	case 1:
		return syms[0]
	}
	n := b.nonterminal()
	b.add(n, syms...)
	return n
}

// alt returns a nonterminal deriving any one of syms (nothing when syms is empty).
func (b *builder) alt(syms []symbol) symbol {
	n := b.nonterminal()
	for _, s := range syms {
		b.add(n, s)
	}
	return n
}

// literal returns a symbol deriving exactly the bytes of s.
func (b *builder) literal(s []byte) symbol {
	syms := make([]symbol, len(s))
	for i, c := range s {
		syms[i] = b.term(c, c)
	}
	return b.seq(syms)
}

// class returns a nonterminal deriving the UTF-8 encoding of any code point
// in rs (normalized ranges); nothing when rs holds only surrogates or nothing.
func (b *builder) class(rs []grammar.RuneRange) symbol {
	n := b.nonterminal()
	for _, seq := range utf8Sequences(rs) {
		rhs := make([]symbol, len(seq))
		for i, r := range seq {
			rhs[i] = b.term(r.lo, r.hi)
		}
		b.add(n, rhs...)
	}
	return n
}

// repeat returns a symbol deriving x between min and max times (max < 0: no bound).
func (b *builder) repeat(x symbol, min, max int) symbol {
	rhs := make([]symbol, 0, min+1)
	for range min {
		rhs = append(rhs, x)
	}
	if max < 0 {
		// star ::= "" | star x
		star := b.nonterminal()
		b.add(star)
		b.add(star, star, x)
		rhs = append(rhs, star)
	} else if max > min {
		// opt_k ::= "" | x opt_(k-1), with opt_1 ::= "" | x: up to k more copies.
		opt := b.nonterminal()
		b.add(opt)
		b.add(opt, x)
		for range max - min - 1 {
			next := b.nonterminal()
			b.add(next)
			b.add(next, x, opt)
			opt = next
		}
		rhs = append(rhs, opt)
	}
	return b.seq(rhs)
}

// table is the grammar in the flat form the recognizer reads: every
// production's right-hand side followed by an end marker, laid end to end.
type table struct {
	syms     []symbol  // rhs symbols and endMark
	lhs      []symbol  // lhs[pos]: the production the position belongs to
	starts   [][]int32 // starts[n]: the first position of each production of n
	nullable []bool
	terms    []terminal
	root     symbol
	seen     sync.Pool // of *seen sized for syms, the duplicate filters of extend
}

// endMark follows the last symbol of each production.
const endMark = symbol(-1 << 31)

// table drops the unproductive nonterminals (those deriving no byte string)
// and every production that uses one, then lays out the rest.
func (b *builder) table(root symbol) *table {
	productive := make([]bool, b.nonterminals)
	nullable := make([]bool, b.nonterminals)
	fixpoint(b.prods, productive, func(s symbol) bool { return s < 0 || productive[s] })
	fixpoint(b.prods, nullable, func(s symbol) bool { return s >= 0 && nullable[s] })

	t := &table{
		starts:   make([][]int32, b.nonterminals),
		nullable: nullable,
		terms:    b.terms,
		root:     root,
	}
	for _, p := range b.prods {
		if !all(p.rhs, func(s symbol) bool { return s < 0 || productive[s] }) {
			continue
		}
		t.starts[p.lhs] = append(t.starts[p.lhs], int32(len(t.syms)))
		for _, s := range p.rhs {
			t.syms = append(t.syms, s)
			t.lhs = append(t.lhs, p.lhs)
		}
		t.syms = append(t.syms, endMark)
		t.lhs = append(t.lhs, p.lhs)
	}
	t.seen.New = func() any { return &seen{stamp: make([]uint32, len(t.syms)), older: map[item]struct{}{}} }
	return t
}

// fixpoint marks the left-hand side of every production whose right-hand
// symbols all satisfy ok, until nothing changes.
func fixpoint(prods []production, mark []bool, ok func(symbol) bool) {
	for changed := true; changed; {
		changed = false
		for _, p := range prods {
			if !mark[p.lhs] && all(p.rhs, ok) {
				mark[p.lhs] = true
				changed = true
			}
		}
	}
}

func all(syms []symbol, ok func(symbol) bool) bool {
	for _, s := range syms {
		if !ok(s) {
			return false
		}
	}
	return true
}
