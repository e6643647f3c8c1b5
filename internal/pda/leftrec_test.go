package pda

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
)

// TestLongLeftRecursiveChain: a cycle of left calls through thousands of
// rules is found without recursion, and the error lists a few of them.
func TestLongLeftRecursiveChain(t *testing.T) {
	const n = 20000
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "r%d ::= r%d \"a\" | \"b\"\n", i, (i+1)%n)
	}
	g, err := grammar.ParseGBNF(b.String(), "r0", grammar.Limits{})
	require.NoError(t, err)
	_, err = Compile(g, grammar.Limits{})
	require.ErrorIs(t, err, ErrLeftRecursion)
	assert.Contains(t, err.Error(), `(r0 -> r1 -> r2 -> r3 -> r4 -> r5 -> … 19994 rules … -> r0)`)
	assert.Less(t, len(err.Error()), 300)
}
