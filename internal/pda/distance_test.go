package pda

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
)

// TestDistancesMatchRelaxation checks computeDistances, which settles each
// node once in order of distance, against the plain definition: relax
// every node's byte transitions and calls until nothing changes. The
// grammars have calls whose callee is longer than their return (a string's
// escapes), recursion, counted repetitions, rules that cannot end, and the
// real JSON Schemas of the committed MaskBench sample.
func TestDistancesMatchRelaxation(t *testing.T) {
	lit, cat, or, rep, call := grammar.Lit, grammar.Cat, grammar.Or, grammar.Rep, grammar.Call
	digit := grammar.Chars(false, grammar.RuneRange{Lo: '0', Hi: '9'})
	grammars := map[string]*grammar.Grammar{
		"json":      grammar.JSON(),
		"escapes":   rules("root", cat(lit(`"`), rep(or(digit, call(1)), 0, 40), lit(`"`)), "esc", or(lit(`\n`), lit(`\u0041`))),
		"recursion": rules("root", or(lit("x"), cat(lit("("), call(0), lit(")")), cat(call(1), call(0))), "pair", lit("ab")),
		"endless":   rules("root", or(lit("a"), cat(lit("b"), call(1))), "loop", cat(lit("c"), call(1))),
		"long call": rules("root", cat(rep(digit, 0, 3), call(1), lit("!")), "long", lit("abcdefghij")),
	}
	files, err := filepath.Glob("../../testdata/maskbench-sample/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files[:min(len(files), 60)] {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var file struct{ Schema json.RawMessage }
		require.NoError(t, json.Unmarshal(raw, &file))
		g, _, err := jsonschema.Compile(file.Schema, jsonschema.Options{})
		if err != nil {
			continue // a schema rein refuses
		}
		grammars[filepath.Base(f)] = g
	}
	for name, g := range grammars {
		p, err := Compile(g, grammar.Limits{})
		if err != nil {
			continue
		}
		require.Equal(t, relaxedDistances(p), p.distances(), name)
	}
}

// relaxedDistances computes distances by relaxing every node until no
// distance improves.
func relaxedDistances(p *Program) []int32 {
	dist := make([]int32, p.numNodes)
	for i := range dist {
		dist[i] = unreachable
		if p.final[i] {
			dist[i] = 0
		}
	}
	for changed := true; changed; {
		changed = false
		for i := range p.numNodes {
			best := dist[i]
			for _, t := range p.row(i) {
				if t >= 0 && dist[t] != unreachable {
					best = min(best, dist[t]+1)
				}
			}
			for _, c := range p.calls[i] {
				if a, b := dist[c.Start], dist[c.Return]; a != unreachable && b != unreachable {
					best = min(best, a+b)
				}
			}
			if best < dist[i] {
				dist[i], changed = best, true
			}
		}
	}
	return dist
}
