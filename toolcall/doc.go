// Package toolcall builds the constraint for a tool-calling turn of a chat
// model from an OpenAI-style request: the tools, tool_choice and
// parallel_tool_calls of the request, and the model family whose output
// format the calls must take.
//
// The constraint is a structural tag (docs/design/tool-calling.md, sections 1
// to 3): StructuralTag returns its JSON, and Grammar (GrammarContext under
// a context, as a rein.Compiler does) compiles it with package
// grammar/structtag, compiling the tools' schemas once (a second time only
// for the one whose limit error it must tell apart). Every marker of a family (<tool_call>, [TOOL_CALLS],
// <|python_tag|>, <｜tool▁calls▁begin｜>, ...) is written as a string; where the
// vocabulary has a special token with that text, the compiled grammar admits
// the token there. No token id is written anywhere.
//
// How the request maps to the output (section 8 of the notes):
//
//   - tool_choice "none", or no tools: free text only, in which none of the
//     family's control strings occurs.
//   - "auto": free text in which any number of calls may appear, each opened
//     by the family's trigger; with parallel_tool_calls false, at most one
//     call, and the output ends right after it.
//   - "required": the output starts with a call (no text before it); with
//     parallel_tool_calls true more calls and text may follow.
//   - a named function: exactly one call, to that function.
//   - allowed_tools: the listed tools only, then "auto" or "required".
//
// A call to a tool the request does not declare is refused at its name,
// since each call's opening string holds the name. A tool with strict false,
// or without parameters, takes any JSON object as its arguments; otherwise
// the arguments must be a JSON object valid for its parameters schema
// (parameters {}, or without "type", take objects only). The XML argument
// styles are the exception: an argument element names its key, only
// declared keys can be written, so there the parameters schema holds even
// for strict false.
//
// The end-of-turn token (<|im_end|>, <|eot_id|>, </s>, <|call|>, ...) is never
// part of the constraint: a matcher allows the vocabulary's stop tokens where
// the grammar may end. Reasoning, where a family has a thinking format, puts
// the rest of the thinking region first; the Format constants document, per
// family, what the prompt must already hold and what the model writes.
//
// toolcall knows nothing of tokens or automata: it writes a structural tag.
package toolcall
