package mask

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

// indexView is what a classification means, whatever form it takes: the
// accepted tokens, and each uncertain token with the bytes it has left
// after leaving the rule, in order.
type indexView struct {
	accepted  []int32
	uncertain []string
	err       error
}

func viewOf(v *vocabIndex, x *nodeIndex) indexView {
	var w indexView
	w.err = x.err
	if x.dense != nil {
		for i, word := range x.dense {
			for ; word != 0; word &= word - 1 {
				w.accepted = append(w.accepted, int32(i<<5+bits.TrailingZeros32(word)))
			}
		}
	} else {
		w.accepted = slices.Clone(x.accepted)
	}
	slices.Sort(w.accepted)
	for i := range x.numSuffixes() {
		for _, id := range x.sufToks[x.sufGroup[i]:x.sufGroup[i+1]] {
			w.uncertain = append(w.uncertain, fmt.Sprintf("%d %q", id, x.suffix(i)))
		}
	}
	if b := x.base; b != nil {
		// A derived classification: its base's but for the tokens dropped,
		// and its own.
		drop := map[int32]bool{}
		for _, d := range x.drop {
			for m := d.m; m != 0; m &= m - 1 {
				drop[d.w<<5+int32(bits.TrailingZeros32(m))] = true
			}
		}
		for _, id := range viewOf(v, b).accepted {
			if !drop[id] && (x.starts == nil || x.starts[id>>5]&(1<<(uint32(id)&31)) != 0) {
				w.accepted = append(w.accepted, id)
			}
		}
		slices.Sort(w.accepted)
		for i := range b.numSuffixes() {
			for j := b.sufGroup[i]; j < b.sufGroup[i+1]; j++ {
				if x.keepSuf[j>>6]&(1<<(j&63)) != 0 {
					w.uncertain = append(w.uncertain, fmt.Sprintf("%d %q", b.sufToks[j], b.suffix(i)))
				}
			}
		}
	}
	ids := v.IDs()
	for _, r := range x.ranges {
		for i := r.lo; i < r.hi; i++ {
			w.uncertain = append(w.uncertain, fmt.Sprintf("%d %q", ids[i], v.Token(int(i))[r.at:]))
		}
	}
	slices.SortFunc(w.uncertain, cmp.Compare)
	return w
}

// assertSameIndex checks that two classifications mean the same.
func assertSameIndex(t *testing.T, v *vocabIndex, want, got *nodeIndex, msg string) {
	t.Helper()
	assert.Equal(t, want.nAccepted, got.nAccepted, msg)
	assert.Equal(t, viewOf(v, want), viewOf(v, got), msg)
}
