package reintest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/reintest"
)

// recorder is a testing.TB that records what a helper reports.
type recorder struct {
	testing.TB
	helper bool
	errors []string
	fatals []string
}

func (r *recorder) Helper() { r.helper = true }

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}

func TestAssert(t *testing.T) {
	c := compile(t, city)
	ml := compile(t, lines)
	long := `{"city":"` + strings.Repeat("x", 60) + `"}`
	tail := `,"a":"` + strings.Repeat("y", 60) + `"}`
	tests := []struct {
		name   string
		check  func(testing.TB) bool
		ok     bool
		report []string // substrings of the one report, when !ok
	}{
		{"match", func(t testing.TB) bool { return reintest.AssertMatch(t, c, `{"city":"Oslo"}`) }, true, nil},
		{"match refused", func(t testing.TB) bool { return reintest.AssertMatch(t, c, `{"city":"Oslo","x":1}`) }, false,
			[]string{"reintest.AssertMatch:", "refused at byte 14 (line 1, column 15)", "after `{\"city\":\"Oslo\"` at `,\"x\":1}`"}},
		{"match incomplete", func(t testing.TB) bool { return reintest.AssertMatch(t, c, `{"city":"Oslo`) }, false,
			[]string{"takes all 13 bytes but needs at least 2 more to end", "after `{\"city\":\"Oslo`"}},
		{"match, no grammar", func(t testing.TB) bool { return reintest.AssertMatch(t, nil, `{}`) }, false,
			[]string{"mask: no grammar"}},
		{"match, second line", func(t testing.TB) bool { return reintest.AssertMatch(t, ml, "abc;\nde5;") }, false,
			[]string{"refused at byte 7 (line 2, column 3)", `after "abc;\nde" at "5;"`}},
		{"match, long text", func(t testing.TB) bool { return reintest.AssertMatch(t, c, long[:len(long)-1]+tail) }, false,
			[]string{"refused at byte 70 (line 1, column 71)", "after …`" + strings.Repeat("x", 39) + "\"` at `,\"a\":\"" + strings.Repeat("y", 34) + "`…"}},
		{"match, refused at the end", func(t testing.TB) bool { return reintest.AssertMatch(t, c, long+"}") }, false,
			[]string{"refused at byte 71", "after …`" + strings.Repeat("x", 38) + "\"}` at `}`"}},
		{"prefix", func(t testing.TB) bool { return reintest.AssertPrefix(t, c, `{"city":"Os`) }, true, nil},
		{"prefix complete", func(t testing.TB) bool { return reintest.AssertPrefix(t, c, `{"city":"Oslo"}`) }, true, nil},
		{"prefix refused", func(t testing.TB) bool { return reintest.AssertPrefix(t, c, `{"town"`) }, false,
			[]string{"reintest.AssertPrefix:", "refused at byte 2 (line 1, column 3)", "after `{\"` at `town\"`"}},
		{"no match refused", func(t testing.TB) bool { return reintest.AssertNoMatch(t, c, `{"city":1}`) }, true, nil},
		{"no match incomplete", func(t testing.TB) bool { return reintest.AssertNoMatch(t, c, `{"city":"x"`) }, true, nil},
		{"no match, matches", func(t testing.TB) bool { return reintest.AssertNoMatch(t, c, `{"city":"Oslo"}`) }, false,
			[]string{"reintest.AssertNoMatch: the grammar accepts the whole text `{\"city\":\"Oslo\"}`"}},
		{"no match, no grammar", func(t testing.TB) bool { return reintest.AssertNoMatch(t, nil, `x`) }, false,
			[]string{"reintest.AssertNoMatch: cannot tell", "mask: no grammar"}},
		{"no match, long text", func(t testing.TB) bool { return reintest.AssertNoMatch(t, c, long) }, false,
			[]string{"`{\"city\":\"" + strings.Repeat("x", 31) + "`…"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			assert.Equal(t, tt.ok, tt.check(rec))
			assert.True(t, rec.helper, "t.Helper not called")
			assert.Empty(t, rec.fatals)
			if tt.ok {
				assert.Empty(t, rec.errors)
				return
			}
			require.Len(t, rec.errors, 1)
			for _, s := range tt.report {
				assert.Contains(t, rec.errors[0], s)
			}
		})
	}
}

func TestAssertTokens(t *testing.T) {
	c := compile(t, answer)
	stop := vocab(t).StopTokens()[0]
	tests := []struct {
		name   string
		ids    []int
		ok     bool
		report []string
	}{
		{"complete", tokens(t, "yes", ",", " 4", "2"), true, nil},
		{"complete with stop", append(tokens(t, "no", ",", " 4"), stop), true, nil},
		{"refused inside a token", tokens(t, "yes", ",", " 4", "2", "345"), false,
			[]string{"reintest.AssertTokens:", "token 4 of 5 (id 27712 `345`) refused at byte 8 (line 1, column 9)", "after `yes, 423` at `45`"}},
		{"stop too early", append(tokens(t, "yes", ","), stop), false,
			[]string{"token 2 of 3 (id 50256 `<|endoftext|>`) refused at byte 4", "after `yes,` at `<|endoftext|>`"}},
		{"after the stop token", append(tokens(t, "no", ",", " 1"), stop, token(t, "2")), false,
			[]string{"token 4 of 5", "mask: matcher already terminated"}},
		{"out of range", []int{-7}, false,
			[]string{"token 0 of 1 (id -7 ``) refused at byte 0", "outside the vocabulary"}},
		{"incomplete", tokens(t, "yes", ","), false,
			[]string{"the grammar takes all 4 bytes but needs at least 2 more to end"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			assert.Equal(t, tt.ok, reintest.AssertTokens(rec, c, tt.ids))
			assert.True(t, rec.helper, "t.Helper not called")
			if tt.ok {
				assert.Empty(t, rec.errors)
				return
			}
			require.Len(t, rec.errors, 1)
			for _, s := range tt.report {
				assert.Contains(t, rec.errors[0], s)
			}
		})
	}

	rec := &recorder{}
	assert.False(t, reintest.AssertTokens(rec, nil, []int{1}))
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], "mask: no grammar")
}

// The quoted context never splits a UTF-8 sequence.
func TestAssertContextUTF8(t *testing.T) {
	c := compile(t, accent)
	text := strings.Repeat("é", 30) + "5" + strings.Repeat("é", 30)
	rec := &recorder{}
	require.False(t, reintest.AssertMatch(rec, c, text))
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], "refused at byte 60 (line 1, column 61), after …`"+strings.Repeat("é", 20)+"` at `5"+strings.Repeat("é", 19)+"`…")
}

func TestCompile(t *testing.T) {
	rec := &recorder{}
	c := reintest.Compile(rec, vocab(t), answer)
	require.NotNil(t, c)
	assert.True(t, rec.helper)
	assert.Empty(t, rec.fatals)
	assert.Equal(t, reintest.Complete, reintest.Match(c, "no, 1").Status)

	tests := []struct {
		name  string
		spec  rein.Spec
		fatal string
	}{
		{"bad regex", rein.Regex(`[0-9`), "reintest.Compile: rein: compile regex:"},
		{"bad schema", rein.JSONSchema(`{"type":"integr"}`), `/type: type: unknown type "integr"`},
		{"bad gbnf", rein.GBNF("root ::= \"a\n", ""), "reintest.Compile: rein: compile gbnf:"},
		{"unknown kind", rein.Spec{}, "rein: bad grammar spec"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			assert.Nil(t, reintest.Compile(rec, vocab(t), tt.spec))
			assert.True(t, rec.helper)
			require.Len(t, rec.fatals, 1)
			assert.Contains(t, rec.fatals[0], tt.fatal)
		})
	}

	rec = &recorder{}
	assert.Nil(t, reintest.Compile(rec, nil, answer))
	require.Len(t, rec.fatals, 1)
	assert.Contains(t, rec.fatals[0], mask.ErrVocab.Error())
}
