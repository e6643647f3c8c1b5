package fsm

import (
	"context"
	"regexp/syntax"
	"testing"
)

var benchPatterns = []struct{ name, pattern string }{
	{"json-string", `"([^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"`},
	{"email", `[a-zA-Z0-9._%+-]+@[a-zA-Z0-9-]+(\.[a-zA-Z0-9-]+)*\.[a-zA-Z]{2,}`},
	{"letters", `\p{L}+`},
	{"number", `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`},
	{"literal", `"additionalProperties"`},
	{"not-control", `\pC*0`},
}

// BenchmarkCompile measures building the NFA of a parsed pattern,
// determinizing and minimizing it: what pda pays per regex terminal.
func BenchmarkCompile(b *testing.B) {
	for _, bp := range benchPatterns {
		re, err := syntax.Parse(bp.pattern, syntax.Perl)
		if err != nil {
			b.Fatal(err)
		}
		re = re.Simplify()
		b.Run(bp.name, func(b *testing.B) {
			var states, classes int
			b.ReportAllocs()
			for b.Loop() {
				var n NFA
				s, e := n.NewState(), n.NewState()
				if err := n.Regexp(s, e, re); err != nil {
					b.Fatal(err)
				}
				d, err := Determinize(&n, s, []int{e}, 10000)
				if err != nil {
					b.Fatal(err)
				}
				m := d.Minimize()
				states, classes = m.NumStates(), m.NumClasses
			}
			b.ReportMetric(float64(states), "states")
			b.ReportMetric(float64(classes), "classes")
		})
	}
}

// BenchmarkStages splits BenchmarkCompile into its three stages.
func BenchmarkStages(b *testing.B) {
	for _, bp := range benchPatterns {
		re, err := syntax.Parse(bp.pattern, syntax.Perl)
		if err != nil {
			b.Fatal(err)
		}
		re = re.Simplify()
		var n NFA
		s, e := n.NewState(), n.NewState()
		if err := n.Regexp(s, e, re); err != nil {
			b.Fatal(err)
		}
		d, err := Determinize(&n, s, []int{e}, 10000)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bp.name+"/nfa", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var n NFA
				s, e := n.NewState(), n.NewState()
				_ = n.Regexp(s, e, re)
			}
		})
		b.Run(bp.name+"/determinize", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = Determinize(&n, s, []int{e}, 10000)
			}
		})
		b.Run(bp.name+"/minimize", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d.Minimize()
			}
		})
	}
}

// BenchmarkMatch measures the DFA's byte loop.
func BenchmarkMatch(b *testing.B) {
	d := mustMinimal(b, benchPatterns[0].pattern)
	input := []byte(`"Grüße aus Köln, \"Zürich\" und 東京 — \u00e9t\u00e9 \ud83d\ude00 and a long tail of plain ASCII text to read"`)
	if !d.Match(input) {
		b.Fatal("no match")
	}
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	for b.Loop() {
		d.Match(input)
	}
}

// BenchmarkForcedBytes measures the look-up, which must not allocate.
func BenchmarkForcedBytes(b *testing.B) {
	d := mustMinimal(b, `\{"name":"[a-z]+","age":[0-9]+\}`)
	b.ReportAllocs()
	for b.Loop() {
		for s := range int32(d.NumStates()) {
			_ = d.ForcedBytes(s)
		}
	}
	b.ReportMetric(float64(d.NumStates()), "states")
}

// BenchmarkRuneDFA measures the code-point automata of a JSON Schema string
// constraint: a pattern, its intersection with length bounds and with the
// complement of another pattern, and state elimination back to a regexp.
func BenchmarkRuneDFA(b *testing.B) {
	ctx := context.Background()
	parse := func(p string) *syntax.Regexp {
		re, err := syntax.Parse(p, syntax.Perl)
		if err != nil {
			b.Fatal(err)
		}
		return re
	}
	pattern, not := parse(`(?s).*[a-z]+@[a-z]+\.[a-z]{2,}.*`), parse(`(?s).*\.\..*`)
	var states int
	b.ReportAllocs()
	for b.Loop() {
		d, err := RuneRegexp(ctx, pattern, 4000)
		if err != nil {
			b.Fatal(err)
		}
		n, err := RuneRegexp(ctx, not, 4000)
		if err != nil {
			b.Fatal(err)
		}
		l, err := RuneLength(ScalarValues(), 0, 10, 4000)
		if err != nil {
			b.Fatal(err)
		}
		if d, err = d.Intersect(ctx, l, 4000); err != nil {
			b.Fatal(err)
		}
		if d, err = d.Intersect(ctx, n.Complement(ScalarValues()), 4000); err != nil {
			b.Fatal(err)
		}
		if _, err := d.ToRegexp(ctx, RegexpLimits{}); err != nil {
			b.Fatal(err)
		}
		states = d.NumStates()
	}
	b.ReportMetric(float64(states), "states")
}
