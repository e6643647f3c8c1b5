package fsm

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDFAAccessors(t *testing.T) {
	d := mustMinimal(t, `ab|ac`)
	require.Equal(t, 3, d.NumStates())
	a := d.Next(d.Start, 'a')
	assert.GreaterOrEqual(t, a, int32(0))
	assert.Equal(t, d.Next(a, 'b'), d.Next(a, 'c'))
	assert.Equal(t, int32(-1), d.Next(a, 'd'))
	assert.Equal(t, int32(-1), d.Next(-1, 'a'))
	assert.Equal(t, int32(-1), d.NextSymbol(a, 0))
	assert.True(t, d.Match([]byte("ab")))
	assert.False(t, d.Match([]byte("abc")))
	assert.False(t, d.Match([]byte("a")))
	assert.False(t, d.Match(nil))
}

// TestDFAConcurrentUse shares one DFA between goroutines that transform and
// query it; run with -race.
func TestDFAConcurrentUse(t *testing.T) {
	n, start, end := symbolNFA()
	det, err := Determinize(n, start, []int{end}, 100)
	require.NoError(t, err)
	str := mustMinimal(t, `"([^"\\]|\\.)*"`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				min := det.Minimize()
				assert.Equal(t, 7, min.NumStates())
				assert.True(t, det.CanReachFinal(func(s int32) bool { return s == 3 }))
				assert.Equal(t, 4, min.Trim(func(s int32) bool { return s == 1 || s == 3 }).NumStates())
				assert.Empty(t, det.ForcedBytes(det.Start)) // no table: computed per call
				assert.Equal(t, `"`, string(str.ForcedBytes(str.Start)))
				assert.True(t, str.Match([]byte(`"a\"b"`)))
			}
		})
	}
	wg.Wait()
}
