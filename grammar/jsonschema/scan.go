package jsonschema

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/reinlm/rein/grammar"
)

// scan checks the sizes of a schema document in one pass over its bytes,
// before anything is allocated for it and before the JSON parser (which
// recurses once per nesting level) sees it: the total size, the nesting of
// arrays and objects, the length of every string and key, the digits of every
// number, and that the text is UTF-8. It does not check the JSON syntax;
// the parser does that afterwards. ptr is the place that referred to the
// document (empty for the root).
func (ix *schemaIndex) scan(data []byte, ptr string) error {
	o := &ix.c.opts
	if len(data) > o.Limits.SchemaBytes {
		return ix.c.limitf(ptr, "", "the schema document has %d bytes, more than Limits.SchemaBytes (%d)", len(data), o.Limits.SchemaBytes)
	}
	if !utf8.Valid(data) {
		off := 0
		for off < len(data) {
			r, size := utf8.DecodeRune(data[off:])
			if r == utf8.RuneError && size <= 1 {
				break
			}
			off += size
		}
		return ix.c.errorf(ptr, "", nil, "the schema is not UTF-8: byte 0x%02x at offset %d", data[off], off)
	}
	// The containers open at i, for naming the place of an error.
	type frame struct {
		object  bool
		key     string // object: the last key read
		wantKey bool
		index   int // array: the element's index
	}
	var open []frame
	// at is the pointer of the value being read; of the object, for a key.
	at := func(isKey bool) string {
		frames := open
		if isKey {
			frames = open[:len(open)-1]
		}
		var b strings.Builder
		b.WriteString(ptr)
		for _, f := range frames {
			b.WriteByte('/')
			if f.object {
				b.WriteString(escapePointer(f.key))
			} else {
				b.WriteString(strconv.Itoa(f.index))
			}
		}
		return b.String()
	}
	for i := 0; i < len(data); i++ {
		switch b := data[i]; {
		case b == '[' || b == '{':
			if len(open) >= o.Limits.SchemaDepth {
				return ix.c.limitf(at(false), "", "the schema document nests deeper than Limits.SchemaDepth (%d)", o.Limits.SchemaDepth)
			}
			open = append(open, frame{object: b == '{', wantKey: b == '{'})
		case b == ']' || b == '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case b == ':':
			if n := len(open); n > 0 {
				open[n-1].wantKey = false
			}
		case b == ',':
			if n := len(open); n > 0 {
				open[n-1].wantKey = open[n-1].object
				open[n-1].index++
			}
		case b == '"':
			start := i
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			isKey := len(open) > 0 && open[len(open)-1].wantKey
			what, field, limit := "string", "SchemaStringBytes", o.Limits.SchemaStringBytes
			if isKey {
				what, field, limit = "key", "SchemaKeyBytes", o.Limits.SchemaKeyBytes
			}
			if n := i - start - 1; n > limit {
				return ix.c.limitf(at(isKey), "", "a %s of %d bytes, more than Limits.%s (%d)", what, n, field, limit)
			}
			if isKey {
				// The key as written (escapes left as they are), for
				// naming places only.
				open[len(open)-1].key = string(data[start+1 : min(i, len(data))])
			}
			if v, ok := loneSurrogate(data[start:min(i, len(data))]); ok {
				if isKey {
					return ix.c.errorf(at(true), "", grammar.ErrUnsupported, "the key holds the lone surrogate \\u%04x, which is not a character", v)
				}
				ix.lone = true
			}
		case b == '-' || b >= '0' && b <= '9':
			start, digits := i, 0
			for ; i < len(data) && (data[i] >= '0' && data[i] <= '9' || data[i] == '.' || data[i] == '-' || data[i] == '+'); i++ {
				if data[i] >= '0' && data[i] <= '9' {
					digits++
				}
			}
			if digits > o.Limits.SchemaNumberDigits {
				return ix.c.limitf(at(false), "", "a number of %d digits (%.20s...), more than Limits.SchemaNumberDigits (%d)", digits, data[start:], o.Limits.SchemaNumberDigits)
			}
			i-- // the loop steps past the number's last byte
		}
	}
	return nil
}

// loneSurrogate returns the first lone UTF-16 surrogate that a string's
// raw text (from its opening quote) spells with \u escapes, if any.
func loneSurrogate(raw []byte) (rune, bool) {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		v, ok := hexEscape(raw, i)
		if !ok {
			i++ // the escaped character
			continue
		}
		switch {
		case v >= 0xD800 && v <= 0xDBFF:
			if w, ok := hexEscape(raw, i+6); ok && w >= 0xDC00 && w <= 0xDFFF {
				i += 11
				continue
			}
		case v >= 0xDC00 && v <= 0xDFFF:
		default:
			i += 5
			continue
		}
		return v, true
	}
	return 0, false
}

// hexEscape reads the \uXXXX escape at raw[i:].
func hexEscape(raw []byte, i int) (rune, bool) {
	if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
		return 0, false
	}
	var v rune
	for _, c := range raw[i+2 : i+6] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// decodeLone decodes a JSON string's raw text (quotes included) that
// holds lone surrogates: each becomes its three-byte generalized UTF-8 form
// (WTF-8), which no valid UTF-8 text contains, so that quote can spell it
// back as the escape and nothing confuses it with U+FFFD.
func decodeLone(raw string) string {
	b := []byte(raw)
	if len(b) >= 2 {
		b = b[1 : len(b)-1]
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		i++
		switch b[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			v, ok := hexEscape(b, i-1)
			if !ok {
				out = append(out, b[i])
				continue
			}
			i += 4
			if v >= 0xD800 && v <= 0xDBFF {
				if w, ok := hexEscape(b, i+1); ok && w >= 0xDC00 && w <= 0xDFFF {
					out = utf8.AppendRune(out, 0x10000+(v-0xD800)<<10+(w-0xDC00))
					i += 6
					continue
				}
			}
			if v >= 0xD800 && v <= 0xDFFF {
				out = append(out, byte(0xE0|v>>12), byte(0x80|(v>>6)&0x3F), byte(0x80|v&0x3F))
				continue
			}
			out = utf8.AppendRune(out, v)
		default: // " \ /
			out = append(out, b[i])
		}
	}
	return string(out)
}

// surrogateAt returns the lone surrogate whose WTF-8 form starts s.
func surrogateAt(s string) (rune, bool) {
	if len(s) < 3 || s[0] != 0xED || s[1] < 0xA0 || s[1] > 0xBF || s[2]&0xC0 != 0x80 {
		return 0, false
	}
	return 0xD000 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), true
}

// checkLone refuses strings with lone surrogates anywhere but in the values
// of const and enum (and annotations): only there does the grammar use them
// as whole literals, spelled with their escapes; patterns, formats, names
// and the like are matched as text, which they are not.
func (ix *schemaIndex) checkLone(root *node) error {
	type item struct {
		n      *node
		schema bool
	}
	stack := []item{{root, true}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := it.n
		switch {
		case n.kind == kindString && n.lone:
			v, _ := loneSurrogate([]byte(quote(n.str)))
			return ix.c.errorf(n.ptr, "", grammar.ErrUnsupported, "the string holds the lone surrogate \\u%04x, which is not a character (allowed only in const and enum)", v)
		case n.kind == kindArray:
			for _, e := range n.elems {
				stack = append(stack, item{e, false})
			}
		case n.kind == kindObject:
			for i, k := range n.keys {
				v := n.vals[i]
				switch {
				case !it.schema:
					stack = append(stack, item{v, false})
				case k == "const" || k == "enum" || annotations[k]:
				case schemaMaps[k] && v.kind == kindObject:
					for _, e := range v.vals {
						stack = append(stack, item{e, true})
					}
				case schemaLists[k] && v.kind == kindArray:
					for _, e := range v.elems {
						stack = append(stack, item{e, true})
					}
				default:
					stack = append(stack, item{v, schemaOne[k]})
				}
			}
		}
	}
	return nil
}
