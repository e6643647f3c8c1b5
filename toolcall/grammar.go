package toolcall

import (
	"context"
	"errors"
	"fmt"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/structtag"
)

// Grammar compiles r's structural tag (see StructuralTag) into a grammar
// with package structtag. Its markers are literals that may also be the
// vocabulary's special tokens of the same text; package mask resolves them.
func Grammar(r Request, opts structtag.Options) (*grammar.Grammar, error) {
	return GrammarContext(context.Background(), r, opts)
}

// GrammarContext is Grammar under ctx: the compile stops once ctx ends,
// with an error wrapping ctx.Err(). The tools' schemas are compiled once,
// within the structural tag, and an error about one of them is reported as
// StructuralTag reports it: an *Error at /tools/i/parameters and the
// schema's own pointer, wrapping the front-end's error. Where a limit of
// opts.Limits is crossed, the schema it was crossed in (or, for the
// request's totals, each schema) is compiled alone to tell a schema that
// crosses the limit by itself (then the error is its tool's, wrapping
// grammar.ErrLimit) from the tools together (then it is at /tools,
// wrapping grammar.ErrLimit as well). Where no tool may be called, a limit
// is the format's own: the compile's error is returned as it is.
func GrammarContext(ctx context.Context, r Request, opts structtag.Options) (*grammar.Grammar, error) {
	data, t, err := build(r)
	if err != nil {
		return nil, err
	}
	g, err := structtag.CompileContext(ctx, data, opts)
	if err == nil {
		return g, nil
	}
	var ge *grammar.Error
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &ge) {
		return nil, err // stopped (err wraps ctx.Err()), or not the front-end's
	}
	limit := errors.Is(err, grammar.ErrLimit)
	tool, rest, ok := t.toolAt(ge.Pointer)
	switch {
	case ok && !limit:
		return nil, t.toolError(tool, rest, ge, err)
	case !limit:
		return nil, err // not about a tool
	case ok:
		if terr := t.checkTool(ctx, tool, opts, true); terr != nil {
			return nil, terr
		}
	default:
		// A total of the whole request (its bytes, its values, its rules):
		// one schema may cross it alone.
		if terr := t.checkArguments(ctx, opts, true); terr != nil {
			return nil, terr
		}
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, fmt.Errorf("%w (naming the tool at fault stopped: %w)", err, cerr)
	}
	switch len(t.tools) {
	case 0:
		return nil, err // the format alone: no tool to blame
	case 1:
		return nil, &Error{Pointer: "/tools", Reason: "the tool's schema, with the format around it: " + ge.Msg, Err: err}
	}
	return nil, &Error{Pointer: "/tools", Reason: fmt.Sprintf("the %d tools' schemas together, with the format around them: %s", len(t.tools), ge.Msg), Err: err}
}
