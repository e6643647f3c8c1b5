package reintest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// Compile compiles spec for vocab, as a rein.Compiler with no cache does,
// and fails the test with t.Fatalf when it cannot: a nil or unusable
// vocabulary, or a spec whose error names the place in its source (a JSON
// pointer, a GBNF line:column). It returns nil only when t.Fatalf returns.
func Compile(t testing.TB, vocab *tokenizer.Vocab, spec rein.Spec) *mask.Compiled {
	t.Helper()
	compiler, err := rein.NewCompiler(vocab, rein.CompilerOptions{CacheBytes: -1, PrepareWork: -1, WarmWorkers: -1})
	if err != nil {
		t.Fatalf("reintest.Compile: %v", err)
		return nil
	}
	c, err := compiler.Compile(context.Background(), spec)
	if err != nil {
		t.Fatalf("reintest.Compile: %v", err)
		return nil
	}
	return c
}

// AssertMatch checks that the grammar takes text in full and may end there
// (Match is Complete). Otherwise it reports with t.Errorf where the text
// stops matching, quoting the text around that byte, and returns false; a
// test that cannot go on then calls t.FailNow.
func AssertMatch(t testing.TB, c *mask.Compiled, text string) bool {
	t.Helper()
	r, m := match(c, text)
	if r.Status == Complete {
		return true
	}
	t.Errorf("reintest.AssertMatch: text does not match the grammar: %s", explain(r, m, text))
	return false
}

// AssertPrefix checks that the grammar takes every byte of text, whether or
// not it may end there (Match is Complete or Incomplete): text is the start
// of a document, as an engine's output is while it streams. Otherwise it
// reports with t.Errorf where the text stops matching and returns false.
func AssertPrefix(t testing.TB, c *mask.Compiled, text string) bool {
	t.Helper()
	r, m := match(c, text)
	if r.Status != Refused {
		return true
	}
	t.Errorf("reintest.AssertPrefix: text is not the start of a document of the grammar: %s", explain(r, m, text))
	return false
}

// AssertNoMatch checks that the grammar does not accept text as a whole
// document: it refuses a byte of it, or needs more (Match is Refused by the
// grammar, or Incomplete). Otherwise, or when there is no grammar to ask
// or the matcher's step limit tripped, it reports with t.Errorf and
// returns false.
func AssertNoMatch(t testing.TB, c *mask.Compiled, text string) bool {
	t.Helper()
	r, m := match(c, text)
	switch {
	case r.Status == Complete:
		t.Errorf("reintest.AssertNoMatch: the grammar accepts the whole text %s", quoted(text))
		return false
	case r.Status == Refused && !refusedByGrammar(r.Err):
		t.Errorf("reintest.AssertNoMatch: cannot tell: %s", explain(r, m, text))
		return false
	}
	return true
}

// AssertTokens is AssertMatch for token ids: it checks that the grammar
// accepts ids in turn and may end after them (MatchTokens is Complete).
// Otherwise it reports with t.Errorf the first token refused, or that more
// must follow, quoting the tokens' text around that byte, and returns
// false.
func AssertTokens(t testing.TB, c *mask.Compiled, ids []int) bool {
	t.Helper()
	r, m := matchTokens(c, ids)
	if r.Status == Complete {
		return true
	}
	var text strings.Builder
	if m != nil {
		for _, id := range ids {
			text.Write(c.Vocab().Bytes(id))
		}
	}
	what := explain(r, m, text.String())
	if r.Status == Refused && m != nil {
		id := ids[r.Token]
		what = fmt.Sprintf("token %d of %d (id %d %s) %s", r.Token, len(ids), id, quoted(string(c.Vocab().Bytes(id))), what)
	}
	t.Errorf("reintest.AssertTokens: tokens do not match the grammar: %s", what)
	return false
}

// refusedByGrammar reports whether err is the grammar's verdict on the
// input, rather than a reason it could not give one.
func refusedByGrammar(err error) bool {
	return errors.Is(err, mask.ErrRejected) || errors.Is(err, mask.ErrTerminated)
}

// explain describes where r stops in text, for the matcher m that ran it
// (nil when there was no grammar): the offset, its line and column, and the
// text on either side.
func explain(r Result, m *mask.Matcher, text string) string {
	switch {
	case r.Status == Incomplete:
		return fmt.Sprintf("the grammar takes all %d bytes but needs at least %d more to end, after %s", len(text), m.BytesToEnd(), around(text, len(text)))
	case m == nil:
		return r.Err.Error()
	}
	off := min(max(r.Offset, 0), len(text))
	where := fmt.Sprintf("refused at byte %d (%s), after %s", r.Offset, lineCol(text, off), around(text, off))
	var rej *mask.RejectError
	if !errors.As(r.Err, &rej) {
		where += ": " + r.Err.Error()
	}
	return where
}

// contextBytes is how much text a message quotes on either side of an
// offset.
const contextBytes = 40

// around quotes the text on either side of off, contextBytes at most each,
// as "before at after", or "before" alone where off is the end.
func around(text string, off int) string {
	start := max(0, off-contextBytes)
	for start > 0 && start < off && !utf8.RuneStart(text[start]) {
		start++
	}
	end := min(len(text), off+contextBytes)
	for end < len(text) && end > off && !utf8.RuneStart(text[end]) {
		end--
	}
	q := quoter(text[start:end])
	s := q(text[start:off])
	if start > 0 {
		s = "…" + s
	}
	if off == len(text) {
		return s
	}
	s += " at " + q(text[off:end])
	if end < len(text) {
		s += "…"
	}
	return s
}

// quoted quotes the start of text, contextBytes at most.
func quoted(text string) string {
	end := min(len(text), contextBytes)
	for end < len(text) && end > 0 && !utf8.RuneStart(text[end]) {
		end--
	}
	s := quoter(text[:end])(text[:end])
	if end < len(text) {
		s += "…"
	}
	return s
}

// lineCol is the 1-based line and byte column of off in text.
func lineCol(text string, off int) string {
	line := 1 + strings.Count(text[:off], "\n")
	col := off - strings.LastIndexByte(text[:off], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// quoter returns how to quote the parts of s: between backquotes where
// s allows it (JSON reads best so), else as Go string literals.
func quoter(s string) func(string) string {
	if strconv.CanBackquote(s) {
		return func(s string) string { return "`" + s + "`" }
	}
	return strconv.Quote
}
