package cuda

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The GPU tests compare 16-bit logits with mask.Apply, which works on
// float32: they widen the inputs, apply, and narrow the result back. Both
// directions are exact on every value they meet (16-bit inputs and -inf).

// halfToFloat widens a float16 bit pattern exactly.
func halfToFloat(h uint16) float32 {
	sign := float32(1)
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * float32(math.Ldexp(mant, -24))
	case 0x1f:
		if mant != 0 {
			return float32(math.NaN())
		}
		return sign * float32(math.Inf(1))
	}
	return sign * float32(math.Ldexp(1024+mant, exp-25))
}

// floatToHalf narrows a float32 that float16 represents exactly; ok is false
// for any other value (NaN included).
func floatToHalf(f float32) (h uint16, ok bool) {
	if f != f {
		return 0, false
	}
	if math.Signbit(float64(f)) {
		h = 0x8000
	}
	a := math.Abs(float64(f))
	switch {
	case a == 0:
		return h, true
	case math.IsInf(a, 1):
		return h | 0x7c00, true
	}
	frac, exp := math.Frexp(a) // a = frac * 2^exp, frac in [0.5, 1)
	if exp >= -13 {            // normal: a = 1.m * 2^(exp-1)
		m := frac*2048 - 1024
		if exp-1+15 >= 0x1f || m != math.Trunc(m) {
			return 0, false
		}
		return h | uint16(exp-1+15)<<10 | uint16(m), true
	}
	m := math.Ldexp(a, 24) // subnormal: a = m * 2^-24
	if m != math.Trunc(m) {
		return 0, false
	}
	return h | uint16(m), true
}

// bfloatToFloat widens a bfloat16 bit pattern exactly.
func bfloatToFloat(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// floatToBfloat narrows a float32 that bfloat16 represents exactly.
func floatToBfloat(f float32) (uint16, bool) {
	b := math.Float32bits(f)
	return uint16(b >> 16), b&0xffff == 0 && f == f
}

func isNaN16(h uint16, d DType) bool {
	if d == Float16 {
		return h&0x7c00 == 0x7c00 && h&0x3ff != 0
	}
	return h&0x7f80 == 0x7f80 && h&0x7f != 0
}

func TestHalfConversionsRoundTrip(t *testing.T) {
	for _, d := range []DType{Float16, BFloat16} {
		widen, narrow := halfToFloat, floatToHalf
		if d == BFloat16 {
			widen, narrow = bfloatToFloat, floatToBfloat
		}
		for i := 0; i < 1<<16; i++ {
			h := uint16(i)
			if isNaN16(h, d) {
				continue
			}
			back, ok := narrow(widen(h))
			require.Truef(t, ok, "%v %#04x", d, h)
			require.Equalf(t, h, back, "%v %#04x", d, h)
		}
	}
}

func TestHalfConversionsValues(t *testing.T) {
	neg := float32(math.Inf(-1))
	for _, c := range []struct {
		d    DType
		bits uint16
		f    float32
	}{
		{Float16, 0xfc00, neg},
		{Float16, 0x3c00, 1},
		{Float16, 0xc000, -2},
		{Float16, 0x7bff, 65504},
		{Float16, 0x0001, float32(math.Ldexp(1, -24))},
		{Float16, 0x0400, float32(math.Ldexp(1, -14))},
		{BFloat16, 0xff80, neg},
		{BFloat16, 0x3f80, 1},
		{BFloat16, 0xc000, -2},
	} {
		widen, narrow := halfToFloat, floatToHalf
		if c.d == BFloat16 {
			widen, narrow = bfloatToFloat, floatToBfloat
		}
		assert.Equalf(t, c.f, widen(c.bits), "%v %#04x", c.d, c.bits)
		got, ok := narrow(c.f)
		assert.Truef(t, ok, "%v %v", c.d, c.f)
		assert.Equalf(t, c.bits, got, "%v %v", c.d, c.f)
	}
	_, ok := floatToHalf(1 + 1.0/4096)
	assert.False(t, ok, "float16 has 10 mantissa bits")
	_, ok = floatToHalf(70000)
	assert.False(t, ok, "past float16's range")
	_, ok = floatToBfloat(1 + 1.0/1024)
	assert.False(t, ok, "bfloat16 has 7 mantissa bits")
}
