package structtag

import (
	"context"
	"encoding/json"

	"github.com/reinlm/rein/grammar"
)

// Format is a format object as a Go value, for programs that build
// structural tags (a model's tool-call format, say) rather than receive
// them: make one with the constructors below, and marshal it with
// encoding/json into the JSON that Compile reads, or compile it with
// CompileFormat. Each field is the format field of the same JSON name; a
// constructor sets those of its type.
type Format struct {
	Type string `json:"type"`

	Value      *string         `json:"value,omitempty"`
	JSONSchema json.RawMessage `json:"json_schema,omitempty"`
	Style      string          `json:"style,omitempty"`
	AnyOrder   bool            `json:"any_order,omitempty"`
	Grammar    string          `json:"grammar,omitempty"`
	Pattern    string          `json:"pattern,omitempty"`

	Elements []Format `json:"elements,omitempty"`
	Content  *Format  `json:"content,omitempty"`
	Min      *int     `json:"min,omitempty"`
	Max      *int     `json:"max,omitempty"`

	Begin          any      `json:"begin,omitempty"` // a string or a TokenMarker
	End            any      `json:"end,omitempty"`   // a string, a []string or a TokenMarker
	Triggers       []string `json:"triggers,omitempty"`
	Tags           []Format `json:"tags,omitempty"`
	Separator      *string  `json:"separator,omitempty"`
	AtLeastOne     bool     `json:"at_least_one,omitempty"`
	StopAfterFirst bool     `json:"stop_after_first,omitempty"`
	Rules          [][2]any `json:"rules,omitempty"` // [pattern or token, Format]
	Loop           *bool    `json:"loop,omitempty"`
	Excludes       []string `json:"excludes,omitempty"`

	Token         any   `json:"token,omitempty"` // an id (int) or a token's text
	TriggerTokens []any `json:"trigger_tokens,omitempty"`
	ExcludeTokens []any `json:"exclude_tokens,omitempty"`
	MaxTokens     *int  `json:"max_tokens,omitempty"`
}

// TokenMarker is a tag's begin or end given as one token: an id (int) or a
// token's text.
type TokenMarker struct {
	Type  string `json:"type"`
	Token any    `json:"token"`
}

// TokenOf returns the token marker for an id (int) or a token's text.
func TokenOf(token any) TokenMarker { return TokenMarker{Type: "token", Token: token} }

// ConstString matches s exactly.
func ConstString(s string) Format { return Format{Type: "const_string", Value: &s} }

// JSONSchema matches a JSON value valid under schema, written in style
// ("" or "json" for JSON, else one of the XML styles).
func JSONSchema(schema json.RawMessage, style string) Format {
	return Format{Type: "json_schema", JSONSchema: schema, Style: style}
}

// Grammar matches the rule "root" of a grammar in XGrammar's EBNF dialect
// (grammar.ParseEBNF), or, where that dialect refuses it, in rein's GBNF
// (grammar.ParseGBNF).
func Grammar(src string) Format { return Format{Type: "grammar", Grammar: src} }

// GBNF is Grammar, under its former name. A GBNF grammar that XGrammar's
// EBNF dialect refuses (`.`, an empty alternative, token terminals) is read
// as GBNF; one both dialects read, as XGrammar reads it (its \x escape
// takes every hex digit that follows).
//
// Deprecated: use Grammar.
func GBNF(src string) Format { return Grammar(src) }

// Regex matches a regular expression.
func Regex(pattern string) Format { return Format{Type: "regex", Pattern: pattern} }

// AnyText matches any text holding none of excludes.
func AnyText(excludes ...string) Format { return Format{Type: "any_text", Excludes: excludes} }

// Sequence matches its elements one after the other.
func Sequence(elements ...Format) Format { return Format{Type: "sequence", Elements: elements} }

// Or matches one of its elements.
func Or(elements ...Format) Format { return Format{Type: "or", Elements: elements} }

// Optional matches content or nothing.
func Optional(content Format) Format { return Format{Type: "optional", Content: &content} }

// Plus matches content one or more times.
func Plus(content Format) Format { return Format{Type: "plus", Content: &content} }

// Star matches content any number of times.
func Star(content Format) Format { return Format{Type: "star", Content: &content} }

// Repeat matches content min to max times; max -1 is unbounded.
func Repeat(content Format, min, max int) Format {
	return Format{Type: "repeat", Content: &content, Min: &min, Max: &max}
}

// Tag matches begin, content, end. begin is a string or a TokenMarker, end
// a string, a []string (any one closes) or a TokenMarker.
func Tag(begin any, content Format, end any) Format {
	return Format{Type: "tag", Begin: begin, Content: &content, End: end}
}

// TriggeredTags matches free text in which each trigger starts one of the
// tags (made with Tag, beginning with a string that starts with exactly one
// trigger).
func TriggeredTags(triggers []string, tags []Format, atLeastOne, stopAfterFirst bool, excludes ...string) Format {
	return Format{Type: "triggered_tags", Triggers: triggers, Tags: tags, AtLeastOne: atLeastOne, StopAfterFirst: stopAfterFirst, Excludes: excludes}
}

// TagsWithSeparator matches tags joined by separator, with no free text.
func TagsWithSeparator(tags []Format, separator string, atLeastOne, stopAfterFirst bool) Format {
	return Format{Type: "tags_with_separator", Tags: tags, Separator: &separator, AtLeastOne: atLeastOne, StopAfterFirst: stopAfterFirst}
}

// DispatchRule is one rule of Dispatch or TokenDispatch: a pattern string
// (Dispatch) or a token (TokenDispatch: an id or a token's text), and the
// format that must follow it.
type DispatchRule struct {
	Trigger any
	Format  Format
}

func dispatchRules(rules []DispatchRule) [][2]any {
	out := make([][2]any, len(rules))
	for i, r := range rules {
		out[i] = [2]any{r.Trigger, r.Format}
	}
	return out
}

// Dispatch matches free text in which each rule's pattern must be followed
// by the rule's format; with loop, any number of times, else at most once,
// at the end.
func Dispatch(rules []DispatchRule, loop bool, excludes ...string) Format {
	return Format{Type: "dispatch", Rules: dispatchRules(rules), Loop: &loop, Excludes: excludes}
}

// Token matches one token: an id (int) or a token's text.
func Token(token any) Format { return Format{Type: "token", Token: token} }

// ExcludeToken matches one token that is none of excluded (ids or texts).
func ExcludeToken(excluded ...any) Format {
	return Format{Type: "exclude_token", ExcludeTokens: excluded}
}

// AnyTokens matches tokens that are none of excluded, at most maxTokens of
// them (-1: any number).
func AnyTokens(maxTokens int, excluded ...any) Format {
	f := Format{Type: "any_tokens", ExcludeTokens: excluded}
	if maxTokens >= 0 {
		f.MaxTokens = &maxTokens
	}
	return f
}

// TokenTriggeredTags matches free tokens in which each trigger token starts
// one of the tags (each beginning with a TokenMarker of a trigger).
func TokenTriggeredTags(triggers []any, tags []Format, atLeastOne, stopAfterFirst bool, excluded ...any) Format {
	return Format{Type: "token_triggered_tags", TriggerTokens: triggers, Tags: tags, AtLeastOne: atLeastOne, StopAfterFirst: stopAfterFirst, ExcludeTokens: excluded}
}

// TokenDispatch matches free tokens in which each rule's token must be
// followed by the rule's format.
func TokenDispatch(rules []DispatchRule, loop bool, excluded ...any) Format {
	return Format{Type: "token_dispatch", Rules: dispatchRules(rules), Loop: &loop, ExcludeTokens: excluded}
}

// Request returns the request JSON for f: {"type": "structural_tag",
// "format": f}.
func (f Format) Request() ([]byte, error) {
	return json.Marshal(struct {
		Type   string `json:"type"`
		Format Format `json:"format"`
	}{"structural_tag", f})
}

// CompileFormat compiles f as Compile compiles its JSON.
func CompileFormat(ctx context.Context, f Format, opts Options) (*grammar.Grammar, error) {
	data, err := f.Request()
	if err != nil {
		return nil, errorf("", "the format does not marshal: %v", err)
	}
	return CompileContext(ctx, data, opts)
}
