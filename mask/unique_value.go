package mask

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Objects and arrays as items of an array whose items may be any value
// (grammar.UniqueItems.AnyValue). The run keeps such an item's spelling
// while it is read and, when its last bracket closes it, writes its
// canonical form, equal for equal JSON values:
//
//	string   s<length>:<bytes, escapes decoded>
//	number   n[-]<significant digits>e<decimal exponent>, or n0
//	literal  ltrue, lfalse, lnull
//	array    [<item>,<item>,...]
//	object   {<key>:<value>,...} with its members in byte order
//
// The forms are prefix-free, so a member's bytes compare as the member.
// The canonicalizer is iterative (a stack of open brackets on the heap)
// and reuses the run's scratch buffers, so it allocates nothing once they
// have grown; a value's form costs its length times its nesting depth, for
// the members each closing object sorts and moves.

// compFrame is an open object or array of the value being canonicalized.
type compFrame struct {
	object bool
	start  int32 // its members' forms start here in the output
	spans  int32 // its members' spans start here in the span stack
	member int32 // the current member's form starts here (-1: none)
}

// canonValue writes the canonical form of the object or array spelled by
// raw into r.cout (from its start) and returns it. Bytes that are not
// JSON (which the automaton never lets through) are kept as they are, so a
// form exists for any input.
func (r *uniqueRun) canonValue(raw []byte) []byte {
	out := r.cout[:0]
	frames, spans := r.cframes[:0], r.cspans[:0]
	// valueDone ends a value at the end of out: it completes the member of
	// the innermost open bracket.
	valueDone := func() {
		if n := len(frames); n > 0 && frames[n-1].member >= 0 {
			f := &frames[n-1]
			spans = append(spans, [2]int32{f.member, int32(len(out))})
			f.member = -1
		}
	}
	// memberStart marks where the next member's form starts.
	memberStart := func() {
		if n := len(frames); n > 0 && frames[n-1].member < 0 {
			frames[n-1].member = int32(len(out))
		}
	}
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',':
			i++
		case c == ':':
			out = append(out, ':')
			i++
		case c == '{' || c == '[':
			memberStart()
			frames = append(frames, compFrame{object: c == '{', start: int32(len(out)), spans: int32(len(spans)), member: -1})
			i++
		case c == '}' || c == ']':
			i++
			if len(frames) == 0 {
				out = append(out, c)
				continue
			}
			valueDone() // a member left open by bytes that are not JSON
			f := frames[len(frames)-1]
			frames = frames[:len(frames)-1]
			mine := spans[f.spans:]
			// The members' forms move to the scratch copy, then come
			// back in order (sorted for an object) between brackets.
			r.ctmp = append(r.ctmp[:0], out[f.start:]...)
			if f.object {
				tmp := r.ctmp
				slices.SortFunc(mine, func(a, b [2]int32) int {
					return bytes.Compare(tmp[a[0]-f.start:a[1]-f.start], tmp[b[0]-f.start:b[1]-f.start])
				})
			}
			out = out[:f.start]
			open, end := byte('['), byte(']')
			if f.object {
				open, end = '{', '}'
			}
			out = append(out, open)
			for k, sp := range mine {
				if k > 0 {
					out = append(out, ',')
				}
				out = append(out, r.ctmp[sp[0]-f.start:sp[1]-f.start]...)
			}
			out = append(out, end)
			spans = spans[:f.spans]
			valueDone()
		case c == '"':
			memberStart()
			var n int
			out, n = canonString(out, raw[i:])
			i += n
			// An object's key is not a value: its member goes on.
			if k := len(frames); k == 0 || !frames[k-1].object || !keyNext(raw[i:]) {
				valueDone()
			}
		case c == '-' || c >= '0' && c <= '9':
			memberStart()
			var n int
			out, n = canonNumber(out, raw[i:])
			i += n
			valueDone()
		case c == 't' || c == 'f' || c == 'n':
			memberStart()
			n := 1
			for n < len(raw)-i && raw[i+n] >= 'a' && raw[i+n] <= 'z' {
				n++
			}
			out = append(out, 'l')
			out = append(out, raw[i:i+n]...)
			i += n
			valueDone()
		default:
			out = append(out, c)
			i++
		}
	}
	r.cout, r.cframes, r.cspans = out, frames, spans
	return out
}

// keyNext reports whether a ':' comes next in rest, after whitespace: the
// string just read was an object's key.
func keyNext(rest []byte) bool {
	for _, c := range rest {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

// canonString appends the form of the JSON string at the start of raw
// (its opening quote first) to out and returns it and the bytes read.
func canonString(out, raw []byte) ([]byte, int) {
	// The decoded bytes go after a length header wide enough for any
	// length below 2^40, which is then written in place.
	const width = 13
	out = append(out, 's')
	head := len(out)
	for range width {
		out = append(out, '0')
	}
	var high uint16 // a high surrogate waiting for its low half
	flush := func() {
		if high != 0 {
			out = appendUnit(out, high)
			high = 0
		}
	}
	i := 1
	for i < len(raw) && raw[i] != '"' {
		c := raw[i]
		if c != '\\' {
			flush()
			out = append(out, c)
			i++
			continue
		}
		if i+1 >= len(raw) {
			i++
			break
		}
		e := raw[i+1]
		if e != 'u' {
			flush()
			out = append(out, unescape(e))
			i += 2
			continue
		}
		var u uint16
		j := i + 2
		for ; j < i+6 && j < len(raw); j++ {
			u = u<<4 | uint16(hexVal(raw[j]))
		}
		i = j
		switch {
		case u >= 0xDC00 && u <= 0xDFFF && high != 0:
			out = utf8.AppendRune(out, utf16Pair(high, u))
			high = 0
		case u >= 0xD800 && u <= 0xDBFF:
			flush()
			high = u
		default:
			flush()
			out = appendUnit(out, u)
		}
	}
	flush()
	if i < len(raw) {
		i++ // the closing quote
	}
	// The header: the length, right-aligned and zero-padded, then ':'.
	n := len(out) - head - width
	var tmp [24]byte
	digits := strconv.AppendInt(tmp[:0], int64(n), 10)
	h := out[head : head+width]
	copy(h[width-1-len(digits):], digits)
	h[width-1] = ':'
	return out, i
}

// appendUnit appends a UTF-16 code unit that is not part of a pair as
// uniqueRun.writeUnit writes it.
func appendUnit(out []byte, u uint16) []byte {
	if u < 0xD800 || u > 0xDFFF {
		return utf8.AppendRune(out, rune(u))
	}
	return append(out, 0xE0|byte(u>>12), 0x80|byte(u>>6)&0x3F, 0x80|byte(u)&0x3F)
}

// canonNumber appends the form of the JSON number at the start of raw to
// out and returns it and the bytes read: its significant digits, without
// leading or trailing zeros, and the decimal exponent that makes them
// 0.digits times a power of ten, so equal values have one form.
func canonNumber(out, raw []byte) ([]byte, int) {
	i, neg := 0, false
	if i < len(raw) && raw[i] == '-' {
		neg, i = true, i+1
	}
	out = append(out, 'n')
	if neg {
		out = append(out, '-')
	}
	sig := len(out)
	var e10 int64 // digits of the integer part after the leading zeros
	zeros := 0    // zeros read after the last nonzero digit, not yet written
	nz := false
	digit := func(c byte, integer bool) {
		switch {
		case c != '0':
			for ; zeros > 0; zeros-- {
				out = append(out, '0')
			}
			out = append(out, c)
			nz = true
			if integer {
				e10++
			}
		case nz:
			zeros++
			if integer {
				e10++
			}
		case !integer:
			e10-- // a leading zero of the fraction
		}
	}
	for ; i < len(raw) && raw[i] >= '0' && raw[i] <= '9'; i++ {
		digit(raw[i], true)
	}
	if i < len(raw) && raw[i] == '.' {
		for i++; i < len(raw) && raw[i] >= '0' && raw[i] <= '9'; i++ {
			digit(raw[i], false)
		}
	}
	var exp int64
	eneg := false
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			eneg, i = raw[i] == '-', i+1
		}
		for ; i < len(raw) && raw[i] >= '0' && raw[i] <= '9'; i++ {
			if exp < maxExp {
				exp = exp*10 + int64(raw[i]-'0')
			}
		}
	}
	if !nz {
		out = append(out[:sig-1-boolInt(neg)], 'n', '0') // zero, of either sign
		return out, i
	}
	if eneg {
		exp = -exp
	}
	out = append(out, 'e')
	out = strconv.AppendInt(out, e10+exp, 10)
	return out, i
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
