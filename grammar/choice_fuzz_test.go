package grammar_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/fuzzcheck"
	"github.com/reinlm/rein/pda"
)

// FuzzChoice builds a choice grammar from options separated by NUL bytes and
// checks that its automaton accepts exactly the options: each of them, and
// neither the options' proper prefixes nor their extensions unless those are
// options too.
func FuzzChoice(f *testing.F) {
	f.Add("yes\x00no")
	f.Add("a\x00ab\x00abc")
	f.Add("\x00x")
	f.Add("日本\x00\xff\xfe\x00\"quoted\"")
	f.Fuzz(func(t *testing.T, joined string) {
		options := strings.Split(joined, "\x00")
		if len(options) > 64 {
			return
		}
		g, err := grammar.Choice(options, grammar.Limits{})
		if err != nil {
			require.Nil(t, g)
			var e *grammar.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "choice", e.Source)
			return
		}
		require.NoError(t, g.Validate())
		p := fuzzcheck.Compiles(t, joined, g)
		if p == nil {
			return
		}
		accepts := func(s string) bool {
			st := pda.NewState(p)
			return st.AdvanceBytes([]byte(s)) && st.CanEnd()
		}
		for _, o := range options {
			assert.True(t, accepts(o), "%q: option %q refused", options, o)
			for _, other := range []string{o + "x", o + "\x00", o[:len(o)/2]} {
				assert.Equal(t, slices.Contains(options, other), accepts(other), "%q: %q", options, other)
			}
		}
	})
}
