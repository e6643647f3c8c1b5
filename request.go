package rein

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/grammar/structtag"
	"github.com/reinlm/rein/toolcall"
)

// MaxRequestBytes bounds the request body ParseRequest reads, and each
// parameter ParseResponseFormat and ParseStructuredOutputs read.
const MaxRequestBytes = 32 << 20

// ErrRequest is wrapped by every error about a request whose structured
// output parameters are malformed, contradict each other or ask for what
// rein does not support (those wrap grammar.ErrUnsupported too): an HTTP
// handler answers 400 with the error's text.
var ErrRequest = errors.New("bad structured output request")

// RequestError is an error about a request's structured output parameters:
// the JSON pointer of the place in the request body and the reason.
type RequestError struct {
	Pointer string
	Reason  string
	Err     error // a cause: grammar.ErrUnsupported, or the error of a parser
}

// Error renders the error as "rein: request: pointer: reason".
func (e *RequestError) Error() string {
	if e.Pointer == "" {
		return "rein: request: " + e.Reason
	}
	return "rein: request: " + e.Pointer + ": " + e.Reason
}

// Unwrap returns ErrRequest and the cause, when there is one.
func (e *RequestError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrRequest}
	}
	return []error{ErrRequest, e.Err}
}

func requestErr(ptr, format string, args ...any) error {
	return &RequestError{Pointer: ptr, Reason: fmt.Sprintf(format, args...)}
}

func unsupportedParam(ptr, format string, args ...any) error {
	return &RequestError{Pointer: ptr, Reason: fmt.Sprintf(format, args...), Err: grammar.ErrUnsupported}
}

// RequestOptions tune ParseRequest, ParseResponseFormat and
// ParseStructuredOutputs. The zero value is the default.
type RequestOptions struct {
	// Schema is the base of the options of the JSON Schema specs made from
	// a request (property order, whitespace, default draft); the request's
	// own parameters override its Lenient and Whitespace. Its LoadRef and
	// Limits must be zero, as in Spec.
	Schema jsonschema.Options
	// ToolFormat is the model family whose tool-call format a request's
	// tools are written in. When set, a request with tools (and a
	// tool_choice other than "none") becomes a KindToolCalls spec; when
	// zero, tools are the engine's business (its own tool-call parser
	// reads the output), and a tool_choice that forces a call, which only
	// a constraint can honour, is an error.
	ToolFormat toolcall.Format
	// Reasoning puts the tool-call format's thinking region first (see
	// toolcall.Request).
	Reasoning bool
}

// chatRequest is what ParseRequest reads of a request body: the
// parameters of OpenAI's Chat Completions and Responses APIs and vLLM's
// extensions that constrain the output. The rest of the body is skipped.
type chatRequest struct {
	ResponseFormat    json.RawMessage `json:"response_format"`
	Text              json.RawMessage `json:"text"` // the Responses API: {"format": {...}}
	StructuredOutputs json.RawMessage `json:"structured_outputs"`
	Tools             json.RawMessage `json:"tools"`
	ToolChoice        json.RawMessage `json:"tool_choice"`
	ParallelToolCalls json.RawMessage `json:"parallel_tool_calls"`

	// vLLM's parameters before structured_outputs (removed in its v0.12,
	// still sent by older clients).
	GuidedJSON              json.RawMessage `json:"guided_json"`
	GuidedRegex             json.RawMessage `json:"guided_regex"`
	GuidedChoice            json.RawMessage `json:"guided_choice"`
	GuidedGrammar           json.RawMessage `json:"guided_grammar"`
	GuidedWhitespacePattern json.RawMessage `json:"guided_whitespace_pattern"`
	StructuralTag           json.RawMessage `json:"structural_tag"`
}

// ParseRequest reads the structured output parameters of an OpenAI-style
// request body (Chat Completions, Completions or Responses, with vLLM's
// extensions) and returns the Spec to compile; ok is false when the
// request asks for no constraint. It reads:
//
//   - response_format: {"type": "text"} (no constraint), "json_object",
//     "json_schema" ({"json_schema": {"name", "schema", "strict"}}) and
//     "structural_tag" (see ParseResponseFormat);
//   - text.format, the Responses API's response_format, with the
//     json_schema fields beside "type";
//   - structured_outputs, vLLM's parameters (see ParseStructuredOutputs),
//     and their older top-level spellings guided_json, guided_regex,
//     guided_choice, guided_grammar, guided_whitespace_pattern and
//     structural_tag;
//   - tools, tool_choice and parallel_tool_calls, when
//     opts.ToolFormat names the model's tool-call format (see
//     RequestOptions.ToolFormat).
//
// Other fields are skipped unread. A request that sets two constraints
// (response_format and structured_outputs, say, or a response format and
// tools the tool-call format constrains) is an error: rein enforces one
// grammar per sequence. Errors wrap ErrRequest and name the place by JSON
// pointer. Field names are matched as encoding/json matches them, case
// aside.
func ParseRequest(body []byte, opts RequestOptions) (spec Spec, ok bool, err error) {
	if len(body) > MaxRequestBytes {
		return Spec{}, false, requestErr("", "the request is %d bytes, more than %d", len(body), MaxRequestBytes)
	}
	var r chatRequest
	if b := bytes.TrimSpace(body); len(b) == 0 || b[0] != '{' {
		return Spec{}, false, requestErr("", "the request must be a JSON object")
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return Spec{}, false, &RequestError{Reason: "the request must be a JSON object: " + err.Error(), Err: err}
	}
	var found []string // the pointers of the constraints found
	take := func(ptr string, s Spec, has bool, err error) error {
		if err != nil {
			return err
		}
		if has {
			if len(found) > 0 {
				return requestErr(ptr, "a second constraint beside %s: rein enforces one grammar per sequence", found[0])
			}
			found, spec, ok = append(found, ptr), s, true
		}
		return nil
	}
	if present(r.ResponseFormat) {
		s, has, err := parseResponseFormat(r.ResponseFormat, "/response_format", opts)
		if err := take("/response_format", s, has, err); err != nil {
			return Spec{}, false, err
		}
	}
	if present(r.Text) {
		s, has, err := parseTextFormat(r.Text, opts)
		if err := take("/text/format", s, has, err); err != nil {
			return Spec{}, false, err
		}
	}
	if present(r.StructuredOutputs) {
		s, err := parseStructuredOutputs(r.StructuredOutputs, "/structured_outputs", opts)
		if err := take("/structured_outputs", s, true, err); err != nil {
			return Spec{}, false, err
		}
	}
	if s, ptr, has, err := parseGuided(&r, opts); has || err != nil {
		if err := take(ptr, s, has, err); err != nil {
			return Spec{}, false, err
		}
	}
	if s, has, err := parseTools(&r, opts); has || err != nil {
		if err := take("/tools", s, has, err); err != nil {
			return Spec{}, false, err
		}
	}
	return spec, ok, nil
}

// ParseResponseFormat reads an OpenAI response_format object (the value
// alone, not the request): {"type": "text"} asks for no constraint (ok is
// false); {"type": "json_object"} for any JSON object;
// {"type": "json_schema", "json_schema": {"name", "schema", "strict"}} for
// the documents schema validates, with rein's strict mode when strict is
// true and its lenient mode otherwise (keywords rein cannot enforce are
// then dropped with a warning, as a model not held to the schema would
// drop them; strict never accepts a document the schema rejects); and
// {"type": "structural_tag", "format": {...}} for an XGrammar structural
// tag, whose older form {"structures": [{"begin", "schema", "end"}],
// "triggers": [...]} is read too. Errors name the place by JSON pointer
// from the object.
func ParseResponseFormat(data []byte, opts RequestOptions) (spec Spec, ok bool, err error) {
	if len(data) > MaxRequestBytes {
		return Spec{}, false, requestErr("", "response_format is %d bytes, more than %d", len(data), MaxRequestBytes)
	}
	return parseResponseFormat(data, "", opts)
}

// ParseStructuredOutputs reads vLLM's structured_outputs object (the value
// alone): exactly one of json (a schema, inline or as a JSON string),
// regex, choice, grammar (XGrammar's EBNF, as vLLM reads it; a Lark
// grammar is refused), json_object
// (true) and structural_tag (a structural tag as a JSON string or object),
// with the options disable_any_whitespace (compact JSON),
// whitespace_pattern (what JSON may hold between tokens, RE2 syntax) and
// disable_additional_properties (object schemas that declare properties
// admit no others, structtag.CloseObjects). disable_fallback is read and
// ignored: rein never falls back. Errors name the place by JSON pointer
// from the object.
func ParseStructuredOutputs(data []byte, opts RequestOptions) (Spec, error) {
	if len(data) > MaxRequestBytes {
		return Spec{}, requestErr("", "structured_outputs is %d bytes, more than %d", len(data), MaxRequestBytes)
	}
	return parseStructuredOutputs(data, "", opts)
}

// present reports whether a field was given a value other than null.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// object reads raw as a JSON object of raw fields.
func object(raw json.RawMessage, ptr, what string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, requestErr(ptr, "%s must be a JSON object", what)
	}
	return m, nil
}

// str reads a string field; ok is false when it is absent or null.
func str(m map[string]json.RawMessage, ptr, key string) (s string, ok bool, err error) {
	if !present(m[key]) {
		return "", false, nil
	}
	if err := json.Unmarshal(m[key], &s); err != nil {
		return "", false, requestErr(ptr+"/"+key, "must be a string")
	}
	return s, true, nil
}

// boolean reads a bool field, false when absent or null.
func boolean(m map[string]json.RawMessage, ptr, key string) (bool, error) {
	var b bool
	if present(m[key]) && json.Unmarshal(m[key], &b) != nil {
		return false, requestErr(ptr+"/"+key, "must be a boolean")
	}
	return b, nil
}

// known checks that m holds only the keys listed.
func known(m map[string]json.RawMessage, ptr string, keys ...string) error {
	for k := range m {
		found := false
		for _, want := range keys {
			found = found || k == want
		}
		if !found {
			return requestErr(ptr+"/"+escapePointer(k), "unknown field (known: %s)", strings.Join(keys, ", "))
		}
	}
	return nil
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func parseResponseFormat(data []byte, ptr string, opts RequestOptions) (Spec, bool, error) {
	m, err := object(data, ptr, "response_format")
	if err != nil {
		return Spec{}, false, err
	}
	typ, has, err := str(m, ptr, "type")
	if err != nil {
		return Spec{}, false, err
	}
	if !has {
		return Spec{}, false, requestErr(ptr+"/type", "missing")
	}
	switch typ {
	case "text":
		return Spec{}, false, nil
	case "json_object":
		return jsonObject(opts), true, nil
	case "json_schema":
		if !present(m["json_schema"]) {
			return Spec{}, false, requestErr(ptr+"/json_schema", "missing")
		}
		js, err := object(m["json_schema"], ptr+"/json_schema", "json_schema")
		if err != nil {
			return Spec{}, false, err
		}
		s, err := schemaFormat(js, ptr+"/json_schema", opts)
		return s, err == nil, err
	case "structural_tag":
		s, err := structuralTag(data, m, ptr)
		return s, err == nil, err
	}
	return Spec{}, false, unsupportedParam(ptr+"/type", "unknown response format type %q (known: text, json_object, json_schema, structural_tag)", typ)
}

// parseTextFormat reads the Responses API's text parameter: its format is a
// response_format whose json_schema fields sit beside "type".
func parseTextFormat(data []byte, opts RequestOptions) (Spec, bool, error) {
	m, err := object(data, "/text", "text")
	if err != nil {
		return Spec{}, false, err
	}
	if !present(m["format"]) {
		return Spec{}, false, nil
	}
	const ptr = "/text/format"
	f, err := object(m["format"], ptr, "format")
	if err != nil {
		return Spec{}, false, err
	}
	if typ, _, _ := str(f, ptr, "type"); typ == "json_schema" {
		s, err := schemaFormat(f, ptr, opts)
		return s, err == nil, err
	}
	return parseResponseFormat(m["format"], ptr, opts)
}

// schemaFormat reads OpenAI's json_schema object: name, description,
// schema, strict.
func schemaFormat(m map[string]json.RawMessage, ptr string, opts RequestOptions) (Spec, error) {
	if _, _, err := str(m, ptr, "name"); err != nil {
		return Spec{}, err
	}
	strict, err := boolean(m, ptr, "strict")
	if err != nil {
		return Spec{}, err
	}
	schema := bytes.TrimSpace(m["schema"])
	if !present(schema) {
		return Spec{}, requestErr(ptr+"/schema", "missing")
	}
	if schema[0] != '{' && schema[0] != 't' && schema[0] != 'f' {
		return Spec{}, requestErr(ptr+"/schema", "must be a JSON Schema (an object or a boolean)")
	}
	s := JSONSchema(string(schema))
	s.Schema = opts.Schema
	s.Schema.Lenient = !strict
	return s, nil
}

// jsonObject is the spec of any JSON object.
func jsonObject(opts RequestOptions) Spec {
	s := JSONSchema(`{"type":"object"}`)
	s.Schema = opts.Schema
	return s
}

// structuralTag reads a structural tag response format: XGrammar's
// {"type": "structural_tag", "format": {...}}, or vLLM's older
// {"type": "structural_tag", "structures": [...], "triggers": [...]},
// rewritten into triggered tags.
func structuralTag(data []byte, m map[string]json.RawMessage, ptr string) (Spec, error) {
	if !present(m["structures"]) {
		return StructuralTag(string(data)), nil
	}
	if err := known(m, ptr, "type", "structures", "triggers"); err != nil {
		return Spec{}, err
	}
	var legacy struct {
		Structures []struct {
			Begin  *string          `json:"begin"`
			Schema *json.RawMessage `json:"schema"`
			End    *string          `json:"end"`
		} `json:"structures"`
		Triggers []string `json:"triggers"`
	}
	if err := json.Unmarshal(data, &legacy); err != nil {
		return Spec{}, requestErr(ptr, "structures must be a list of {begin, schema, end} objects and triggers a list of strings: %v", err)
	}
	if len(legacy.Triggers) == 0 {
		return Spec{}, requestErr(ptr+"/triggers", "missing: the older structural tag form needs at least one trigger")
	}
	tags := make([]structtag.Format, len(legacy.Structures))
	for i, s := range legacy.Structures {
		at := fmt.Sprintf("%s/structures/%d", ptr, i)
		switch {
		case s.Begin == nil:
			return Spec{}, requestErr(at+"/begin", "missing")
		case s.End == nil:
			return Spec{}, requestErr(at+"/end", "missing")
		case s.Schema == nil:
			return Spec{}, requestErr(at+"/schema", "missing")
		}
		tags[i] = structtag.Tag(*s.Begin, structtag.JSONSchema(*s.Schema, ""), *s.End)
	}
	out, err := json.Marshal(map[string]any{"type": "structural_tag", "format": structtag.TriggeredTags(legacy.Triggers, tags, false, false)})
	if err != nil {
		return Spec{}, requestErr(ptr, "%v", err)
	}
	return StructuralTag(string(out)), nil
}

// structuredOutputs is vLLM's StructuredOutputsParams.
var structuredConstraints = []string{"json", "regex", "choice", "grammar", "json_object", "structural_tag"}

func parseStructuredOutputs(data []byte, ptr string, opts RequestOptions) (Spec, error) {
	m, err := object(data, ptr, "structured_outputs")
	if err != nil {
		return Spec{}, err
	}
	return structuredOutputs(m, ptr, opts)
}

// structuredOutputs reads vLLM's parameters, given as a map of fields.
func structuredOutputs(m map[string]json.RawMessage, ptr string, opts RequestOptions) (Spec, error) {
	if err := known(m, ptr, append(structuredConstraints, "disable_any_whitespace", "disable_additional_properties", "whitespace_pattern", "disable_fallback")...); err != nil {
		return Spec{}, err
	}
	var which string
	for _, k := range structuredConstraints {
		if !present(m[k]) || k == "json_object" && bytes.Equal(bytes.TrimSpace(m[k]), []byte("false")) {
			continue
		}
		if which != "" {
			return Spec{}, requestErr(ptr+"/"+k, "a second constraint beside %s: set exactly one of %s", which, strings.Join(structuredConstraints, ", "))
		}
		which = k
	}
	if which == "" {
		return Spec{}, requestErr(ptr, "no constraint: set exactly one of %s", strings.Join(structuredConstraints, ", "))
	}
	noSpace, err := boolean(m, ptr, "disable_any_whitespace")
	if err != nil {
		return Spec{}, err
	}
	closed, err := boolean(m, ptr, "disable_additional_properties")
	if err != nil {
		return Spec{}, err
	}
	if _, err := boolean(m, ptr, "disable_fallback"); err != nil {
		return Spec{}, err
	}
	ws, hasWS, err := str(m, ptr, "whitespace_pattern")
	if err != nil {
		return Spec{}, err
	}
	isJSON := which == "json" || which == "json_object"
	switch {
	case hasWS && noSpace:
		return Spec{}, requestErr(ptr+"/whitespace_pattern", "contradicts disable_any_whitespace")
	case hasWS && !isJSON:
		return Spec{}, requestErr(ptr+"/whitespace_pattern", "applies to json and json_object only, not %s", which)
	case noSpace && !isJSON:
		return Spec{}, requestErr(ptr+"/disable_any_whitespace", "applies to json and json_object only, not %s", which)
	case closed && which != "json":
		return Spec{}, requestErr(ptr+"/disable_additional_properties", "applies to json only, not %s", which)
	}
	at := ptr + "/" + which
	raw := m[which]
	switch which {
	case "json", "json_object":
		var s Spec
		if which == "json_object" {
			if _, err := boolean(m, ptr, "json_object"); err != nil {
				return Spec{}, err
			}
			s = jsonObject(opts)
		} else if s, err = vllmSchema(raw, at, closed, opts); err != nil {
			return Spec{}, err
		}
		switch {
		case noSpace:
			s.Schema.Whitespace = jsonschema.WhitespaceCompact
		case hasWS:
			s.Schema.Whitespace, s.Schema.WhitespacePattern = jsonschema.WhitespacePattern, ws
		}
		return s, nil
	case "regex":
		var re string
		if json.Unmarshal(raw, &re) != nil {
			return Spec{}, requestErr(at, "must be a string")
		}
		return Regex(re), nil
	case "choice":
		var choices []string
		if json.Unmarshal(raw, &choices) != nil {
			return Spec{}, requestErr(at, "must be a list of strings")
		}
		if len(choices) == 0 {
			return Spec{}, requestErr(at, "empty: no output would be allowed")
		}
		return Choice(choices...), nil
	case "grammar":
		var src string
		if json.Unmarshal(raw, &src) != nil {
			return Spec{}, requestErr(at, "must be a string")
		}
		if !strings.Contains(src, "::=") {
			return Spec{}, unsupportedParam(at, "not an EBNF grammar (no rule \"name ::= ...\"): Lark grammars are not supported by rein")
		}
		return EBNF(src, "root"), nil
	case "structural_tag":
		tag := bytes.TrimSpace(raw)
		if tag[0] == '"' {
			var s string
			if json.Unmarshal(tag, &s) != nil {
				return Spec{}, requestErr(at, "must be a structural tag, as a JSON object or a string holding one")
			}
			tag = []byte(s)
		}
		fm, err := object(tag, at, "structural_tag")
		if err != nil {
			return Spec{}, err
		}
		if present(fm["structures"]) {
			return structuralTag(tag, fm, at)
		}
		return StructuralTag(string(tag)), nil
	}
	return Spec{}, requestErr(at, "unknown constraint")
}

// vllmSchema reads vLLM's json: a schema inline or serialized as a string.
func vllmSchema(raw json.RawMessage, ptr string, closed bool, opts RequestOptions) (Spec, error) {
	schema := bytes.TrimSpace(raw)
	if schema[0] == '"' {
		var s string
		if json.Unmarshal(schema, &s) != nil {
			return Spec{}, requestErr(ptr, "must be a JSON Schema, as an object or a string holding one")
		}
		schema = bytes.TrimSpace([]byte(s))
		if !json.Valid(schema) {
			return Spec{}, requestErr(ptr, "the string does not hold JSON")
		}
	}
	if len(schema) == 0 || schema[0] != '{' && schema[0] != 't' && schema[0] != 'f' {
		return Spec{}, requestErr(ptr, "must be a JSON Schema (an object or a boolean)")
	}
	if closed {
		var err error
		if schema, err = structtag.CloseObjects(schema, grammar.Limits{}); err != nil {
			return Spec{}, &RequestError{Pointer: ptr, Reason: err.Error(), Err: err}
		}
	}
	s := JSONSchema(string(schema))
	s.Schema = opts.Schema
	return s, nil
}

// parseGuided reads vLLM's older top-level parameters as a
// structured_outputs object; ptr is the pointer of the first one set.
func parseGuided(r *chatRequest, opts RequestOptions) (Spec, string, bool, error) {
	fields := []struct {
		name string
		raw  json.RawMessage
	}{
		{"json", r.GuidedJSON}, {"regex", r.GuidedRegex}, {"choice", r.GuidedChoice},
		{"grammar", r.GuidedGrammar}, {"structural_tag", r.StructuralTag},
		{"whitespace_pattern", r.GuidedWhitespacePattern},
	}
	so := map[string]json.RawMessage{}
	ptr := ""
	for _, f := range fields {
		if !present(f.raw) {
			continue
		}
		legacy := "/guided_" + f.name
		if f.name == "structural_tag" {
			legacy = "/structural_tag"
		}
		if f.name != "whitespace_pattern" {
			if ptr != "" {
				return Spec{}, legacy, false, requestErr(legacy, "a second constraint beside %s", ptr)
			}
			ptr = legacy
		}
		so[f.name] = f.raw
	}
	if ptr == "" {
		if len(so) > 0 {
			return Spec{}, "/guided_whitespace_pattern", false, requestErr("/guided_whitespace_pattern", "applies to guided_json only, which is not set")
		}
		return Spec{}, "", false, nil
	}
	s, err := structuredOutputs(so, "", opts)
	var re *RequestError
	if errors.As(err, &re) {
		// Point at the top-level field: "/json" is "/guided_json".
		name, rest, _ := strings.Cut(strings.TrimPrefix(re.Pointer, "/"), "/")
		re.Pointer = "/guided_" + name
		if name == "structural_tag" {
			re.Pointer = "/structural_tag"
		}
		if rest != "" {
			re.Pointer += "/" + rest
		}
	}
	return s, ptr, err == nil, err
}

// parseTools reads tools, tool_choice and parallel_tool_calls as a
// tool-calling spec when opts.ToolFormat is set.
func parseTools(r *chatRequest, opts RequestOptions) (Spec, bool, error) {
	if !present(r.Tools) && !present(r.ToolChoice) {
		return Spec{}, false, nil
	}
	choice, err := toolcall.ParseToolChoice(r.ToolChoice)
	if err != nil {
		return Spec{}, false, toolErr("/tool_choice", err)
	}
	forced := choice.Mode == toolcall.ChoiceRequired || choice.Mode == toolcall.ChoiceFunction
	switch {
	case opts.ToolFormat == 0 && forced:
		return Spec{}, false, unsupportedParam("/tool_choice", "forces a tool call, which needs the model's tool-call format (RequestOptions.ToolFormat)")
	case opts.ToolFormat == 0:
		return Spec{}, false, nil
	case forced && !present(r.Tools):
		return Spec{}, false, requestErr("/tool_choice", "forces a tool call, but the request has no tools")
	case choice.Mode == toolcall.ChoiceNone || !present(r.Tools):
		return Spec{}, false, nil
	}
	tools, err := toolcall.ParseTools(r.Tools)
	if err != nil {
		return Spec{}, false, toolErr("/tools", err)
	}
	req := toolcall.Request{Model: opts.ToolFormat, Tools: tools, ToolChoice: choice, Reasoning: opts.Reasoning}
	if present(r.ParallelToolCalls) {
		var p bool
		if json.Unmarshal(r.ParallelToolCalls, &p) != nil {
			return Spec{}, false, requestErr("/parallel_tool_calls", "must be a boolean")
		}
		req.ParallelToolCalls = &p
	}
	return ToolCalls(req), true, nil
}

// toolErr re-roots a toolcall error's pointer at the request's field.
func toolErr(field string, err error) error {
	var te *toolcall.Error
	if errors.As(err, &te) {
		return &RequestError{Pointer: field + te.Pointer, Reason: te.Reason, Err: err}
	}
	return &RequestError{Pointer: field, Reason: err.Error(), Err: err}
}
