package grammar_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/oracle"
)

func TestChoice(t *testing.T) {
	tests := []struct {
		options []string
		want    string
	}{
		{[]string{"yes"}, `root ::= "yes"` + "\n"},
		{[]string{"yes", "no"}, `root ::= ("yes" | "no")` + "\n"},
		{[]string{"a", "a"}, `root ::= ("a" | "a")` + "\n"},
		{[]string{""}, `root ::= ""` + "\n"},
		{[]string{"", "x"}, `root ::= ("" | "x")` + "\n"},
		{[]string{"日本", "\x00\xfe"}, `root ::= ("日本" | "\x00\xfe")` + "\n"},
		{[]string{"a", "ab", "abc"}, `root ::= ("a" | "ab" | "abc")` + "\n"},
	}
	for _, tc := range tests {
		g, err := grammar.Choice(tc.options, grammar.Limits{})
		require.NoError(t, err, "%q", tc.options)
		require.NoError(t, g.Validate())
		assert.Equal(t, tc.want, g.String(), "%q", tc.options)
		assert.Equal(t, "root", g.Rules[g.Root].Name)
	}
}

func TestChoiceErrors(t *testing.T) {
	for _, options := range [][]string{nil, {}} {
		g, err := grammar.Choice(options, grammar.Limits{})
		assert.Nil(t, g)
		assert.EqualError(t, err, "choice: no options to choose from")
		var e *grammar.Error
		assert.True(t, errors.As(err, &e))
	}
	// 0xFF is in no UTF-8 text and spells token terminals: no literal has it.
	_, err := grammar.Choice([]string{"ok", "a\xffb"}, grammar.Limits{})
	assert.ErrorContains(t, err, "reserved for token terminals")
}

func TestChoiceAccepts(t *testing.T) {
	options := []string{"red", "green", "gr", "", "blue\n", "é"}
	g, err := grammar.Choice(options, grammar.Limits{})
	require.NoError(t, err)
	for _, s := range options {
		ok, err := oracle.Accepts(g, []byte(s))
		require.NoError(t, err)
		assert.True(t, ok, "%q", s)
	}
	for _, s := range []string{"re", "redd", "green ", "blue", "grgr", "e", "\xc3"} {
		ok, err := oracle.Accepts(g, []byte(s))
		require.NoError(t, err)
		assert.False(t, ok, "%q", s)
	}
}

// A choice list is a client's input too: its count and its bytes are bounded
// by Limits, each crossing an error wrapping ErrLimit that names the field.
func TestChoiceLimits(t *testing.T) {
	tests := []struct {
		name    string
		options []string
		lim     grammar.Limits
		field   string
	}{
		{"count", []string{"a", "b", "c"}, grammar.Limits{Enum: 2}, "Limits.Enum"},
		{"bytes", []string{"abc", "def"}, grammar.Limits{ChoiceBytes: 5}, "Limits.ChoiceBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := grammar.Choice(tt.options, grammar.Limits{})
			require.NoError(t, err, "within the defaults")
			_, err = grammar.Choice(tt.options, tt.lim)
			require.ErrorIs(t, err, grammar.ErrLimit)
			assert.Contains(t, err.Error(), tt.field)
		})
	}
}
