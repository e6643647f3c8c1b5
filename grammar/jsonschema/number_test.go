package jsonschema

import (
	"math/big"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/race"
)

// rangeRegexp compiles numberRange for the bounds into a Go regexp.
func rangeRegexp(t *testing.T, lo *big.Rat, loEx bool, hi *big.Rat, hiEx bool, intOnly bool) *regexp.Regexp {
	t.Helper()
	re, ok := numberRange(lo, loEx, hi, hiEx, intOnly)
	require.True(t, ok)
	return regexp.MustCompile(`^(?:` + re.String() + `)$`)
}

func inRange(x, lo *big.Rat, loEx bool, hi *big.Rat, hiEx bool) bool {
	if lo != nil && (x.Cmp(lo) < 0 || loEx && x.Cmp(lo) == 0) {
		return false
	}
	if hi != nil && (x.Cmp(hi) > 0 || hiEx && x.Cmp(hi) == 0) {
		return false
	}
	return true
}

// rangeTrials scales the random range trials down under the race detector.
func rangeTrials(n int) int {
	if race.Enabled {
		return n / 10
	}
	return n
}

func TestJSONSchemaIntegerRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	bound := func() *big.Rat {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return big.NewRat(int64(rng.IntN(2000)-1000), 1)
		case 2:
			return big.NewRat(int64(rng.IntN(40)-20), 1)
		}
		return big.NewRat(int64(rng.IntN(20000)-10000), 10) // a decimal bound for an integer
	}
	for range rangeTrials(300) {
		lo, hi := bound(), bound()
		loEx, hiEx := rng.IntN(2) == 0, rng.IntN(2) == 0
		re := rangeRegexp(t, lo, loEx, hi, hiEx, true)
		for x := -1100; x <= 1100; x++ {
			s := strconv.Itoa(x)
			want := inRange(big.NewRat(int64(x), 1), lo, loEx, hi, hiEx)
			require.Equal(t, want, re.MatchString(s), "%s in %v%v..%v%v", s, lo, loEx, hi, hiEx)
		}
		for _, s := range []string{"-0", "01", "00", "1.0", "1e2", "+1", ""} {
			assert.False(t, re.MatchString(s), "%q in %v..%v", s, lo, hi)
		}
	}
}

func TestJSONSchemaDecimalRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	bound := func() *big.Rat {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return big.NewRat(int64(rng.IntN(400)-200), 100)
		case 2:
			return big.NewRat(int64(rng.IntN(40)-20), 1)
		}
		return big.NewRat(int64(rng.IntN(4000)-2000), 1000)
	}
	var samples []string
	for x := -2500; x <= 2500; x += 7 {
		for _, scale := range []int{1, 10, 100, 1000} {
			r := big.NewRat(int64(x), int64(scale))
			samples = append(samples, r.FloatString(len(strconv.Itoa(scale))-1))
		}
	}
	samples = append(samples, "0.10", "1.50", "0.0", "0.000", "2", "-2", "1.", ".5", "-0", "1e1", "01.5")
	for range rangeTrials(200) {
		lo, hi := bound(), bound()
		loEx, hiEx := rng.IntN(2) == 0, rng.IntN(2) == 0
		re := rangeRegexp(t, lo, loEx, hi, hiEx, false)
		for _, s := range samples {
			x, ok := new(big.Rat).SetString(s)
			valid := ok && regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?$`).MatchString(s) && s != "-0" && !(len(s) > 1 && s[0] == '-' && x.Sign() == 0)
			want := valid && inRange(x, lo, loEx, hi, hiEx)
			require.Equal(t, want, re.MatchString(s), "%s in %v%v..%v%v", s, lo, loEx, hi, hiEx)
		}
	}
}

func TestJSONSchemaMultipleOfAutomaton(t *testing.T) {
	for _, m := range []string{"1", "2", "3", "7", "11", "0.01", "0.25", "2.5", "1.5", "0.1"} {
		mr, _ := new(big.Rat).SetString(m)
		d, err := multipleDFA(mr, grammar.DefaultLimits().PatternStates)
		require.NoError(t, err, m)
		for x := -300; x <= 300; x++ {
			for _, scale := range []int64{1, 10, 100, 1000} {
				v := big.NewRat(int64(x), scale)
				s := v.FloatString(len(strconv.FormatInt(scale, 10)) - 1)
				want := new(big.Rat).Quo(v, mr).IsInt()
				require.Equal(t, want, d.Match(s), "%s multiple of %s", s, m)
			}
		}
	}
}

func TestJSONSchemaSplitDecimal(t *testing.T) {
	for _, c := range []struct{ in, ip, frac string }{
		{"0", "0", ""}, {"1.5", "1", "5"}, {"12.0625", "12", "0625"}, {"0.001", "0", "001"}, {"100", "100", ""},
	} {
		r, _ := new(big.Rat).SetString(c.in)
		ip, frac, ok := splitDecimal(r)
		require.True(t, ok)
		assert.Equal(t, c.ip, ip.String(), c.in)
		assert.Equal(t, c.frac, frac, c.in)
	}
	_, _, ok := splitDecimal(big.NewRat(1, 3))
	assert.False(t, ok)
}
