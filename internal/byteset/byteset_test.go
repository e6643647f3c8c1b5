package byteset

import "testing"

// The set must agree with a plain [256]bool on every operation.
func TestSetMatchesBoolArray(t *testing.T) {
	tests := []struct {
		name   string
		a, b   []byte
		ranges [][2]byte
	}{
		{name: "empty"},
		{name: "ends", a: []byte{0, 255}, b: []byte{255}},
		{name: "word edges", a: []byte{63, 64, 127, 128, 191, 192}, b: []byte{1, 2}},
		{name: "ranges", ranges: [][2]byte{{'0', '9'}, {200, 255}}, b: []byte{'5'}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s, o Set
			var want, other [256]bool
			for _, c := range tt.a {
				s.Add(c)
				want[c] = true
			}
			for _, r := range tt.ranges {
				for c := int(r[0]); c <= int(r[1]); c++ {
					s.Add(byte(c))
					want[c] = true
				}
			}
			for _, c := range tt.b {
				o.Add(c)
				other[c] = true
			}
			n, first := 0, -1
			for c := range 256 {
				if s.Has(byte(c)) != want[c] {
					t.Fatalf("Has(%d) = %v, want %v", c, s.Has(byte(c)), want[c])
				}
				if want[c] {
					n++
					if first < 0 {
						first = c
					}
				}
			}
			if s.Len() != n {
				t.Fatalf("Len %d, want %d", s.Len(), n)
			}
			if b, ok := s.First(); ok != (first >= 0) || (ok && int(b) != first) {
				t.Fatalf("First = %d, %v, want %d", b, ok, first)
			}
			u := s
			u.Union(&o)
			for c := range 256 {
				if u.Has(byte(c)) != (want[c] || other[c]) {
					t.Fatalf("Union misses %d", c)
				}
			}
		})
	}
}

// The ASCII set must agree with a plain [128]bool, and hold no byte from
// 128 up.
func TestASCIIMatchesBoolArray(t *testing.T) {
	tests := []struct {
		name string
		a, b []byte
	}{
		{name: "empty"},
		{name: "ends", a: []byte{0, 127}, b: []byte{127}},
		{name: "word edges", a: []byte{63, 64}, b: []byte{1, 63, 64, 100}},
		{name: "subset", a: []byte{'a', 'z'}, b: []byte{'a', 'b', 'z'}},
		{name: "high word", a: []byte{'a', 'z', 3}, b: []byte{'z', 'q'}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s, o ASCII
			var want, other [128]bool
			for _, c := range tt.a {
				s.Add(c)
				want[c] = true
			}
			for _, c := range tt.b {
				o.Add(c)
				other[c] = true
			}
			subset := true
			n := 0
			for c := range 256 {
				w := c < 128 && want[c]
				if w {
					n++
				}
				if s.Has(byte(c)) != w {
					t.Fatalf("Has(%d) = %v, want %v", c, s.Has(byte(c)), w)
				}
				subset = subset && (!w || other[c])
			}
			if s.Len() != n {
				t.Fatalf("Len = %d, want %d", s.Len(), n)
			}
			if s.SubsetOf(&o) != subset {
				t.Fatalf("SubsetOf = %v, want %v", s.SubsetOf(&o), subset)
			}
			u := s
			u.Union(&o)
			for c := range 128 {
				if u.Has(byte(c)) != (want[c] || other[c]) {
					t.Fatalf("Union misses %d", c)
				}
			}
			d := u
			for _, c := range tt.b {
				d.Remove(c)
			}
			for c := range 128 {
				if d.Has(byte(c)) != (want[c] && !other[c]) {
					t.Fatalf("Remove: Has(%d) = %v", c, d.Has(byte(c)))
				}
			}
			sub := s
			sub.Subtract(&o)
			for c := range 128 {
				if sub.Has(byte(c)) != (want[c] && !other[c]) {
					t.Fatalf("Subtract: Has(%d) = %v", c, sub.Has(byte(c)))
				}
			}
			both := s
			both.Intersect(&o)
			first := -1
			for c := range 128 {
				if both.Has(byte(c)) != (want[c] && other[c]) {
					t.Fatalf("Intersect: Has(%d) = %v", c, both.Has(byte(c)))
				}
				if first < 0 && want[c] && other[c] {
					first = c
				}
			}
			if b, ok := both.First(); ok != (first >= 0) || ok && int(b) != first {
				t.Fatalf("First = %d, %v, want %d", b, ok, first)
			}
		})
	}
}
