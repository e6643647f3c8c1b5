package mask

import (
	"bytes"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/byteset"
)

// Distinct items (grammar.Rule.Unique, JSON Schema's uniqueItems).
//
// A rule marked Unique reads a JSON array of scalars (or, with AnyValue,
// of any values) whose items must be pairwise distinct JSON values. That is not a property of the pushdown
// state, so the matcher keeps a second, small state beside it: a uniqueRun
// that follows the bytes inside the open array (there is at most one: its
// items are scalars), writes each item's canonical form as it is read
// (strings with their escapes decoded, numbers as significant digits and a
// decimal exponent, so 1, 1.0 and 10e-1 are one value, and "\u0041" is
// "A"; objects and arrays of an AnyValue array as unique_value.go says),
// and keeps the items completed so far in a hash table. A token is
// allowed when the automaton allows it and, read through the run,
//   - it completes no item equal to an earlier one of its array, and
//   - it leaves an unfinished item that can still become a value the array
//     does not hold (listed values are checked one by one; any string, any
//     number and any integer but "0" and "-0" always can), and
//   - after a ',' a value the array does not hold can still come.
// So the mask stays sound and complete. The array opens where the
// automaton's "[" is read by a Unique rule's start node; where another
// reading of that "[" (a rule not marked, or marked otherwise) is alive
// too, the union of the readings' items is checked, and an item that turns
// out to be an object or an array is skipped whole (unless an array of any
// values is among the readings: then it is compared).
//
// The run's state is a value saved with each accepted step, and its
// arenas are append-only (nothing below a saved length is ever written
// again), so Rollback, and the mask's trials, truncate them and Fork copies
// them: all stay exact. Jump-forward's forced bytes are forced by
// the automaton alone; the run only ever removes continuations, so the
// bytes every continuation writes are still written.

// uniqueIndex is what a Compiled with Unique rules keeps for the check.
type uniqueIndex struct {
	specs  []uniqueSpec
	ofRule []int16 // rule -> its spec, -1 for none
	union  int16   // the spec of mixed readings
	// quotes: the tokens with a '"' (the only ones that can finish a
	// string item); escapes: those with a '\'; openers: those with a '['
	// and a ',' after it (the only ones that can open an array and finish
	// two items in it); closers: those with a ']' or a '}' (the only ones
	// that can finish an object or array item).
	quotes, escapes, openers, closers []int32
}

// uniqueSpec is one rule's grammar.UniqueItems.
type uniqueSpec struct {
	anyValue bool // objects and arrays are items too
	strings  grammar.StringItems
	numbers  grammar.NumberItems
	values   []uniqueValue
	prefix   []uniqueSpec // the first items' own specs (prefixItems)
}

// uniqueValue is a listed value: its spelling and its canonical form.
type uniqueValue struct {
	raw []byte
	key []byte
	h   uint64
}

func newUniqueIndex(c *Compiled) *uniqueIndex {
	p := c.prog
	x := &uniqueIndex{ofRule: make([]int16, len(p.Rules))}
	var all grammar.UniqueItems
	for r, info := range p.Rules {
		x.ofRule[r] = -1
		u := info.Unique
		if u == nil {
			continue
		}
		x.ofRule[r] = int16(len(x.specs))
		x.specs = append(x.specs, makeSpec(u))
		for _, e := range append([]grammar.UniqueItems{*u}, u.Prefix...) {
			if all.Strings != grammar.StringsAny && e.Strings != grammar.StringsNone {
				all.Strings = e.Strings
			}
			all.Numbers = max(all.Numbers, e.Numbers)
			if e.Numbers == grammar.NumbersAny {
				all.Numbers = grammar.NumbersAny
			}
			all.Values = append(all.Values, e.Values...)
			all.AnyValue = all.AnyValue || e.AnyValue
		}
	}
	x.union = 0
	if len(x.specs) > 1 {
		x.union = int16(len(x.specs))
		x.specs = append(x.specs, makeSpec(&all))
	}
	tr := c.voc.Trie
	ids := tr.IDs()
	for pos := range ids {
		b := tr.Token(pos)
		if bytes.IndexByte(b, '"') >= 0 {
			x.quotes = append(x.quotes, ids[pos])
		}
		if bytes.IndexByte(b, '\\') >= 0 {
			x.escapes = append(x.escapes, ids[pos])
		}
		if i := bytes.IndexByte(b, '['); i >= 0 && bytes.IndexByte(b[i:], ',') >= 0 {
			x.openers = append(x.openers, ids[pos])
		}
		if bytes.IndexByte(b, ']') >= 0 || bytes.IndexByte(b, '}') >= 0 {
			x.closers = append(x.closers, ids[pos])
		}
	}
	return x
}

// makeSpec reads the canonical form of each listed value once.
func makeSpec(u *grammar.UniqueItems) uniqueSpec {
	s := uniqueSpec{anyValue: u.AnyValue, strings: u.Strings, numbers: u.Numbers}
	for i := range u.Prefix {
		s.prefix = append(s.prefix, makeSpec(&u.Prefix[i]))
	}
	var r uniqueRun
	for _, v := range u.Values {
		r.reset()
		r.st.spec, r.st.mode = 0, modeStart
		r.feed(nil, []byte(v))
		r.feed(nil, []byte{','}) // ends a number
		if len(r.items) != 1 {
			continue // Validate let it through as one scalar: cannot happen
		}
		k := r.items[0]
		s.values = append(s.values, uniqueValue{raw: []byte(v), key: bytes.Clone(r.buf[k.off : k.off+k.n]), h: k.h})
	}
	return s
}

// The modes of a uniqueRun inside its array.
const (
	modeStart  uint8 = iota // after "[" or ",": an item may (req: must) come
	modeAfter               // after an item
	modeString              // in a string item
	modeNumber              // in a number item
	modeLit                 // in true, false or null
	modePass                // in an object or array item, skipped
	modeValue               // in an object or array item of an AnyValue array
)

// uniqueState is where a uniqueRun stands; a value, saved with each step.
type uniqueState struct {
	spec  int16 // the open array's spec; -1: no array is open
	mode  uint8
	req   bool   // modeStart: an item must come
	esc   uint8  // in a string: 1 after '\', 2-5 reading \u's digits
	pstr  uint8  // modePass, modeValue: 1 in a string, 2 after its '\'
	cu    uint16 // the \u code unit being read
	high  uint16 // a high surrogate waiting for its low half
	depth int32  // modePass, modeValue: nesting depth
	lo    int32  // the open array's first item in items
	start int32  // the current item's canonical form in buf
	raw   int32  // the current item's spelling in raws
	h     uint64 // hash of buf[start:]
	// numbers: the sign, whether a nonzero digit came, the part being read
	// (0 integer, 1 fraction, 2 exponent sign, 3 exponent digits), zeros
	// after the last nonzero digit not yet written, the decimal exponent of
	// 0.digits, and the explicit exponent.
	neg, nz, eneg bool
	phase         uint8
	zeros         int32
	e10, exp      int64
}

// uniqueItem is a completed item: its canonical form, buf[off:off+n].
type uniqueItem struct {
	off, n int32
	lo     int32 // its array's first item
	h      uint64
}

// uniqueRun follows the open array with distinct items (see above).
type uniqueRun struct {
	st    uniqueState
	buf   []byte // canonical forms
	raws  []byte // spellings of unfinished items
	items []uniqueItem
	tab   []int32 // open addressing over items: index+1, 0 empty

	// Scratch of canonValue, reused.
	cout, ctmp []byte
	cframes    []compFrame
	cspans     [][2]int32
}

// uniqueMark is what Rollback restores.
type uniqueMark struct {
	st               uniqueState
	buf, raws, items int32
}

func (r *uniqueRun) reset() {
	r.st = uniqueState{spec: -1}
	r.buf, r.raws, r.items = r.buf[:0], r.raws[:0], r.items[:0]
	clear(r.tab)
}

func (r *uniqueRun) mark() uniqueMark {
	return uniqueMark{r.st, int32(len(r.buf)), int32(len(r.raws)), int32(len(r.items))}
}

// restore returns to mark k, taken before what is undone: the items added
// since leave the table newest first, so probe chains stay whole.
func (r *uniqueRun) restore(k uniqueMark) {
	for i := len(r.items) - 1; i >= int(k.items); i-- {
		r.unindex(int32(i))
	}
	r.st, r.buf, r.raws, r.items = k.st, r.buf[:k.buf], r.raws[:k.raws], r.items[:k.items]
}

func (r *uniqueRun) copyFrom(o *uniqueRun) {
	r.st = o.st
	r.buf = append(r.buf[:0], o.buf...)
	r.raws = append(r.raws[:0], o.raws...)
	r.items = append(r.items[:0], o.items...)
	r.tab = append(r.tab[:0], o.tab...)
}

// spec returns the spec of the item being read, or of the next one: the
// array's own, or its prefixItems entry for the item's position.
func (r *uniqueRun) spec(x *uniqueIndex) *uniqueSpec {
	s := &x.specs[r.st.spec]
	if k := len(r.items) - int(r.st.lo); k < len(s.prefix) {
		return &s.prefix[k]
	}
	return s
}

// open starts reading an array of spec.
func (r *uniqueRun) open(spec int16) {
	r.st = uniqueState{spec: spec, mode: modeStart, lo: int32(len(r.items))}
}

const hashMul = 0x100000001b3

func (r *uniqueRun) write(b byte) {
	r.buf = append(r.buf, b)
	r.st.h = (r.st.h ^ uint64(b)) * hashMul
}

func (r *uniqueRun) writeRune(c rune) {
	var tmp [4]byte
	n := utf8.EncodeRune(tmp[:], c)
	for _, b := range tmp[:n] {
		r.write(b)
	}
}

// writeUnit writes a UTF-16 code unit that is not part of a pair as the
// three bytes UTF-8's pattern gives it (a lone surrogate stays distinct).
func (r *uniqueRun) writeUnit(u uint16) {
	if u < 0xD800 || u > 0xDFFF {
		r.writeRune(rune(u))
		return
	}
	r.write(0xE0 | byte(u>>12))
	r.write(0x80 | byte(u>>6)&0x3F)
	r.write(0x80 | byte(u)&0x3F)
}

func (r *uniqueRun) flushHigh() {
	if r.st.high != 0 {
		r.writeUnit(r.st.high)
		r.st.high = 0
	}
}

// begin starts an item of kind k ('s', 'n', 'l'): its canonical form
// starts with k, at the end of buf.
func (r *uniqueRun) begin(k byte) {
	r.st.start, r.st.raw, r.st.h = int32(len(r.buf)), int32(len(r.raws)), 0
	r.write(k)
}

// feed reads b inside the open array (and ignores bytes while none is
// open). It stops before a '[' read while no array is open, which only
// the automaton can place, and returns how many bytes it read; ok is false
// once an item equal to an earlier one of its array is completed. x nil:
// no array's items are checked (makeSpec's use).
func (r *uniqueRun) feed(x *uniqueIndex, b []byte) (n int, ok bool) {
	for i := 0; i < len(b); i++ {
		c := b[i]
		st := &r.st
		if st.spec < 0 {
			if c == '[' {
				return i, true
			}
			continue
		}
		if st.mode == modeString || st.mode == modeNumber || st.mode == modeLit || st.mode == modeValue {
			r.raws = append(r.raws, c)
		}
		switch st.mode {
		case modeString:
			if !r.stringByte(c) {
				continue
			}
			r.flushHigh()
			if !r.complete(x) {
				return i, false
			}
			continue
		case modeNumber:
			if r.numberByte(c) {
				continue
			}
			if !r.complete(x) {
				return i, false
			}
		case modeLit:
			r.write(c)
			// "ltrue", "lnull", "lfalse": a literal is done at its last byte.
			if n := len(r.buf) - int(st.start); n == 5 && r.buf[st.start+1] != 'f' || n == 6 {
				if !r.complete(x) {
					return i, false
				}
			}
			continue
		case modePass:
			if r.passByte(c) {
				st.mode = modeAfter
			}
			continue
		case modeValue:
			if r.passByte(c) && !r.complete(x) {
				return i, false
			}
			continue
		}
		// Between items (or just after a number).
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == ',':
			st.mode, st.req = modeStart, true
		case c == ']':
			r.st = uniqueState{spec: -1}
		case st.mode != modeStart:
			r.st = uniqueState{spec: -1} // another reading: give up on the array
		case c == '"':
			st.mode = modeString
			r.begin('s')
			r.raws = append(r.raws, c)
		case c == '-' || c >= '0' && c <= '9':
			st.mode = modeNumber
			r.begin('n')
			st.neg, st.nz, st.eneg, st.phase, st.zeros, st.e10, st.exp = false, false, false, 0, 0, 0, 0
			r.raws = append(r.raws, c)
			if c == '-' {
				st.neg = true
			} else {
				r.numberByte(c)
			}
		case c == 't' || c == 'f' || c == 'n':
			st.mode = modeLit
			r.begin('l')
			r.raws = append(r.raws, c)
			r.write(c)
		case (c == '[' || c == '{') && x != nil && r.spec(x).anyValue:
			st.mode, st.depth, st.pstr = modeValue, 1, 0
			r.begin('c')
			r.raws = append(r.raws, c)
		case c == '[' || c == '{':
			st.mode, st.depth, st.pstr = modePass, 1, 0
		default:
			r.st = uniqueState{spec: -1}
		}
	}
	return len(b), true
}

// stringByte reads byte c of a string item and reports whether it closed
// the string.
func (r *uniqueRun) stringByte(c byte) bool {
	st := &r.st
	switch {
	case st.esc == 0 && c == '"':
		return true
	case st.esc == 0 && c == '\\':
		st.esc = 1
	case st.esc == 0:
		r.flushHigh()
		r.write(c)
	case st.esc == 1 && c == 'u':
		st.esc, st.cu = 2, 0
	case st.esc == 1:
		st.esc = 0
		r.flushHigh()
		r.write(unescape(c))
	default:
		st.cu = st.cu<<4 | uint16(hexVal(c))
		if st.esc++; st.esc < 6 {
			return false
		}
		st.esc = 0
		switch u := st.cu; {
		case u >= 0xDC00 && u <= 0xDFFF && st.high != 0:
			r.writeRune(utf16Pair(st.high, u))
			st.high = 0
		case u >= 0xD800 && u <= 0xDBFF:
			r.flushHigh()
			st.high = u
		default:
			r.flushHigh()
			r.writeUnit(u)
		}
	}
	return false
}

func unescape(c byte) byte {
	switch c {
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return c // '"', '\\', '/'
}

func hexVal(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

func utf16Pair(hi, lo uint16) rune {
	return 0x10000 + (rune(hi)-0xD800)<<10 + rune(lo) - 0xDC00
}

// maxExp bounds the explicit exponent kept; past it exponents compare
// equal (a documented limit: such numbers are not told apart).
const maxExp = 1 << 50

// numberByte reads byte c of a number item, writing its significant
// digits, and reports whether c belongs to the number.
func (r *uniqueRun) numberByte(c byte) bool {
	st := &r.st
	switch {
	case c >= '0' && c <= '9':
		switch st.phase {
		case 0, 1:
			if st.phase == 0 && (st.nz || c != '0') {
				st.e10++
			}
			switch {
			case c != '0':
				if st.neg && !st.nz {
					r.write('-') // -0 is 0: the sign waits for a nonzero digit
				}
				for ; st.zeros > 0; st.zeros-- {
					r.write('0')
				}
				r.write(c)
				st.nz = true
			case st.nz:
				st.zeros++
			case st.phase == 1:
				st.e10-- // a leading zero of the fraction
			}
		default:
			st.phase = 3
			if st.exp < maxExp {
				st.exp = st.exp*10 + int64(c-'0')
			}
		}
	case c == '.':
		st.phase = 1
	case c == 'e' || c == 'E':
		st.phase = 2
	case (c == '+' || c == '-') && st.phase == 2:
		st.eneg = c == '-'
	default:
		return false
	}
	return true
}

// passByte reads byte c of an object or array item and reports whether it
// closed the item.
func (r *uniqueRun) passByte(c byte) bool {
	st := &r.st
	switch {
	case st.pstr == 2:
		st.pstr = 1
	case st.pstr == 1 && c == '\\':
		st.pstr = 2
	case st.pstr == 1 && c == '"':
		st.pstr = 0
	case st.pstr == 1:
	case c == '"':
		st.pstr = 1
	case c == '[' || c == '{':
		st.depth++
	case c == ']' || c == '}':
		st.depth--
		return st.depth == 0
	}
	return false
}

// complete ends the current item: its canonical form is finished, checked
// against the array's earlier items (x nil: not checked) and added.
func (r *uniqueRun) complete(x *uniqueIndex) bool {
	st := &r.st
	if r.buf[st.start] == 'c' {
		for _, b := range r.canonValue(r.raws[st.raw:]) {
			r.write(b)
		}
	}
	if r.buf[st.start] == 'n' {
		if !st.nz {
			r.write('0')
		} else {
			e := st.exp
			if st.eneg {
				e = -e
			}
			r.write('e')
			var tmp [24]byte
			for _, b := range strconv.AppendInt(tmp[:0], st.e10+e, 10) {
				r.write(b)
			}
		}
	}
	it := uniqueItem{off: st.start, n: int32(len(r.buf)) - st.start, lo: st.lo, h: st.h}
	st.mode, st.req = modeAfter, false
	if x != nil && r.has(st.lo, st.h, r.buf[it.off:]) {
		return false
	}
	r.items = append(r.items, it)
	r.index(int32(len(r.items) - 1))
	return true
}

// has reports whether the array starting at item lo holds the value of
// canonical form key (hash h).
func (r *uniqueRun) has(lo int32, h uint64, key []byte) bool {
	if len(r.tab) == 0 {
		return false
	}
	m := uint64(len(r.tab) - 1)
	for i := mix(lo, h) & m; ; i = (i + 1) & m {
		e := r.tab[i]
		if e == 0 {
			return false
		}
		it := &r.items[e-1]
		if it.h == h && it.lo == lo && bytes.Equal(r.buf[it.off:it.off+it.n], key) {
			return true
		}
	}
}

func mix(lo int32, h uint64) uint64 { return (h ^ uint64(lo)*0x9E3779B97F4A7C15) >> 7 }

// index adds item i to the table, growing it to keep it at most half full.
// Its size stays a power of two: probes mask their hash with size-1.
func (r *uniqueRun) index(i int32) {
	if 2*len(r.items) > len(r.tab) {
		size := 16
		for size < 4*len(r.items) {
			size <<= 1
		}
		r.tab = make([]int32, size)
		for j := range r.items[:i] {
			r.place(int32(j))
		}
	}
	r.place(i)
}

func (r *uniqueRun) place(i int32) {
	it := &r.items[i]
	m := uint64(len(r.tab) - 1)
	k := mix(it.lo, it.h) & m
	for r.tab[k] != 0 {
		k = (k + 1) & m
	}
	r.tab[k] = i + 1
}

// unindex removes item i, the newest in the table.
func (r *uniqueRun) unindex(i int32) {
	it := &r.items[i]
	m := uint64(len(r.tab) - 1)
	for k := mix(it.lo, it.h) & m; r.tab[k] != 0; k = (k + 1) & m {
		if r.tab[k] == i+1 {
			r.tab[k] = 0
			return
		}
	}
}

// alive reports whether, where the run stands, the open array can still
// go on: an unfinished item can become a value the array does not hold,
// and after a ',' such a value can still come. need reports an unfinished
// string item of StringsSome that is a prefix of an earlier item: only a
// search of the automaton can tell (Matcher.uniqueSearch).
func (r *uniqueRun) alive(x *uniqueIndex) (ok, need bool) {
	st := &r.st
	if st.spec < 0 {
		return true, false
	}
	s := r.spec(x)
	raw := r.raws[st.raw:]
	switch st.mode {
	case modeStart:
		switch {
		case !st.req || s.strings == grammar.StringsAny || s.numbers != grammar.NumbersNone || r.someValue(s, nil):
			return true, false
		case s.strings == grammar.StringsSome:
			return false, true
		}
		return false, false
	case modeString:
		switch {
		case s.strings == grammar.StringsAny:
			return true, false
		case r.someValue(s, raw):
			return true, false
		case s.strings == grammar.StringsNone:
			return false, false
		}
		e := r.extendsItem()
		return !e, e
	case modeNumber:
		switch {
		case s.numbers == grammar.NumbersAny:
			return true, false
		case s.numbers == grammar.NumbersInteger && st.phase == 0:
			if string(raw) != "0" && string(raw) != "-0" || !r.has(st.lo, zeroHash, zeroKey) {
				return true, false
			}
		}
		return r.someValue(s, raw), false
	case modeLit:
		return r.someValue(s, raw), false
	}
	return true, false
}

// extendsItem reports whether the string item being read may still become
// an earlier item of its array: what it has decoded so far is a prefix of
// one (and, inside a \u escape, the code units read so far fit the
// character that comes next in it). Its work is the array's items.
func (r *uniqueRun) extendsItem() bool {
	st := &r.st
	p := r.buf[st.start:]
	for _, it := range r.items[st.lo:] {
		k := r.buf[it.off : it.off+it.n]
		if k[0] != 's' || !bytes.HasPrefix(k, p) {
			continue
		}
		if st.esc < 2 && st.high == 0 {
			return true
		}
		if len(p) == len(k) {
			continue
		}
		// The next character of k, as UTF-16 code units.
		c, _ := utf8.DecodeRune(k[len(p):])
		u1, u2 := uint16(c), uint16(0)
		if c > 0xFFFF {
			h, l := utf16.EncodeRune(c)
			u1, u2 = uint16(h), uint16(l)
		}
		want := u1
		if st.high != 0 {
			if u1 != st.high || u2 == 0 {
				continue
			}
			want = u2
		}
		if st.esc < 2 {
			return true // a high surrogate read, its low half to come
		}
		shift := 4 * (6 - uint(st.esc)) // hex digits still to come, in bits
		if want>>shift == st.cu {
			return true
		}
	}
	return false
}

var zeroKey = []byte("n0")

var zeroHash = func() uint64 {
	var r uniqueRun
	r.write('n')
	r.write('0')
	return r.st.h
}()

// someValue reports whether a listed value spelled from prefix raw (nil:
// any) is not yet in the array.
func (r *uniqueRun) someValue(s *uniqueSpec, raw []byte) bool {
	for i := range s.values {
		v := &s.values[i]
		if bytes.HasPrefix(v.raw, raw) && !r.has(r.st.lo, v.h, v.key) {
			return true
		}
	}
	return false
}

// markUnique saves the run's state before a step (with distinct items).
func (m *Matcher) markUnique() {
	if m.c.uniq != nil {
		m.umarks = append(m.umarks, m.uniq.mark())
	}
}

// unmarkUnique drops the mark of a step that was refused.
func (m *Matcher) unmarkUnique() {
	if m.c.uniq != nil {
		m.umarks = m.umarks[:len(m.umarks)-1]
	}
}

// advanceUnique consumes text b through the automaton and the run
// together, the automaton placing each '[' read while no array is open. It
// reports false, leaving both unchanged, when either refuses b.
func (m *Matcher) advanceUnique(b []byte) bool {
	x := m.c.uniq
	d, mk := m.st.Depth(), m.uniq.mark()
	for {
		n, ok := m.uniq.feed(x, b)
		if !ok || !m.st.AdvanceBytes(b[:n]) {
			break
		}
		if n == len(b) {
			ok, need := m.uniq.alive(x)
			if need {
				ok = m.uniqueSearch()
			}
			if ok {
				return true
			}
			break
		}
		spec := m.uniqueSpecAt()
		if !m.st.Advance('[') {
			break
		}
		if spec >= 0 {
			m.uniq.open(spec)
		}
		b = b[n+1:]
	}
	m.st.Rollback(d)
	m.uniq.restore(mk)
	return false
}

// uniqueSpecAt returns the spec of the array a '[' read now opens: that of
// the Unique rules whose start reads it, the union where another reading
// is alive too, -1 where no Unique rule reads it.
func (m *Matcher) uniqueSpecAt() int16 {
	x, p := m.c.uniq, m.c.prog
	spec, other := int16(-1), false
	for _, t := range m.st.Tops() {
		if p.Next(t.Node, '[') < 0 {
			continue
		}
		r := p.RuleOf(t.Node)
		s := int16(-1)
		if p.Rules[r].Start == t.Node {
			s = x.ofRule[r]
		}
		switch {
		case s < 0 || spec >= 0 && s != spec:
			other = true
		case spec < 0:
			spec = s
		}
	}
	if spec >= 0 && other {
		return x.union
	}
	return spec
}

// filterUnique clears from out, the automaton's mask, the tokens the run
// refuses. Only tokens that can finish an item, or leave one unfinished
// where that matters, are tried:
//   - while no array is open, those that could open one and finish two
//     items in it (openers, tried in every case);
//   - in an object or array item of an array of any values, those with a
//     ']' or a '}' (the item can always become a new value: only closing
//     it can repeat one);
//   - in a string item that may be any string, and between the items of
//     an array of any strings, those with a '"';
//   - in a constrained string item, those with a '"' or a '\' and those
//     that spell on an earlier item it is a prefix of (only those can
//     leave it able to end on old values alone);
//   - otherwise every allowed token: arrays of numbers and of listed
//     values, whose masks are small.
func (m *Matcher) filterUnique(out []uint32) {
	x := m.c.uniq
	st := &m.uniq.st
	if st.spec >= 0 {
		s := m.uniq.spec(x)
		// Between items, a token may finish items of several positions:
		// the shortcut holds where every position has one spec.
		uniform := len(x.specs[st.spec].prefix) == 0
		inString := st.mode == modeString
		switch {
		case st.mode == modeValue:
			m.filterList(out, x.closers)
		case inString && s.strings == grammar.StringsAny,
			!inString && uniform && s.strings == grammar.StringsAny && s.numbers == grammar.NumbersNone && len(s.values) == 0:
			m.filterList(out, x.quotes)
		case inString && s.strings == grammar.StringsSome && st.esc == 0 && st.high == 0:
			m.filterList(out, x.quotes)
			m.filterList(out, x.escapes)
			m.filterSpelling(out)
		default:
			m.filterAll(out)
			return
		}
	}
	m.filterList(out, x.openers)
}

// filterAll tries every allowed ordinary token.
func (m *Matcher) filterAll(out []uint32) {
	for w, word := range out {
		for word != 0 {
			id := w<<5 | bits.TrailingZeros32(word)
			word &= word - 1
			if m.c.vocab.IsSpecial(id) {
				continue
			}
			if b := m.c.vocab.Bytes(id); len(b) > 0 && !m.uniqueAllows(b) {
				out[id>>5] &^= 1 << (uint32(id) & 31)
			}
		}
	}
}

// filterSpelling tries, in a string item, the tokens that spell on (with no
// quote or escape) an earlier item of the array whose prefix the item is.
func (m *Matcher) filterSpelling(out []uint32) {
	r, tr := &m.uniq, m.c.voc.Trie
	ids := tr.IDs()
	p := r.buf[r.st.start:]
	for _, it := range r.items[r.st.lo:] {
		k := r.buf[it.off : it.off+it.n]
		if !bytes.HasPrefix(k, p) {
			continue
		}
		rem := k[len(p):]
		for l := 1; l <= len(rem) && l <= tr.MaxLen(); l++ {
			if c := rem[l-1]; c == '"' || c == '\\' || c < 0x20 {
				break
			}
			lo, hi := tr.Prefix(rem[:l])
			if lo == hi {
				break
			}
			if len(tr.Token(lo)) == l {
				m.filterList(out, ids[lo:lo+1])
			}
		}
	}
}

func (m *Matcher) filterList(out []uint32, list []int32) {
	for _, id := range list {
		if out[id>>5]&(1<<(uint32(id)&31)) != 0 && !m.uniqueAllows(m.c.vocab.Bytes(int(id))) {
			out[id>>5] &^= 1 << (uint32(id) & 31)
		}
	}
}

// uniqueAllows reports whether the run allows text b, which the automaton
// allows. The run alone decides it, unless b holds a '[' that opens an
// array: then the automaton reads b too, and both are rolled back.
func (m *Matcher) uniqueAllows(b []byte) bool {
	x := m.c.uniq
	mk := m.uniq.mark()
	n, ok := m.uniq.feed(x, b)
	need := false
	if ok && n == len(b) {
		ok, need = m.uniq.alive(x)
	}
	m.uniq.restore(mk)
	if !need && (!ok || n == len(b)) {
		return ok
	}
	d := m.st.Depth()
	if !m.advanceUnique(b) {
		return false
	}
	m.st.Rollback(d)
	m.uniq.restore(mk)
	return true
}

// maxUniqueSearch bounds the bytes one uniqueSearch tries. The search
// follows only bytes that keep the item a prefix of an earlier one, so it
// stays far below this unless an array holds thousands of items sharing
// prefixes; past it the item is taken as able to end on a new value.
const maxUniqueSearch = 1 << 14

// searchLevel is one byte depth of uniqueSearch: the state to come back
// to and the bytes left to try.
type searchLevel struct {
	d    int
	mk   uniqueMark
	next byteset.Set
}

// uniqueSearch reports whether the constrained string item being read can
// still end on a value its array does not hold: a depth-first search over
// the bytes the automaton takes from here, which succeeds at the first
// byte after which the item is no earlier item's prefix (the automaton
// can always finish it, on a new value) or that closes it on a new value.
// The automaton and the run are back where they were when it returns. It
// keeps its own stack, so its depth is not the Go stack's.
func (m *Matcher) uniqueSearch() bool {
	x := m.c.uniq
	stack := append(m.usearch[:0], searchLevel{d: m.st.Depth(), mk: m.uniq.mark(), next: m.nextBytes()})
	found := false
	for work := 0; len(stack) > 0 && !found; {
		l := &stack[len(stack)-1]
		b, ok := nextTry(&l.next)
		if !ok {
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				m.st.Rollback(stack[len(stack)-1].d)
				m.uniq.restore(stack[len(stack)-1].mk)
			}
			continue
		}
		if work++; work > maxUniqueSearch {
			found = true
			break
		}
		if !m.st.Advance(b) {
			m.st.ClearErr()
			continue
		}
		m.ubyte[0] = b
		_, fine := m.uniq.feed(x, m.ubyte[:])
		alive, need := m.uniq.alive(x)
		switch {
		case !fine: // closed on an earlier item's value
		case m.uniq.st.mode == modeAfter || alive && !need:
			found = true
			continue
		case need:
			stack = append(stack, searchLevel{d: m.st.Depth(), mk: m.uniq.mark(), next: m.nextBytes()})
			continue
		}
		m.st.Rollback(l.d)
		m.uniq.restore(l.mk)
	}
	if len(stack) > 0 {
		m.st.Rollback(stack[0].d)
		m.uniq.restore(stack[0].mk)
	}
	m.usearch = stack[:0]
	return found
}

// nextBytes returns the bytes some top of the automaton takes next.
func (m *Matcher) nextBytes() byteset.Set {
	var set byteset.Set
	for _, t := range m.st.Tops() {
		set.Union(m.c.prog.FirstBytes(t.Node))
	}
	return set
}

// jsonSpace is the bytes of JSON whitespace.
var jsonSpace = func() (s byteset.Set) {
	for _, b := range []byte(" \t\n\r") {
		s.Add(b)
	}
	return s
}()

// nextTry takes from set the next byte for uniqueSearch to try: the first
// that is not whitespace, else the first (whitespace before an item only
// defers it).
func nextTry(set *byteset.Set) (byte, bool) {
	rest := *set
	for i := range rest {
		rest[i] &^= jsonSpace[i]
	}
	b, ok := rest.First()
	if !ok {
		b, ok = set.First()
	}
	if ok {
		set.Remove(b)
	}
	return b, ok
}
