package rein_test

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/jumpforward"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// errPanicked marks a call that panicked, as documented for the accessors.
var errPanicked = errors.New("panicked")

// catch runs call and turns a panic into an error wrapping errPanicked and
// the panic value.
func catch(call func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = fmt.Errorf("%w: %w", errPanicked, e)
			} else {
				err = fmt.Errorf("%w: %v", errPanicked, r)
			}
		}
	}()
	return call()
}

// TestMisuseIsAnError calls the public API of mask, jumpforward, tokenizer
// and rein with bad arguments. Each call returns an error wrapping a
// sentinel, or, for the accessors documented to (Bitmask.Row, Allowed, Set,
// Count and NewBitmask), panics with an error wrapping one; and none writes
// anything: the two-row bitmask and the logits it is given stay as they
// were.
func TestMisuseIsAnError(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	size := voc.Size()
	compiled, err := mask.Compile(grammar.JSON(), voc, mask.Options{})
	require.NoError(t, err)
	m := compiled.NewMatcher()
	filler := mask.NewBatchFiller(2)
	defer filler.Close()

	// guard is the bitmask most calls get: two rows, every bit of row 1 set.
	guard := mask.NewBitmask(2, size)
	for i := range guard.Row(1) {
		guard.Row(1)[i] = math.MaxUint32
	}
	want := append([]uint32(nil), guard.Words...)
	logits := make([]float32, 2*size)
	bitmask := func(rows, stride, words int) *mask.Bitmask {
		return &mask.Bitmask{Words: make([]uint32, words), Rows: rows, Stride: stride, VocabSize: size}
	}
	stride := mask.WordsPerRow(size)

	tests := []struct {
		name   string
		call   func() error
		want   error
		panics bool
	}{
		// FillBitmask
		{"FillBitmask nil bitmask", func() error { return m.FillBitmask(nil, 0) }, mask.ErrShape, false},
		{"FillBitmask short Words", func() error { return m.FillBitmask(bitmask(1, stride, stride-1), 0) }, mask.ErrShape, false},
		{"FillBitmask zero Stride", func() error { return m.FillBitmask(bitmask(1, 0, stride), 0) }, mask.ErrShape, false},
		{"FillBitmask too many Rows", func() error { return m.FillBitmask(bitmask(3, stride, 2*stride), 2) }, mask.ErrShape, false},
		{"FillBitmask negative Rows", func() error { return m.FillBitmask(bitmask(-1, stride, stride), 0) }, mask.ErrShape, false},
		{"FillBitmask row -1", func() error { return m.FillBitmask(guard, -1) }, mask.ErrRow, false},
		{"FillBitmask row past the end", func() error { return m.FillBitmask(guard, 2) }, mask.ErrRow, false},
		{"FillBitmask other vocabulary size", func() error {
			return m.FillBitmask(&mask.Bitmask{Words: guard.Words, Rows: 2, Stride: stride, VocabSize: size - 40}, 1)
		}, mask.ErrRow, false},
		{"FillBitmask nil matcher", func() error { return (*mask.Matcher)(nil).FillBitmask(guard, 1) }, mask.ErrMatcher, false},
		{"FillBitmask zero matcher", func() error { return new(mask.Matcher).FillBitmask(guard, 1) }, mask.ErrMatcher, false},

		// Apply
		{"Apply nil bitmask", func() error { return mask.Apply(logits, size, nil, nil) }, mask.ErrShape, false},
		{"Apply short Words", func() error { return mask.Apply(logits, size, bitmask(2, stride, stride), nil) }, mask.ErrShape, false},
		{"Apply zero width", func() error { return mask.Apply(logits, 0, guard, nil) }, mask.ErrShape, false},
		{"Apply narrow width", func() error { return mask.Apply(logits[:2*(size-1)], size-1, guard, nil) }, mask.ErrShape, false},
		{"Apply bad index after a good one", func() error { return mask.Apply(logits, size, guard, []int{0, 2}) }, mask.ErrShape, false},
		{"Apply negative index", func() error { return mask.Apply(logits, size, guard, []int{-1}) }, mask.ErrShape, false},

		// Bitmask accessors and constructor: documented panics.
		{"Allowed row past the end", func() error { mask.NewBitmask(1, size).Allowed(5, 0); return nil }, mask.ErrRow, true},
		{"Allowed negative row", func() error { guard.Allowed(-1, 40); return nil }, mask.ErrRow, true},
		{"Set token past the vocabulary", func() error { guard.Set(0, size); return nil }, mask.ErrRow, true},
		{"Set negative token", func() error { guard.Set(1, -1); return nil }, mask.ErrRow, true},
		{"Set row past the end", func() error { guard.Set(2, 0); return nil }, mask.ErrRow, true},
		{"Set on short Words", func() error { bitmask(2, stride, stride).Set(1, 0); return nil }, mask.ErrShape, true},
		{"Row past the end", func() error { guard.Row(2); return nil }, mask.ErrRow, true},
		{"Count negative row", func() error { guard.Count(-1); return nil }, mask.ErrRow, true},
		{"NewBitmask negative rows", func() error { mask.NewBitmask(-1, size); return nil }, mask.ErrShape, true},
		{"NewBitmask negative vocabulary", func() error { mask.NewBitmask(1, -5); return nil }, mask.ErrShape, true},
		{"NewBitmask too large", func() error { mask.NewBitmask(math.MaxInt/2, size); return nil }, mask.ErrShape, true},

		// Compile
		{"Compile nil grammar", func() error { _, err := mask.Compile(nil, voc, mask.Options{}); return err }, mask.ErrGrammar, false},
		{"Compile nil vocabulary", func() error { _, err := mask.Compile(grammar.JSON(), nil, mask.Options{}); return err }, mask.ErrVocab, false},
		{"CompileContext nil context", func() error {
			//lint:ignore SA1012 a nil context is the misuse under test
			_, err := mask.CompileContext(nil, nil, voc, mask.Options{})
			return err
		}, mask.ErrGrammar, false},
		{"Compile vocabulary of stop tokens only", func() error { _, err := mask.Compile(grammar.JSON(), stopsOnly(t), mask.Options{}); return err }, mask.ErrVocab, false},
		{"NewCompiler vocabulary of stop tokens only", func() error {
			_, err := rein.NewCompiler(stopsOnly(t), rein.CompilerOptions{})
			return err
		}, mask.ErrVocab, false},
		{"NewCompiler nil vocabulary", func() error { _, err := rein.NewCompiler(nil, rein.CompilerOptions{}); return err }, mask.ErrVocab, false},

		// Matcher
		{"Accept negative id", func() error { return m.Accept(-1) }, mask.ErrRejected, false},
		{"Accept id past the vocabulary", func() error { return m.Accept(size) }, mask.ErrRejected, false},
		{"Accept nil matcher", func() error { return (*mask.Matcher)(nil).Accept(0) }, mask.ErrMatcher, false},
		{"AcceptToken nil matcher", func() error { return accepted((*mask.Matcher)(nil).AcceptToken(0)) }, mask.ErrRejected, false},
		{"AcceptToken zero matcher", func() error { return accepted(new(mask.Matcher).AcceptToken(0)) }, mask.ErrRejected, false},
		{"AcceptToken id past the vocabulary", func() error { return accepted(m.AcceptToken(size)) }, mask.ErrRejected, false},
		{"Rollback -1", func() error { return m.Rollback(-1) }, mask.ErrRollback, false},
		{"Rollback too many", func() error { return m.Rollback(1) }, mask.ErrRollback, false},
		{"Rollback zero matcher", func() error { return new(mask.Matcher).Rollback(1) }, mask.ErrMatcher, false},

		// BatchFiller
		{"Fill fewer rows than matchers", func() error { return filler.Fill([]*mask.Matcher{m, m}, guard, []int{0}, nil) }, mask.ErrRow, false},
		{"Fill fewer error slots", func() error { return filler.Fill([]*mask.Matcher{m}, guard, []int{0}, make([]error, 2)) }, mask.ErrShape, false},
		{"Fill nil bitmask", func() error { return filler.Fill([]*mask.Matcher{m}, nil, []int{0}, nil) }, mask.ErrShape, false},
		{"Fill negative Rows", func() error { return filler.Fill([]*mask.Matcher{m}, bitmask(-3, stride, 0), []int{0}, nil) }, mask.ErrShape, false},
		{"Fill short Words", func() error { return filler.Fill([]*mask.Matcher{m}, bitmask(2, stride, stride), []int{0}, nil) }, mask.ErrShape, false},
		{"Fill row twice", func() error { return filler.Fill([]*mask.Matcher{m, m}, guard, []int{0, 0}, nil) }, mask.ErrRow, false},
		{"Fill zero filler", func() error { return new(mask.BatchFiller).Fill([]*mask.Matcher{m}, guard, []int{0}, nil) }, mask.ErrFiller, false},
		{"Fill nil filler", func() error { return (*mask.BatchFiller)(nil).Fill([]*mask.Matcher{m}, guard, []int{0}, nil) }, mask.ErrFiller, false},

		// jumpforward
		{"jumpforward.New nil", func() error { _, err := jumpforward.New(nil, jumpforward.Options{}); return err }, jumpforward.ErrNoGrammar, false},
		{"Forwarder.Next nil matcher", func() error {
			f, err := jumpforward.New(compiled, jumpforward.Options{})
			require.NoError(t, err)
			return empty(f.Next(nil, nil))
		}, jumpforward.ErrNoGrammar, false},
		{"Forwarder.Next zero matcher", func() error {
			f, err := jumpforward.New(compiled, jumpforward.Options{})
			require.NoError(t, err)
			return empty(f.Next(new(mask.Matcher), []int{1, 2}))
		}, jumpforward.ErrNoGrammar, false},
		{"jumpforward.Next nil matcher", func() error { return empty(jumpforward.Next(nil, nil)) }, jumpforward.ErrNoGrammar, false},

		// tokenizer
		{"WithLogitWidth below the size", func() error { _, err := voc.WithLogitWidth(-1); return err }, tokenizer.ErrArgument, false},
		{"WithLogitWidth of a nil Vocab", func() error { _, err := (*tokenizer.Vocab)(nil).WithLogitWidth(1); return err }, tokenizer.ErrArgument, false},
		{"WithStopTokens of a nil Vocab", func() error { _, err := (*tokenizer.Vocab)(nil).WithStopTokens(nil); return err }, tokenizer.ErrArgument, false},
		{"WithStopTokens negative id", func() error { _, err := voc.WithStopTokens([]int{-1}); return err }, tokenizer.ErrArgument, false},
		{"WithStopTokens id past the end", func() error { _, err := voc.WithStopTokens([]int{size}); return err }, tokenizer.ErrArgument, false},

		{"NewEncoder nil", func() error { _, err := tokenizer.NewEncoder(nil); return err }, tokenizer.ErrArgument, false},
		{"Encoder of a zero Vocab", func() error { _, err := new(tokenizer.Vocab).Encoder(); return err }, tokenizer.ErrArgument, false},

		// Compiler
		{"Compile nil context", func() error {
			c := newCompiler(t, voc, rein.CompilerOptions{})
			//lint:ignore SA1012 a nil context is the misuse under test
			_, err := c.Compile(nil, rein.Spec{Kind: 0})
			return err
		}, rein.ErrSpec, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range logits {
				logits[i] = 1
			}
			err := catch(tt.call)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.want)
			if tt.panics {
				assert.ErrorIs(t, err, errPanicked)
			} else {
				assert.NotErrorIs(t, err, errPanicked)
			}
			assert.Equal(t, want, guard.Words, "the bitmask was written")
			for i, l := range logits {
				if l != 1 {
					t.Fatalf("logit %d was written", i)
				}
			}
		})
	}
}

// stopsOnly is a vocabulary whose only token is a stop token: no grammar
// could allow anything but ending at once.
func stopsOnly(t *testing.T) *tokenizer.Vocab {
	v, err := tokenizer.LoadTiktokenBytes("one", []byte("YQ== 0\n"), nil, tokenizer.LoadOptions{Pattern: tokenizer.GPT2Pattern})
	require.NoError(t, err)
	v, err = v.WithStopTokens([]int{0})
	require.NoError(t, err)
	return v
}

// accepted turns AcceptToken's answer into an error for the table.
func accepted(ok bool) error {
	if ok {
		return nil
	}
	return mask.ErrRejected
}

// empty turns an empty jump-forward result into an error for the table.
func empty(r jumpforward.Result) error {
	if r.Empty() && r.Forced == nil {
		return jumpforward.ErrNoGrammar
	}
	return nil
}
