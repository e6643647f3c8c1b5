package toolcall

import "strings"

// calls is the body of a family whose calls are opened by a trigger string
// in free text.
type calls struct {
	trigger string
	// call is the tag of one call to t, whose arguments are args; for a
	// section family, the tag of one call inside the section.
	call func(t Tool, args node) node
	// section, when set, wraps all calls of the turn in one tag: begin,
	// calls joined by sep, end. The section opens with the trigger.
	section        bool
	begin, end     string
	sep            string
	sectionContent func(inner node) node // the section's content around the joined calls; nil for as is
	// single: the family makes one call per turn.
	single bool
	// lead is text the template writes before a call, allowed before the
	// first call of a required choice.
	lead string
}

// body is the output after the thinking: free text only, or free text in
// which the trigger opens calls (or the one section of calls), as p asks.
func (c calls) body(f *family, p plan) node {
	triggers := []string{c.trigger}
	if p.text {
		return anyText(union(f.controls, triggers))
	}
	tags := make([]node, len(p.tools))
	for i, t := range p.tools {
		tags[i] = c.call(t, arguments(t, f.style))
	}
	stop := !p.parallel || c.single
	if c.section {
		inner := tagsWithSeparator(tags, c.sep, true, stop)
		if c.sectionContent != nil {
			inner = c.sectionContent(inner)
		}
		tags = []node{tag(c.begin, inner, c.end)}
		stop = true
	}
	tt := triggeredTags(triggers, tags, p.required, stop, freeExcludes(f.controls, triggers))
	if p.required && c.lead != "" {
		return sequence(optional(constString(c.lead)), tt)
	}
	return tt
}

// union is a followed by the strings of b that a lacks.
func union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, s := range b {
		if !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// freeExcludes is the controls that free text between calls excludes: all
// but the triggers and their prefixes (a trigger must stay reachable).
func freeExcludes(controls, triggers []string) []string {
	var out []string
	for _, c := range controls {
		prefix := false
		for _, t := range triggers {
			prefix = prefix || strings.HasPrefix(t, c)
		}
		if !prefix {
			out = append(out, c)
		}
	}
	return out
}

// thinkRest is the rest of a thinking block the prompt opened: text, the
// closing string, then suffix.
func thinkRest(end, suffix string) func(f *family) node {
	return func(f *family) node {
		t := tag("", anyText(f.controls), end)
		if suffix == "" {
			return t
		}
		return sequence(t, constString(suffix))
	}
}

// thinkBlock is a whole thinking block the model writes, then suffix.
func thinkBlock(begin, end, suffix string) func(f *family) node {
	return func(f *family) node {
		t := tag(begin, anyText(f.controls), end)
		if suffix == "" {
			return t
		}
		return sequence(t, constString(suffix))
	}
}

func constant(s string) func(f *family) node {
	return func(*family) node { return constString(s) }
}

var (
	qwenControls  = []string{"<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"}
	qwen3Controls = append(append([]string(nil), qwenControls...), "<think>", "</think>")

	hermesCalls = calls{
		trigger: "<tool_call>",
		call: func(t Tool, args node) node {
			return tag("<tool_call>\n{\"name\": \""+t.Name+"\", \"arguments\": ", args, "}\n</tool_call>")
		},
	}

	deepSeekControls = []string{
		"<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>",
		"<｜tool▁call▁end｜>", "<｜tool▁sep｜>", "<think>", "</think>",
	}
)

// families is indexed by Format - Llama3JSON.
var families = [...]family{
	{
		name:     "Llama3JSON",
		controls: nil,
		body: calls{
			trigger: `{"name": `,
			call: func(t Tool, args node) node {
				return tag(`{"name": "`+t.Name+`", "parameters": `, args, "}")
			},
			single: true,
		}.body,
	},
	{
		name:     "Llama3PythonTag",
		controls: []string{"<|python_tag|>"},
		body: calls{
			trigger: "<|python_tag|>",
			call: func(t Tool, args node) node {
				return tag(`<|python_tag|>{"name": "`+t.Name+`", "parameters": `, args, "}")
			},
			single: true,
		}.body,
	},
	{
		name:     "Hermes",
		controls: qwenControls,
		body:     hermesCalls.body,
	},
	{
		name:     "Qwen3",
		controls: qwen3Controls,
		think:    thinkRest("</think>", "\n\n"),
		body:     hermesCalls.body,
	},
	{
		name:     "Qwen3Coder",
		style:    "qwen_xml",
		controls: append(append([]string(nil), qwen3Controls...), "<function=", "</function>", "<parameter=", "</parameter>"),
		think:    thinkRest("</think>", "\n\n"),
		body: calls{
			trigger: "<tool_call>",
			call: func(t Tool, args node) node {
				return tag("<tool_call>\n<function="+t.Name+">\n", args, "</function>\n</tool_call>")
			},
		}.body,
	},
	{
		name:     "MistralJSON",
		controls: mistralControls,
		body: calls{
			trigger: "[TOOL_CALLS]",
			call: func(t Tool, args node) node {
				return tag(`{"name": "`+t.Name+`", "arguments": `,
					sequence(args, optional(sequence(constString(`, "id": "`), regex(`[A-Za-z0-9]{9}`), constString(`"`)))),
					"}")
			},
			section: true, begin: "[TOOL_CALLS]", end: "]", sep: ", ",
			sectionContent: func(inner node) node { return sequence(orStrings(" [", "["), inner) },
		}.body,
	},
	{
		name:     "MistralV11",
		controls: mistralControls,
		body: calls{
			trigger: "[TOOL_CALLS]",
			call: func(t Tool, args node) node {
				return tag("[TOOL_CALLS]"+t.Name+"[ARGS]", args, "")
			},
		}.body,
	},
	{
		name:     "DeepSeekV3",
		controls: deepSeekControls,
		think:    thinkRest("</think>", "\n\n"),
		body: calls{
			trigger: "<｜tool▁calls▁begin｜>",
			call: func(t Tool, args node) node {
				return tag("<｜tool▁call▁begin｜>function<｜tool▁sep｜>"+t.Name+"\n```json\n", args, "\n```<｜tool▁call▁end｜>")
			},
			section: true, begin: "<｜tool▁calls▁begin｜>", end: "<｜tool▁calls▁end｜>", sep: "\n",
		}.body,
	},
	{
		name:     "DeepSeekV31",
		controls: deepSeekControls,
		think:    thinkRest("</think>", ""),
		body: calls{
			trigger: "<｜tool▁calls▁begin｜>",
			call: func(t Tool, args node) node {
				return tag("<｜tool▁call▁begin｜>"+t.Name+"<｜tool▁sep｜>", args, "<｜tool▁call▁end｜>")
			},
			section: true, begin: "<｜tool▁calls▁begin｜>", end: "<｜tool▁calls▁end｜>", sep: "",
		}.body,
	},
	{
		name:     "Harmony",
		controls: []string{"<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|constrain|>", "<|call|>", "<|return|>"},
		think:    thinkBlock("<|channel|>analysis<|message|>", "<|end|>", "<|start|>assistant"),
		body:     harmonyBody,
	},
	{
		name: "KimiK2",
		controls: []string{
			"<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>",
			"<|tool_call_argument_begin|>", "<|tool_call_end|>", "<think>", "</think>",
		},
		think: thinkBlock("<think>", "</think>", ""),
		body: calls{
			trigger: "<|tool_calls_section_begin|>",
			call: func(t Tool, args node) node {
				return tag("<|tool_call_begin|>functions."+t.Name+":",
					sequence(regex(`[0-9]+`), constString("<|tool_call_argument_begin|>"), args),
					"<|tool_call_end|>")
			},
			section: true, begin: "<|tool_calls_section_begin|>", end: "<|tool_calls_section_end|>", sep: "",
		}.body,
	},
	{
		name:     "GLM45",
		style:    "glm_xml",
		controls: glmControls,
		think:    thinkBlock("<think>", "</think>", ""),
		body: calls{
			trigger: "<tool_call>",
			call: func(t Tool, args node) node {
				return tag("<tool_call>"+t.Name, sequence(args, optional(constString("\n"))), "</tool_call>")
			},
			lead: "\n",
		}.body,
	},
	{
		name:     "GLM47",
		style:    "glm_xml",
		controls: glmControls,
		think:    thinkRest("</think>", ""),
		body: calls{
			trigger: "<tool_call>",
			call: func(t Tool, args node) node {
				return tag("<tool_call>"+t.Name, args, "</tool_call>")
			},
		}.body,
	},
	{
		name:     "MiniMaxM2",
		style:    "minimax_xml",
		controls: []string{"<minimax:tool_call>", "</minimax:tool_call>", "<think>", "</think>", "]~!b[", "]~b]", "[e~["},
		think:    thinkRest("</think>", "\n\n"),
		noThink:  constant("\n</think>\n\n"),
		body: calls{
			trigger: "<minimax:tool_call>",
			call: func(t Tool, args node) node {
				return tag(`<invoke name="`+t.Name+`">`+"\n", args, "</invoke>")
			},
			section: true, begin: "<minimax:tool_call>\n", end: "\n</minimax:tool_call>", sep: "\n",
		}.body,
	},
	{
		name:     "CohereCommandA",
		controls: cohereControls,
		think:    thinkBlock("<|START_THINKING|>", "<|END_THINKING|>", ""),
		body:     cohereBody,
	},
}

var (
	mistralControls = []string{
		"[TOOL_CALLS]", "[ARGS]", "[CALL_ID]", "[INST]", "[/INST]",
		"[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]", "[/TOOL_RESULTS]",
	}
	glmControls = []string{
		"<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>",
		"<think>", "</think>", "<|observation|>", "<|user|>", "<|assistant|>", "<|system|>",
	}
	cohereControls = []string{
		"<|START_THINKING|>", "<|END_THINKING|>", "<|START_ACTION|>", "<|END_ACTION|>",
		"<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|END_OF_TURN_TOKEN|>",
	}
)

// harmonyBody is a final message or one call: harmony makes one call per
// turn, since <|call|> stops generation.
func harmonyBody(f *family, p plan) node {
	final := sequence(constString("<|channel|>final<|message|>"), anyText(f.controls))
	if p.text {
		return final
	}
	var callNodes []node
	for _, t := range p.tools {
		callNodes = append(callNodes, sequence(
			orStrings("<|channel|>commentary to=functions."+t.Name, " to=functions."+t.Name+"<|channel|>commentary"),
			orStrings(" <|constrain|>json", "<|constrain|>json", " json"),
			constString("<|message|>"),
			arguments(t, f.style),
		))
	}
	call := or(callNodes...)
	if p.required {
		return call
	}
	return or(final, call)
}

// cohereBody is an action (the calls) or a response, as the tool choice
// allows.
func cohereBody(f *family, p plan) node {
	response := tag("<|START_RESPONSE|>", anyText(f.controls), "<|END_RESPONSE|>")
	if p.text {
		return response
	}
	tags := make([]node, len(p.tools))
	for i, t := range p.tools {
		tags[i] = tag(`{"tool_call_id": "`,
			sequence(regex(`[0-9]+`), constString(`", "tool_name": "`+t.Name+`", "parameters": `), arguments(t, f.style)),
			"}")
	}
	action := tag("<|START_ACTION|>",
		sequence(constString("[\n    "), tagsWithSeparator(tags, ",\n    ", true, !p.parallel), constString("\n]")),
		"<|END_ACTION|>")
	if p.required {
		return action
	}
	return or(response, action)
}
