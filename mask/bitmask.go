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
//
// NewBitmask makes a well-formed one; an engine that fills the fields itself
// (to view memory of its own) can ask Check whether they fit together.
// FillBitmask, BatchFiller.Fill and Apply refuse a bitmask that Check
// refuses. The accessors Row, Allowed, Set and Count take row and token
// numbers from the caller's own loop: a number out of range is a programming
// error, and they panic with an error wrapping ErrRow that says so, before
// reading or writing any word.
type Bitmask struct {
	Words     []uint32
	Rows      int
	Stride    int // words per row: at least ceil(VocabSize/32)
	VocabSize int
}

// WordsPerRow is the number of 32-bit words a row of n tokens takes.
func WordsPerRow(n int) int { return (n + 31) / 32 }

// NewBitmask allocates a bitmask of rows rows for a vocabulary of vocabSize
// tokens, every token disallowed. Like make, it panics when a size is
// negative or the whole would not fit in memory (a programming error: the
// sizes are the engine's), with an error wrapping ErrShape, before
// allocating anything.
func NewBitmask(rows, vocabSize int) *Bitmask {
	if rows < 0 || vocabSize < 0 {
		panic(fmt.Errorf("%w: mask.NewBitmask(%d, %d): negative size", ErrShape, rows, vocabSize))
	}
	stride := WordsPerRow(vocabSize)
	if stride > 0 && rows > maxWords/stride {
		panic(fmt.Errorf("%w: mask.NewBitmask(%d, %d): more than %d words", ErrShape, rows, vocabSize, maxWords))
	}
	return &Bitmask{Words: make([]uint32, rows*stride), Rows: rows, Stride: stride, VocabSize: vocabSize}
}

// maxWords bounds the words of one bitmask: 4 GiB.
const maxWords = 1 << 30

// Check returns an error wrapping ErrShape when b is nil or its fields do
// not describe a bitmask: a negative size, a Stride too small for
// VocabSize, or Words shorter than Rows*Stride.
func (b *Bitmask) Check() error {
	switch {
	case b == nil:
		return fmt.Errorf("%w: nil bitmask", ErrShape)
	case b.Rows < 0 || b.Stride < 0 || b.VocabSize < 0:
		return fmt.Errorf("%w: negative size in a bitmask of %d rows of stride %d for %d tokens", ErrShape, b.Rows, b.Stride, b.VocabSize)
	case b.Stride < WordsPerRow(b.VocabSize):
		return fmt.Errorf("%w: stride %d is less than the %d words %d tokens take", ErrShape, b.Stride, WordsPerRow(b.VocabSize), b.VocabSize)
	case b.Rows > 0 && b.Stride > 0 && b.Rows > len(b.Words)/b.Stride:
		return fmt.Errorf("%w: %d words hold fewer than %d rows of %d", ErrShape, len(b.Words), b.Rows, b.Stride)
	}
	return nil
}

// Row returns the words of row r. It panics (see Bitmask) when r is not a
// row of b.
func (b *Bitmask) Row(r int) []uint32 {
	b.mustRow("Row", r)
	return b.Words[r*b.Stride : (r+1)*b.Stride]
}

// Allowed reports whether token id is allowed in row r: false for an id
// outside the vocabulary. It panics (see Bitmask) when r is not a row of b.
func (b *Bitmask) Allowed(r, id int) bool {
	b.mustRow("Allowed", r)
	if id < 0 || id >= b.VocabSize {
		return false
	}
	return b.Words[r*b.Stride+id>>5]&(1<<(uint(id)&31)) != 0
}

// Set allows token id in row r. It panics (see Bitmask) when r is not a row
// of b or id is not a token of its vocabulary, writing nothing.
func (b *Bitmask) Set(r, id int) {
	b.mustRow("Set", r)
	if id < 0 || id >= b.VocabSize {
		panic(fmt.Errorf("%w: Bitmask.Set(%d, %d): token %d is outside the vocabulary of %d tokens", ErrRow, r, id, id, b.VocabSize))
	}
	b.Words[r*b.Stride+id>>5] |= 1 << (uint(id) & 31)
}

// Count returns how many tokens row r allows. It panics (see Bitmask) when r
// is not a row of b.
func (b *Bitmask) Count(r int) int {
	n := 0
	for _, w := range b.Row(r) {
		n += bits.OnesCount32(w)
	}
	return n
}

// mustRow panics, naming the accessor, unless b is well formed and r is one
// of its rows.
func (b *Bitmask) mustRow(op string, r int) {
	if err := b.Check(); err != nil {
		panic(fmt.Errorf("mask: Bitmask.%s: %w", op, err))
	}
	if r < 0 || r >= b.Rows {
		panic(fmt.Errorf("%w: Bitmask.%s: row %d outside a bitmask of %d rows", ErrRow, op, r, b.Rows))
	}
}

// ErrMatcher reports a nil Matcher, or a zero one not made by
// Compiled.NewMatcher.
var ErrMatcher = errors.New("mask: nil or zero Matcher (make one with Compiled.NewMatcher)")

// checkFill is FillBitmask's argument check: m is a matcher, b a well-formed
// bitmask for m's vocabulary, and row one of its rows.
func checkFill(m *Matcher, b *Bitmask, row int) error {
	if m == nil || m.c == nil {
		return ErrMatcher
	}
	if err := b.Check(); err != nil {
		return err
	}
	if b.VocabSize != m.c.voc.size || row < 0 || row >= b.Rows {
		return fmt.Errorf("%w: row %d of a %d-row bitmask for %d tokens (grammar vocabulary %d)", ErrRow, row, b.Rows, b.VocabSize, m.c.voc.size)
	}
	return nil
}

// ErrShape reports logits and a bitmask whose sizes do not fit together.
var ErrShape = errors.New("mask: shape mismatch")

// Apply sets to -Inf, in place, every logit whose token the bitmask does not
// allow. logits holds len(logits)/width rows of width values; width may exceed
// the bitmask's vocabulary (padded vocabularies), and the extra columns are
// always masked off. With indices nil, logits row r is masked by bitmask row r;
// otherwise only logits rows indices[k] are masked, each by bitmask row k, and
// the other rows are left untouched. Sizes that do not fit together, or a
// bitmask that Check refuses, are errors wrapping ErrShape, found before any
// logit is written.
func Apply(logits []float32, width int, b *Bitmask, indices []int) error {
	return apply(logits, width, b, indices, negInf)
}

// ApplyFloat16 is Apply for float16 logits held as their bit patterns, the
// []uint16 view of an engine's half-precision buffer: a disallowed logit
// becomes -Inf (0xFC00) and every other keeps its bits, NaN payloads
// included, as package cuda's kernel does.
func ApplyFloat16(logits []uint16, width int, b *Bitmask, indices []int) error {
	return apply(logits, width, b, indices, 0xFC00)
}

// ApplyBFloat16 is Apply for bfloat16 logits held as their bit patterns: a
// disallowed logit becomes -Inf (0xFF80) and every other keeps its bits, as
// package cuda's kernel does.
func ApplyBFloat16(logits []uint16, width int, b *Bitmask, indices []int) error {
	return apply(logits, width, b, indices, 0xFF80)
}

// apply is Apply for logits of any width, neg being -Inf in their encoding.
func apply[T float32 | uint16](logits []T, width int, b *Bitmask, indices []int, neg T) error {
	if err := b.Check(); err != nil {
		return err
	}
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
			applyRow(logits[r*width:(r+1)*width], b.Row(r), neg)
		}
		return nil
	}
	if len(indices) > b.Rows {
		return fmt.Errorf("%w: %d indices but %d bitmask rows", ErrShape, len(indices), b.Rows)
	}
	for _, r := range indices {
		if r < 0 || r >= nrows {
			return fmt.Errorf("%w: row index %d outside %d logit rows", ErrShape, r, nrows)
		}
	}
	for k, r := range indices {
		applyRow(logits[r*width:(r+1)*width], b.Row(k), neg)
	}
	return nil
}

var negInf = float32(math.Inf(-1))

func applyRow[T float32 | uint16](row []T, words []uint32, neg T) {
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
				row[j] = neg
			}
		}
	}
	for j := len(words) * 32; j < len(row); j++ {
		row[j] = neg
	}
}
