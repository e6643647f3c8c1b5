// Package latency summarises timings for rein's benchmarks and runners: the
// percentiles that show stalls (p50, p90, p99, p99.9, max), not only the
// typical case. Timings are kept whole, so percentiles are exact.
package latency

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// Sample is a set of timings. The zero value is empty and ready to use.
type Sample struct {
	d      []time.Duration
	sorted bool
	total  time.Duration
}

// Add records one timing.
func (s *Sample) Add(d time.Duration) {
	s.d = append(s.d, d)
	s.sorted = false
	s.total += d
}

// AddSample records every timing of o.
func (s *Sample) AddSample(o *Sample) {
	s.d = append(s.d, o.d...)
	s.sorted = false
	s.total += o.total
}

// Len is the number of timings.
func (s *Sample) Len() int { return len(s.d) }

// Total is the sum of the timings.
func (s *Sample) Total() time.Duration { return s.total }

// Quantile returns the q-quantile (0 <= q <= 1) by the nearest-rank method:
// the smallest timing that at least q of the timings do not exceed. An
// empty sample gives 0.
func (s *Sample) Quantile(q float64) time.Duration {
	if len(s.d) == 0 {
		return 0
	}
	if !s.sorted {
		slices.Sort(s.d)
		s.sorted = true
	}
	i := int(q*float64(len(s.d))+0.999999) - 1
	return s.d[min(max(i, 0), len(s.d)-1)]
}

// Max is the largest timing.
func (s *Sample) Max() time.Duration { return s.Quantile(1) }

// us renders d in microseconds.
func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// Report reports the sample's p50, p90, p99, p99.9 and max in microseconds
// as benchmark metrics named prefix+"p50-us" and so on, and its total in
// milliseconds as prefix+"total-ms".
func (s *Sample) Report(b *testing.B, prefix string) {
	b.ReportMetric(us(s.Quantile(0.5)), prefix+"p50-us")
	b.ReportMetric(us(s.Quantile(0.9)), prefix+"p90-us")
	b.ReportMetric(us(s.Quantile(0.99)), prefix+"p99-us")
	b.ReportMetric(us(s.Quantile(0.999)), prefix+"p99.9-us")
	b.ReportMetric(us(s.Max()), prefix+"max-us")
	b.ReportMetric(float64(s.total.Microseconds())/1e3, prefix+"total-ms")
}

// String renders the sample as "p50 … p90 … p99 … p99.9 … max …" in
// microseconds.
func (s *Sample) String() string {
	return fmt.Sprintf("p50 %.1f us p90 %.1f us p99 %.1f us p99.9 %.1f us max %.1f us",
		us(s.Quantile(0.5)), us(s.Quantile(0.9)), us(s.Quantile(0.99)), us(s.Quantile(0.999)), us(s.Max()))
}
