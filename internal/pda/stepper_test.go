package pda

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
)

// stacks renders tops as their whole stacks (node, then the return nodes
// below it; a join stands for each of its members), sorted and distinct, so
// configurations of a State and of a Stepper, whose frame ids differ, can be
// compared.
func stacks(tops []Top, c *closer) []string {
	var out []string
	var walk func(prefix string, f int32)
	walk = func(prefix string, f int32) {
		if f < 0 {
			out = append(out, prefix)
			return
		}
		fr := c.frames[f]
		if fr.ret == joinRet {
			for _, m := range c.joinMembers(fr) {
				walk(prefix, m)
			}
			return
		}
		walk(prefix+fmt.Sprintf(" %d", fr.ret), fr.parent)
	}
	for _, t := range tops {
		walk(fmt.Sprint(t.Node), t.Frame)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestStepperMatchesState runs random byte walks from every node with an
// unknown caller through a State and a Stepper and checks that they reach
// the same stacks and agree on whether the rule may have ended.
func TestStepperMatchesState(t *testing.T) {
	p, err := Compile(grammar.JSON(), grammar.Limits{})
	require.NoError(t, err)
	stepperMatchesState(t, p, []byte(`{}[]",: 0123456789-.eEtrufalsn\xé`+"\t\n"), 40, 5000)
	// Ambiguous recursions, where stacks merge into joins on every byte;
	// short walks, as stacks renders every stack a join stands for (k^n).
	for _, k := range []int{2, 3} {
		stepperMatchesState(t, kWay(t, k), []byte("aaaaxbcd"), 8, 100)
	}
}

func stepperMatchesState(t *testing.T, p *Program, alphabet []byte, walk, minSteps int) {
	rng := rand.New(rand.NewPCG(1, 2))
	st, sp := NewState(p), NewStepper(p)
	steps := 0
	for n := int32(0); n < int32(p.NumNodes()); n++ {
		if !p.HasBytes(n) {
			continue
		}
		for range 20 {
			st.ResetAt(n)
			sp.Reset(nil)
			tops := []Top{{n, -1}}
			for step := 0; step < walk; step++ {
				// Mostly bytes the walk can take, sometimes any byte.
				var b byte
				for k := 0; k < 8 && st.Depth() == step; k++ {
					b = alphabet[rng.IntN(len(alphabet))]
					st.Advance(b)
				}
				if st.Depth() == step {
					out, end := sp.Step(tops, b)
					require.True(t, len(out) == 0 && !end, "node %d: the State refused %q, the Stepper did not", n, b)
					break
				}
				out, end := sp.Step(tops, b)
				steps++
				require.Equal(t, st.CanEnd(), end, "node %d byte %q", n, b)
				require.Equal(t, stacks(st.Tops(), &st.closer), stacks(out, &sp.closer), "node %d byte %q", n, b)
				tops = slices.Clone(out)
			}
		}
	}
	assert.Greater(t, steps, minSteps)
}

// TestStepperClose checks that Close gives the configuration a byte leads
// to: for every node m and byte b with a target n in m's rule, stepping
// {m} on b reaches the stacks of Close(n), whether n has bytes of its own
// or only calls rules.
func TestStepperClose(t *testing.T) {
	g := grammar.JSON()
	p, err := Compile(g, grammar.Limits{})
	require.NoError(t, err)
	s := NewStepper(p)
	checked := 0
	for m := int32(0); m < int32(p.NumNodes()); m++ {
		for b := range 256 {
			n := p.Next(m, byte(b))
			if n < 0 {
				continue
			}
			stepped, end := s.Step([]Top{{Node: m, Frame: -1}}, byte(b))
			want, wantEnd := stacks(stepped, &s.closer), end
			closed, end := s.Close(n)
			require.False(t, s.Overflowed())
			assert.Equal(t, want, stacks(closed, &s.closer), "node %d on %q", m, rune(b))
			assert.Equal(t, wantEnd, end, "node %d on %q", m, rune(b))
			checked++
		}
	}
	assert.Positive(t, checked)
}
