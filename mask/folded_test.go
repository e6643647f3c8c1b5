package mask

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
)

// TestFoldedTrie checks the folded trie against the trie it folds: every
// token ends at exactly one node, the one its folded bytes spell, and a
// node's subtree holds the tokens whose folded bytes start with its path.
func TestFoldedTrie(t *testing.T) {
	for _, name := range vocabtest.Available("gpt2", "llama3", "qwen3", "mistral") {
		t.Run(name, func(t *testing.T) {
			voc := indexVocab(vocabtest.Load(t, name))
			f := voc.perTrie.folded
			require.Len(t, f.at, len(f.fold)+1)
			seen := make([]bool, voc.Len())
			spell := make([][]byte, len(f.fold))
			for i := 1; i < len(f.fold); i++ {
				// The parent is the last node before i one byte shallower.
				parent := i - 1
				for f.depth[parent] != f.depth[i]-1 {
					parent--
				}
				require.Less(t, int32(i), f.end[parent], "node %d lies in its parent's subtree", i)
				spell[i] = append(append([]byte(nil), spell[parent]...), f.fold[i])
				require.Equal(t, foldOf[f.step[i]], f.fold[i])
				for _, p := range f.toks[f.at[i]:f.at[i+1]] {
					require.False(t, seen[p], "token %d at one node", p)
					seen[p] = true
					tok := voc.Token(int(p))
					folded := make([]byte, len(tok))
					for k, b := range tok {
						folded[k] = foldOf[b]
					}
					require.Equal(t, spell[i], folded, "token %d %q", p, tok)
				}
			}
			for p, ok := range seen {
				require.True(t, ok, "token %d has a node", p)
			}
			t.Logf("%d trie positions fold into %d nodes", voc.Len(), len(f.fold))
		})
	}
}

// foldedGrammars add to the wide grammars some whose states tell letters
// or digits apart at once (hex digits, a keyword's letters), where the
// folded walk goes byte by byte below the root, and a string that counts
// words within a maxLength, whose positions it is for.
func foldedGrammars(t *testing.T) map[string]*grammar.Grammar {
	grammars := wideGrammars(t)
	for _, schema := range []string{
		`{"type":"object","properties":{"text":{"type":"string","maxLength":200,"minLength":1,"pattern":"^(?:\\S+\\s+){0,19}\\S+$"}}}`,
		`{"type":"string","pattern":"^[0-9a-f]{6}$"}`,
		`{"enum":["alpha","beta","gamma",12,true]}`,
	} {
		g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{})
		require.NoError(t, err, schema)
		grammars[schema] = g
	}
	return grammars
}

// TestClassifyFolded checks the classification through the folded trie
// against the reference at every wide node of grammars of every kind, on
// byte-level and byte-fallback vocabularies (every third on the large
// ones), and that it takes most of them, so that the check is not empty.
func TestClassifyFolded(t *testing.T) {
	grammars := foldedGrammars(t)
	names := vocabtest.Available("gpt2", "llama3", "qwen3", "mistral")
	if race.Enabled || testing.Short() {
		names = names[:1]
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			voc := indexVocab(vocabtest.Load(t, name))
			// The reference runs every token: on the large vocabularies,
			// every third wide node is checked.
			every := 1
			if voc.Len() > 100_000 {
				every = 3
			}
			seen, tried := 0, 0
			wide, taken := eachWideNode(t, grammars, voc, func(a *walkDFA, n int32, stride int) (*nodeIndex, bool) {
				if seen++; seen%every != 0 {
					return nil, false
				}
				tried++
				return a.classifyFolded(voc, stride, 0)
			})
			t.Logf("%d wide nodes, %d tried, %d classified through the folded trie", wide, tried, taken)
			assert.Greater(t, 2*taken, tried, "most wide nodes are classified through the folded trie")
		})
	}
}
