package mask

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestVerdictKeepsRangesUpToItsBound checks the recording of a
// classification's ranges' tokens: kept (not nil, even where none was
// allowed) up to maxKeptRangeTokens, not kept past it, and every entry's
// room given at once.
func TestVerdictKeepsRangesUpToItsBound(t *testing.T) {
	for _, tc := range []struct {
		tokens int
		kept   bool
	}{{0, true}, {3, true}, {minKeptRangeRoom + 1, true}, {maxKeptRangeTokens, true}, {maxKeptRangeTokens + 1, false}} {
		var v verdicts
		e := v.start(0, 1, 7)
		v.roomForRanges(e)
		for i := range v.kept {
			require.NotNil(t, v.kept[i].rangesBuf, "entry %d has no room", i)
		}
		e.ranges, e.rangesOver = e.rangesBuf[:0], false
		for id := range tc.tokens {
			e.keepRange(int32(id))
		}
		e.keepRanges()
		if !tc.kept {
			require.Nil(t, e.ranges, "%d tokens: kept past the bound", tc.tokens)
			continue
		}
		require.NotNil(t, e.ranges, "%d tokens: not kept", tc.tokens)
		require.Len(t, e.ranges, tc.tokens)
		require.GreaterOrEqual(t, cap(e.rangesBuf), tc.tokens, "grown room not kept")
		require.LessOrEqual(t, cap(e.rangesBuf), maxKeptRangeTokens, "room grown past the bound")
		// The next recording in this entry starts empty.
		e = v.start(0, 2, 8)
		require.Nil(t, e.ranges)
	}
}
