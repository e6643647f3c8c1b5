package structtag_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/structtag"
	"github.com/reinlm/rein/pda"
)

// A request lets the model write free text and call get_weather any number
// of times, each call a <function=...> tag holding JSON arguments. An engine
// compiles the grammar for its vocabulary with package mask; here the byte
// automaton checks a few outputs.
func ExampleCompile() {
	request := []byte(`{
		"type": "structural_tag",
		"format": {
			"type": "triggered_tags",
			"triggers": ["<function="],
			"tags": [{
				"type": "tag",
				"begin": "<function=get_weather>",
				"content": {"type": "json_schema", "json_schema": {
					"type": "object",
					"properties": {"city": {"type": "string"}},
					"required": ["city"]
				}},
				"end": "</function>"
			}]
		}
	}`)
	g, err := structtag.Compile(request, structtag.Options{})
	if err != nil {
		panic(err)
	}
	p, err := pda.Compile(g, grammar.Limits{})
	if err != nil {
		panic(err)
	}
	for _, output := range []string{
		`Let me check. <function=get_weather>{"city": "Paris"}</function>`,
		`<function=get_time>{}</function>`,
		`<function=get_weather>{"town": "Paris"}</function>`,
		`Just text, and a partial <functi`,
	} {
		st := pda.NewState(p)
		fmt.Println(st.AdvanceBytes([]byte(output)) && st.CanEnd())
	}

	_, err = structtag.Compile([]byte(`{"type": "sequence", "elements": [{"type": "any_text"}, {"type": "tag", "begin": "<a>", "content": {"type": "any_text"}, "end": ""}]}`), structtag.Options{})
	fmt.Println(err)
	// Output:
	// true
	// false
	// false
	// true
	// structtag: /elements/1/end: the content is unlimited, so at least one end string must be non-empty
}

// A program that builds the structural tag itself, such as a model's
// tool-call format, writes it with the Format constructors.
func ExampleCompileFormat() {
	call := structtag.Tag("<tool_call>",
		structtag.JSONSchema(json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`), ""),
		"</tool_call>")
	format := structtag.Sequence(
		structtag.Tag("<think>", structtag.AnyText(), "</think>"),
		structtag.TriggeredTags([]string{"<tool_call>"}, []structtag.Format{call}, false, false),
	)
	request, err := format.Request()
	if err != nil {
		panic(err)
	}
	fmt.Println(string(request)[:60])

	g, err := structtag.CompileFormat(context.Background(), format, structtag.Options{})
	if err != nil {
		panic(err)
	}
	p, err := pda.Compile(g, grammar.Limits{})
	if err != nil {
		panic(err)
	}
	st := pda.NewState(p)
	fmt.Println(st.AdvanceBytes([]byte(`<think>hmm</think>Sure.<tool_call>{"city": "Oslo"}</tool_call>`)) && st.CanEnd())
	// Output:
	// {"type":"structural_tag","format":{"type":"sequence","elemen
	// true
}
