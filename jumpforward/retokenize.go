package jumpforward

import (
	"bytes"

	"github.com/reinlm/rein/internal/byteset"
)

// The window of accepted tokens re-encoded with the forced bytes starts at
// least this many tokens and bytes back, so that it starts before the last
// pre-tokenizer word of the accepted text (the one forced bytes may extend).
const (
	minWindowTokens = 2
	minWindowBytes  = 8
)

// retokenize returns how many of history's last tokens to roll back and
// which tokens to append so that the sequence spells the accepted text and
// a prefix of forced, as the Encoder would encode it whatever follows; next
// holds the bytes that may follow forced. The tokens are nil when nothing
// can be appended yet.
func (f *Forwarder) retokenize(history []int, forced []byte, next *byteset.Set) (int, []int) {
	// Encode complete characters only: the bytes of a character the forced
	// string leaves unfinished wait for the model, and are what follows.
	if n := completeUTF8(forced); n < len(forced) {
		b := forced[n]
		f.one = byteset.Set{}
		f.one.Add(b)
		forced, next = forced[:n], &f.one
	}
	if len(forced) == 0 {
		return 0, nil
	}
	// The window reaches back at most to the start of history or to the
	// token after the last special token, a boundary the Encoder cannot
	// merge across: it would spell the special token with its text pieces,
	// replacing the token the grammar took by a token terminal.
	free := 0
	for free < len(history) && free <= f.opts.MaxWindow && !f.voc.IsSpecial(history[len(history)-1-free]) {
		free++
	}
	limit := min(free, f.opts.MaxWindow)
	k, wlen := 0, 0
	for k < limit && (k < minWindowTokens || wlen < minWindowBytes) {
		wlen += len(f.voc.Bytes(history[len(history)-1-k]))
		k++
	}
	for {
		// Start the window on a character.
		for k < limit && continuation(f.voc.Bytes(history[len(history)-k])) {
			k++
		}
		f.text = f.text[:0]
		for _, id := range history[len(history)-k:] {
			f.text = append(f.text, f.voc.Bytes(id)...)
		}
		wlen = len(f.text)
		f.text = append(f.text, forced...)
		safe := f.safeEnd(next)
		if safe <= wlen {
			// Every token that would add forced bytes might still merge
			// with what the model writes next.
			return 0, nil
		}
		n := f.enc.Encode(string(f.text))
		c := commonPrefix(n, history[len(history)-k:])
		if c == 0 && k < free {
			// The window's first token changed: the window may start
			// inside a word. Look further back.
			if k >= limit {
				return 0, nil
			}
			k = min(2*k, limit)
			continue
		}
		// Keep the tokens that end by safe and spell the text (an Encoder
		// whose normalizer changes the bytes spells something else).
		keep, end := 0, 0
		for keep < len(n) {
			b := f.voc.Bytes(n[keep])
			if end+len(b) > safe || !bytes.Equal(b, f.text[end:end+len(b)]) {
				break
			}
			end += len(b)
			keep++
		}
		if keep <= c || end <= wlen {
			return 0, nil
		}
		return k - c, n[c:keep]
	}
}

// safeEnd returns the first position of f.text where a token could start
// that spells the rest of f.text and goes on with a byte of next (len(f.text)
// when none can): the tokens the Encoder gives f.text up to there stay
// whatever follows, the ones after may merge with it. With next empty only
// the end may follow and the whole text is safe.
func (f *Forwarder) safeEnd(next *byteset.Set) int {
	x := f.text
	if next.Len() == 0 {
		return len(x)
	}
	safe := len(x)
	for j := len(x) - 1; j >= 0 && len(x)-j < f.trie.MaxLen(); j-- {
		if f.trie.Extends(x[j:], (*[4]uint64)(next)) {
			safe = j
		}
	}
	return safe
}

func commonPrefix(a, b []int) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// continuation reports whether b starts with a UTF-8 continuation byte.
func continuation(b []byte) bool { return len(b) > 0 && b[0]&0xC0 == 0x80 }

// completeUTF8 returns the length of the longest prefix of b that does not
// end inside a UTF-8 sequence (invalid bytes count as complete).
func completeUTF8(b []byte) int {
	n := len(b)
	for i := n - 1; i >= 0 && i >= n-4; i-- {
		c := b[i]
		if c < 0x80 {
			return n
		}
		if c >= 0xC2 && c <= 0xF4 {
			need := 2
			switch {
			case c >= 0xF0:
				need = 4
			case c >= 0xE0:
				need = 3
			}
			if n-i < need {
				return i
			}
			return n
		}
		if c >= 0xC0 {
			return n
		}
	}
	return n
}
