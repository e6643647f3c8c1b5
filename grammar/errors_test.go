package grammar_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/reinlm/rein/grammar"
)

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		err  *grammar.Error
		want string
	}{
		{&grammar.Error{Source: "gbnf", Pos: grammar.Pos{Line: 3, Col: 14, Offset: 40}, Msg: `undefined rule "value"`}, `gbnf:3:14: undefined rule "value"`},
		{&grammar.Error{Source: "jsonschema", Pointer: "/properties/age/minimum", Msg: "must be a number"}, "jsonschema: /properties/age/minimum: must be a number"},
		{&grammar.Error{Source: "regex", Msg: "too long"}, "regex: too long"},
		{&grammar.Error{Source: "regex", Err: grammar.ErrLimit}, "regex: limit exceeded"},
		{&grammar.Error{Source: "jsonschema", Pos: grammar.Pos{Line: 1, Col: 2}, Pointer: "/x", Msg: "m"}, "jsonschema:1:2: /x: m"},
		{&grammar.Error{Msg: "bare"}, "bare"},
		{&grammar.Error{Pos: grammar.Pos{Line: 4, Col: 1}, Msg: "no source"}, "4:1: no source"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tc.err.Error())
	}
}

func TestErrorUnwrap(t *testing.T) {
	e := &grammar.Error{Source: "regex", Msg: "lookahead is not supported", Err: grammar.ErrUnsupported}
	assert.ErrorIs(t, e, grammar.ErrUnsupported)
	assert.NotErrorIs(t, e, grammar.ErrLimit)
	wrapped := fmt.Errorf("compile: %w", e)
	var got *grammar.Error
	assert.ErrorAs(t, wrapped, &got)
	assert.Same(t, e, got)
}

func TestPos(t *testing.T) {
	assert.False(t, grammar.Pos{}.IsValid())
	assert.Equal(t, "", grammar.Pos{}.String())
	assert.Equal(t, "2:7", grammar.Pos{Line: 2, Col: 7, Offset: 12}.String())
}

func TestErrorList(t *testing.T) {
	var empty grammar.ErrorList
	assert.NoError(t, empty.Err())
	assert.Equal(t, "no errors", empty.Error())

	one := grammar.ErrorList{{Source: "gbnf", Pos: grammar.Pos{Line: 1, Col: 1}, Msg: "a"}}
	assert.Equal(t, "gbnf:1:1: a", one.Error())
	assert.Error(t, one.Err())

	var list grammar.ErrorList
	for i := 1; i <= 13; i++ {
		list = append(list, &grammar.Error{Source: "gbnf", Pos: grammar.Pos{Line: i, Col: 1}, Msg: "bad"})
	}
	list[4].Err = grammar.ErrLimit
	msg := list.Error()
	assert.Equal(t, 11, strings.Count(msg, "\n")+1, "ten errors and a summary line")
	assert.True(t, strings.HasPrefix(msg, "gbnf:1:1: bad\ngbnf:2:1: bad\n"))
	assert.True(t, strings.HasSuffix(msg, "gbnf:10:1: bad\n(and 3 more errors)"))

	err := list.Err()
	assert.ErrorIs(t, err, grammar.ErrLimit, "errors.Is looks into every error of the list")
	assert.NotErrorIs(t, err, grammar.ErrUnsupported)
	var e *grammar.Error
	assert.True(t, errors.As(err, &e))
	assert.Equal(t, 1, e.Pos.Line)
}
