package tokenizer

import (
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"golang.org/x/text/unicode/norm"
)

// normStep is one normalizer: NFC, or prepending or replacing a string.
type normStep struct {
	op       normOp
	from, to string
}

type normOp uint8

const (
	normNFC     normOp = iota + 1
	normPrepend        // prepend to (non-empty) text
	normReplace        // replace every from by to
)

func (n normStep) apply(s string) string {
	switch n.op {
	case normNFC:
		return norm.NFC.String(s)
	case normPrepend:
		if s == "" {
			return s
		}
		return n.to + s
	case normReplace:
		return strings.ReplaceAll(s, n.from, n.to)
	}
	return s
}

// preStep is one pre-tokenizer: a regex split (Hugging Face Split with the
// Isolated behaviour, ByteLevel with use_regex, tiktoken's pattern), a
// ByteLevel prefix space, or SentencePiece's Metaspace.
type preStep struct {
	op          preOp
	pattern     string // preRegex
	field       string // where the pattern came from, for errors
	replacement rune   // preMetaspace
	prepend     prependScheme
	splitWords  bool // preMetaspace: words start at each replacement rune
}

type preOp uint8

const (
	preRegex       preOp = iota + 1
	prePrefixSpace       // ByteLevel add_prefix_space: a word not starting with ' ' gets one
	preMetaspace
)

type prependScheme uint8

const (
	prependNever prependScheme = iota
	prependFirst
	prependAlways
)

type compiledPreStep struct {
	preStep
	re *regexp2.Regexp
}

func compilePreSteps(file string, steps []preStep) ([]compiledPreStep, error) {
	out := make([]compiledPreStep, len(steps))
	for i, s := range steps {
		out[i].preStep = s
		if s.op != preRegex {
			continue
		}
		re, err := regexp2.Compile(rustCaseFold(s.pattern), regexp2.None)
		if err != nil {
			return nil, unsupported(file, s.field, "pattern %q: %v", s.pattern, err)
		}
		out[i].re = re
	}
	return out, nil
}

// split cuts text into words; first says whether text starts the input.
func (s *compiledPreStep) split(text string, first bool) []string {
	switch s.op {
	case preRegex:
		return regexSplit(s.re, text)
	case prePrefixSpace:
		if !strings.HasPrefix(text, " ") {
			text = " " + text
		}
		return []string{text}
	case preMetaspace:
		r := string(s.replacement)
		text = strings.ReplaceAll(text, " ", r)
		if (s.prepend == prependAlways || s.prepend == prependFirst && first) && !strings.HasPrefix(text, r) {
			text = r + text
		}
		if !s.splitWords {
			return []string{text}
		}
		// Each word runs up to the next replacement rune (which starts with
		// a UTF-8 lead byte, so searching from byte 1 finds the next one).
		var words []string
		for text != "" {
			i := strings.Index(text[1:], r)
			if i < 0 {
				break
			}
			words = append(words, text[:i+1])
			text = text[i+1:]
		}
		if text != "" {
			words = append(words, text)
		}
		return words
	}
	return []string{text}
}

// regexSplit cuts text into the pattern's matches and the stretches between
// them, as Hugging Face's Split with the Isolated behaviour. regexp2 matches
// runes, so offsets go through a rune-to-byte table; text that is not valid
// UTF-8 keeps its bytes (each bad byte is one rune).
func regexSplit(re *regexp2.Regexp, text string) []string {
	runes := make([]rune, 0, len(text))
	offs := make([]int, 0, len(text)+1)
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		runes = append(runes, r)
		offs = append(offs, i)
		i += n
	}
	offs = append(offs, len(text))
	var words []string
	last := 0
	m, err := re.FindRunesMatch(runes)
	for err == nil && m != nil {
		a, b := offs[m.Index], offs[m.Index+m.Length]
		if a > last {
			words = append(words, text[last:a])
		}
		if b > a {
			words = append(words, text[a:b])
		}
		last = b
		m, err = re.FindNextMatch(m)
	}
	if last < len(text) {
		words = append(words, text[last:])
	}
	return words
}

// rustCaseFold rewrites case-insensitive groups made of ASCII letters, such
// as the contractions group (?i:'s|'t|'re|'ve|'m|'ll|'d), into explicit
// classes with Unicode's simple case folding, as the Rust and Oniguruma
// engines of the reference tokenizers apply it: 's' also matches 'ſ'
// (U+017F) and 'k' the Kelvin sign (U+212A). regexp2 lower-cases instead and
// misses both.
func rustCaseFold(pattern string) string {
	const open = "(?i:"
	var b strings.Builder
	for {
		i := strings.Index(pattern, open)
		if i < 0 {
			b.WriteString(pattern)
			return b.String()
		}
		j := strings.IndexByte(pattern[i:], ')')
		body := ""
		if j >= 0 {
			body = pattern[i+len(open) : i+j]
		}
		if j < 0 || !foldable(body) || i > 0 && pattern[i-1] == '\\' {
			b.WriteString(pattern[:i+len(open)])
			pattern = pattern[i+len(open):]
			continue
		}
		b.WriteString(pattern[:i])
		b.WriteString("(?:")
		for _, c := range body {
			switch {
			case c == 's' || c == 'S':
				b.WriteString("[sSſ]")
			case c == 'k' || c == 'K':
				b.WriteString("[kK\u212a]")
			case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
				lo := c | 0x20
				b.WriteString("[" + string(lo) + string(lo-0x20) + "]")
			default:
				b.WriteRune(c)
			}
		}
		b.WriteByte(')')
		pattern = pattern[i+j+1:]
	}
}

// foldable reports whether a group body is only ASCII letters, apostrophes
// and alternation bars.
func foldable(body string) bool {
	if body == "" {
		return false
	}
	for _, c := range body {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '\'' || c == '|') {
			return false
		}
	}
	return true
}
