// Package ecma translates ECMA-262 regular expressions, the dialect of
// JSON Schema's pattern and of XGrammar's Regex, into Go's RE2 syntax with
// the same meaning, for package grammar's and grammar/jsonschema's
// front-ends.
package ecma

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrLookahead is Translate's error for a pattern with a lookahead, which
// a caller may compile otherwise (by automaton intersection). It wraps
// ErrUnsupported.
var ErrLookahead error = featureError("lookahead")

// ErrUnsupported is wrapped by Translate's errors for what Go's syntax
// cannot say (lookaround, backreferences, octal escapes), as opposed to a
// malformed pattern.
var ErrUnsupported = errors.New("unsupported regular expression feature")

// featureError is an error about a feature Translate does not translate.
type featureError string

func (e featureError) Error() string { return string(e) }

// Is makes every featureError wrap ErrUnsupported.
func (e featureError) Is(target error) bool { return target == ErrUnsupported }

func unsupported(msg string) error { return featureError(msg) }

// space is ECMA-262's \s.
const space = `\t\n\v\f\r \x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff}`

// spaceRanges is space as ranges, in order.
var spaceRanges = [][2]rune{{0x09, 0x0d}, {0x20, 0x20}, {0xa0, 0xa0}, {0x1680, 0x1680}, {0x2000, 0x200a}, {0x2028, 0x2029}, {0x202f, 0x202f}, {0x205f, 0x205f}, {0x3000, 0x3000}, {0xfeff, 0xfeff}}

// nonSpace is ECMA-262's \S as the ranges of a class, for a \S inside
// one (where Go's syntax has no negated member): every code point outside
// spaceRanges.
var nonSpace = func() string {
	var b strings.Builder
	lo := rune(0)
	for _, r := range spaceRanges {
		if lo < r[0] {
			fmt.Fprintf(&b, `\x{%x}-\x{%x}`, lo, r[0]-1)
		}
		lo = r[1] + 1
	}
	fmt.Fprintf(&b, `\x{%x}-\x{%x}`, lo, unicode.MaxRune)
	return b.String()
}()

// Translate rewrites an ECMA-262 pattern into Go's syntax, keeping its
// meaning: \s, \S and . get ECMA's definitions, \uXXXX, \u{X}, \cX, \0 and
// identity escapes are spelled out, [^] and [] are translated, and named
// groups get Go's spelling. Lookahead is an error wrapping ErrLookahead
// (grammar/jsonschema compiles it by intersection); lookbehind and
// backreferences are errors.
func Translate(src string) (string, error) {
	var b strings.Builder
	inClass := false
	classStart := false
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\\':
			if i+1 >= len(src) {
				return "", fmt.Errorf("trailing backslash")
			}
			e := src[i+1]
			i += 2
			switch e {
			case 'd', 'D', 'w', 'W':
				b.WriteByte('\\')
				b.WriteByte(e)
			case 's':
				if inClass {
					b.WriteString(space)
				} else {
					b.WriteString("[" + space + "]")
				}
			case 'S':
				if inClass {
					b.WriteString(nonSpace)
				} else {
					b.WriteString("[^" + space + "]")
				}
			case 'b':
				if inClass {
					b.WriteString(`\x08`)
				} else {
					b.WriteString(`\b`)
				}
			case 'B':
				b.WriteString(`\B`)
			case 'f', 'n', 'r', 't':
				b.WriteByte('\\')
				b.WriteByte(e)
			case 'v':
				b.WriteString(`\x0B`)
			case '0':
				if i < len(src) && src[i] >= '0' && src[i] <= '9' {
					return "", unsupported("octal escapes are not supported")
				}
				b.WriteString(`\x00`)
			case 'c':
				if i < len(src) && (src[i]|0x20 >= 'a' && src[i]|0x20 <= 'z') {
					fmt.Fprintf(&b, `\x%02X`, src[i]%32)
					i++
				} else {
					b.WriteString(`\\c`)
				}
			case 'x':
				if i+2 <= len(src) && isHex(src[i]) && isHex(src[i+1]) {
					b.WriteString(`\x` + src[i:i+2])
					i += 2
				} else {
					b.WriteByte('x')
				}
			case 'u':
				r, n := unicodeEscape(src[i:])
				if n == 0 {
					b.WriteByte('u')
					break
				}
				i += n
				if r >= 0xD800 && r <= 0xDBFF && strings.HasPrefix(src[i:], `\u`) {
					if lo, m := unicodeEscape(src[i+2:]); m > 0 && lo >= 0xDC00 && lo <= 0xDFFF {
						r = (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000
						i += 2 + m
					}
				}
				if r >= 0xD800 && r <= 0xDFFF {
					return "", fmt.Errorf("lone surrogate \\u%04X", r)
				}
				fmt.Fprintf(&b, `\x{%X}`, r)
			case 'p', 'P':
				b.WriteByte('\\')
				b.WriteByte(e)
			case 'k':
				return "", unsupported("backreferences are not supported")
			default:
				switch {
				case e >= '1' && e <= '9':
					return "", unsupported("backreferences are not supported")
				case e < utf8.RuneSelf && (unicode.IsLetter(rune(e)) || unicode.IsDigit(rune(e))):
					b.WriteByte(e) // identity escape
				case e < utf8.RuneSelf:
					b.WriteByte('\\')
					b.WriteByte(e)
				default:
					r, n := utf8.DecodeRuneInString(src[i-1:])
					b.WriteRune(r)
					i += n - 1
				}
			}
			classStart = false
			continue
		case inClass:
			switch {
			case c == ']' && !classStart:
				inClass = false
				b.WriteByte(']')
			case c == '[':
				b.WriteString(`\[`)
			case c == ']':
				b.WriteString(`\]`)
			default:
				b.WriteByte(c)
			}
			classStart = false
			i++
			continue
		case c == '[':
			switch {
			case strings.HasPrefix(src[i:], "[^]"):
				b.WriteString(`[\x{0}-\x{10FFFF}]`)
				i += 3
			case strings.HasPrefix(src[i:], "[]"):
				b.WriteString(`[^\x{0}-\x{10FFFF}]`)
				i += 2
			case strings.HasPrefix(src[i:], "[^"):
				b.WriteString("[^")
				inClass, classStart = true, false
				i += 2
			default:
				b.WriteByte('[')
				inClass, classStart = true, false
				i++
			}
			continue
		case c == '.':
			b.WriteString(`[^\n\r\x{2028}\x{2029}]`)
		case c == '(':
			switch {
			case strings.HasPrefix(src[i:], "(?=") || strings.HasPrefix(src[i:], "(?!"):
				return "", fmt.Errorf("%w is not supported", ErrLookahead) // unsupported as well (below)
			case strings.HasPrefix(src[i:], "(?<=") || strings.HasPrefix(src[i:], "(?<!"):
				return "", unsupported("lookbehind is not supported")
			case strings.HasPrefix(src[i:], "(?<"):
				b.WriteString("(?P<")
				i += 3
				continue
			}
			b.WriteByte(c)
		default:
			r, n := utf8.DecodeRuneInString(src[i:])
			b.WriteRune(r)
			i += n
			continue
		}
		i++
	}
	if inClass {
		return "", fmt.Errorf("missing closing ]")
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'f'
}

// unicodeEscape reads the XXXX of \uXXXX or the {X...} of \u{X...}.
func unicodeEscape(s string) (rune, int) {
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 2 || end > 7 {
			return 0, 0
		}
		v, err := strconv.ParseUint(s[1:end], 16, 32)
		if err != nil || v > unicode.MaxRune {
			return 0, 0
		}
		return rune(v), end + 1
	}
	if len(s) < 4 {
		return 0, 0
	}
	v, err := strconv.ParseUint(s[:4], 16, 32)
	if err != nil {
		return 0, 0
	}
	return rune(v), 4
}
