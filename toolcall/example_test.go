package toolcall_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/structtag"
	"github.com/reinlm/rein/pda"
	"github.com/reinlm/rein/toolcall"
)

// The request's tools and tool_choice come as OpenAI JSON; the structural
// tag forces exactly one Qwen3 call to get_weather after the thinking.
func ExampleStructuralTag() {
	tools, err := toolcall.ParseTools([]byte(`[{"type": "function", "function": {"name": "get_weather",
		"parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]`))
	if err != nil {
		log.Fatal(err)
	}
	choice, err := toolcall.ParseToolChoice([]byte(`{"type": "function", "function": {"name": "get_weather"}}`))
	if err != nil {
		log.Fatal(err)
	}
	tag, err := toolcall.StructuralTag(toolcall.Request{
		Model:      toolcall.Qwen3,
		Tools:      tools,
		ToolChoice: choice,
		Reasoning:  true,
	})
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, tag, "", "  "); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.String())
	// Output:
	// {
	//   "format": {
	//     "elements": [
	//       {
	//         "begin": "",
	//         "content": {
	//           "excludes": [
	//             "<tool_call>",
	//             "</tool_call>",
	//             "<tool_response>",
	//             "</tool_response>",
	//             "<think>",
	//             "</think>"
	//           ],
	//           "type": "any_text"
	//         },
	//         "end": "</think>",
	//         "type": "tag"
	//       },
	//       {
	//         "type": "const_string",
	//         "value": "\n\n"
	//       },
	//       {
	//         "at_least_one": true,
	//         "excludes": [
	//           "</tool_call>",
	//           "<tool_response>",
	//           "</tool_response>",
	//           "<think>",
	//           "</think>"
	//         ],
	//         "stop_after_first": true,
	//         "tags": [
	//           {
	//             "begin": "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ",
	//             "content": {
	//               "json_schema": {
	//                 "type": "object",
	//                 "properties": {
	//                   "city": {
	//                     "type": "string"
	//                   }
	//                 },
	//                 "required": [
	//                   "city"
	//                 ]
	//               },
	//               "type": "json_schema"
	//             },
	//             "end": "}\n</tool_call>",
	//             "type": "tag"
	//           }
	//         ],
	//         "triggers": [
	//           "<tool_call>"
	//         ],
	//         "type": "triggered_tags"
	//       }
	//     ],
	//     "type": "sequence"
	//   },
	//   "type": "structural_tag"
	// }
}

// Grammar compiles the structural tag; here its byte-level automaton tells
// a Hermes call to a declared tool from one to an unknown tool. An engine
// compiles the grammar with package mask for its vocabulary instead.
func ExampleGrammar() {
	tools, err := toolcall.ParseTools([]byte(`[{"type": "function", "function": {"name": "get_time"}}]`))
	if err != nil {
		log.Fatal(err)
	}
	g, err := toolcall.Grammar(toolcall.Request{Model: toolcall.Hermes, Tools: tools}, structtag.Options{})
	if err != nil {
		log.Fatal(err)
	}
	p, err := pda.Compile(g, grammar.DefaultLimits())
	if err != nil {
		log.Fatal(err)
	}
	for _, out := range []string{
		"Let me check.\n<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>",
		"<tool_call>\n{\"name\": \"get_news\", \"arguments\": {}}\n</tool_call>",
	} {
		st := pda.NewState(p)
		fmt.Println(st.AdvanceBytes([]byte(out)) && st.CanEnd())
	}
	// Output:
	// true
	// false
}

// GrammarContext compiles under a context, as a server does with each
// request's deadline, and names the tool whose schema is refused by the
// schema's place in the request.
func ExampleGrammarContext() {
	tools, err := toolcall.ParseTools([]byte(`[
		{"type": "function", "function": {"name": "get_time"}},
		{"type": "function", "function": {"name": "find", "parameters": {
			"type": "object", "properties": {"q": {"type": "string", "pattern": "(?<=a)b"}}}}}]`))
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err = toolcall.GrammarContext(ctx, toolcall.Request{Model: toolcall.Hermes, Tools: tools}, structtag.Options{})
	var e *toolcall.Error
	if errors.As(err, &e) {
		fmt.Println(e.Pointer)
		fmt.Println(errors.Is(err, toolcall.ErrInvalid), errors.Is(err, grammar.ErrUnsupported))
	}
	// Output:
	// /tools/1/parameters/properties/q/pattern
	// true true
}
