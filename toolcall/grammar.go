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
// opts.Limits is crossed inside a tool's schema, that schema is compiled
// alone to tell whether it crosses the limit by itself (then the error is
// the tool's, wrapping grammar.ErrLimit) or only the tools together do
// (then it is at /tools, wrapping grammar.ErrLimit as well).
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
	if !errors.As(err, &ge) {
		return nil, err
	}
	limit := errors.Is(err, grammar.ErrLimit)
	tool, rest, ok := t.toolAt(ge.Pointer)
	switch {
	case ok && !limit:
		return nil, t.toolError(tool, rest, ge, err)
	case !limit || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return nil, err // not about a tool, or the compile stopped (err wraps ctx.Err())
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%w (naming the tool at fault stopped: %w)", err, ctx.Err())
	case ok:
		if terr := t.checkTool(ctx, tool, opts, true); terr != nil {
			return nil, terr
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%w (naming the tool at fault stopped: %w)", err, ctx.Err())
		}
	}
	if len(t.tools) > 1 {
		return nil, &Error{Pointer: "/tools", Reason: fmt.Sprintf("the %d tools' schemas together: %s", len(t.tools), ge.Msg), Err: err}
	}
	return nil, err
}
