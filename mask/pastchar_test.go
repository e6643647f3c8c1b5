package mask

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/pda"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
)

// TestClassifyPastChar checks the classification of nodes whose every
// character leads to one state (classifyPastChar) against the reference,
// every token run through the pushdown state, at every node of grammars
// with a dot or a class of nearly every character: in a JSON string
// (escapes, a dot's refused line separators) and in raw GBNF (any byte a
// character may hold), before a letter, a class, a quote, the end of the
// rule, or a choice that may end it there. It checks that the path takes
// the dotted positions, each for far fewer steps than the trie walk's
// 69,000 in Qwen3, and that it refuses a node whose one state may end the
// rule (its tokens would leave the rule after their first character).
func TestClassifyPastChar(t *testing.T) {
	programs := map[string]*pda.Program{}
	for _, pattern := range []string{
		`^uk.gov.ons.edc.eq$`,
		`^https://ils.rero.ch/api/items/.+?$`,
		`^a.[0-9]b$`,
		`^x.\"y$`,
		`^[\\s\\S]q`,
	} {
		programs[pattern] = schemaProgram(t, `{"type":"string","pattern":"`+pattern+`"}`)
	}
	for _, src := range []string{
		`root ::= "a" [^\n] "bc"`,
		`root ::= "a" [^\n] ("b" | "")`,
		`root ::= [^a] "x" | "a" "y"`, // "a" leads elsewhere, walked as it is
		`root ::= "a" [^é] "bc"`,      // é's first byte leads some characters there, refuses é
	} {
		g, err := grammar.ParseGBNF(src, "root", grammar.Limits{})
		require.NoError(t, err, src)
		p, err := pda.Compile(g, grammar.Limits{})
		require.NoError(t, err, src)
		programs[src] = p
	}
	mayEnd := programs[`root ::= "a" [^\n] ("b" | "")`]
	dot := mayEnd.Next(0, 'a') // the [^\n], after which the rule may end
	names := vocabtest.Available("qwen3", "llama3", "gpt2")
	if race.Enabled || testing.Short() {
		names = names[:1]
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			voc := indexVocab(vocabtest.Load(t, name))
			stride := WordsPerRow(voc.size)
			for gname, p := range programs {
				st := pda.NewState(p)
				taken := 0
				for n := int32(0); n < int32(p.NumNodes()); n++ {
					if !p.HasBytes(n) {
						continue
					}
					a := walkPool.Get()
					a.reset(p, n)
					x, ok := a.classifyPastChar(voc, stride)
					work := a.work
					walkPool.Put(a)
					if !ok {
						continue
					}
					taken++
					assert.Less(t, work, 20_000, "%s node %d", gname, n)
					assertSameIndex(t, voc, classifyStack(p, voc, n, st, stride), x, fmt.Sprintf("%s node %d", gname, n))
				}
				assert.Positive(t, taken, "%s: no node taken", gname)
			}
			a := walkPool.Get()
			defer walkPool.Put(a)
			a.reset(mayEnd, dot)
			_, ok := a.classifyPastChar(voc, stride)
			assert.False(t, ok, "the one state may end the rule")
		})
	}
}
