package mask

import (
	"slices"

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
// that trie: the row of every token in it, and the classifications shared
// by the grammars of every copy whose stop tokens are all special (nearly
// every vocabulary: stop tokens are special tokens, which the trie leaves
// out, so they change no classification).
type trieIndex struct {
	all    []uint32
	shared *indexCache
	sets   tokenSets // what wide classifications ask of the vocabulary
	folded *foldedTrie
	weight [256]int32 // per byte, the tokens with it (see walkDFA.weights)
}

// trieIndexes holds the index of every trie in use; an index is dropped,
// with its shared classifications, once nothing holds its trie: no
// vocabulary copy and no compiled grammar.
var trieIndexes pervocab.Cache[toktrie.Trie, trieIndex]

// copyCaches holds the shared classifications of each vocabulary copy that
// has stop tokens in its trie (an ordinary token made a stop token with
// Vocab.WithStopTokens): they differ from the trie's, and are dropped with
// the copy (and the grammars compiled for it), so that a server making such
// copies per request does not keep a cache per copy for good.
var copyCaches pervocab.Cache[tokenizer.Vocab, indexCache]

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
	v.shared = x.shared
	if len(v.trieStops) > 0 {
		v.shared = copyCaches.Get(voc, func(*tokenizer.Vocab) *indexCache { return newIndexCache() })
	}
	return v
}

func buildTrieIndex(tr *toktrie.Trie) *trieIndex {
	x := &trieIndex{all: make([]uint32, WordsPerRow(tr.Size())), shared: newIndexCache()}
	for _, id := range tr.IDs() {
		x.all[id>>5] |= 1 << (uint32(id) & 31)
	}
	// The first wide classification reads the trie's summaries: a pass
	// over the vocabulary, paid here and not at some first mask.
	tr.Summarize()
	x.folded = buildFolded(tr)
	for b := range 256 {
		x.weight[b] = int32(tr.FirstByteCount(byte(b)) + tr.WithByteInside(byte(b)))
	}
	return x
}

func newIndexCache() *indexCache {
	c := new(indexCache)
	c.budget.Store(DefaultSharedIndexBudget)
	return c
}

// usable reports whether some token of the trie is not a stop token: a
// grammar could allow it.
func (v *vocabIndex) usable() bool { return v.Len() > len(v.trieStops) }

// isStop reports whether id, a token of the trie, is a stop token.
func (v *vocabIndex) isStop(id int32) bool { return slices.Contains(v.trieStops, id) }
