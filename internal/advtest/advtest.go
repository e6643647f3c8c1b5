// Package advtest generates adversarial inputs for rein's tests and fuzz
// targets: ambiguous recursive grammars and schemas whose every prefix keeps
// several parses alive (so a pushdown state that does not share equal
// continuations multiplies its stacks), and small random GBNF grammars drawn
// from a fuzzer's bytes.
package advtest

import (
	"fmt"
	"strings"
)

// Case is an adversarial input: a GBNF grammar (root rule "root") or a JSON
// Schema, and the prefix that, repeated, drives it into its ambiguity.
type Case struct {
	Name   string
	GBNF   string // set for grammars
	Schema string // set for JSON Schemas
	Prefix string // feed it Repeat times
	Repeat int
}

// Ambiguous returns the k-way ambiguous recursion
//
//	root ::= s
//	s    ::= "a" t1 | ... | "a" tk | "x"
//	ti   ::= s "bi"
//
// where bi is the i-th letter from b. After n a's, a state that keeps one
// stack per parse holds k^n stacks; they all continue with s.
func Ambiguous(k int) string {
	var b strings.Builder
	b.WriteString("root ::= s\ns ::= ")
	for i := 1; i <= k; i++ {
		fmt.Fprintf(&b, "\"a\" t%d | ", i)
	}
	b.WriteString("\"x\"\n")
	for i := 1; i <= k; i++ {
		fmt.Fprintf(&b, "t%d ::= s %q\n", i, string(rune('a'+i)))
	}
	return b.String()
}

// NestedDiamond returns a recursion through depth nested diamonds: after
// "a", the call to s passes through depth choices of two rules that return
// the same way, so each a doubles the parses depth times.
//
//	root ::= s
//	s    ::= "a" p0 | "x"
//	pi   ::= li | ri
//	li   ::= p(i+1) "y"
//	ri   ::= p(i+1) "y"
//	p(depth) ::= s
func NestedDiamond(depth int) string {
	var b strings.Builder
	b.WriteString("root ::= s\ns ::= \"a\" p0 | \"x\"\n")
	for i := 0; i < depth; i++ {
		fmt.Fprintf(&b, "p%d ::= l%d | r%d\nl%d ::= p%d \"y\"\nr%d ::= p%d \"y\"\n", i, i, i, i, i+1, i, i+1)
	}
	fmt.Fprintf(&b, "p%d ::= s\n", depth)
	return b.String()
}

// AmbiguousSchema returns the JSON Schema form of Ambiguous(k): an anyOf of
// k array schemas whose items $ref back to the anyOf (through one more
// anyOf), so that every "[" opens k parses. k = 2 is about 350 bytes.
func AmbiguousSchema(k int) string {
	kinds := []string{"integer", "string", "boolean", "number"}
	var defs, alts []string
	for i := 1; i <= k; i++ {
		alts = append(alts, fmt.Sprintf(`{"type":"array","items":{"$ref":"#/$defs/t%d"}}`, i))
		defs = append(defs, fmt.Sprintf(`"t%d":{"anyOf":[{"$ref":"#/$defs/s"},{"type":%q}]}`, i, kinds[(i-1)%len(kinds)]))
	}
	alts = append(alts, `{"type":"null"}`)
	return fmt.Sprintf(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$ref":"#/$defs/s","$defs":{"s":{"anyOf":[%s]},%s}}`,
		strings.Join(alts, ","), strings.Join(defs, ","))
}

// Cases lists the adversarial grammars and schemas with their prefixes, each
// fed 20 to 40 times its recursive step (12 for the schemas, whose step
// costs more).
func Cases() []Case {
	return []Case{
		{Name: "ambiguous2", GBNF: Ambiguous(2), Prefix: "a", Repeat: 20},
		{Name: "ambiguous3", GBNF: Ambiguous(3), Prefix: "a", Repeat: 20},
		{Name: "ambiguous5", GBNF: Ambiguous(5), Prefix: "a", Repeat: 30},
		{Name: "diamond2", GBNF: NestedDiamond(2), Prefix: "a", Repeat: 20},
		{Name: "diamond4", GBNF: NestedDiamond(4), Prefix: "a", Repeat: 40},
		{Name: "schema2", Schema: AmbiguousSchema(2), Prefix: "[", Repeat: 12},
		{Name: "schema3", Schema: AmbiguousSchema(3), Prefix: "[", Repeat: 12},
	}
}

// RandomGBNF draws a small GBNF grammar from data, a fuzzer's bytes: up to
// four rules (the first is root) whose bodies mix literals, character
// classes, sequences, alternations, repetitions and references to any rule,
// so recursion (left, right, ambiguous) appears. Expressions nest at most
// three deep. Some grammars do not compile (left recursion, an empty
// language); that is for the caller to expect. It also returns the bytes of
// data it did not read, for the caller to drive a matcher with.
func RandomGBNF(data []byte) (src string, rest []byte) {
	r := &reader{data: data}
	if r.next()%4 == 0 {
		// One of the ambiguous families, small enough to walk.
		if r.next()%2 == 0 {
			return Ambiguous(2 + int(r.next()%2)), r.rest()
		}
		return NestedDiamond(1 + int(r.next()%2)), r.rest()
	}
	n := 1 + int(r.next()%4)
	names := []string{"root", "s", "t", "u"}[:n]
	var b strings.Builder
	for _, name := range names {
		fmt.Fprintf(&b, "%s ::= %s\n", name, r.expr(names, 0))
	}
	return b.String(), r.rest()
}

var (
	literals = []string{`"a"`, `"b"`, `"x"`, `"ab"`, `"{"`, `"}"`, `","`, `" "`, `"\""`, `"é"`, `"\n"`, `"abc"`}
	classes  = []string{`[a-c]`, `[0-9]`, `[^a]`, `[a-zA-Z_]`, `[ \t]`, `[é-ü]`, `[^"\\]`}
)

type reader struct {
	data []byte
	i    int
}

// next returns the next byte of data, 0 once it is spent.
func (r *reader) next() byte {
	if r.i >= len(r.data) {
		return 0
	}
	c := r.data[r.i]
	r.i++
	return c
}

func (r *reader) rest() []byte { return r.data[min(r.i, len(r.data)):] }

func (r *reader) expr(names []string, depth int) string {
	op := r.next() % 8
	if depth >= 3 && op >= 4 {
		op %= 4
	}
	switch op {
	case 0, 1:
		return literals[int(r.next())%len(literals)]
	case 2:
		return classes[int(r.next())%len(classes)]
	case 3:
		return names[int(r.next())%len(names)]
	case 4, 5:
		n := 2 + int(r.next()%2)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = r.expr(names, depth+1)
		}
		sep := " "
		if op == 5 {
			sep = " | "
		}
		return "(" + strings.Join(parts, sep) + ")"
	case 6:
		return r.expr(names, depth+1) + []string{"*", "+", "?", "{2}", "{1,3}", "{0,2}"}[int(r.next())%6]
	default:
		// A recursive alternative with a terminal ahead of the call, so the
		// recursion is not left recursion.
		return "(" + literals[int(r.next())%len(literals)] + " " + names[int(r.next())%len(names)] + " | " + r.expr(names, depth+1) + ")"
	}
}
