package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/structtag"
	"github.com/reinlm/rein/internal/fuzzcheck"
)

// FuzzParseTools feeds arbitrary tools JSON and tool_choice JSON through the
// parsers and, when both parse, through StructuralTag for every family: no
// panic, errors wrap ErrInvalid, a structural tag is valid JSON, the
// grammar structtag compiles from it is one the pushdown compiler takes,
// and GrammarContext compiles exactly the requests that tag compile does.
func FuzzParseTools(f *testing.F) {
	f.Add([]byte(`[{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]`), []byte(`"required"`), uint8(3))
	f.Add([]byte(`[{"type": "function", "name": "g", "strict": false}]`), []byte(`{"type": "function", "function": {"name": "g"}}`), uint8(9))
	f.Add([]byte(`[]`), []byte(`{"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [{"type": "function", "name": "g"}]}}`), uint8(0))
	f.Add([]byte(`[{"type": "function", "function": {"name": "a.b-c_d"}}]`), []byte(`"none"`), uint8(14))
	f.Fuzz(func(t *testing.T, toolsJSON, choiceJSON []byte, model uint8) {
		tools, err := ParseTools(toolsJSON)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseTools: %v does not wrap ErrInvalid", err)
			}
			return
		}
		choice, err := ParseToolChoice(choiceJSON)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseToolChoice: %v does not wrap ErrInvalid", err)
			}
			return
		}
		for _, reasoning := range []bool{false, true} {
			data, err := StructuralTag(Request{Model: Format(model % 16), Tools: tools, ToolChoice: choice, Reasoning: reasoning})
			if err != nil {
				if !errors.Is(err, ErrInvalid) {
					t.Fatalf("StructuralTag: %v does not wrap ErrInvalid", err)
				}
				continue
			}
			if !json.Valid(data) {
				t.Fatalf("StructuralTag wrote invalid JSON: %s", data)
			}
			g, err := structtag.Compile(data, structtag.Options{Limits: fuzzcheck.Limits})
			// GrammarContext compiles the same tag once, and on a failure
			// names the tool from the compile's error: it agrees on whether
			// the request compiles, and a refusal is a request's or a limit's.
			r := Request{Model: Format(model % 16), Tools: tools, ToolChoice: choice, Reasoning: reasoning}
			if _, gerr := GrammarContext(context.Background(), r, structtag.Options{Limits: fuzzcheck.Limits}); (gerr == nil) != (err == nil) {
				t.Fatalf("GrammarContext: %v, where the tag's compile gave %v", gerr, err)
			} else if gerr != nil && !errors.Is(gerr, ErrInvalid) && !errors.Is(gerr, grammar.ErrLimit) && !errors.Is(gerr, grammar.ErrUnsupported) {
				t.Fatalf("GrammarContext: %v wraps neither ErrInvalid nor a limit nor an unsupported keyword", gerr)
			}
			if err != nil {
				// A schema that jsonschema cannot enforce, or one past the limits.
				continue
			}
			fuzzcheck.Compiles(t, "toolcall", g)
		}
	})
}
