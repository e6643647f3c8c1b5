package grammar

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Op says what an Expr matches, as regexp/syntax's Op does for a Regexp.
type Op uint8

// The operators of the IR.
const (
	// OpEmpty matches the empty string.
	OpEmpty Op = iota
	// OpBytes matches the byte string Expr.Bytes exactly.
	OpBytes
	// OpClass matches one code point, UTF-8 encoded, from Expr.Ranges.
	OpClass
	// OpSeq matches Expr.Subs one after the other.
	OpSeq
	// OpAlt matches any one of Expr.Subs.
	OpAlt
	// OpRepeat matches Expr.Subs[0] between Expr.Min and Expr.Max times; Max < 0 means unbounded.
	OpRepeat
	// OpRef matches the rule Expr.Rule.
	OpRef
	// OpRegex matches the regular expression Expr.Regexp (Go RE2 syntax, simplified,
	// without captures or assertions other than the implicit anchors at both ends).
	OpRegex
	// OpToken matches one whole token by its identity, not its bytes: a
	// token whose text is one of Expr.TokenNames or whose id is in
	// Expr.Tokens, or with Expr.Negate any token that is neither. The names
	// are resolved against the vocabulary when the grammar is compiled for
	// one (package mask); see TokenSet for what such a terminal allows.
	OpToken
	// OpText matches any UTF-8 text, however long, in which none of the
	// strings Expr.Excludes occurs.
	OpText
)

// ReservedByte never occurs in UTF-8 text, so no grammar matches it as
// text: the compiled automaton spells each token terminal with it (see
// package pda), and a literal holding it is invalid.
const ReservedByte = 0xFF

// RuneRange is an inclusive range of Unicode code points.
type RuneRange struct{ Lo, Hi rune }

// Expr is one node of a rule body. It is a plain tree: front-ends build it,
// the pushdown compiler reads it, nothing mutates it after Grammar.Validate.
type Expr struct {
	Op     Op
	Bytes  []byte         // OpBytes: the literal
	Ranges []RuneRange    // OpClass: sorted, non-overlapping, non-adjacent, within [0, 0x10FFFF]
	Subs   []*Expr        // OpSeq, OpAlt: the parts; OpRepeat: exactly one
	Min    int            // OpRepeat: least count
	Max    int            // OpRepeat: greatest count, -1 for no bound
	Rule   int            // OpRef: index into Grammar.Rules
	Regexp *syntax.Regexp // OpRegex: the parsed expression

	Special    bool         // OpBytes: a special token's text inside Bytes may also be that token (see LitTokens)
	TokenNames []string     // OpToken: texts of tokens, each naming the one token with exactly that text
	Tokens     []TokenRange // OpToken: token ids below 2^31, sorted, neither overlapping nor adjacent
	Negate     bool         // OpToken: match any token not named in TokenNames or Tokens
	Excludes   []string     // OpText: the strings the text may not contain, each non-empty
}

// TokenRange is an inclusive range of token ids.
type TokenRange struct{ Lo, Hi int }

// Rule is a named production.
type Rule struct {
	Name string
	Body *Expr
	// MaxTokens, when positive, bounds a match of the rule to that many
	// tokens: once that many tokens have been taken inside it (each
	// starting and ending inside the rule's match), the matcher ends the
	// rule there, so that only what follows it may come next. It is the
	// token budget of a free-text region (a structural tag's
	// any_text.max_tokens): the rule must be able to end anywhere, as
	// grammar.Text can. It means something only against a vocabulary
	// (package mask); byte-level matching ignores it.
	MaxTokens int
	// Unique, when set, makes the rule a JSON array whose items must be
	// pairwise distinct JSON values (JSON Schema's uniqueItems): the rule
	// starts with the array's "[" and its items are the values Unique
	// describes. The matcher checks it as items complete (package mask);
	// byte-level matching ignores it.
	Unique *UniqueItems
	// Prepare marks a rule whose first positions nearly every match of the
	// rule meets and whose first classification against a vocabulary costs
	// more than most (a JSON object's key that must not be one of the
	// declared names): package mask classifies the positions one byte into
	// the rule first when it prepares a grammar ahead of its matchers
	// (mask.Compiled.WarmWithin, which rein.Compiler runs before Ready).
	// It changes no match.
	Prepare bool
}

// UniqueItems describes the items of a rule whose items must be distinct
// (Rule.Unique): what values an item may take, as far as the check needs
// to know to tell whether an unfinished item can still become a value not
// yet in the array. Items are scalars (strings, numbers, true, false,
// null), or with AnyValue any JSON value.
type UniqueItems struct {
	// AnyValue: an item may be any JSON value, objects and arrays of any
	// content included (JSON Schema's items: true). Objects and arrays are
	// compared as JSON values (members in any order, numbers by value,
	// strings with their escapes decoded); an unfinished one can always
	// become a new value. Strings must be StringsAny and Numbers
	// NumbersAny, and Values must list true, false and null.
	AnyValue bool
	// Strings: StringsAny, an item may be any string (from some length
	// up); StringsSome, some strings (a pattern, a format or a maxLength
	// constrains them: the matcher searches the automaton for a way to end
	// an unfinished one on a new value); StringsNone, only those listed in
	// Values.
	Strings StringItems
	// Numbers: NumbersAny, any number; NumbersInteger, any integer written
	// -?(0|[1-9][0-9]*); NumbersNone, only those listed in Values.
	Numbers NumberItems
	// Values lists the other values an item may take, each spelled exactly
	// as the rule spells it (a number may have several spellings).
	Values []string
	// Prefix, when not empty, describes the first len(Prefix) items one by
	// one (JSON Schema's prefixItems); the fields above describe the items
	// after them. Entries may not have a Prefix of their own.
	Prefix []UniqueItems
}

// StringItems says which strings a unique array's item may be.
type StringItems uint8

// The kinds of StringItems.
const (
	StringsNone StringItems = iota
	StringsAny
	StringsSome
)

// NumberItems says which numbers a unique array's item may be.
type NumberItems uint8

// The kinds of NumberItems.
const (
	NumbersNone NumberItems = iota
	NumbersAny
	NumbersInteger
)

// Grammar is a set of rules and the one the whole output must match.
type Grammar struct {
	Rules []Rule
	Root  int
}

// Constructors. They make the IR easy to build by hand and by front-ends;
// they do not simplify beyond the obvious.

// Lit matches s exactly.
func Lit(s string) *Expr {
	if s == "" {
		return &Expr{Op: OpEmpty}
	}
	return &Expr{Op: OpBytes, Bytes: []byte(s)}
}

// Eps matches the empty string.
func Eps() *Expr { return &Expr{Op: OpEmpty} }

// Chars matches one code point from ranges, which are normalized (sorted, merged);
// negate takes the complement within the Unicode range, surrogates excluded.
func Chars(negate bool, ranges ...RuneRange) *Expr {
	rs := NormalizeRanges(ranges)
	if negate {
		rs = NegateRanges(rs)
	}
	return &Expr{Op: OpClass, Ranges: rs}
}

// Cat matches its parts in order.
func Cat(subs ...*Expr) *Expr {
	switch len(subs) {
	case 0:
		return Eps()
	case 1:
		return subs[0]
	}
	return &Expr{Op: OpSeq, Subs: subs}
}

// Or matches one of its parts.
func Or(subs ...*Expr) *Expr {
	if len(subs) == 1 {
		return subs[0]
	}
	return &Expr{Op: OpAlt, Subs: subs}
}

// Rep matches sub between min and max times (max < 0: unbounded).
func Rep(sub *Expr, min, max int) *Expr {
	return &Expr{Op: OpRepeat, Subs: []*Expr{sub}, Min: min, Max: max}
}

// Call matches rule number i.
func Call(i int) *Expr { return &Expr{Op: OpRef, Rule: i} }

// Re matches a parsed regular expression.
func Re(re *syntax.Regexp) *Expr { return &Expr{Op: OpRegex, Regexp: re} }

// LitTokens matches s, where the text of any special token of the
// vocabulary that s holds may also be that token: LitTokens("<|im_start|>assistant")
// matches the special token <|im_start|> then "assistant", as well as the
// same bytes spelled by ordinary tokens. It is how front-ends that work on
// text, as structural tags and model tool-call formats do, reach special
// tokens without knowing the vocabulary; package mask resolves the tokens
// when it compiles the grammar for one, leftmost-longest.
func LitTokens(s string) *Expr {
	e := Lit(s)
	e.Special = e.Op == OpBytes
	return e
}

// Token matches the one token whose text is name, typically a special token
// such as "<|im_end|>" or "[TOOL_CALLS]": compiling the grammar for a
// vocabulary without such a token fails.
//
// Token terminals are how a grammar allows special tokens, which never match
// text: a literal such as Lit("<|im_end|>") matches those bytes spelled by
// ordinary tokens, never the special token, and package mask refuses a
// grammar with a literal that is exactly a special token's text, since it
// almost surely meant the token.
func Token(name string) *Expr { return &Expr{Op: OpToken, TokenNames: []string{name}} }

// TokenIDs matches one token whose id is one of ids.
func TokenIDs(ids ...int) *Expr {
	rs := make([]TokenRange, len(ids))
	for i, id := range ids {
		rs[i] = TokenRange{id, id}
	}
	return TokenSet(false, nil, rs)
}

// TokenSet matches one token named by its text in names or by its id in
// ranges; with negate, one token named by neither. A negated set (AnyToken
// included) matches special tokens, but never a stop token or an id the
// vocabulary has no token for: a stop token is allowed where the grammar
// names it, and where the grammar may end. The ranges are normalized.
func TokenSet(negate bool, names []string, ranges []TokenRange) *Expr {
	return &Expr{Op: OpToken, Negate: negate, TokenNames: names, Tokens: NormalizeTokenRanges(ranges)}
}

// AnyToken matches any one token (see TokenSet).
func AnyToken() *Expr { return &Expr{Op: OpToken, Negate: true} }

// Text matches any UTF-8 text in which none of excludes occurs: it may end
// with part of one, but holds none whole. It is the free text of a tool
// call's preamble (Text("<tool_call>") followed by Lit("<tool_call>") and
// the call), where plain [^\x00]* would let the text swallow the trigger.
// Empty strings in excludes are dropped.
func Text(excludes ...string) *Expr {
	var ex []string
	for _, s := range excludes {
		if s != "" {
			ex = append(ex, s)
		}
	}
	return &Expr{Op: OpText, Excludes: ex}
}

// NormalizeTokenRanges sorts ranges, drops empty ones and merges overlapping
// or adjacent ones. It returns a new slice.
func NormalizeTokenRanges(in []TokenRange) []TokenRange {
	rs := make([]TokenRange, 0, len(in))
	for _, r := range in {
		if r.Lo <= r.Hi {
			rs = append(rs, r)
		}
	}
	slices.SortFunc(rs, func(a, b TokenRange) int { return cmp.Compare(a.Lo, b.Lo) })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && (out[n-1].Hi == math.MaxInt || r.Lo <= out[n-1].Hi+1) {
			out[n-1].Hi = max(out[n-1].Hi, r.Hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// NormalizeRanges sorts ranges, clips them to [0, 0x10FFFF] and merges
// overlapping or adjacent ones. It returns a new slice.
func NormalizeRanges(in []RuneRange) []RuneRange {
	rs := make([]RuneRange, 0, len(in))
	for _, r := range in {
		if r.Lo < 0 {
			r.Lo = 0
		}
		if r.Hi > maxRune {
			r.Hi = maxRune
		}
		if r.Lo <= r.Hi {
			rs = append(rs, r)
		}
	}
	sortRanges(rs)
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.Lo <= out[n-1].Hi+1 {
			if r.Hi > out[n-1].Hi {
				out[n-1].Hi = r.Hi
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// NegateRanges returns the code points of [0, 0x10FFFF] not in rs (which must be
// normalized), leaving out the surrogates, which UTF-8 cannot encode.
func NegateRanges(rs []RuneRange) []RuneRange {
	var out []RuneRange
	next := rune(0)
	for _, r := range rs {
		if r.Lo > next {
			out = append(out, RuneRange{next, r.Lo - 1})
		}
		next = r.Hi + 1
	}
	if next <= maxRune {
		out = append(out, RuneRange{next, maxRune})
	}
	return NormalizeRanges(removeSurrogates(out))
}

const maxRune = 0x10FFFF

func removeSurrogates(rs []RuneRange) []RuneRange {
	var out []RuneRange
	for _, r := range rs {
		if r.Hi < 0xD800 || r.Lo > 0xDFFF {
			out = append(out, r)
			continue
		}
		if r.Lo < 0xD800 {
			out = append(out, RuneRange{r.Lo, 0xD7FF})
		}
		if r.Hi > 0xDFFF {
			out = append(out, RuneRange{0xE000, r.Hi})
		}
	}
	return out
}

func sortRanges(rs []RuneRange) {
	// insertion sort is enough for the small classes grammars use; fall back to
	// a simple merge sort for large ones to stay O(n log n).
	if len(rs) > 32 {
		mid := len(rs) / 2
		a := append([]RuneRange(nil), rs[:mid]...)
		b := append([]RuneRange(nil), rs[mid:]...)
		sortRanges(a)
		sortRanges(b)
		i, j, k := 0, 0, 0
		for i < len(a) && j < len(b) {
			if a[i].Lo <= b[j].Lo {
				rs[k] = a[i]
				i++
			} else {
				rs[k] = b[j]
				j++
			}
			k++
		}
		k += copy(rs[k:], a[i:])
		copy(rs[k:], b[j:])
		return
	}
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].Lo < rs[j-1].Lo; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// String renders the expression as GBNF, as Grammar.String does; a
// reference to a rule shows as <rule N>, since the expression alone does not
// know the rules' names.
func (e *Expr) String() string {
	var b strings.Builder
	e.write(&b, nil)
	return b.String()
}

// write writes e as GBNF, naming the rule of a reference by names (nil: as
// <rule N>). It keeps its own stack, so it works whatever e's depth.
func (e *Expr) write(b *strings.Builder, names []string) {
	type frame struct {
		e    *Expr
		done int // parts written so far
	}
	stack := []frame{{e: e}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		x := top.e
		switch {
		case x != nil && (x.Op == OpSeq || x.Op == OpAlt) && len(x.Subs) > 0:
			if top.done == len(x.Subs) {
				b.WriteByte(')')
				stack = stack[:len(stack)-1]
				continue
			}
			switch {
			case top.done == 0:
				b.WriteByte('(')
			case x.Op == OpAlt:
				b.WriteString(" | ")
			default:
				b.WriteByte(' ')
			}
			top.done++
			stack = append(stack, frame{e: x.Subs[top.done-1]})
		case x != nil && x.Op == OpRepeat && len(x.Subs) == 1 && top.done == 0:
			// A repetition of a repetition is grouped: ParseGBNF refuses
			// stacked operators ("a"++).
			top.done++
			if isRepeat(x.Subs[0]) {
				b.WriteByte('(')
			}
			stack = append(stack, frame{e: x.Subs[0]})
		case x != nil && x.Op == OpRepeat && len(x.Subs) == 1:
			if isRepeat(x.Subs[0]) {
				b.WriteByte(')')
			}
			switch {
			case x.Max < 0:
				fmt.Fprintf(b, "{%d,}", x.Min)
			case x.Min == x.Max:
				fmt.Fprintf(b, "{%d}", x.Min)
			default:
				fmt.Fprintf(b, "{%d,%d}", x.Min, x.Max)
			}
			stack = stack[:len(stack)-1]
		default:
			writeLeaf(b, x, names)
			stack = stack[:len(stack)-1]
		}
	}
}

func isRepeat(e *Expr) bool { return e != nil && e.Op == OpRepeat && len(e.Subs) == 1 }

// writeLeaf writes an expression without parts, or one whose parts GBNF
// cannot spell: an empty sequence is the empty string, and an empty
// alternation, which matches nothing, is written "[]", which does not read
// back (GBNF has no spelling for the empty language).
func writeLeaf(b *strings.Builder, e *Expr, names []string) {
	if e == nil {
		b.WriteString("<nil>")
		return
	}
	switch e.Op {
	case OpEmpty, OpSeq:
		b.WriteString(`""`)
	case OpAlt:
		b.WriteString("[]")
	case OpBytes:
		if e.Special {
			b.WriteString("%lit_tokens ")
		}
		writeLiteral(b, e.Bytes)
	case OpClass:
		b.WriteByte('[')
		for _, r := range e.Ranges {
			writeClassRune(b, r.Lo)
			if r.Hi != r.Lo {
				b.WriteByte('-')
				writeClassRune(b, r.Hi)
			}
		}
		b.WriteByte(']')
	case OpRepeat:
		b.WriteString("<repeat without one part>")
	case OpRef:
		if e.Rule >= 0 && e.Rule < len(names) {
			b.WriteString(names[e.Rule])
		} else {
			fmt.Fprintf(b, "<rule %d>", e.Rule)
		}
	case OpRegex:
		writeRegex(b, e.Regexp)
	case OpToken:
		writeToken(b, e)
	case OpText:
		if len(e.Excludes) == 0 {
			b.WriteString("%text")
			return
		}
		b.WriteString("%text -(")
		for i, x := range e.Excludes {
			if i > 0 {
				b.WriteString(" | ")
			}
			writeLiteral(b, []byte(x))
		}
		b.WriteByte(')')
	default:
		fmt.Fprintf(b, "<operator %d>", e.Op)
	}
}

// writeRegex writes re between slashes, as ParseGBNF reads it: a slash in the
// expression is escaped, and line breaks are written as escapes so that the
// rule stays on one line.
func writeRegex(b *strings.Builder, re *syntax.Regexp) {
	s := ""
	if re != nil {
		s = re.String()
	}
	b.WriteByte('/')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b.WriteByte(c)
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '/':
			b.WriteString(`\/`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('/')
}

// writeToken writes a token terminal as GBNF reads it: <name> (or !<name>)
// for one token by its text where the text has that shape, else <[...]>
// with ids, ranges and quoted texts, <[^...]> when negated and <[*]> for
// any token.
func writeToken(b *strings.Builder, e *Expr) {
	if len(e.Tokens) == 0 && len(e.TokenNames) == 1 && isTokenName(e.TokenNames[0]) {
		if e.Negate {
			b.WriteByte('!')
		}
		b.WriteString(e.TokenNames[0])
		return
	}
	b.WriteString("<[")
	if e.Negate {
		if len(e.Tokens) == 0 && len(e.TokenNames) == 0 {
			b.WriteString("*]>")
			return
		}
		b.WriteByte('^')
	}
	sep := ""
	for _, r := range e.Tokens {
		b.WriteString(sep)
		if r.Lo == r.Hi {
			fmt.Fprintf(b, "%d", r.Lo)
		} else {
			fmt.Fprintf(b, "%d-%d", r.Lo, r.Hi)
		}
		sep = ","
	}
	for _, n := range e.TokenNames {
		b.WriteString(sep)
		writeLiteral(b, []byte(n))
		sep = ","
	}
	b.WriteString("]>")
}

// isTokenName reports whether GBNF can write the token text s as <...>: it
// is valid UTF-8, starts with '<' and ends with the first '>', has something
// in between that does not start with '[', and nothing in between that
// gbnfTokenNameByte refuses.
func isTokenName(s string) bool {
	if len(s) < 3 || s[0] != '<' || s[1] == '[' || s[len(s)-1] != '>' || !utf8.ValidString(s) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if !gbnfTokenNameByte(s[i]) {
			return false
		}
	}
	return true
}

// gbnfTokenNameByte reports whether c may stand inside <...>, a token
// named by its text: anything but '>', blanks and other control
// characters, quotes and backslashes.
func gbnfTokenNameByte(c byte) bool {
	return c > ' ' && c != 0x7F && c != '>' && c != '"' && c != '\\'
}

// writeLiteral writes bs as a GBNF string literal, with only the escapes
// ParseGBNF reads. A byte that is not part of valid UTF-8 (which no GBNF
// literal can hold) is written as \xNN, the code point of that value.
func writeLiteral(b *strings.Builder, bs []byte) {
	b.WriteByte('"')
	for len(bs) > 0 {
		r, n := utf8.DecodeRune(bs)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(b, `\x%02x`, bs[0])
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			writeRune(b, r)
		}
		bs = bs[n:]
	}
	b.WriteByte('"')
}

// writeRune writes r as GBNF reads it inside a literal: itself when
// printable, else an escape (lower-case hex, as strconv.Quote writes).
func writeRune(b *strings.Builder, r rune) {
	switch {
	case r == '\t':
		b.WriteString(`\t`)
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case unicode.IsPrint(r):
		b.WriteRune(r)
	case r < 0x80:
		fmt.Fprintf(b, `\x%02x`, r)
	case r > 0xFFFF:
		fmt.Fprintf(b, `\U%08x`, r)
	default:
		fmt.Fprintf(b, `\u%04x`, r)
	}
}

func writeClassRune(b *strings.Builder, r rune) {
	switch {
	case r == '^':
		// "[^" opens a negated class, and GBNF has no \^ escape.
		b.WriteString(`\x5E`)
	case r == '\\' || r == ']' || r == '-':
		b.WriteByte('\\')
		b.WriteRune(r)
	case r < 0x80 && !unicode.IsPrint(r):
		fmt.Fprintf(b, `\x%02X`, r)
	case r > 0xFFFF:
		fmt.Fprintf(b, `\U%08X`, r)
	case !unicode.IsPrint(r):
		fmt.Fprintf(b, `\u%04X`, r)
	default:
		b.WriteRune(r)
	}
}

// String renders the grammar as GBNF, one rule a line, the root first and
// the others in their order, in the dialect ParseGBNFOptions reads: parsed
// back (with the root's printed name as GBNFOptions.Root), the text gives
// the same rules with the same expressions, up to these normalizations:
//
//   - the rules are numbered in the order their names first appear in the
//     text, so indices may differ; names do not, except that a name GBNF
//     cannot spell (characters other than [a-zA-Z0-9-], or a name two rules
//     share) is written with '-' for each such character and a suffix "-2",
//     "-3", ... that makes it unique, and "" and "-" are written "rule";
//   - a sequence or alternation of one part reads back as that part, an
//     empty sequence as the empty string, and an expression shared by
//     several places as copies of it;
//   - a regular expression reads back as one equivalent to it (regexp/syntax
//     prints a parsed expression in its own normal form);
//   - a class's code points outside UTF-8 (the surrogates) are dropped.
//
// What GBNF cannot spell does not read back: bytes that are not UTF-8 in a
// literal (written as \xNN, which reads as the code point U+00NN), token ids
// above 2^31-1, an empty class or alternation (the empty language), and
// counts or nesting beyond the GBNF limits of the reader.
func (g *Grammar) String() string {
	var b strings.Builder
	names := gbnfRuleNames(g)
	write := func(i int) {
		b.WriteString(names[i])
		b.WriteString(" ::= ")
		g.Rules[i].Body.write(&b, names)
		b.WriteByte('\n')
	}
	root := g.Root
	if root >= 0 && root < len(g.Rules) {
		write(root)
	}
	for i := range g.Rules {
		if i != root {
			write(i)
		}
	}
	return b.String()
}

// gbnfRuleNames returns the names the rules of g have in GBNF: their own
// where GBNF can spell them and no earlier rule has it, else one made of it
// by writing '-' for each character GBNF cannot spell and adding a suffix
// that makes it unique.
func gbnfRuleNames(g *Grammar) []string {
	names := make([]string, len(g.Rules))
	used := make(map[string]bool, len(g.Rules))
	for i, r := range g.Rules {
		if isGBNFName(r.Name) && !used[r.Name] {
			names[i] = r.Name
			used[r.Name] = true
		}
	}
	for i, r := range g.Rules {
		if names[i] != "" {
			continue
		}
		name := []rune(r.Name)
		for j, c := range name {
			if c >= utf8.RuneSelf || !gbnfIsWordChar(byte(c)) {
				name[j] = '-'
			}
		}
		if !isGBNFName(string(name)) {
			name = []rune("rule")
		}
		names[i] = uniqueName(used, string(name))
	}
	return names
}

// isGBNFName reports whether s is a rule name GBNF can spell, and can
// print anywhere: "-" cannot follow %text, where "-(" starts the strings it
// excludes.
func isGBNFName(s string) bool {
	if s == "" || s == "-" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !gbnfIsWordChar(s[i]) {
			return false
		}
	}
	return true
}

// Validate checks the structural invariants the compiler relies on: the root and
// every reference name an existing rule, repeats have one sub and sane bounds,
// classes are normalized and regexes are present. Front-ends call it before
// returning a grammar; hand-built grammars should too.
func (g *Grammar) Validate() error {
	if len(g.Rules) == 0 {
		return fmt.Errorf("grammar: no rules")
	}
	if g.Root < 0 || g.Root >= len(g.Rules) {
		return fmt.Errorf("grammar: root %d out of range", g.Root)
	}
	for i, r := range g.Rules {
		if r.Body == nil {
			return fmt.Errorf("grammar: rule %q has no body", r.Name)
		}
		if r.MaxTokens < 0 {
			return fmt.Errorf("grammar: rule %q: negative MaxTokens %d", r.Name, r.MaxTokens)
		}
		if u := r.Unique; u != nil {
			if err := u.validate(r.Name, true); err != nil {
				return err
			}
		}
		if err := g.validExpr(r.Body); err != nil {
			return fmt.Errorf("grammar: rule %q (%d): %w", r.Name, i, err)
		}
	}
	return nil
}

func (g *Grammar) validExpr(e *Expr) error {
	switch e.Op {
	case OpEmpty:
	case OpBytes:
		if len(e.Bytes) == 0 {
			return fmt.Errorf("empty byte literal (use Empty)")
		}
		if bytes.IndexByte(e.Bytes, ReservedByte) >= 0 {
			return fmt.Errorf("literal %s holds byte 0x%X, which no UTF-8 text has and which is reserved for token terminals", e, ReservedByte)
		}
	case OpClass:
		for i, r := range e.Ranges {
			if r.Lo > r.Hi || r.Lo < 0 || r.Hi > maxRune || (i > 0 && r.Lo <= e.Ranges[i-1].Hi+1) {
				return fmt.Errorf("class %s is not normalized", e)
			}
		}
	case OpSeq, OpAlt:
		for _, s := range e.Subs {
			if s == nil {
				return fmt.Errorf("nil part")
			}
			if err := g.validExpr(s); err != nil {
				return err
			}
		}
	case OpRepeat:
		if len(e.Subs) != 1 || e.Subs[0] == nil {
			return fmt.Errorf("repeat needs exactly one part")
		}
		if e.Min < 0 || (e.Max >= 0 && e.Max < e.Min) {
			return fmt.Errorf("repeat bounds {%d,%d} are invalid", e.Min, e.Max)
		}
		return g.validExpr(e.Subs[0])
	case OpRef:
		if e.Rule < 0 || e.Rule >= len(g.Rules) {
			return fmt.Errorf("reference to rule %d out of range", e.Rule)
		}
	case OpRegex:
		if e.Regexp == nil {
			return fmt.Errorf("regex without expression")
		}
	case OpToken:
		if !e.Negate && len(e.TokenNames) == 0 && len(e.Tokens) == 0 {
			return fmt.Errorf("token terminal names no token")
		}
		for _, n := range e.TokenNames {
			if n == "" {
				return fmt.Errorf("token terminal names a token by empty text")
			}
		}
		for i, r := range e.Tokens {
			if r.Hi > math.MaxInt32 {
				return fmt.Errorf("token terminal %s: id %d is past any vocabulary (ids are below 2^31)", e, r.Hi)
			}
			if r.Lo < 0 || r.Lo > r.Hi || (i > 0 && r.Lo <= e.Tokens[i-1].Hi+1) {
				return fmt.Errorf("token terminal %s: ids are not normalized", e)
			}
		}
	case OpText:
		for _, x := range e.Excludes {
			if x == "" || !utf8.ValidString(x) {
				return fmt.Errorf("text excludes %q: not a non-empty UTF-8 string", x)
			}
		}
	default:
		return fmt.Errorf("unknown expression operator %d", e.Op)
	}
	return nil
}

// isScalarJSON reports whether v is the JSON text of one string, number,
// true, false or null, with no space around it.
func isScalarJSON(v string) bool {
	if v == "" || strings.TrimSpace(v) != v || v[0] == '{' || v[0] == '[' {
		return false
	}
	return json.Valid([]byte(v))
}

// validate checks a rule's UniqueItems (top: it may have a Prefix).
func (u *UniqueItems) validate(rule string, top bool) error {
	if len(u.Prefix) > 0 && !top {
		return fmt.Errorf("grammar: rule %q: a Unique.Prefix entry has a Prefix", rule)
	}
	for i := range u.Prefix {
		if err := u.Prefix[i].validate(rule, false); err != nil {
			return err
		}
	}
	switch {
	case u.Strings > StringsSome:
		return fmt.Errorf("grammar: rule %q: unknown Unique.Strings %d", rule, u.Strings)
	case u.Numbers > NumbersInteger:
		return fmt.Errorf("grammar: rule %q: unknown Unique.Numbers %d", rule, u.Numbers)
	case u.AnyValue && (u.Strings != StringsAny || u.Numbers != NumbersAny || !hasLiterals(u.Values)):
		return fmt.Errorf("grammar: rule %q: Unique.AnyValue needs StringsAny, NumbersAny and true, false and null in Values", rule)
	}
	for _, v := range u.Values {
		if !isScalarJSON(v) {
			return fmt.Errorf("grammar: rule %q: Unique.Values holds %q, which is not a JSON string, number, true, false or null", rule, v)
		}
	}
	return nil
}

// hasLiterals reports whether values lists true, false and null.
func hasLiterals(values []string) bool {
	n := 0
	for _, lit := range []string{"true", "false", "null"} {
		if slices.Contains(values, lit) {
			n++
		}
	}
	return n == 3
}
