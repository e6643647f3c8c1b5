package structtag

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/reinlm/rein/grammar"
)

// kind is the type of a JSON value.
type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

func (k kind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// value is one JSON value of the request, with its place in the source so
// that a schema can be handed on as the bytes the user wrote.
type value struct {
	kind  kind
	text  string         // kindString: the string; kindNumber: the literal
	b     bool           // kindBool
	elems []*value       // kindArray
	keys  []string       // kindObject, in document order (duplicates kept)
	vals  []*value       // kindObject, beside keys
	last  map[string]int // kindObject of many keys: each key's last place
	start int            // the value is src[start:end]
	end   int
	lone  string // kindString: its first escape of half a UTF-16 surrogate pair ("\\ud800"), if any
}

// get returns the value of the last key named key, or nil: a key written
// twice counts as JSON.parse, Go's encoding/json and the JSON Schema
// front-end read it.
func (v *value) get(key string) *value {
	if i := v.lastOf(key); i >= 0 {
		return v.vals[i]
	}
	return nil
}

// lastOf returns the place of the last key named key, or -1.
func (v *value) lastOf(key string) int {
	if v.last != nil {
		if i, ok := v.last[key]; ok {
			return i
		}
		return -1
	}
	for i := len(v.keys) - 1; i >= 0; i-- {
		if v.keys[i] == key {
			return i
		}
	}
	return -1
}

// closeObject indexes the keys of an object of many, once all are read.
func (v *value) closeObject() {
	if len(v.keys) > 8 {
		v.last = make(map[string]int, len(v.keys))
		for i, k := range v.keys {
			v.last[k] = i
		}
	}
}

// parseJSON reads src as one JSON value. It is iterative, so nesting costs
// heap, not stack; the byte and value counts are bounded by lim.SchemaBytes
// and lim.SchemaNodes before the memory they guard is spent.
func parseJSON(src []byte, lim grammar.Limits) (*value, error) {
	if len(src) > lim.SchemaBytes {
		return nil, limitErr("", "the request is %d bytes, more than Limits.SchemaBytes (%d)", len(src), lim.SchemaBytes)
	}
	type frame struct {
		v       *value
		key     string
		wantKey bool
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var (
		stack []frame
		root  *value
		nodes int
	)
	for {
		off := int(dec.InputOffset())
		tok, err := dec.Token()
		if err == io.EOF {
			if root == nil || len(stack) > 0 {
				return nil, syntaxErr(src, off, "unexpected end of JSON input")
			}
			return root, nil
		}
		if err != nil {
			return nil, jsonErr(src, off, err)
		}
		if root != nil && len(stack) == 0 {
			return nil, syntaxErr(src, off, "data after the JSON value")
		}
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			if tok == json.Delim('}') {
				stack[n-1].v.end = int(dec.InputOffset())
				stack[n-1].v.closeObject()
				stack = stack[:n-1]
				continue
			}
			stack[n-1].key, _ = tok.(string) // the decoder gives object keys as strings
			stack[n-1].wantKey = false
			continue
		}
		if d, ok := tok.(json.Delim); ok && (d == ']' || d == '}') {
			n := len(stack)
			stack[n-1].v.end = int(dec.InputOffset())
			if d == '}' {
				stack[n-1].v.closeObject()
			}
			stack = stack[:n-1]
			continue
		}
		if nodes++; nodes > lim.SchemaNodes {
			return nil, limitErr("", "the request has more than Limits.SchemaNodes (%d) JSON values", lim.SchemaNodes)
		}
		v := &value{start: valueStart(src, off), end: int(dec.InputOffset())}
		switch t := tok.(type) {
		case json.Delim:
			v.kind = kindArray
			if t == '{' {
				v.kind = kindObject
			}
		case bool:
			v.kind, v.b = kindBool, t
		case json.Number:
			v.kind, v.text = kindNumber, string(t)
		case string:
			v.kind, v.text = kindString, t
			v.lone = loneSurrogate(src[v.start:v.end])
		case nil:
			v.kind = kindNull
		}
		if n := len(stack); n == 0 {
			root = v
		} else if p := &stack[n-1]; p.v.kind == kindArray {
			p.v.elems = append(p.v.elems, v)
		} else {
			p.v.keys = append(p.v.keys, p.key)
			p.v.vals = append(p.v.vals, v)
			p.wantKey = true
		}
		if v.kind == kindArray || v.kind == kindObject {
			stack = append(stack, frame{v: v, wantKey: v.kind == kindObject})
		}
	}
}

// loneSurrogate returns the first escape in the string literal lit of
// half of a UTF-16 surrogate pair without its other half ("\\ud800"), or
// "". The decoder makes it U+FFFD, so a text holding it (checkText) would
// silently become a text the request did not ask for; a JSON Schema may
// hold one (its front-end reads the schema's bytes itself).
func loneSurrogate(lit []byte) string {
	for i := 0; i+1 < len(lit); i++ {
		if lit[i] != '\\' {
			continue
		}
		if lit[i+1] != 'u' {
			i++ // a two-byte escape: its second byte is not a backslash
			continue
		}
		hi, ok := hex4(lit, i+2)
		switch {
		case !ok || hi < 0xd800 || hi > 0xdfff:
		case hi <= 0xdbff && i+11 < len(lit) && lit[i+6] == '\\' && lit[i+7] == 'u':
			if lo, ok := hex4(lit, i+8); ok && lo >= 0xdc00 && lo <= 0xdfff {
				i += 11 // the pair
				continue
			}
			fallthrough
		default:
			return string(lit[i : i+6])
		}
	}
	return ""
}

// checkText refuses a string of the request, outside the JSON Schemas it
// holds ("json_schema"), that escapes half of a surrogate pair: no UTF-8
// text holds one, and every such string is text the grammar matches or a
// name. The error is at the string's JSON pointer.
func checkText(top *value, ptr string) error {
	// Depth first, the stack holding the path to the value looked at: a
	// pointer is only spelled for a string refused.
	type frame struct {
		v     *value
		next  int    // the next element or member to look at
		key   string // the value's key in its parent object
		index int    // or its index in its parent array
	}
	stack := []frame{{v: top}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		v := f.v
		if v.kind == kindString && v.lone != "" {
			p := ptr
			for i, g := range stack[1:] {
				if stack[i].v.kind == kindArray {
					p = pointerAt(p, g.index)
				} else {
					p = pointerTo(p, g.key)
				}
			}
			return errorf(p, "%s escapes half of a UTF-16 surrogate pair: no UTF-8 text holds it", v.lone)
		}
		child := frame{index: f.next}
		switch v.kind {
		case kindArray:
			if f.next < len(v.elems) {
				child.v = v.elems[f.next]
			}
		case kindObject:
			for f.next < len(v.keys) && v.keys[f.next] == "json_schema" {
				f.next++
			}
			if f.next < len(v.keys) {
				child.v, child.key = v.vals[f.next], v.keys[f.next]
			}
		}
		if child.v == nil {
			stack = stack[:len(stack)-1]
			continue
		}
		f.next++
		stack = append(stack, child)
	}
	return nil
}

// hex4 reads the four hex digits of a \u escape at b[i:].
func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// valueStart skips the separators the decoder has not consumed yet before
// the value that starts at or after off.
func valueStart(src []byte, off int) int {
	for off < len(src) && strings.IndexByte(" \t\r\n:,", src[off]) >= 0 {
		off++
	}
	return off
}

// jsonErr turns a decoder error into an error that names the place.
func jsonErr(src []byte, off int, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = int(se.Offset)
	}
	return syntaxErr(src, off, err.Error())
}

func syntaxErr(src []byte, off int, msg string) error {
	off = min(max(off, 0), len(src))
	line := 1 + bytes.Count(src[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(src[:off], '\n')
	return &grammar.Error{Source: source, Pos: grammar.Pos{Line: line, Col: col, Offset: off}, Msg: "invalid JSON: " + msg}
}

// pointerTo returns the JSON pointer of key inside the value at ptr.
func pointerTo(ptr, key string) string {
	key = strings.ReplaceAll(key, "~", "~0")
	return ptr + "/" + strings.ReplaceAll(key, "/", "~1")
}

// pointerAt returns the JSON pointer of element i inside the array at ptr.
func pointerAt(ptr string, i int) string { return fmt.Sprintf("%s/%d", ptr, i) }
