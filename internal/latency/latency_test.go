package latency

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestQuantile(t *testing.T) {
	var s Sample
	assert.Zero(t, s.Quantile(0.5))
	for i := 1000; i >= 1; i-- {
		s.Add(time.Duration(i) * time.Microsecond)
	}
	tests := []struct {
		q    float64
		want time.Duration
	}{
		{0, 1 * time.Microsecond},
		{0.5, 500 * time.Microsecond},
		{0.9, 900 * time.Microsecond},
		{0.99, 990 * time.Microsecond},
		{0.999, 999 * time.Microsecond},
		{1, 1000 * time.Microsecond},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, s.Quantile(tc.q), "q=%v", tc.q)
	}
	assert.Equal(t, 1000*time.Microsecond, s.Max())
	assert.Equal(t, 500500*time.Microsecond, s.Total())
	assert.Equal(t, "p50 500.0 us p90 900.0 us p99 990.0 us p99.9 999.0 us max 1000.0 us", s.String())

	var all Sample
	all.AddSample(&s)
	all.Add(2 * time.Millisecond)
	assert.Equal(t, 1001, all.Len())
	assert.Equal(t, 2*time.Millisecond, all.Max())
}
