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
// within the structural tag. Where that fails, each schema is compiled
// alone to name the tool at fault, as StructuralTag does: an *Error at
// /tools/i/parameters and the schema's own pointer, wrapping the
// front-end's error (grammar.ErrLimit where a schema alone crosses one of
// opts.Limits). A limit that only the tools' schemas together cross is
// reported at /tools, wrapping grammar.ErrLimit.
func GrammarContext(ctx context.Context, r Request, opts structtag.Options) (*grammar.Grammar, error) {
	data, t, err := build(r)
	if err != nil {
		return nil, err
	}
	g, err := structtag.CompileContext(ctx, data, opts)
	if err == nil || ctx.Err() != nil {
		return g, err
	}
	if terr := t.checkArguments(ctx, opts, true); terr != nil {
		return nil, terr
	}
	var ge *grammar.Error
	// No tool crosses the limit alone. The compile's pointer is into the
	// structural tag built here, not into the request.
	if ctx.Err() == nil && errors.Is(err, grammar.ErrLimit) && len(t.tools) > 1 && errors.As(err, &ge) {
		return nil, &Error{Pointer: "/tools", Reason: fmt.Sprintf("the %d tools' schemas together: %s", len(t.tools), ge.Msg), Err: err}
	}
	return nil, err
}
