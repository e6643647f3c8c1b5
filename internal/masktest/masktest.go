// Package masktest holds the slow, obviously-right references rein's tests
// compare the fast paths with, and random-logit decoding walks.
package masktest

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/reinlm/rein/mask"
)

// ReferenceMask tries every token id on a fork of m — byte by byte through the
// automaton, no token index involved — and returns the bitmask row of those
// accepted.
func ReferenceMask(m *mask.Matcher) []uint32 {
	f := m.Fork()
	n := m.Compiled().VocabSize()
	row := make([]uint32, mask.WordsPerRow(n))
	for id := 0; id < n; id++ {
		if f.AcceptToken(id) {
			row[id>>5] |= 1 << (uint(id) & 31)
			if err := f.Rollback(1); err != nil {
				panic(err)
			}
		}
	}
	return row
}

// DiffRows describes the tokens where got and want differ, or "" if equal.
func DiffRows(m *mask.Matcher, got, want []uint32) string {
	voc := m.Compiled().Vocab()
	var extra, missing []string
	for i := range want {
		d := got[i] ^ want[i]
		for d != 0 {
			j := bits.TrailingZeros32(d)
			d &^= 1 << j
			id := 32*i + j
			s := fmt.Sprintf("%d:%q", id, voc.Bytes(id))
			if got[i]&(1<<j) != 0 {
				extra = append(extra, s)
			} else {
				missing = append(missing, s)
			}
		}
	}
	if len(extra) == 0 && len(missing) == 0 {
		return ""
	}
	trim := func(s []string) []string {
		if len(s) > 10 {
			return append(s[:10:10], fmt.Sprintf("... (%d in all)", len(s)))
		}
		return s
	}
	return fmt.Sprintf("allowed but not accepted: %v; accepted but not allowed: %v", trim(extra), trim(missing))
}

// Walk decodes one sequence with random logits under the mask: at each step
// it fills the mask, calls check (if not nil) with the bytes so far, and picks a uniformly random
// allowed token — the argmax of i.i.d. random logits over the allowed set —
// taking an allowed stop token with probability stopBias. After maxTokens
// steps it finishes greedily: single-byte tokens that shorten the way to the
// end, then a stop token. It returns the bytes produced and whether a stop
// token ended them; an error means the mask allowed nothing while the
// grammar was not finished, or allowed a token the matcher refused.
func Walk(m *mask.Matcher, rng *rand.Rand, maxTokens int, stopBias float64, check func(step int, out []byte, row []uint32) error) ([]byte, error) {
	return walk(m, rng, maxTokens, stopBias, 0, check)
}

// WalkRepeating is Walk that, with probability repeat at each step, takes
// again the token taken a few steps before (1 to 8, at random) where the
// mask allows it: it writes the same items over and over, which probes the
// checks a grammar makes across items (distinct items).
func WalkRepeating(m *mask.Matcher, rng *rand.Rand, maxTokens int, stopBias, repeat float64) ([]byte, error) {
	return walk(m, rng, maxTokens, stopBias, repeat, nil)
}

func walk(m *mask.Matcher, rng *rand.Rand, maxTokens int, stopBias, repeat float64, check func(step int, out []byte, row []uint32) error) ([]byte, error) {
	c := m.Compiled()
	var taken []int
	voc := c.Vocab()
	bm := mask.NewBitmask(1, c.VocabSize())
	stops := voc.StopTokens()
	var out []byte
	single := singleByteTokens(m)
	for step := 0; ; step++ {
		if err := m.FillBitmask(bm, 0); err != nil {
			return out, err
		}
		row := bm.Row(0)
		if check != nil {
			if err := check(step, out, row); err != nil {
				return out, err
			}
		}
		if m.CanEnd() && (step >= maxTokens || rng.Float64() < stopBias) {
			for _, s := range stops {
				if bm.Allowed(0, s) {
					if !m.AcceptToken(s) {
						return out, fmt.Errorf("step %d: stop token %d allowed but refused", step, s)
					}
					return out, nil
				}
			}
			return out, fmt.Errorf("step %d: grammar may end but no stop token is allowed", step)
		}
		var id int
		if step < maxTokens {
			n := 0
			for _, w := range row {
				n += bits.OnesCount32(w)
			}
			if n == 0 {
				return out, fmt.Errorf("step %d: empty mask after %q", step, out)
			}
			id = nthSet(row, rng.IntN(n))
			if repeat > 0 && rng.Float64() < repeat {
				if k := len(taken) - 1 - rng.IntN(8); k >= 0 && bm.Allowed(0, taken[k]) {
					id = taken[k]
				}
			}
		} else {
			// Ties are broken at random: a check across items (distinct
			// items) may refuse the end the automaton's distance points
			// to, and the first byte of the ties, taken over and over,
			// might never get past it ("0.0", "0.00", ...).
			id = -1
			best, ties := int(^uint(0)>>1), 0
			for b := 0; b < 256; b++ {
				t := single[b]
				if t < 0 || !bm.Allowed(0, t) {
					continue
				}
				m.AcceptToken(t)
				switch d := m.BytesToEnd(); {
				case d < best:
					best, id, ties = d, t, 1
				case d == best:
					if ties++; rng.IntN(ties) == 0 {
						id = t
					}
				}
				if err := m.Rollback(1); err != nil {
					return out, err
				}
			}
			if id < 0 {
				return out, fmt.Errorf("step %d: cannot finish %q with single bytes", step, out)
			}
		}
		if !m.AcceptToken(id) {
			return out, fmt.Errorf("step %d: token %d %q allowed by the mask but refused after %q", step, id, voc.Bytes(id), out)
		}
		if m.IsTerminated() {
			return out, nil
		}
		taken = append(taken, id)
		out = append(out, voc.Bytes(id)...)
		if step > maxTokens+100000 {
			return out, fmt.Errorf("walk did not finish")
		}
	}
}

func nthSet(row []uint32, k int) int {
	for i, w := range row {
		c := bits.OnesCount32(w)
		if k >= c {
			k -= c
			continue
		}
		for ; ; k-- {
			j := bits.TrailingZeros32(w)
			if k == 0 {
				return 32*i + j
			}
			w &^= 1 << j
		}
	}
	return -1
}

// singleByteTokens maps each byte to a non-special token that is exactly
// that byte, or -1.
func singleByteTokens(m *mask.Matcher) [256]int {
	var t [256]int
	for i := range t {
		t[i] = -1
	}
	voc := m.Compiled().Vocab()
	for id := 0; id < voc.Size(); id++ {
		if b := voc.Bytes(id); len(b) == 1 && !voc.IsSpecial(id) && t[b[0]] < 0 {
			t[b[0]] = id
		}
	}
	return t
}
