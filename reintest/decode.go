package reintest

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/reinlm/rein/mask"
)

// DefaultMaxTokens is DecodeOptions.MaxTokens' default.
const DefaultMaxTokens = 256

// ErrOptions reports DecodeOptions that Decode cannot use.
var ErrOptions = errors.New("reintest: bad DecodeOptions")

// ErrNoToken reports a step where no token may be sampled and the grammar
// may not end: the mask allows no token, or the bias bans every token it
// allows.
var ErrNoToken = errors.New("reintest: no token to sample")

// DecodeOptions tune Decode. The zero value decodes up to DefaultMaxTokens
// tokens with seed 0 and no bias.
type DecodeOptions struct {
	// Seed seeds the fake model: the same seed, grammar, vocabulary and
	// options give the same output.
	Seed uint64
	// MaxTokens is the most tokens sampled, the stop token included
	// (default DefaultMaxTokens; negative is an error).
	MaxTokens int
	// Bias holds the fake model's logits for these token ids, as OpenAI's
	// logit_bias: the others' are 0, so that among the tokens the mask
	// allows an unbiased one has weight 1, one biased by b weight e^b, and
	// math.Inf(-1) bans one. An id outside the vocabulary, +Inf or NaN is
	// an error.
	Bias map[int]float32
}

// Decoded is what Decode wrote.
type Decoded struct {
	Text   string // the bytes of Tokens end to end, without the stop token that ended the output
	Tokens []int  // the tokens sampled, the stop token that ended the output included
	// Complete reports whether the grammar may end after Tokens: a stop
	// token ended the output, or the budget ran out where the grammar may
	// end. MatchTokens(c, Tokens) is Complete then, Incomplete otherwise.
	Complete bool
}

// Decode writes a document under the grammar the way an engine does, with a
// fake model: at each step it sets the logits to opts.Bias, masks them with
// Matcher.FillBitmask and mask.Apply, samples a token from their softmax
// with a generator seeded by opts.Seed (with no bias, every token the mask
// allows is as likely; the same as taking the best of the biased logits
// plus random noise) and accepts it, until a stop token ends the output,
// the mask allows nothing more while the grammar may end, or
// opts.MaxTokens tokens are spent.
//
// Every token it returns was accepted in turn: the output is always a
// document the grammar accepts, or the start of one. An error wraps
// mask.ErrGrammar for a nil grammar, ErrOptions for bad options, ErrNoToken
// for a step with nothing to sample, or the matcher's error (a step limit);
// the Decoded returned with it holds what was accepted before.
func Decode(c *mask.Compiled, opts DecodeOptions) (Decoded, error) {
	m, err := newMatcher(c)
	if err != nil {
		return Decoded{}, err
	}
	voc := c.Vocab()
	size, width := voc.Size(), voc.LogitWidth()
	if err := checkOptions(opts, size); err != nil {
		return Decoded{}, err
	}
	budget := opts.MaxTokens
	if budget == 0 {
		budget = DefaultMaxTokens
	}
	rng := rand.New(rand.NewPCG(opts.Seed, opts.Seed))
	bm := mask.NewBitmask(1, size)
	logits := make([]float32, width)
	var d Decoded
	var text []byte
	for len(d.Tokens) < budget && !m.IsTerminated() {
		if err := m.FillBitmask(bm, 0); err != nil {
			d.Text = string(text)
			return d, fmt.Errorf("reintest: step %d: %w", len(d.Tokens), err)
		}
		clear(logits)
		for id, b := range opts.Bias {
			logits[id] = b
		}
		if err := mask.Apply(logits, width, bm, nil); err != nil {
			d.Text = string(text)
			return d, fmt.Errorf("reintest: step %d: %w", len(d.Tokens), err)
		}
		id := sample(logits[:size], rng.Float64())
		if id < 0 {
			if m.CanEnd() {
				break
			}
			d.Text = string(text)
			return d, fmt.Errorf("%w: step %d: the mask allows %d tokens after %q and the grammar may not end", ErrNoToken, len(d.Tokens), bm.Count(0), text[max(0, len(text)-contextBytes):])
		}
		if err := m.Accept(id); err != nil {
			d.Text = string(text)
			return d, fmt.Errorf("reintest: step %d: token %d allowed by the mask: %w", len(d.Tokens), id, err)
		}
		d.Tokens = append(d.Tokens, id)
		if !m.IsTerminated() {
			text = append(text, voc.Bytes(id)...)
		}
	}
	d.Text = string(text)
	d.Complete = ended(m) == Complete
	return d, nil
}

// checkOptions returns an error wrapping ErrOptions unless opts suit a
// vocabulary of size tokens.
func checkOptions(opts DecodeOptions, size int) error {
	if opts.MaxTokens < 0 {
		return fmt.Errorf("%w: MaxTokens %d is negative", ErrOptions, opts.MaxTokens)
	}
	for id, b := range opts.Bias {
		if id < 0 || id >= size {
			return fmt.Errorf("%w: Bias for token %d, outside the vocabulary of %d tokens", ErrOptions, id, size)
		}
		if math.IsNaN(float64(b)) || math.IsInf(float64(b), 1) {
			return fmt.Errorf("%w: Bias for token %d is %v", ErrOptions, id, b)
		}
	}
	return nil
}

// sample returns the token that u, uniform in [0, 1), picks from the
// softmax of logits, or -1 when every one is -Inf. Logits of 0, the many
// tokens no bias names, share one weight, so that a step costs one exp per
// biased token.
func sample(logits []float32, u float64) int {
	top := math.Inf(-1)
	for _, v := range logits {
		top = max(top, float64(v))
	}
	if math.IsInf(top, -1) {
		return -1
	}
	zero := math.Exp(-top)
	weight := func(v float32) float64 {
		if v == 0 {
			return zero
		}
		return math.Exp(float64(v) - top)
	}
	total := 0.0
	for _, v := range logits {
		total += weight(v)
	}
	r, last := u*total, -1
	for id, v := range logits {
		if math.IsInf(float64(v), -1) {
			continue
		}
		if r -= weight(v); r < 0 {
			return id
		}
		last = id
	}
	return last // rounding left r at or above 0: the last token with weight
}
