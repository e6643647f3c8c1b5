package toolcall

import (
	"context"
	"fmt"

	"github.com/reinlm/rein/grammar/structtag"
)

// Format is a model family's tool-call output format. The examples show
// whole outputs: what the model writes after the prompt's generation
// prompt, without the end-of-turn token.
type Format int

// The formats.
const (
	// Llama3JSON is Llama 3.1 / 3.2 with custom tools, one JSON call per turn:
	//	{"name": "get_weather", "parameters": {"city": "Paris"}}
	// Text may come before the call. The family calls one tool per turn,
	// so the output ends after the first call whatever ParallelToolCalls
	// says. No reasoning.
	Llama3JSON Format = iota + 1
	// Llama3PythonTag is Llama 3.1 / 3.2 in ipython mode, the JSON call
	// after the <|python_tag|> token:
	//	<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}
	// The model then writes <|eom_id|>, which is one of the model's stop
	// tokens (its generation config lists it) and so not in the grammar: an
	// engine whose vocabulary does not list it among the stop tokens adds
	// it (tokenizer.Vocab.WithStopTokens). One call per turn; no reasoning.
	Llama3PythonTag
	// Hermes is Qwen2.5 and Hermes 2 Pro / 3: each call a JSON object, name
	// first, in <tool_call> tags, calls separated by text (a newline):
	//	<tool_call>\n{"name": "f", "arguments": {"k": "v"}}\n</tool_call>
	// No reasoning.
	Hermes
	// Qwen3 is Hermes's call format with Qwen3's thinking. With Reasoning,
	// the prompt ends with "<think>\n" and the output starts with the rest
	// of the thinking, then "</think>\n\n", then the answer. Without it the
	// prompt holds the empty thinking block (enable_thinking=false) and the
	// output is the answer alone.
	Qwen3
	// Qwen3Coder is Qwen3-Coder and Qwen3.5: calls in XML, parameters in
	// the qwen_xml style (string values raw, others JSON):
	//	<tool_call>\n<function=f>\n<parameter=k>\nv\n</parameter>\n</function>\n</tool_call>
	// Reasoning (Qwen3.5) is as for Qwen3.
	Qwen3Coder
	// MistralJSON is Mistral v3 and the Tekken models up to v7 (Nemo): one
	// JSON array of calls after [TOOL_CALLS], with or without a space
	// before it, each call optionally carrying a 9-character id:
	//	[TOOL_CALLS] [{"name": "f", "arguments": {"k": "v"}}, {"name": "g", "arguments": {}}]
	// No reasoning.
	MistralJSON
	// MistralV11 is Mistral's v11+ format (Small 3.1/3.2, Devstral,
	// Magistral): each call is [TOOL_CALLS]name[ARGS]arguments, calls back
	// to back:
	//	[TOOL_CALLS]f[ARGS]{"k": "v"}[TOOL_CALLS]g[ARGS]{}
	// The [CALL_ID] variant and Magistral's [THINK] region are not built.
	MistralV11
	// DeepSeekV3 is DeepSeek-V3 and R1: one section of calls, each a
	// function with its arguments in a JSON code block, calls joined by a
	// newline:
	//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{"k": "v"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
	// With Reasoning (R1) the prompt ends with "<think>\n"; the output starts
	// with the rest of the thinking, then "</think>\n\n".
	DeepSeekV3
	// DeepSeekV31 is DeepSeek-V3.1 and V3.2-Exp: the section of DeepSeekV3
	// with bare JSON arguments, calls back to back:
	//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"k": "v"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
	// With Reasoning the prompt ends with "<think>"; the output starts with
	// the rest of the thinking, then "</think>".
	DeepSeekV31
	// Harmony is gpt-oss's harmony format. The prompt ends with
	// "<|start|>assistant". A call is one commentary message whose
	// recipient is the function; the model then writes <|call|>, a stop
	// token:
	//	<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"k": "v"}
	// The recipient may also come before the channel
	// (" to=functions.f<|channel|>commentary json<|message|>..."). A text
	// answer is a final message, "<|channel|>final<|message|>text", ended
	// by the stop token <|return|>. One call per turn. With Reasoning an
	// analysis message comes first:
	// "<|channel|>analysis<|message|>...<|end|><|start|>assistant".
	Harmony
	// KimiK2 is Kimi-K2: one section of calls, each with the function's
	// name and a call index:
	//	<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"k": "v"}<|tool_call_end|><|tool_calls_section_end|>
	// The index is any decimal number (its increments are not checked).
	// With Reasoning (K2-Thinking) the output starts with "<think>...</think>".
	KimiK2
	// GLM45 is GLM-4.5 / 4.6: calls in <tool_call> tags, arguments in the
	// glm_xml style on their own lines:
	//	<tool_call>f\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call>
	// The newline the template writes before <tool_call> is allowed before
	// the first call of a required choice. With Reasoning the output starts
	// with "<think>...</think>".
	GLM45
	// GLM47 is GLM-4.7: the GLM45 call without newlines:
	//	<tool_call>f<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>
	// With Reasoning the prompt ends with "<think>" and the output starts
	// with the rest of the thinking, then "</think>".
	GLM47
	// MiniMaxM2 is MiniMax-M2: one section of <invoke> elements, parameters
	// in the minimax_xml style:
	//	<minimax:tool_call>\n<invoke name="f">\n<parameter name="k">v</parameter>\n</invoke>\n</minimax:tool_call>
	// The prompt always ends with "<think>\n": with Reasoning the output
	// starts with the rest of the thinking, then "</think>\n\n"; without,
	// with "\n</think>\n\n" (an empty thinking block).
	MiniMaxM2
	// CohereCommandA is Command-R7B and Command-A: either an action, a JSON
	// array of calls, or a response, nothing else:
	//	<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "f", "parameters": {"k": "v"}}\n]<|END_ACTION|>
	//	<|START_RESPONSE|>text<|END_RESPONSE|>
	// Calls in the array are separated by ",\n    ". With Reasoning the
	// output starts with "<|START_THINKING|>...<|END_THINKING|>".
	CohereCommandA
)

// family is how one Format writes its output.
type family struct {
	name string
	// style is the json_schema style of the arguments: "" for JSON, or
	// one of the XML argument styles.
	style string
	// controls are the family's marker strings: free text and thinking
	// may hold none of them.
	controls []string
	// think is the thinking region that Reasoning puts first, nil for a
	// family without one; noThink is what the output starts with without
	// Reasoning, nil for nothing.
	think, noThink func(f *family) node
	// body builds the output after the thinking.
	body func(f *family, p plan) node
}

func (m Format) family() (*family, error) {
	if m < Llama3JSON || m > CohereCommandA {
		return nil, errorf("/model", "unknown format %d", int(m))
	}
	return &families[m-Llama3JSON], nil
}

// String returns the format's name, as the constant is spelled.
func (m Format) String() string {
	if f, err := m.family(); err == nil {
		return f.name
	}
	return fmt.Sprintf("Format(%d)", int(m))
}

// StructuralTag returns the structural tag JSON that constrains the output
// of r's model to r's tools and tool choice. A bad request fails with an
// *Error wrapping ErrInvalid: a parameters schema that package structtag
// would refuse included, reported at the tool's parameters
// ("/tools/1/parameters/properties/a/minLength") with the schema
// front-end's reason. It compiles the parameters schema of each tool that
// may be called to find out, so it costs about what compiling them does,
// and it cannot be stopped: to compile r, GrammarContext does it once,
// under a context.
func StructuralTag(r Request) ([]byte, error) {
	data, t, err := build(r)
	if err != nil {
		return nil, err
	}
	if err := t.checkArguments(context.Background(), structtag.Options{}, false); err != nil {
		return nil, err
	}
	return data, nil
}

// tagPlan is what build resolved of a request: the plan, the family's
// json_schema style, the request's tools, and the structural tag's format,
// to name the tool an error of its compile is about.
type tagPlan struct {
	plan
	style  string
	all    []Tool
	format node
}

// build returns r's structural tag, without compiling the tools' schemas.
func build(r Request) ([]byte, tagPlan, error) {
	f, err := r.Model.family()
	if err != nil {
		return nil, tagPlan{}, err
	}
	p, err := choose(r)
	if err != nil {
		return nil, tagPlan{}, err
	}
	var parts []node
	switch {
	case p.reasoning && f.think == nil:
		return nil, tagPlan{}, errorf("/reasoning", "%s has no thinking format", f.name)
	case p.reasoning:
		parts = append(parts, f.think(f))
	case f.noThink != nil:
		parts = append(parts, f.noThink(f))
	}
	t := tagPlan{plan: p, style: f.style, all: r.Tools}
	if err := t.checkTypes(); err != nil {
		return nil, tagPlan{}, err
	}
	parts = append(parts, f.body(f, p))
	t.format = sequence(parts...)
	data, err := marshal(t.format)
	return data, t, err
}
