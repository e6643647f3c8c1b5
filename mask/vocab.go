package mask

import (
	"encoding/binary"
	"slices"
	"sync"

	"github.com/reinlm/rein/internal/pervocab"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/toktrie"
)

// vocabIndex is what a compiled grammar knows of its vocabulary: the token
// trie, which the vocabulary owns and every copy of it shares, the stop
// tokens of this copy, and the node classifications shared between the
// grammars of every vocabulary with the same trie and stop tokens. Walking
// the trie's sorted tokens in order is a depth-first walk of the trie. The
// trie keeps stop tokens that are not special; classifying leaves them out
// (see newNodeIndex), since a stop token is allowed exactly when the
// grammar can end, whatever its bytes.
type vocabIndex struct {
	*toktrie.Trie
	size      int     // token ids are < size
	stops     []int32 // stop token ids
	trieStops []int32 // the stop tokens that are in the trie
	maxLen    int     // longest token, in bytes

	perTrie *trieIndex
	shared  *indexCache // node classifications shared between grammars
}

// trieIndex is what mask keeps per trie, shared by every vocabulary with
// that trie: the row of every token in it, and the shared classifications
// of each set of stop tokens in the trie (nearly always one: none, as stop
// tokens are special).
type trieIndex struct {
	all []uint32

	mu     sync.Mutex
	shared map[string]*indexCache
}

// trieIndexes holds the index of every trie in use; an index is dropped,
// with its shared classifications, once nothing holds its trie: no
// vocabulary copy and no compiled grammar.
var trieIndexes pervocab.Cache[toktrie.Trie, trieIndex]

func indexVocab(voc *tokenizer.Vocab) *vocabIndex {
	tr := voc.Trie()
	x := trieIndexes.Get(tr, buildTrieIndex)
	v := &vocabIndex{Trie: tr, size: voc.Size(), maxLen: tr.MaxLen(), perTrie: x}
	for _, id := range voc.StopTokens() {
		if id < 0 || id >= v.size || slices.Contains(v.stops, int32(id)) {
			continue
		}
		v.stops = append(v.stops, int32(id))
		if !voc.IsSpecial(id) && len(voc.Bytes(id)) > 0 {
			v.trieStops = append(v.trieStops, int32(id))
		}
	}
	v.shared = x.cache(v.trieStops)
	return v
}

func buildTrieIndex(tr *toktrie.Trie) *trieIndex {
	x := &trieIndex{all: make([]uint32, WordsPerRow(tr.Size()))}
	for _, id := range tr.IDs() {
		x.all[id>>5] |= 1 << (uint32(id) & 31)
	}
	return x
}

// cache returns the shared classifications for the stop tokens stops.
func (x *trieIndex) cache(stops []int32) *indexCache {
	key := make([]byte, 0, 4*len(stops))
	for _, id := range stops {
		key = binary.LittleEndian.AppendUint32(key, uint32(id))
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	c := x.shared[string(key)]
	if c == nil {
		c = new(indexCache)
		c.budget.Store(DefaultSharedIndexBudget)
		if x.shared == nil {
			x.shared = map[string]*indexCache{}
		}
		x.shared[string(key)] = c
	}
	return c
}

// usable reports whether some token of the trie is not a stop token: a
// grammar could allow it.
func (v *vocabIndex) usable() bool { return v.Len() > len(v.trieStops) }

// isStop reports whether id, a token of the trie, is a stop token.
func (v *vocabIndex) isStop(id int32) bool { return slices.Contains(v.trieStops, id) }
