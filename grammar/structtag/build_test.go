package structtag_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/structtag"
)

// TestFormatValues builds formats with the Go constructors and checks that
// they compile to the same grammar as the JSON written by hand.
func TestFormatValues(t *testing.T) {
	city := json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)
	cases := []struct {
		name   string
		format structtag.Format
		json   string
	}{
		{
			name: "triggered tags",
			format: structtag.TriggeredTags([]string{"<function="}, []structtag.Format{
				structtag.Tag("<function=get_weather>", structtag.JSONSchema(city, ""), "</function>"),
			}, false, true, "<stop>"),
			json: `{"type":"triggered_tags","triggers":["<function="],"tags":[{"type":"tag","begin":"<function=get_weather>",
				"content":{"type":"json_schema","json_schema":` + string(city) + `},"end":"</function>"}],"stop_after_first":true,"excludes":["<stop>"]}`,
		},
		{
			name: "composition",
			format: structtag.Sequence(
				structtag.Tag("", structtag.AnyText(), []string{"</think>", "</t>"}),
				structtag.Or(structtag.ConstString(""), structtag.Regex("[0-9]+"), structtag.Grammar(`root ::= "g"`)),
				structtag.Optional(structtag.Plus(structtag.Star(structtag.Repeat(structtag.ConstString("r"), 0, 2)))),
				structtag.TagsWithSeparator([]structtag.Format{structtag.Tag("<i>", structtag.JSONSchema(json.RawMessage(`true`), "json"), "</i>")}, "", true, false),
				structtag.Dispatch([]structtag.DispatchRule{{Trigger: "<d>", Format: structtag.ConstString("x")}}, false, "<x>"),
			),
			json: `{"type":"sequence","elements":[
				{"type":"tag","begin":"","content":{"type":"any_text"},"end":["</think>","</t>"]},
				{"type":"or","elements":[{"type":"const_string","value":""},{"type":"regex","pattern":"[0-9]+"},{"type":"grammar","grammar":"root ::= \"g\""}]},
				{"type":"optional","content":{"type":"plus","content":{"type":"star","content":{"type":"repeat","min":0,"max":2,"content":{"type":"const_string","value":"r"}}}}},
				{"type":"tags_with_separator","tags":[{"type":"tag","begin":"<i>","content":{"type":"json_schema","json_schema":true,"style":"json"},"end":"</i>"}],"separator":"","at_least_one":true},
				{"type":"dispatch","rules":[["<d>",{"type":"const_string","value":"x"}]],"loop":false,"excludes":["<x>"]}]}`,
		},
		{
			name: "tokens",
			format: structtag.Sequence(
				structtag.Tag(structtag.TokenOf("<|think_start|>"), structtag.AnyTokens(-1), structtag.TokenOf(7)),
				structtag.TokenTriggeredTags([]any{"<|tool_call_start|>"}, []structtag.Format{
					structtag.Tag(structtag.TokenOf("<|tool_call_start|>"), structtag.ExcludeToken(1, "<|eos|>"), structtag.TokenOf("<|tool_call_end|>")),
				}, true, false, "<|eos|>"),
				structtag.TokenDispatch([]structtag.DispatchRule{{Trigger: 100, Format: structtag.Token("<|tool|>")}}, true),
				structtag.AnyTokens(3),
			),
			json: `{"type":"sequence","elements":[
				{"type":"tag","begin":{"type":"token","token":"<|think_start|>"},"content":{"type":"any_tokens"},"end":{"type":"token","token":7}},
				{"type":"token_triggered_tags","trigger_tokens":["<|tool_call_start|>"],"tags":[{"type":"tag","begin":{"type":"token","token":"<|tool_call_start|>"},
					"content":{"type":"exclude_token","exclude_tokens":[1,"<|eos|>"]},"end":{"type":"token","token":"<|tool_call_end|>"}}],"at_least_one":true,"exclude_tokens":["<|eos|>"]},
				{"type":"token_dispatch","rules":[[100,{"type":"token","token":"<|tool|>"}]],"loop":true},
				{"type":"any_tokens","max_tokens":3}]}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, err := structtag.Compile([]byte(tc.json), structtag.Options{})
			require.NoError(t, err)
			got, err := structtag.CompileFormat(context.Background(), tc.format, structtag.Options{})
			require.NoError(t, err)
			assert.Equal(t, want.String(), got.String())
		})
	}
}
