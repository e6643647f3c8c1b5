package mask

import (
	"bytes"
	"slices"
	"sync"

	"github.com/reinlm/rein/tokenizer"
)

// vocabIndex is a vocabulary sorted by bytes: walking it in order is a
// depth-first walk of the token trie, and lcp tells how much of the previous
// token's path to keep. Special tokens and empty tokens are left out; stop
// tokens are kept apart. It is built once per Vocab and shared.
type vocabIndex struct {
	size   int     // token ids are < size
	ids    []int32 // sorted position -> token id
	data   []byte  // token bytes in sorted order, concatenated
	off    []int32 // sorted position i spans data[off[i]:off[i+1]]
	lcp    []int32 // common prefix length of sorted tokens i-1 and i (0 for i = 0)
	stops  []int32 // stop token ids
	maxLen int     // longest token, in bytes

	shared indexCache // node classifications shared between grammars
}

func (v *vocabIndex) tok(i int32) []byte { return v.data[v.off[i]:v.off[i+1]] }

var vocabIndexes sync.Map // *tokenizer.Vocab -> *vocabIndex

func indexVocab(voc *tokenizer.Vocab) *vocabIndex {
	if v, ok := vocabIndexes.Load(voc); ok {
		return v.(*vocabIndex)
	}
	v := buildVocabIndex(voc)
	actual, _ := vocabIndexes.LoadOrStore(voc, v)
	return actual.(*vocabIndex)
}

func buildVocabIndex(voc *tokenizer.Vocab) *vocabIndex {
	n := voc.Size()
	v := &vocabIndex{size: n}
	stop := make(map[int]bool)
	for _, id := range voc.StopTokens() {
		if id >= 0 && id < n && !stop[id] {
			stop[id] = true
			v.stops = append(v.stops, int32(id))
		}
	}
	for id := 0; id < n; id++ {
		if stop[id] || voc.IsSpecial(id) || len(voc.Bytes(id)) == 0 {
			continue
		}
		v.ids = append(v.ids, int32(id))
	}
	slices.SortFunc(v.ids, func(a, b int32) int {
		if c := bytes.Compare(voc.Bytes(int(a)), voc.Bytes(int(b))); c != 0 {
			return c
		}
		return int(a - b)
	})
	v.off = make([]int32, len(v.ids)+1)
	v.lcp = make([]int32, len(v.ids))
	var prev []byte
	for i, id := range v.ids {
		b := voc.Bytes(int(id))
		v.off[i] = int32(len(v.data))
		v.data = append(v.data, b...)
		v.lcp[i] = int32(commonPrefix(prev, b))
		v.maxLen = max(v.maxLen, len(b))
		prev = b
	}
	v.off[len(v.ids)] = int32(len(v.data))
	return v
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
