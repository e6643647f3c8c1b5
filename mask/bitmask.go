package mask

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Bitmask holds one row of allowed-token bits per sequence of a batch, in
// XGrammar's layout: row r is Words[r*Stride : (r+1)*Stride], and bit j of word
// i of a row allows token 32*i+j. Bits at or past VocabSize are always 0.
type Bitmask struct {
	Words     []uint32
	Rows      int
	Stride    int // words per row: ceil(VocabSize/32)
	VocabSize int
}

// WordsPerRow is the number of 32-bit words a row of n tokens takes.
func WordsPerRow(n int) int { return (n + 31) / 32 }

// NewBitmask allocates a bitmask of rows rows for a vocabulary of vocabSize
// tokens, every token disallowed.
func NewBitmask(rows, vocabSize int) *Bitmask {
	stride := WordsPerRow(vocabSize)
	return &Bitmask{Words: make([]uint32, rows*stride), Rows: rows, Stride: stride, VocabSize: vocabSize}
}

// Row returns the words of row r.
func (b *Bitmask) Row(r int) []uint32 { return b.Words[r*b.Stride : (r+1)*b.Stride] }

// Allowed reports whether token id is allowed in row r.
func (b *Bitmask) Allowed(r, id int) bool {
	if id < 0 || id >= b.VocabSize {
		return false
	}
	return b.Words[r*b.Stride+id>>5]&(1<<(uint(id)&31)) != 0
}

// Set allows token id in row r.
func (b *Bitmask) Set(r, id int) { b.Words[r*b.Stride+id>>5] |= 1 << (uint(id) & 31) }

// Count returns how many tokens row r allows.
func (b *Bitmask) Count(r int) int {
	n := 0
	for _, w := range b.Row(r) {
		n += bits.OnesCount32(w)
	}
	return n
}

// ErrShape reports logits and a bitmask whose sizes do not fit together.
var ErrShape = errors.New("mask: shape mismatch")

// Apply sets to -Inf, in place, every logit whose token the bitmask does not
// allow. logits holds len(logits)/width rows of width values; width may exceed
// the bitmask's vocabulary (padded vocabularies), and the extra columns are
// always masked off. With indices nil, logits row r is masked by bitmask row r;
// otherwise only logits rows indices[k] are masked, each by bitmask row k, and
// the other rows are left untouched.
func Apply(logits []float32, width int, b *Bitmask, indices []int) error {
	if width <= 0 || len(logits)%width != 0 {
		return fmt.Errorf("%w: %d logits are not rows of width %d", ErrShape, len(logits), width)
	}
	if width < b.VocabSize {
		return fmt.Errorf("%w: logit width %d is narrower than the vocabulary (%d)", ErrShape, width, b.VocabSize)
	}
	nrows := len(logits) / width
	if indices == nil {
		if nrows > b.Rows {
			return fmt.Errorf("%w: %d logit rows but %d bitmask rows", ErrShape, nrows, b.Rows)
		}
		for r := 0; r < nrows; r++ {
			applyRow(logits[r*width:(r+1)*width], b.Row(r))
		}
		return nil
	}
	if len(indices) > b.Rows {
		return fmt.Errorf("%w: %d indices but %d bitmask rows", ErrShape, len(indices), b.Rows)
	}
	for k, r := range indices {
		if r < 0 || r >= nrows {
			return fmt.Errorf("%w: row index %d outside %d logit rows", ErrShape, r, nrows)
		}
		applyRow(logits[r*width:(r+1)*width], b.Row(k))
	}
	return nil
}

var negInf = float32(math.Inf(-1))

func applyRow(row []float32, words []uint32) {
	for i, w := range words {
		if w == math.MaxUint32 {
			continue
		}
		base := i * 32
		end := base + 32
		if end > len(row) {
			end = len(row)
		}
		for j := base; j < end; j++ {
			if w&(1<<uint(j-base)) == 0 {
				row[j] = negInf
			}
		}
	}
	for j := len(words) * 32; j < len(row); j++ {
		row[j] = negInf
	}
}
