package mask

import (
	"fmt"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/byteset"
	"github.com/reinlm/rein/internal/vocabtest"
)

// TestAfterFirstSets checks containingAfter and withoutAfter against their
// definition, token by token: of the tokens that start with a byte, those
// with a byte of a set after it (or not whole UTF-8), and the others. The
// two split the run of that byte.
func TestAfterFirstSets(t *testing.T) {
	for _, name := range vocabtest.Available("llama3", "mistral") {
		t.Run(name, func(t *testing.T) {
			v := indexVocab(vocabtest.Load(t, name))
			var quote, space byteset.Set
			quote.Add('"')
			quote.Add('\\')
			space.Add(' ')
			for _, tc := range []struct {
				first byte
				key   byteKey
			}{
				{' ', byteKey{bytes: quote, wholeUTF8: true}},
				{' ', byteKey{bytes: space}},
				{'a', byteKey{bytes: quote}},
			} {
				name := fmt.Sprintf("%v after %q", tc.key, tc.first)
				list, ok := v.perTrie.sets.containingAfter(v, tc.first, tc.key)
				require.True(t, ok)
				row, ok := v.perTrie.sets.withoutAfter(v, tc.first, tc.key)
				require.True(t, ok)
				ids := v.IDs()
				var want []int32
				run := 0
				for p := range v.Len() {
					tok := v.Token(p)
					if tok[0] != tc.first {
						assert.Zero(t, row[ids[p]>>5]&(1<<(uint32(ids[p])&31)), "%s: %q is in the row", name, tok)
						continue
					}
					run++
					in := slices.ContainsFunc(tok[1:], func(c byte) bool { return tc.key.bytes.Has(c) }) || tc.key.wholeUTF8 && !utf8.Valid(tok)
					if in {
						want = append(want, int32(p))
					}
					assert.Equal(t, !in, row[ids[p]>>5]&(1<<(uint32(ids[p])&31)) != 0, "%s: %q", name, tok)
				}
				assert.Equal(t, want, list, name)
				assert.Positive(t, run, name)
			}
		})
	}
}
