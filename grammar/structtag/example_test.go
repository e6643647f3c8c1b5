package structtag_test

import (
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
