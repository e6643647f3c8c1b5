package grammar

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsScan checks the sizes of a schema document in one pass over its bytes,
// before anything is allocated for it and before the JSON parser (which
// recurses once per nesting level) sees it: the total size, the nesting of
// arrays and objects, the length of every string and key, the digits of every
// number, and that the text is UTF-8. It does not check the JSON syntax;
// the parser does that afterwards. ptr is the place that referred to the
// document (empty for the root).
func (ix *schemaIndex) scan(data []byte, ptr string) error {
	o := &ix.c.opts
	if len(data) > o.MaxSchemaBytes {
		return ix.c.limitf(ptr, "", "the schema document has %d bytes, more than the limit of %d", len(data), o.MaxSchemaBytes)
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
				b.WriteString(jsEscapePointer(f.key))
			} else {
				b.WriteString(strconv.Itoa(f.index))
			}
		}
		return b.String()
	}
	for i := 0; i < len(data); i++ {
		switch b := data[i]; {
		case b == '[' || b == '{':
			if len(open) >= o.MaxDepth {
				return ix.c.limitf(at(false), "", "the schema document nests deeper than %d levels", o.MaxDepth)
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
			what, limit := "string", o.MaxStringBytes
			if isKey {
				what, limit = "key", o.MaxKeyBytes
			}
			if n := i - start - 1; n > limit {
				return ix.c.limitf(at(isKey), "", "a %s of %d bytes, more than the limit of %d", what, n, limit)
			}
			if isKey {
				// The key as written (escapes left as they are), for
				// naming places only.
				open[len(open)-1].key = string(data[start+1 : min(i, len(data))])
			}
			if err := ix.checkSurrogates(data[start:min(i, len(data))], at(isKey), what); err != nil {
				return err
			}
		case b == '-' || b >= '0' && b <= '9':
			start, digits := i, 0
			for ; i < len(data) && (data[i] >= '0' && data[i] <= '9' || data[i] == '.' || data[i] == '-' || data[i] == '+'); i++ {
				if data[i] >= '0' && data[i] <= '9' {
					digits++
				}
			}
			if digits > o.MaxNumberDigits {
				return ix.c.limitf(at(false), "", "a number of %d digits (%.20s...), more than the limit of %d", digits, data[start:], o.MaxNumberDigits)
			}
			i-- // the loop steps past the number's last byte
		}
	}
	return nil
}

// checkSurrogates refuses a string (its raw text, from the opening quote)
// that spells a lone UTF-16 surrogate with \u escapes: it is not text, the
// JSON parser would turn it into U+FFFD, and the grammar would then accept
// U+FFFD where the schema means the escape.
func (ix *schemaIndex) checkSurrogates(raw []byte, ptr, what string) error {
	hex := func(i int) (rune, bool) {
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
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		v, ok := hex(i)
		if !ok {
			i++ // the escaped character
			continue
		}
		switch {
		case v >= 0xD800 && v <= 0xDBFF:
			if w, ok := hex(i + 6); ok && w >= 0xDC00 && w <= 0xDFFF {
				i += 11
				continue
			}
		case v >= 0xDC00 && v <= 0xDFFF:
		default:
			i += 5
			continue
		}
		return ix.c.errorf(ptr, "", ErrUnsupported, "the %s holds the lone surrogate \\u%04x, which is not a character", what, v)
	}
	return nil
}
