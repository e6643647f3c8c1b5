package jsonschema

import (
	"errors"
	"fmt"
	"math/big"
	"regexp/syntax"
	"strings"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/grammar"
)

// Numbers. Bounds become exact digit automata: a decimal string is in an
// interval when its integer part is strictly inside the interval's integer
// parts (any fraction), or equal to an end's integer part with a fraction on
// the right side of that end's fraction, compared digit by digit. Integers
// use the same construction without fractions. Bounded numbers are accepted
// without exponent; unbounded ones in every JSON form. multipleOf is a
// remainder automaton over the digits, intersected with the bounds.

// Regex-tree constructors for the ASCII pieces of numbers.

func reLit(s string) *syntax.Regexp {
	if s == "" {
		return &syntax.Regexp{Op: syntax.OpEmptyMatch}
	}
	return &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune(s)}
}

func reClass(lo, hi byte) *syntax.Regexp {
	if lo == hi {
		return reLit(string(lo))
	}
	return &syntax.Regexp{Op: syntax.OpCharClass, Rune: []rune{rune(lo), rune(hi)}}
}

func reDigits(min, max int) *syntax.Regexp {
	return reRepeat(reClass('0', '9'), min, max)
}

func reRepeat(sub *syntax.Regexp, min, max int) *syntax.Regexp {
	if min == 1 && max == 1 {
		return sub
	}
	if min == 0 && max == 0 {
		return reLit("")
	}
	return &syntax.Regexp{Op: syntax.OpRepeat, Min: min, Max: max, Sub: []*syntax.Regexp{sub}}
}

func reCat(subs ...*syntax.Regexp) *syntax.Regexp {
	var out []*syntax.Regexp
	for _, s := range subs {
		switch s.Op {
		case syntax.OpNoMatch:
			return s
		case syntax.OpEmptyMatch:
			continue
		}
		out = append(out, s)
	}
	switch len(out) {
	case 0:
		return reLit("")
	case 1:
		return out[0]
	}
	return &syntax.Regexp{Op: syntax.OpConcat, Sub: out}
}

func reAlt(subs ...*syntax.Regexp) *syntax.Regexp {
	var out []*syntax.Regexp
	for _, s := range subs {
		if s != nil && s.Op != syntax.OpNoMatch {
			out = append(out, s)
		}
	}
	switch len(out) {
	case 0:
		return &syntax.Regexp{Op: syntax.OpNoMatch}
	case 1:
		return out[0]
	}
	return &syntax.Regexp{Op: syntax.OpAlternate, Sub: out}
}

var reNone = &syntax.Regexp{Op: syntax.OpNoMatch}

// uintRange matches the decimal spellings (no leading zeros) of the
// integers in [a, b]; b == nil means no upper bound.
func uintRange(a, b *big.Int) *syntax.Regexp {
	if a.Sign() < 0 {
		a = new(big.Int)
	}
	if b != nil && a.Cmp(b) > 0 {
		return reNone
	}
	as := a.String()
	var alts []*syntax.Regexp
	maxLen := len(as)
	if b != nil {
		maxLen = len(b.String())
	}
	for l := len(as); l <= maxLen; l++ {
		if l > len(as) && l < maxLen {
			// Every length strictly between the bounds' lengths at once.
			alts = append(alts, reCat(reClass('1', '9'), reDigits(l-1, maxLen-2)))
			l = maxLen - 1
			continue
		}
		lo := as
		if l > len(as) {
			lo = "1" + strings.Repeat("0", l-1)
		}
		hi := strings.Repeat("9", l)
		if b != nil && l == maxLen {
			hi = b.String()
		}
		alts = append(alts, fixedRange(lo, hi))
	}
	if b == nil {
		alts = append(alts, reCat(reClass('1', '9'), reDigits(len(as), -1)))
	}
	return reAlt(alts...)
}

// fixedRange matches the digit strings of len(lo) between lo and hi.
func fixedRange(lo, hi string) *syntax.Regexp {
	if lo == "" {
		return reLit("")
	}
	if lo > hi {
		return reNone
	}
	if lo[0] == hi[0] {
		return reCat(reLit(lo[:1]), fixedRange(lo[1:], hi[1:]))
	}
	n := len(lo) - 1
	if strings.Trim(lo[1:], "0") == "" && strings.Trim(hi[1:], "9") == "" {
		return reCat(reClass(lo[0], hi[0]), reDigits(n, n))
	}
	alts := []*syntax.Regexp{reCat(reLit(lo[:1]), fixedRange(lo[1:], strings.Repeat("9", n)))}
	if lo[0]+1 <= hi[0]-1 {
		alts = append(alts, reCat(reClass(lo[0]+1, hi[0]-1), reDigits(n, n)))
	}
	alts = append(alts, reCat(reLit(hi[:1]), fixedRange(strings.Repeat("0", n), hi[1:])))
	return reAlt(alts...)
}

// splitDecimal returns the integer part and the fraction digits (without
// trailing zeros) of a non-negative finite decimal.
func splitDecimal(r *big.Rat) (*big.Int, string, bool) {
	ip := new(big.Int).Quo(r.Num(), r.Denom())
	frac := new(big.Rat).Sub(r, new(big.Rat).SetInt(ip))
	if frac.Sign() == 0 {
		return ip, "", true
	}
	// A finite decimal has a denominator of the form 2^a 5^b.
	d := new(big.Int).Set(frac.Denom())
	k := 0
	ten, two, five := big.NewInt(10), big.NewInt(2), big.NewInt(5)
	for _, p := range []*big.Int{two, five} {
		for new(big.Int).Rem(d, p).Sign() == 0 {
			d.Quo(d, p)
		}
	}
	if d.Cmp(big.NewInt(1)) != 0 {
		return nil, "", false
	}
	pow := big.NewInt(1)
	for new(big.Int).Rem(pow, frac.Denom()).Sign() != 0 {
		pow.Mul(pow, ten)
		k++
	}
	digits := new(big.Int).Quo(new(big.Int).Mul(frac.Num(), pow), frac.Denom()).String()
	digits = strings.Repeat("0", k-len(digits)) + digits
	return ip, strings.TrimRight(digits, "0"), true
}

// fraction matches the optional fraction part (\.[0-9]+)? whose value
// 0.g lies on the right side of lo (when hasLo) and hi (when hasHi), lo and
// hi being fraction digits without trailing zeros.
func fraction(lo string, hasLo, loIncl bool, hi string, hasHi, hiIncl bool) *syntax.Regexp {
	f := &frac{lo, hi, loIncl, hiIncl}
	var alts []*syntax.Regexp
	if f.endOK(0, hasLo, hasHi) {
		alts = append(alts, reLit(""))
	}
	alts = append(alts, reCat(reLit("."), f.rest(0, hasLo, hasHi, true)))
	return reAlt(alts...)
}

type frac struct {
	lo, hi         string
	loIncl, hiIncl bool
}

// endOK: may the fraction end before position i, every later digit being 0?
func (f *frac) endOK(i int, tl, th bool) bool {
	if tl && (i < len(f.lo) || !f.loIncl) {
		return false
	}
	if th && i >= len(f.hi) && !f.hiIncl {
		return false
	}
	return true
}

// rest matches the fraction digits from position i on; tl (th) says the
// digits so far equal lo's (hi's). first asks for at least one digit.
func (f *frac) rest(i int, tl, th, first bool) *syntax.Regexp {
	minDigits := 0
	if first {
		minDigits = 1
	}
	if tl && i >= len(f.lo) && f.loIncl {
		tl = false
	}
	if th && i >= len(f.hi) {
		// Only zeros keep the value at most hi; equality needs hiIncl.
		if !f.hiIncl || tl {
			return reNone
		}
		return reRepeat(reLit("0"), minDigits, -1)
	}
	if !tl && !th {
		return reDigits(minDigits, -1)
	}
	if tl && !th && i >= len(f.lo) {
		// Equal to lo so far, lo exclusive: a non-zero digit must follow.
		return reCat(reRepeat(reLit("0"), 0, -1), reClass('1', '9'), reDigits(0, -1))
	}
	var alts []*syntax.Regexp
	if !first && f.endOK(i, tl, th) {
		alts = append(alts, reLit(""))
	}
	var l, h byte = '0', '9'
	if tl && i < len(f.lo) {
		l = f.lo[i]
	} else if tl {
		l = '0' // lo is padded with zeros
	}
	if th {
		h = f.hi[i]
	}
	freeLo, freeHi := byte('0'), byte('9')
	if tl {
		freeLo = l + 1
	}
	if th {
		freeHi = h - 1
	}
	if freeLo <= freeHi {
		alts = append(alts, reCat(reClass(freeLo, freeHi), reDigits(0, -1)))
	}
	switch {
	case tl && th && l == h:
		alts = append(alts, reCat(reLit(string(l)), f.rest(i+1, true, true, false)))
	case tl && th && l > h:
	default:
		if tl {
			alts = append(alts, reCat(reLit(string(l)), f.rest(i+1, true, false, false)))
		}
		if th {
			alts = append(alts, reCat(reLit(string(h)), f.rest(i+1, false, true, false)))
		}
	}
	return reAlt(alts...)
}

// magnitude matches non-negative decimals (or integers when intOnly) in
// the interval from a to b (b == nil: unbounded), no exponent.
func magnitude(a *big.Rat, aEx bool, b *big.Rat, bEx bool, intOnly bool) (*syntax.Regexp, bool) {
	if b != nil && (a.Cmp(b) > 0 || a.Cmp(b) == 0 && (aEx || bEx)) {
		return reNone, true
	}
	if intOnly {
		lo := ceil(a)
		if aEx && a.IsInt() {
			lo.Add(lo, big.NewInt(1))
		}
		var hi *big.Int
		if b != nil {
			hi = floor(b)
			if bEx && b.IsInt() {
				hi.Sub(hi, big.NewInt(1))
			}
		}
		return uintRange(lo, hi), true
	}
	A, fa, ok1 := splitDecimal(a)
	if !ok1 {
		return nil, false
	}
	if b == nil {
		return reAlt(
			reCat(reLit(A.String()), fraction(fa, true, !aEx, "", false, false)),
			reCat(uintRange(new(big.Int).Add(A, big.NewInt(1)), nil), fraction("", false, false, "", false, false)),
		), true
	}
	B, fb, ok2 := splitDecimal(b)
	if !ok2 {
		return nil, false
	}
	if A.Cmp(B) == 0 {
		return reCat(reLit(A.String()), fraction(fa, true, !aEx, fb, true, !bEx)), true
	}
	return reAlt(
		reCat(reLit(A.String()), fraction(fa, true, !aEx, "", false, false)),
		reCat(uintRange(new(big.Int).Add(A, big.NewInt(1)), new(big.Int).Sub(B, big.NewInt(1))), fraction("", false, false, "", false, false)),
		reCat(reLit(B.String()), fraction("", false, false, fb, true, !bEx)),
	), true
}

func floor(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() < 0 {
		q.Sub(q, big.NewInt(1))
	}
	return q
}

func ceil(r *big.Rat) *big.Int {
	f := floor(r)
	if !r.IsInt() {
		f.Add(f, big.NewInt(1))
	}
	return f
}

// numberRange matches the JSON numbers (integers when intOnly) in the
// interval lo..hi (nil: unbounded), without exponent. ok is false when a
// bound is not a finite decimal.
func numberRange(lo *big.Rat, loEx bool, hi *big.Rat, hiEx bool, intOnly bool) (*syntax.Regexp, bool) {
	zero := new(big.Rat)
	var alts []*syntax.Regexp
	// Non-negative values.
	if hi == nil || hi.Sign() >= 0 {
		a, aEx := zero, false
		if lo != nil && lo.Sign() >= 0 {
			a, aEx = lo, loEx
		}
		m, ok := magnitude(a, aEx, hi, hiEx, intOnly)
		if !ok {
			return nil, false
		}
		alts = append(alts, m)
	}
	// Negative values, as magnitudes.
	if lo == nil || lo.Sign() < 0 {
		a, aEx := zero, true
		if hi != nil && hi.Sign() < 0 {
			a, aEx = new(big.Rat).Neg(hi), hiEx
		}
		var b *big.Rat
		bEx := false
		if lo != nil {
			b, bEx = new(big.Rat).Neg(lo), loEx
		}
		m, ok := magnitude(a, aEx, b, bEx, intOnly)
		if !ok {
			return nil, false
		}
		alts = append(alts, reCat(reLit("-"), m))
	}
	return reAlt(alts...), true
}

// fractionNonZero matches a fraction with a non-zero digit.
func fractionNonZero() *syntax.Regexp {
	return reCat(reLit("."), reDigits(0, -1), reClass('1', '9'), reDigits(0, -1))
}

// integerExpr matches any JSON integer.
func integerExpr() *grammar.Expr {
	return grammar.Cat(grammar.Rep(grammar.Lit("-"), 0, 1), grammar.Or(grammar.Lit("0"), grammar.Cat(grammar.Chars(false, grammar.RuneRange{Lo: '1', Hi: '9'}), grammar.Rep(grammar.Chars(false, grammar.RuneRange{Lo: '0', Hi: '9'}), 0, -1))))
}

// compileNumber compiles the number (and integer) type of a branch.
func (c *compiler) compileNumber(s *schema) (*grammar.Expr, error) {
	intOnly := s.types&jtFrac == 0
	mult, err := c.multiple(s)
	if err != nil {
		return nil, err
	}
	// Non-integers only (the negation of "integer"): a non-zero digit in
	// the fraction.
	fracOnly := s.types&jtInt == 0
	if mult != nil && mult.IsInt() {
		if fracOnly {
			return nil, nil
		}
		intOnly = true
	}
	// Values excluded by not/enum split the interval.
	type interval struct {
		lo, hi     *big.Rat
		loEx, hiEx bool
	}
	ivs := []interval{{s.lo, s.hi, s.loEx, s.hiEx}}
	for _, v := range s.notVals {
		if v.kind != kindNumber {
			continue
		}
		x := v.num()
		var next []interval
		for _, iv := range ivs {
			if iv.lo != nil && (x.Cmp(iv.lo) < 0 || x.Cmp(iv.lo) == 0 && iv.loEx) || iv.hi != nil && (x.Cmp(iv.hi) > 0 || x.Cmp(iv.hi) == 0 && iv.hiEx) {
				next = append(next, iv)
				continue
			}
			next = append(next, interval{iv.lo, x, iv.loEx, true}, interval{x, iv.hi, true, iv.hiEx})
		}
		ivs = next
	}
	if len(ivs) == 1 && ivs[0].lo == nil && ivs[0].hi == nil && mult == nil && len(s.notMults) == 0 {
		switch {
		case intOnly:
			return integerExpr(), nil
		case fracOnly:
			return c.regexToExpr(reCat(reRepeat(reLit("-"), 0, 1), uintRange(new(big.Int), nil), fractionNonZero()))
		}
		return numberExpr(), nil
	}
	var alts []*syntax.Regexp
	for _, iv := range ivs {
		re, ok := numberRange(iv.lo, iv.loEx, iv.hi, iv.hiEx, intOnly)
		if !ok {
			if err := c.unsupported(s.ptr, "minimum", "bounds that are not finite decimals cannot be enforced"); err != nil {
				return nil, err
			}
			return numberExpr(), nil
		}
		alts = append(alts, re)
	}
	re := reAlt(alts...)
	if mult == nil && len(s.notMults) == 0 && !fracOnly {
		return c.regexToExpr(re)
	}
	d, err := c.regexDFA(re)
	if err == nil && fracOnly {
		var fd *fsm.RuneDFA
		if fd, err = c.regexDFA(reCat(reRepeat(reLit("-"), 0, 1), reDigits(1, -1), fractionNonZero())); err == nil {
			d, err = c.intersect(d, fd)
		}
	}
	bounds := d // before multipleOf, for Lenient mode
	if err == nil && mult != nil {
		var md *fsm.RuneDFA
		if md, err = multipleDFA(mult, c.patternStates()); err == nil {
			d, err = c.intersect(d, md)
		}
	}
	for _, m := range s.notMults {
		if err != nil {
			break
		}
		var md *fsm.RuneDFA
		if md, err = multipleDFA(m, c.patternStates()); err == nil {
			d, err = c.intersect(d, complement(md))
		}
	}
	if err != nil {
		if !errors.Is(err, errAutomatonSize) {
			return nil, err
		}
		if err := c.automatonTooLarge(s.multPtr, "multipleOf", "multipleOf", err); !errors.Is(err, errIgnore) {
			return nil, err
		}
		// Lenient: multipleOf is dropped, the bounds stay.
		if fracOnly && bounds != nil {
			return c.dfaRules(bounds, "number")
		}
		return c.regexToExpr(re)
	}
	return c.dfaRules(d, "multiple")
}

// multiple returns the combined multipleOf of s (the least common multiple
// of its values), or nil.
func (c *compiler) multiple(s *schema) (*big.Rat, error) {
	if len(s.mults) == 0 {
		return nil, nil
	}
	m := s.mults[0]
	for _, x := range s.mults[1:] {
		// lcm(a/b, c/d) = lcm(a, c) / gcd(b, d) in lowest terms.
		num := new(big.Int).Mul(m.Num(), x.Num())
		g := new(big.Int).GCD(nil, nil, m.Num(), x.Num())
		num.Quo(num, g)
		den := new(big.Int).GCD(nil, nil, m.Denom(), x.Denom())
		m = new(big.Rat).SetFrac(num, den)
	}
	if m.Cmp(big.NewRat(1, 1)) == 0 || (s.types&jtFrac == 0 && m.IsInt() && m.Num().IsInt64() && m.Num().Int64() == 1) {
		return big.NewRat(1, 1), nil
	}
	return m, nil
}

// multipleDFA accepts signed decimal digit strings (optional '-', digits,
// optional '.' and digits) whose value is a multiple of m, a finite decimal
// P / 10^t: at most t significant fraction digits, and the digits read as
// an integer scaled by 10^t divisible by P. More than maxStates states is an
// error wrapping errPatternStates.
func multipleDFA(m *big.Rat, maxStates int) (*fsm.RuneDFA, error) {
	ip, frac, ok := splitDecimal(m)
	if !ok {
		return nil, errAutomatonSize
	}
	t := len(frac)
	P := new(big.Int).Mul(ip, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t)), nil))
	if t > 0 {
		f, _ := new(big.Int).SetString(frac, 10)
		P.Add(P, f)
	}
	if !P.IsInt64() || P.Int64()*int64(t+2) > int64(maxStates) {
		return nil, errPatternStates
	}
	p := int(P.Int64())
	// States: 0 start; 1 after '-'; then (phase, r): phase 0 integer digits,
	// 1..t fraction digits read, t+1 zeros only (after t fraction digits).
	id := func(phase, r int) int32 { return int32(2 + phase*p + r) }
	n := 2 + (t+2)*p
	edges := make([][]fsm.RuneEdge, n)
	accept := make([]bool, n)
	edge := func(from int32, r rune, to int32) {
		edges[from] = append(edges[from], fsm.RuneEdge{Lo: r, Hi: r, To: to})
	}
	pow10 := func(k int) int {
		x := 1
		for range k {
			x = x * 10 % p
		}
		return x
	}
	digits := func(from int32, r int, phase int) {
		for dg := 0; dg <= 9; dg++ {
			edge(from, rune('0'+dg), id(phase, (r*10+dg)%p))
		}
	}
	edge(0, '-', 1)
	digits(0, 0, 0)
	digits(1, 0, 0)
	for phase := 0; phase <= t+1; phase++ {
		for r := 0; r < p; r++ {
			s := id(phase, r)
			switch {
			case phase == 0:
				accept[s] = r*pow10(t)%p == 0
				if t > 0 {
					edge(s, '.', id(1, r))
					// "1." must be followed by a digit; the DFA for the
					// number syntax checks that, this one only values.
				} else {
					edge(s, '.', id(t+1, r))
				}
				digits(s, r, 0)
			case phase <= t:
				// phase-1 fraction digits have been read after the '.'.
				read := phase - 1
				accept[s] = read > 0 && r*pow10(t-read)%p == 0
				if read < t {
					nextPhase := phase + 1
					if read+1 == t {
						nextPhase = t + 1
					}
					digits(s, r, nextPhase)
				}
			default:
				accept[s] = r == 0
				edge(s, '0', s)
			}
		}
	}
	d, err := fsm.NewRuneDFA(accept, edges)
	if err != nil {
		return nil, fmt.Errorf("multipleOf automaton: %w", err)
	}
	return d.Minimize(), nil
}

// inlineDFAExpr is the largest expression dfaRules writes in place of one
// rule per state.
const inlineDFAExpr = 200

// dfaRules emits an automaton as one rule per state (a right-linear
// grammar): the fallback for automata that have no small regex, such as
// remainders. It returns the expression calling the start state.
func (c *compiler) dfaRules(d *fsm.RuneDFA, name string) (*grammar.Expr, error) {
	if d.IsEmpty() {
		return nil, nil
	}
	before := c.exprSize
	e, err := c.dfaExprWithin(d, inlineDFAExpr, 256*inlineDFAExpr)
	if err == nil && exprSize(e) <= inlineDFAExpr {
		return e, nil
	}
	if err != nil && !errors.Is(err, errAutomatonSize) {
		return nil, err
	}
	c.exprSize = before
	base := len(c.rules)
	for range d.NumStates() {
		if _, err := c.newRule(name, grammar.Eps()); err != nil {
			return nil, err
		}
	}
	var es []fsm.RuneEdge
	for s := range d.NumStates() {
		es = d.AppendEdges(es[:0], int32(s))
		byTarget := map[int32][]grammar.RuneRange{}
		var targets []int32
		for _, e := range es {
			if _, ok := byTarget[e.To]; !ok {
				targets = append(targets, e.To)
			}
			byTarget[e.To] = append(byTarget[e.To], grammar.RuneRange{Lo: e.Lo, Hi: e.Hi})
		}
		var alts []*grammar.Expr
		if d.Final[s] {
			alts = append(alts, grammar.Eps())
		}
		for _, t := range targets {
			alts = append(alts, c.cat(c.charSet(grammar.NormalizeRanges(byTarget[t])), grammar.Call(base+int(t))))
		}
		if err := c.count(len(alts) + 1); err != nil {
			return nil, err
		}
		if len(alts) == 0 {
			c.rules[base+s].Body = &grammar.Expr{Op: grammar.OpAlt}
			continue
		}
		c.rules[base+s].Body = grammar.Or(alts...)
	}
	return grammar.Call(base + int(d.Start)), nil
}
