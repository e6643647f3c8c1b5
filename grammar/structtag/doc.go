// Package structtag compiles XGrammar structural tags into a grammar.Grammar.
//
// A structural tag is the JSON value an OpenAI-style request gives as
// response_format to constrain tool calls, reasoning blocks and free text
// together: {"type": "structural_tag", "format": {...}}, or, for rein, the
// format object alone. Compile reads it and returns the grammar; package
// mask compiles that for a vocabulary like any other. Programs that build
// structural tags rather than receive them write them as Format values
// (Tag, TriggeredTags, JSONSchema, ...), which marshal to the same JSON, and
// compile them with CompileFormat.
//
// A request goes through the package in three steps, one file each:
// json.go reads the JSON into a tree that keeps key order and byte offsets
// (iteratively, bounded by Limits.SchemaBytes and SchemaNodes); fields.go
// knows each format type's fields and infers the type of untyped objects;
// format.go, tags.go, tokens.go and schema.go emit the grammar, one rule
// per composite format, with embedded JSON Schema and EBNF grammars copied
// in with their rules renumbered.
//
// # Formats
//
// Every format type of XGrammar's structural tags is read, with XGrammar's
// fields and defaults:
//
//   - const_string, any_text, regex (rein's regex syntax) and grammar
//     (XGrammar's EBNF dialect, as XGrammar reads it: grammar.ParseEBNF,
//     with root rule "root"; a grammar that dialect refuses is read as
//     rein's GBNF, grammar.ParseGBNF);
//   - json_schema through package jsonschema, with any whitespace between
//     tokens (Options.WhitespacePattern, or max_whitespace_cnt) and strict
//     objects (an object schema that declares properties admits no others,
//     closed where its instance is so that allOf branches and $ref targets
//     hold together, and never below not, if or oneOf, where closing would
//     let more through: see CloseObjects), in style json or one of the XML
//     styles of tool-calling models
//     (qwen_xml, minimax_xml, deepseek_xml, glm_xml, cohere_xml,
//     kimi_k3_xml); qwen_xml_parameter is the legacy name of style qwen_xml;
//   - sequence, or, optional, plus, star and repeat;
//   - tag, triggered_tags, tags_with_separator and dispatch;
//   - token, exclude_token, any_tokens, token_triggered_tags and
//     token_dispatch, whose tokens are ids or token texts.
//
// Strings of the request (const_string values, tag begins and ends,
// triggers, separators, dispatch patterns) are literals that may hold the
// text of a special token, which then matches that token as well
// (grammar.LitTokens). Token formats match whole tokens by identity
// (grammar.TokenSet); a free token (exclude_token, any_tokens and the free
// tokens of token_triggered_tags and token_dispatch) may be any token not
// excluded, special tokens included, but never a stop token.
//
// Free text (any_text, and the text between the tags of triggered_tags and
// the rules of dispatch) is grammar.Text: it holds no trigger, no pattern,
// no exclude string whole, and may end with part of one; once a trigger is
// complete the tag it starts must follow in full.
//
// A format object without "type" is read as the first type, in XGrammar's
// order (tag, const_string, json_schema, any_text, sequence, or,
// triggered_tags, tags_with_separator, optional, plus, star, repeat,
// dispatch, token_dispatch), whose required fields it has and whose fields
// it knows; any_text needs "excludes" to be inferred, and dispatch string
// patterns.
//
// # End detection
//
// An unlimited format inside a tag ends at that tag's end: the nearest
// enclosing tag's non-empty end strings are excluded from the free text of
// any_text, triggered_tags and dispatch inside it, and its end token from
// the free tokens of exclude_token, any_tokens, token_triggered_tags and
// token_dispatch. A tag that ends with a token hands no strings down, and
// one that ends with strings no token. XGrammar does not do this for
// dispatch, whose users add the end to excludes by hand; rein does, so
// that no free text inside a tag can run past its end.
//
// # Where rein differs from XGrammar
//
//   - A field that the format type does not know is an error (XGrammar
//     ignores it); every field XGrammar's newest parser knows is accepted.
//     A field given twice is an error too.
//   - any_text's max_chars and json_schema's excludes are errors wrapping
//     grammar.ErrUnsupported. any_text's max_tokens is a token budget on
//     the text's rule (grammar.Rule.MaxTokens): the matcher counts the
//     tokens that start and end inside the text and ends it once they
//     reach the budget, so a token that carries both the tag's begin and
//     the first text is not counted. any_tokens.max_tokens is a bounded
//     repetition.
//   - Without Options.TokenID, token texts are resolved when package mask
//     compiles the grammar, not here, and a trigger token given by id
//     cannot be matched to a tag that begins with the same token by text.
//   - json_schema with any_order uses jsonschema.OrderAny, which accepts
//     each declared property at most once and tracks required ones;
//     XGrammar only counts entries, so it also accepts a repeated key in
//     place of a missing required one.
//   - End detection does not reach into json_schema, grammar and regex
//     formats: a JSON string inside a tag may hold the tag's end.
//   - Free text may end with part of a trigger that the trigger itself
//     completes ("ab" then the trigger "aba"); XGrammar fires at the first
//     complete trigger. Only a trigger with a border (a proper prefix that
//     is also its suffix, "a" in "aba") tells the two apart. Likewise, with
//     several triggers, free text may end with part of one trigger that
//     another's tag completes: with triggers "ab" and "bc", "abcY..." is
//     the text "a" and a tag that begins "bc", though "ab" came first; and
//     an exclude string may straddle the text's end ("q<" before the
//     trigger "<t>"). The built-in tool-call formats (package toolcall)
//     have no trigger or control string that ends with the start of a tag.
//
// # Errors and limits
//
// Errors are *grammar.Error values with Source "structtag" and the JSON
// pointer of what is wrong (/format/elements/2/end), or the line and column
// of JSON that does not parse. Formats nest at most MaxDepth levels, checked
// before each level is entered. The request's size is bounded by
// Limits.SchemaBytes and SchemaNodes, the grammar by Limits.Rules and
// ExprNodes.
//
// The package knows no vocabulary: it produces a Grammar, with token
// terminals by id or text that package mask resolves.
package structtag
