package toolcall

import (
	"encoding/json"
	"strings"
)

// The tools of the acceptance tables: get_weather takes a required string
// city and an integer days, nothing else; get_time takes no parameters;
// loose declares a schema but is not strict, so any object passes.
var testTools = []Tool{
	{
		Name: "get_weather",
		Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
			"required": ["city"], "additionalProperties": false}`),
	},
	{Name: "get_time"},
	{Name: "loose", Parameters: json.RawMessage(`{"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}`), Strict: new(false)},
}

// choice names the tool choices of the tables.
type choice string

const (
	auto      choice = "auto"      // auto, parallel calls
	single    choice = "single"    // auto, parallel_tool_calls false
	required  choice = "required"  // required, parallel calls
	required1 choice = "required1" // required, parallel_tool_calls false
	none      choice = "none"      // tool_choice none
	noTools   choice = "notools"   // auto without tools
	named     choice = "named"     // the function get_time
	allowed   choice = "allowed"   // allowed_tools auto: get_time only
)

func (c choice) request(m Format, reasoning bool) Request {
	r := Request{Model: m, Tools: testTools, Reasoning: reasoning}
	no := false
	switch c {
	case single:
		r.ParallelToolCalls = &no
	case required:
		r.ToolChoice.Mode = ChoiceRequired
	case required1:
		r.ToolChoice.Mode = ChoiceRequired
		r.ParallelToolCalls = &no
	case none:
		r.ToolChoice.Mode = ChoiceNone
	case noTools:
		r.Tools = nil
	case named:
		r.ToolChoice = ToolChoice{Mode: ChoiceFunction, Function: "get_time"}
	case allowed:
		r.ToolChoice = ToolChoice{Mode: ChoiceAuto, Allowed: []string{"get_time"}}
	}
	return r
}

// outputCase is a set of whole outputs that a request's constraint must
// accept and reject.
type outputCase struct {
	model     Format
	choice    choice
	reasoning bool
	accept    []string
	reject    []string
}

// callFormat writes the calls of one family; the tables below are built
// from it so that every family is tested on the same situations.
type callFormat struct {
	model Format
	// weather, weather2, timeCall are calls to get_weather {"city": "Paris"},
	// get_weather {"city": "Rome", "days": 3} and get_time {}; badArgs is a
	// call to get_weather with {"city": 3}; extraArg one with a key the
	// schema forbids; unknown a call to get_news; loose a call to the
	// non-strict tool with arguments its schema would refuse (in the XML
	// styles, where the schema holds, valid arguments).
	weather, weather2, timeCall, badArgs, extraArg, unknown, loose string
	// wrap makes one call a whole output (a section family's section; nil
	// for none); join makes several calls one output, as the family writes
	// parallel calls.
	wrap func(call string) string
	join func(calls ...string) string
	// prefix starts every output without Reasoning (MiniMax's empty
	// thinking block).
	prefix string
	// requiredAccept are more outputs that a required choice accepts.
	requiredAccept []string
	// text is a text answer; textBefore is text allowed before a call.
	text, textBefore string
	// noCalls: the family has no text-then-call form (harmony, Cohere): a
	// text answer and a call are alternatives.
	noCalls bool
	// oneCall: the family makes one call per turn whatever the request.
	oneCall bool
	// think and thinkEnd: with Reasoning, the output starts with think;
	// thinkBad is a thinking prefix that must be refused.
	think, thinkBad string
	// rejectText are texts refused as free text (control strings).
	rejectText []string
}

// cases expands the standard situations for a family.
func (f callFormat) cases() []outputCase {
	wrap := f.wrap
	if wrap == nil {
		wrap = func(c string) string { return c }
	}
	w, w2, tm := wrap(f.weather), wrap(f.weather2), wrap(f.timeCall)
	both := f.join(f.weather, f.timeCall)
	bad := []string{wrap(f.badArgs), wrap(f.extraArg), wrap(f.unknown), f.join(f.weather, f.unknown)}
	var out []outputCase
	defer func() {
		for i := range out {
			if !out[i].reasoning {
				out[i].accept = prefixed(f.prefix, out[i].accept)
				out[i].reject = prefixed(f.prefix, out[i].reject)
			}
		}
	}()
	text := f.text
	textOnly := append([]string{w, tm}, f.rejectText...)
	out = append(out,
		outputCase{model: f.model, choice: none, accept: []string{text}, reject: textOnly},
		outputCase{model: f.model, choice: noTools, accept: []string{text}, reject: textOnly},
	)
	if !f.noCalls {
		out[0].accept = append(out[0].accept, "")
	}
	autoAccept := []string{text, w, w2, tm, wrap(f.loose)}
	autoReject := append([]string{}, bad...)
	if !f.noCalls {
		autoAccept = append(autoAccept, f.textBefore+w, "")
	}
	if f.oneCall {
		autoReject = append(autoReject, both)
	} else {
		autoAccept = append(autoAccept, both)
	}
	out = append(out, outputCase{model: f.model, choice: auto, accept: autoAccept, reject: autoReject})
	singleAccept := []string{text, w, tm}
	if !f.noCalls {
		singleAccept = append(singleAccept, f.textBefore+w)
	}
	out = append(out, outputCase{model: f.model, choice: single, accept: singleAccept, reject: append([]string{both, f.join(w, w2)}, bad...)})
	reqAccept := []string{w, tm}
	if !f.oneCall {
		reqAccept = append(reqAccept, both)
	}
	reqAccept = append(reqAccept, f.requiredAccept...)
	reqReject := append([]string{text, ""}, bad...)
	if !f.noCalls && f.textBefore != "" {
		reqReject = append(reqReject, f.textBefore+w)
	}
	out = append(out,
		outputCase{model: f.model, choice: required, accept: reqAccept, reject: reqReject},
		outputCase{model: f.model, choice: required1, accept: []string{w, tm}, reject: append([]string{both, text}, bad...)},
		outputCase{model: f.model, choice: named, accept: []string{tm}, reject: []string{w, f.join(f.timeCall, f.timeCall), text, wrap(f.unknown)}},
		outputCase{model: f.model, choice: allowed, accept: []string{tm, text}, reject: []string{w, wrap(f.unknown)}},
	)
	if f.think != "" {
		out = append(out,
			outputCase{model: f.model, choice: auto, reasoning: true,
				accept: []string{f.think + text, f.think + w},
				reject: []string{w, text, f.thinkBad + w, f.think + wrap(f.unknown)}},
			outputCase{model: f.model, choice: required, reasoning: true,
				accept: []string{f.think + w},
				reject: []string{f.think + text, w}},
		)
	}
	return out
}

// prefixed is a copy of ss with p before each.
func prefixed(p string, ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = p + s
	}
	return out
}

func joinWith(sep string) func(calls ...string) string {
	return func(calls ...string) string { return strings.Join(calls, sep) }
}

// hermesCall is a Qwen2.5/Qwen3/Hermes call.
func hermesCall(name, args string) string {
	return "<tool_call>\n{\"name\": \"" + name + "\", \"arguments\": " + args + "}\n</tool_call>"
}

func qwenXMLCall(name string, params ...string) string {
	s := "<tool_call>\n<function=" + name + ">\n"
	for i := 0; i < len(params); i += 2 {
		s += "<parameter=" + params[i] + ">\n" + params[i+1] + "\n</parameter>\n"
	}
	return s + "</function>\n</tool_call>"
}

func glm45Call(name string, params ...string) string {
	s := "<tool_call>" + name
	for i := 0; i < len(params); i += 2 {
		s += "\n<arg_key>" + params[i] + "</arg_key>\n<arg_value>" + params[i+1] + "</arg_value>"
	}
	return s + "\n</tool_call>"
}

func glm47Call(name string, params ...string) string {
	s := "<tool_call>" + name
	for i := 0; i < len(params); i += 2 {
		s += "<arg_key>" + params[i] + "</arg_key><arg_value>" + params[i+1] + "</arg_value>"
	}
	return s + "</tool_call>"
}

func minimaxInvoke(name string, params ...string) string {
	s := `<invoke name="` + name + `">` + "\n"
	for i := 0; i < len(params); i += 2 {
		s += `<parameter name="` + params[i] + `">` + params[i+1] + "</parameter>\n"
	}
	return s + "</invoke>"
}

func section(begin, sep, end string) func(calls ...string) string {
	return func(calls ...string) string { return begin + strings.Join(calls, sep) + end }
}

const (
	dsCallsBegin = "<｜tool▁calls▁begin｜>"
	dsCallsEnd   = "<｜tool▁calls▁end｜>"
	dsCallBegin  = "<｜tool▁call▁begin｜>"
	dsCallEnd    = "<｜tool▁call▁end｜>"
	dsSep        = "<｜tool▁sep｜>"
)

func dsV3(name, args string) string {
	return dsCallBegin + "function" + dsSep + name + "\n```json\n" + args + "\n```" + dsCallEnd
}

func dsV31(name, args string) string { return dsCallBegin + name + dsSep + args + dsCallEnd }

func kimiCall(i int, name, args string) string {
	return "<|tool_call_begin|>functions." + name + ":" + string(rune('0'+i)) + "<|tool_call_argument_begin|>" + args + "<|tool_call_end|>"
}

func cohereCall(id, name, args string) string {
	return `{"tool_call_id": "` + id + `", "tool_name": "` + name + `", "parameters": ` + args + "}"
}

// sectionFormat sets the wrap and join of a family whose calls sit in one
// section.
func sectionFormat(f callFormat, wrap func(string) string, join func(calls ...string) string) callFormat {
	f.wrap, f.join = wrap, join
	return f
}

// callFormats are the families' tables.
var callFormats = []callFormat{
	{
		model:    Llama3JSON,
		weather:  `{"name": "get_weather", "parameters": {"city": "Paris"}}`,
		weather2: `{"name": "get_weather", "parameters": {"city": "Rome", "days": 3}}`,
		timeCall: `{"name": "get_time", "parameters": {}}`,
		badArgs:  `{"name": "get_weather", "parameters": {"city": 3}}`,
		extraArg: `{"name": "get_weather", "parameters": {"city": "Paris", "unit": "C"}}`,
		unknown:  `{"name": "get_news", "parameters": {}}`,
		loose:    `{"name": "loose", "parameters": {"y": [1, 2]}}`,
		join:     joinWith("; "),
		text:     "It is sunny in Paris.", textBefore: "Let me look. ",
		oneCall:    true,
		rejectText: []string{`{"name": "x"}`},
	},
	{
		model:    Llama3PythonTag,
		weather:  `<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}`,
		weather2: `<|python_tag|>{"name": "get_weather", "parameters": {"city": "Rome", "days": 3}}`,
		timeCall: `<|python_tag|>{"name": "get_time", "parameters": {}}`,
		badArgs:  `<|python_tag|>{"name": "get_weather", "parameters": {"city": 3}}`,
		extraArg: `<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris", "unit": "C"}}`,
		unknown:  `<|python_tag|>{"name": "get_news", "parameters": {}}`,
		loose:    `<|python_tag|>{"name": "loose", "parameters": {"y": [1, 2]}}`,
		join:     joinWith(""),
		text:     "It is sunny in Paris.", textBefore: "Let me look. ",
		oneCall:    true,
		rejectText: []string{"<|python_tag|>"},
	},
	{
		model:    Hermes,
		weather:  hermesCall("get_weather", `{"city": "Paris"}`),
		weather2: hermesCall("get_weather", `{"city": "Rome", "days": 3}`),
		timeCall: hermesCall("get_time", `{}`),
		badArgs:  hermesCall("get_weather", `{"city": 3}`),
		extraArg: hermesCall("get_weather", `{"city": "Paris", "unit": "C"}`),
		unknown:  hermesCall("get_news", `{}`),
		loose:    hermesCall("loose", `{"y": [1, 2]}`),
		join:     joinWith("\n"),
		text:     "It is sunny in Paris.", textBefore: "Let me look.\n",
		rejectText: []string{"<tool_call>", "a </tool_call> b", "<tool_response>"},
	},
	{
		model:    Qwen3,
		weather:  hermesCall("get_weather", `{"city": "Paris"}`),
		weather2: hermesCall("get_weather", `{"city": "Rome", "days": 3}`),
		timeCall: hermesCall("get_time", `{}`),
		badArgs:  hermesCall("get_weather", `{"city": 3}`),
		extraArg: hermesCall("get_weather", `{"city": "Paris", "unit": "C"}`),
		unknown:  hermesCall("get_news", `{}`),
		loose:    hermesCall("loose", `{"y": [1, 2]}`),
		join:     joinWith("\n"),
		text:     "It is sunny in Paris.", textBefore: "Let me look.\n",
		think:      "The user wants the weather.\n</think>\n\n",
		thinkBad:   "The user wants the weather.\n</think>\n",
		rejectText: []string{"<tool_call>", "</think>", "<think>"},
	},
	{
		model:    Qwen3Coder,
		weather:  qwenXMLCall("get_weather", "city", "Paris"),
		weather2: qwenXMLCall("get_weather", "city", "Rome", "days", "3"),
		timeCall: qwenXMLCall("get_time"),
		badArgs:  qwenXMLCall("get_weather", "city", "Paris", "days", "three"),
		extraArg: qwenXMLCall("get_weather", "city", "Paris", "unit", "C"),
		unknown:  qwenXMLCall("get_news"),
		loose:    qwenXMLCall("loose", "x", "5"),
		join:     joinWith("\n"),
		text:     "It is sunny in Paris.", textBefore: "Let me look.\n",
		think:      "The user wants the weather.\n</think>\n\n",
		thinkBad:   "The user <think> wants the weather.\n</think>\n\n",
		rejectText: []string{"<tool_call>", "</function>"},
	},
	{
		model:    MistralJSON,
		weather:  `{"name": "get_weather", "arguments": {"city": "Paris"}}`,
		weather2: `{"name": "get_weather", "arguments": {"city": "Rome", "days": 3}, "id": "abcDEF123"}`,
		timeCall: `{"name": "get_time", "arguments": {}}`,
		badArgs:  `{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abc"}`,
		extraArg: `{"name": "get_weather", "arguments": {"city": "Paris", "unit": "C"}}`,
		unknown:  `{"name": "get_news", "arguments": {}}`,
		loose:    `{"name": "loose", "arguments": {"y": [1, 2]}}`,
		text:     "It is sunny in Paris.", textBefore: "Let me look.",
		rejectText: []string{"[TOOL_CALLS]", "[ARGS]"},
	},
	{
		model:    MistralV11,
		weather:  `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}`,
		weather2: `[TOOL_CALLS]get_weather[ARGS]{"city": "Rome", "days": 3}`,
		timeCall: `[TOOL_CALLS]get_time[ARGS]{}`,
		badArgs:  `[TOOL_CALLS]get_weather[ARGS]{"city": 3}`,
		extraArg: `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "unit": "C"}`,
		unknown:  `[TOOL_CALLS]get_news[ARGS]{}`,
		loose:    `[TOOL_CALLS]loose[ARGS]{"y": [1, 2]}`,
		join:     joinWith(""),
		text:     "It is sunny in Paris.", textBefore: "Let me look.",
		rejectText: []string{"[TOOL_CALLS]", "[ARGS]"},
	},
	{
		model:    DeepSeekV3,
		weather:  dsV3("get_weather", `{"city": "Paris"}`),
		weather2: dsV3("get_weather", `{"city": "Rome", "days": 3}`),
		timeCall: dsV3("get_time", `{}`),
		badArgs:  dsV3("get_weather", `{"city": 3}`),
		extraArg: dsV3("get_weather", `{"city": "Paris", "unit": "C"}`),
		unknown:  dsV3("get_news", `{}`),
		loose:    dsV3("loose", `{"y": [1, 2]}`),
		text:     "It is sunny in Paris.", textBefore: "Let me look.",
		think:      "The user wants the weather.\n</think>\n\n",
		thinkBad:   "The user wants the weather.\n",
		rejectText: []string{dsCallsBegin, dsCallEnd},
	},
	{
		model:    DeepSeekV31,
		weather:  dsV31("get_weather", `{"city": "Paris"}`),
		weather2: dsV31("get_weather", `{"city": "Rome", "days": 3}`),
		timeCall: dsV31("get_time", `{}`),
		badArgs:  dsV31("get_weather", `{"city": 3}`),
		extraArg: dsV31("get_weather", `{"city": "Paris", "unit": "C"}`),
		unknown:  dsV31("get_news", `{}`),
		loose:    dsV31("loose", `{"y": [1, 2]}`),
		text:     "It is sunny in Paris.", textBefore: "Let me look.",
		think:      "The user wants the weather.</think>",
		thinkBad:   "The user <think> wants the weather.</think>",
		rejectText: []string{dsCallsBegin, dsSep},
	},
	{
		model:    Harmony,
		weather:  `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}`,
		weather2: ` to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Rome", "days": 3}`,
		timeCall: `<|channel|>commentary to=functions.get_time<|constrain|>json<|message|>{}`,
		badArgs:  `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": 3}`,
		extraArg: `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris", "unit": "C"}`,
		unknown:  `<|channel|>commentary to=functions.get_news <|constrain|>json<|message|>{}`,
		loose:    `<|channel|>commentary to=functions.loose <|constrain|>json<|message|>{"y": [1, 2]}`,
		join:     joinWith("<|call|><|start|>assistant"),
		text:     "<|channel|>final<|message|>It is sunny in Paris.",
		noCalls:  true, oneCall: true,
		think:      "<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant",
		thinkBad:   "<|channel|>analysis<|message|>Need the weather.<|end|>",
		rejectText: []string{"It is sunny.", "<|channel|>final<|message|>a<|end|>"},
	},
	sectionFormat(callFormat{
		model:    KimiK2,
		weather:  kimiCall(0, "get_weather", `{"city": "Paris"}`),
		weather2: kimiCall(0, "get_weather", `{"city": "Rome", "days": 3}`),
		timeCall: kimiCall(0, "get_time", `{}`),
		badArgs:  kimiCall(0, "get_weather", `{"city": 3}`),
		extraArg: kimiCall(0, "get_weather", `{"city": "Paris", "unit": "C"}`),
		unknown:  kimiCall(0, "get_news", `{}`),
		loose:    kimiCall(0, "loose", `{"y": [1, 2]}`),
		text:     "It is sunny in Paris.", textBefore: "Let me look.",
		think:      "<think>The user wants the weather.</think>",
		thinkBad:   "The user wants the weather.</think>",
		rejectText: []string{"<|tool_calls_section_begin|>", "<|tool_call_end|>"},
	}, func(c string) string { return "<|tool_calls_section_begin|>" + c + "<|tool_calls_section_end|>" },
		section("<|tool_calls_section_begin|>", "", "<|tool_calls_section_end|>")),
	{
		model:    GLM45,
		weather:  glm45Call("get_weather", "city", "Paris"),
		weather2: glm45Call("get_weather", "city", "Rome", "days", "3"),
		timeCall: glm45Call("get_time"),
		badArgs:  glm45Call("get_weather", "city", "Paris", "days", "three"),
		extraArg: glm45Call("get_weather", "city", "Paris", "unit", "C"),
		unknown:  glm45Call("get_news"),
		loose:    glm45Call("loose", "x", "5"),
		join:     joinWith("\n"),
		text:     "It is sunny in Paris.", textBefore: "Let me look.\n",
		think:          "<think>The user wants the weather.</think>",
		thinkBad:       "The user wants the weather.</think>",
		rejectText:     []string{"<tool_call>", "<arg_key>", "<|user|>"},
		requiredAccept: []string{"\n" + glm45Call("get_time")},
	},
	{
		model:    GLM47,
		weather:  glm47Call("get_weather", "city", "Paris"),
		weather2: glm47Call("get_weather", "city", "Rome", "days", "3"),
		timeCall: glm47Call("get_time"),
		badArgs:  glm47Call("get_weather", "city", "Paris", "days", "three"),
		extraArg: glm47Call("get_weather", "city", "Paris", "unit", "C"),
		unknown:  glm47Call("get_news"),
		loose:    glm47Call("loose", "x", "5"),
		join:     joinWith(""),
		text:     "It is sunny in Paris.", textBefore: "Let me look.",
		think:      "The user wants the weather.</think>",
		thinkBad:   "<think>The user wants the weather.</think>",
		rejectText: []string{"<tool_call>", "</arg_value>"},
	},
	sectionFormat(callFormat{
		model:    MiniMaxM2,
		weather:  minimaxInvoke("get_weather", "city", "Paris"),
		weather2: minimaxInvoke("get_weather", "city", "Rome", "days", "3"),
		timeCall: minimaxInvoke("get_time"),
		badArgs:  minimaxInvoke("get_weather", "city", "Paris", "days", "three"),
		extraArg: minimaxInvoke("get_weather", "city", "Paris", "unit", "C"),
		unknown:  minimaxInvoke("get_news"),
		loose:    minimaxInvoke("loose", "x", "5"),
		prefix:   "\n</think>\n\n",
		text:     "It is sunny in Paris.", textBefore: "Let me look.\n",
		think:      "plan\n</think>\n\n",
		thinkBad:   "plan\n</think>\n",
		rejectText: []string{"<minimax:tool_call>", "<think>"},
	}, func(c string) string { return "<minimax:tool_call>\n" + c + "\n</minimax:tool_call>" },
		section("<minimax:tool_call>\n", "\n", "\n</minimax:tool_call>")),
	{
		model:      CohereCommandA,
		weather:    cohereCall("0", "get_weather", `{"city": "Paris"}`),
		weather2:   cohereCall("1", "get_weather", `{"city": "Rome", "days": 3}`),
		timeCall:   cohereCall("0", "get_time", `{}`),
		badArgs:    cohereCall("0", "get_weather", `{"city": 3}`),
		extraArg:   cohereCall("0", "get_weather", `{"city": "Paris", "unit": "C"}`),
		unknown:    cohereCall("0", "get_news", `{}`),
		loose:      cohereCall("0", "loose", `{"y": [1, 2]}`),
		text:       "<|START_RESPONSE|>It is sunny in Paris.<|END_RESPONSE|>",
		noCalls:    true,
		think:      "<|START_THINKING|>I should call a tool.<|END_THINKING|>",
		thinkBad:   "I should call a tool.<|END_THINKING|>",
		rejectText: []string{"It is sunny.", "<|START_RESPONSE|>a<|END_ACTION|>"},
	},
}

func init() {
	for i := range callFormats {
		f := &callFormats[i]
		switch f.model {
		case MistralJSON:
			*f = sectionFormat(*f, func(c string) string { return "[TOOL_CALLS] [" + c + "]" }, section("[TOOL_CALLS][", ", ", "]"))
		case DeepSeekV3:
			*f = sectionFormat(*f, func(c string) string { return dsCallsBegin + c + dsCallsEnd }, section(dsCallsBegin, "\n", dsCallsEnd))
		case DeepSeekV31:
			*f = sectionFormat(*f, func(c string) string { return dsCallsBegin + c + dsCallsEnd }, section(dsCallsBegin, "", dsCallsEnd))
		case CohereCommandA:
			*f = sectionFormat(*f, func(c string) string { return "<|START_ACTION|>[\n    " + c + "\n]<|END_ACTION|>" },
				section("<|START_ACTION|>[\n    ", ",\n    ", "\n]<|END_ACTION|>"))
		}
	}
}
