package toolcall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/structtag"
)

// Request is one tool-calling turn: which model family writes the output,
// the tools it may call, and how it must call them.
type Request struct {
	// Model is the family whose tool-call format the output takes.
	Model Format
	// Tools are the functions the model may call (OpenAI "tools").
	Tools []Tool
	// ToolChoice says whether and which tools must be called (OpenAI
	// "tool_choice"); the zero value is "auto".
	ToolChoice ToolChoice
	// ParallelToolCalls, when false, allows at most one call; nil means
	// true, OpenAI's default.
	ParallelToolCalls *bool
	// Reasoning puts the family's thinking region before the answer; it is
	// an error for a family without one.
	Reasoning bool
}

// Tool is one function a model may call.
type Tool struct {
	// Name is the function's name: 1 to MaxNameBytes bytes of ASCII letters,
	// digits, '_', '-' and '.'.
	Name string
	// Description is the function's description; the constraint does not
	// use it.
	Description string
	// Parameters is the JSON Schema of the arguments object, nil when the
	// tool declares none.
	Parameters json.RawMessage
	// Strict is the tool's "strict" flag, nil when absent. Only an explicit
	// false loosens the arguments to any JSON object, in the formats whose
	// arguments are JSON; in the XML argument styles (Qwen3Coder, GLM45,
	// GLM47, MiniMaxM2), where only declared keys can be written, the
	// parameters schema holds whatever Strict says.
	Strict *bool
}

// ChoiceMode is the kind of a ToolChoice.
type ChoiceMode int

// The tool_choice modes.
const (
	// ChoiceAuto lets the model answer in text, call tools, or both.
	ChoiceAuto ChoiceMode = iota
	// ChoiceNone forbids calls: text only.
	ChoiceNone
	// ChoiceRequired makes the model call at least one tool.
	ChoiceRequired
	// ChoiceFunction makes the model call exactly one tool, ToolChoice.Function.
	ChoiceFunction
)

// String names the mode as tool_choice spells it ("function" for a named
// function).
func (m ChoiceMode) String() string {
	switch m {
	case ChoiceAuto:
		return "auto"
	case ChoiceNone:
		return "none"
	case ChoiceRequired:
		return "required"
	case ChoiceFunction:
		return "function"
	}
	return fmt.Sprintf("ChoiceMode(%d)", int(m))
}

// ToolChoice is an OpenAI "tool_choice".
type ToolChoice struct {
	// Mode is auto (the zero value), none, required or a named function.
	// With Allowed set it is auto or required.
	Mode ChoiceMode
	// Function is the one tool to call when Mode is ChoiceFunction, and
	// must be empty otherwise.
	Function string
	// Allowed, when not nil, restricts the tools to these names
	// ("allowed_tools"); every name must be one of the request's tools. It
	// must be nil unless Mode is auto or required.
	Allowed []string
}

// Limits on what ParseTools, ParseToolChoice and StructuralTag accept.
const (
	// MaxInputBytes bounds the JSON that ParseTools and ParseToolChoice read.
	MaxInputBytes = 16 << 20
	// MaxTools bounds the number of tools of one request.
	MaxTools = 1024
	// MaxNameBytes bounds the length of a tool's name.
	MaxNameBytes = 64
)

// ErrInvalid is wrapped by every error about a request that toolcall
// refuses: bad JSON, an unknown tool, a bad name, a mode the family lacks.
var ErrInvalid = errors.New("invalid tool-calling request")

// Error is an error about a request, with the JSON pointer of the place
// ("" for the request as a whole) and the reason.
type Error struct {
	Pointer string
	Reason  string
	// Err is the error of the front-end that refused a tool's parameters
	// schema, or of the compile its tools crossed a limit of (a
	// *grammar.Error, which may wrap grammar.ErrUnsupported or
	// grammar.ErrLimit), nil for the errors of toolcall's own checks.
	Err error
}

// Error renders the error as "toolcall: pointer: reason".
func (e *Error) Error() string {
	if e.Pointer == "" {
		return "toolcall: " + e.Reason
	}
	return "toolcall: " + e.Pointer + ": " + e.Reason
}

// Unwrap returns ErrInvalid, so errors.Is(err, ErrInvalid) holds, and Err
// when set, so errors.Is(err, grammar.ErrUnsupported) holds for a keyword
// rein cannot enforce.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrInvalid}
	}
	return []error{ErrInvalid, e.Err}
}

// decodeErr describes err, from decoding data at pointer ptr: JSON that
// does not parse by its line and column in data, a value of the wrong kind
// by the pointer of the field that holds it and the kind it must be, and
// data of the wrong kind as a whole by what (what it must be).
func decodeErr(data []byte, ptr, what string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line, col := lineCol(data, int(se.Offset)-1) // the byte it read last
		return errorf(ptr, "JSON that does not parse, at line %d, column %d: %v", line, col, se)
	case errors.As(err, &te) && te.Field == "":
		return errorf(ptr, "%s, not %s", what, valueName(te.Value))
	case errors.As(err, &te):
		return errorf(ptr+"/"+strings.ReplaceAll(te.Field, ".", "/"), "must be %s, not %s", kindName(te.Type), valueName(te.Value))
	}
	return errorf(ptr, "%s: %v", what, err)
}

// lineCol is the line and column (from 1, in bytes) of the byte at offset
// in data (or just past its end).
func lineCol(data []byte, offset int) (int, int) {
	offset = min(max(offset, 0), len(data))
	before := data[:offset]
	line := 1 + bytes.Count(before, []byte("\n"))
	return line, offset - bytes.LastIndexByte(before, '\n')
}

// valueName names the kind of JSON value encoding/json calls v.
func valueName(v string) string {
	switch v {
	case "bool":
		return "true or false"
	case "array", "object":
		return "an " + v
	case "string", "number":
		return "a " + v
	}
	return v
}

// kindName is the JSON kind of values a Go type holds.
func kindName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a number"
}

func errorf(pointer, format string, args ...any) error {
	return &Error{Pointer: pointer, Reason: fmt.Sprintf(format, args...)}
}

// ParseTools reads an OpenAI "tools" array:
// [{"type": "function", "function": {"name", "description", "parameters", "strict"}}].
// The Responses API's flat form {"type": "function", "name", ...} is read too.
// Errors name the place by JSON pointer from the array ("/2/function/name").
func ParseTools(data []byte) ([]Tool, error) {
	if len(data) > MaxInputBytes {
		return nil, errorf("", "tools: %d bytes, more than %d", len(data), MaxInputBytes)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, decodeErr(data, "", "tools must be a JSON array", err)
	}
	if len(raw) > MaxTools {
		return nil, errorf("", "%d tools, more than %d", len(raw), MaxTools)
	}
	tools := make([]Tool, 0, len(raw))
	for i, r := range raw {
		t, err := parseTool(r, fmt.Sprintf("/%d", i))
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

type functionJSON struct {
	Name        *string         `json:"name"`
	Description *string         `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      *bool           `json:"strict"`
}

func parseTool(data []byte, ptr string) (Tool, error) {
	var top struct {
		Type     *string         `json:"type"`
		Function json.RawMessage `json:"function"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return Tool{}, decodeErr(data, ptr, "a tool must be an object", err)
	}
	if top.Type == nil || *top.Type != "function" {
		return Tool{}, errorf(ptr+"/type", `only "function" tools are supported`)
	}
	// The function's fields, in "function" or, in the Responses API's
	// flat form, beside "type".
	var f functionJSON
	what := "a tool must be an object"
	if top.Function != nil {
		data, ptr, what = top.Function, ptr+"/function", "function must be an object"
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return Tool{}, decodeErr(data, ptr, what, err)
	}
	if f.Name == nil {
		return Tool{}, errorf(ptr+"/name", "missing")
	}
	t := Tool{Name: *f.Name, Strict: f.Strict}
	if f.Description != nil {
		t.Description = *f.Description
	}
	if p := bytes.TrimSpace(f.Parameters); len(p) > 0 && !bytes.Equal(p, []byte("null")) {
		t.Parameters = p
	}
	if err := t.check(ptr); err != nil {
		return Tool{}, err
	}
	return t, nil
}

// check reports a bad name or a parameters value that is not a schema object.
func (t *Tool) check(ptr string) error {
	if err := checkName(t.Name); err != nil {
		return errorf(ptr+"/name", "%v", err)
	}
	if t.Parameters == nil {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(t.Parameters, &obj); err != nil {
		return decodeErr(t.Parameters, ptr+"/parameters", "must be a JSON Schema object", err)
	}
	return nil
}

// checkName accepts OpenAI's function names, and '.' besides (namespaced
// names such as "server.tool"). The names are written into the call
// formats unescaped, so nothing that could close a JSON string or an XML
// attribute may pass.
func checkName(name string) error {
	if name == "" {
		return errors.New("empty name")
	}
	if len(name) > MaxNameBytes {
		return fmt.Errorf("name of %d bytes, more than %d", len(name), MaxNameBytes)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return fmt.Errorf("name %q holds %q: only ASCII letters, digits, '_', '-' and '.' are allowed", name, c)
		}
	}
	return nil
}

// ParseToolChoice reads an OpenAI "tool_choice": "auto", "none",
// "required", {"type": "function", "function": {"name": N}} or
// {"type": "allowed_tools", "allowed_tools": {"mode": "auto"|"required",
// "tools": [{"type": "function", "function": {"name": N}}, ...]}}. The
// Responses API's flat references ({"type": "function", "name": N}) are
// read too. Empty input or null is "auto".
func ParseToolChoice(data []byte) (ToolChoice, error) {
	if len(data) > MaxInputBytes {
		return ToolChoice{}, errorf("", "tool_choice: %d bytes, more than %d", len(data), MaxInputBytes)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		return ToolChoice{}, nil
	}
	if data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return ToolChoice{}, decodeErr(data, "", "tool_choice must be a string or an object", err)
		}
		switch s {
		case "auto":
			return ToolChoice{Mode: ChoiceAuto}, nil
		case "none":
			return ToolChoice{Mode: ChoiceNone}, nil
		case "required":
			return ToolChoice{Mode: ChoiceRequired}, nil
		}
		return ToolChoice{}, errorf("", `tool_choice %q: want "auto", "none", "required" or an object`, s)
	}
	var obj struct {
		Type         *string         `json:"type"`
		AllowedTools json.RawMessage `json:"allowed_tools"`
	}
	if err := json.Unmarshal(data, &obj); err != nil {
		return ToolChoice{}, decodeErr(data, "", "tool_choice must be a string or an object", err)
	}
	if obj.Type == nil {
		return ToolChoice{}, errorf("/type", "missing")
	}
	switch *obj.Type {
	case "function":
		name, err := parseToolRef(data, "")
		if err != nil {
			return ToolChoice{}, err
		}
		return ToolChoice{Mode: ChoiceFunction, Function: name}, nil
	case "allowed_tools":
		return parseAllowed(obj.AllowedTools)
	}
	return ToolChoice{}, errorf("/type", `%q: want "function" or "allowed_tools"`, *obj.Type)
}

func parseAllowed(data json.RawMessage) (ToolChoice, error) {
	const ptr = "/allowed_tools"
	if data == nil {
		return ToolChoice{}, errorf(ptr, "missing")
	}
	var a struct {
		Mode  *string           `json:"mode"`
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return ToolChoice{}, decodeErr(data, ptr, "must be an object with mode and tools", err)
	}
	c := ToolChoice{Allowed: []string{}}
	switch {
	case a.Mode == nil || *a.Mode == "auto":
		c.Mode = ChoiceAuto
	case *a.Mode == "required":
		c.Mode = ChoiceRequired
	default:
		return ToolChoice{}, errorf(ptr+"/mode", `%q: want "auto" or "required"`, *a.Mode)
	}
	if len(a.Tools) == 0 {
		return ToolChoice{}, errorf(ptr+"/tools", "must list at least one tool")
	}
	if len(a.Tools) > MaxTools {
		return ToolChoice{}, errorf(ptr+"/tools", "%d tools, more than %d", len(a.Tools), MaxTools)
	}
	for i, r := range a.Tools {
		name, err := parseToolRef(r, fmt.Sprintf("%s/tools/%d", ptr, i))
		if err != nil {
			return ToolChoice{}, err
		}
		c.Allowed = append(c.Allowed, name)
	}
	return c, nil
}

// parseToolRef reads {"type": "function", "function": {"name": N}} or
// {"type": "function", "name": N} and returns N.
func parseToolRef(data []byte, ptr string) (string, error) {
	var ref struct {
		Type     *string `json:"type"`
		Name     *string `json:"name"`
		Function *struct {
			Name *string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		return "", decodeErr(data, ptr, "a tool reference must be an object", err)
	}
	if ref.Type == nil || *ref.Type != "function" {
		return "", errorf(ptr+"/type", `must be "function"`)
	}
	name, at := ref.Name, ptr+"/name"
	if ref.Function != nil {
		name, at = ref.Function.Name, ptr+"/function/name"
	}
	if name == nil {
		return "", errorf(at, "missing")
	}
	if err := checkName(*name); err != nil {
		return "", errorf(at, "%v", err)
	}
	return *name, nil
}

// plan is a request reduced to what the builders need: the tools that may
// be called, whether a call is required, whether more than one may be made.
type plan struct {
	text      bool   // no call may be made: text only
	required  bool   // the output starts with a call
	parallel  bool   // more than one call may be made
	tools     []Tool // the tools that may be called, in request order
	reasoning bool
}

// choose checks r's tools and resolves its tool choice.
func choose(r Request) (plan, error) {
	if len(r.Tools) > MaxTools {
		return plan{}, errorf("/tools", "%d tools, more than %d", len(r.Tools), MaxTools)
	}
	byName := make(map[string]int, len(r.Tools))
	for i := range r.Tools {
		t := &r.Tools[i]
		ptr := fmt.Sprintf("/tools/%d", i)
		if err := t.check(ptr); err != nil {
			return plan{}, err
		}
		if j, dup := byName[t.Name]; dup {
			return plan{}, errorf(ptr+"/name", "%q is also the name of tool %d", t.Name, j)
		}
		byName[t.Name] = i
	}
	p := plan{parallel: r.ParallelToolCalls == nil || *r.ParallelToolCalls, reasoning: r.Reasoning}
	c := r.ToolChoice
	pick := func(names []string, ptr string) error {
		seen := make(map[string]bool, len(names))
		for i, n := range names {
			j, ok := byName[n]
			if !ok {
				return errorf(fmt.Sprintf("%s/%d", ptr, i), "%q is not one of the request's tools", n)
			}
			if !seen[n] {
				seen[n] = true
				p.tools = append(p.tools, r.Tools[j])
			}
		}
		return nil
	}
	// A field the mode does not read is an error, not ignored: a choice of
	// Function with the mode left at auto would otherwise allow text and
	// every tool.
	switch {
	case c.Function != "" && c.Mode != ChoiceFunction:
		return plan{}, errorf("/tool_choice/function/name", "names a function, but the mode is %s, not a named function", c.Mode)
	case c.Allowed != nil && c.Mode != ChoiceAuto && c.Mode != ChoiceRequired:
		return plan{}, errorf("/tool_choice/allowed_tools", "restricts the tools, but the mode is %s, not auto or required", c.Mode)
	}
	switch c.Mode {
	case ChoiceNone:
		p.text = true
		return p, nil
	case ChoiceFunction:
		if c.Function == "" {
			return plan{}, errorf("/tool_choice/function/name", "missing")
		}
		if err := pick([]string{c.Function}, "/tool_choice/function/name"); err != nil {
			return plan{}, err
		}
		p.required, p.parallel = true, false
		return p, nil
	case ChoiceAuto, ChoiceRequired:
		p.required = c.Mode == ChoiceRequired
	default:
		return plan{}, errorf("/tool_choice", "unknown mode %d", c.Mode)
	}
	if c.Allowed != nil {
		if len(c.Allowed) == 0 {
			return plan{}, errorf("/tool_choice/allowed_tools/tools", "must list at least one tool")
		}
		if err := pick(c.Allowed, "/tool_choice/allowed_tools/tools"); err != nil {
			return plan{}, err
		}
	} else {
		p.tools = r.Tools
	}
	if len(p.tools) == 0 {
		if p.required {
			return plan{}, errorf("/tool_choice", "required, but the request has no tools")
		}
		p.text = true
	}
	return p, nil
}

// checkArguments compiles the arguments schema that the structural tag
// holds for each tool that may be called, as checkTool does, and returns
// the first error. It stops once ctx ends, reporting nothing.
func (t tagPlan) checkArguments(ctx context.Context, opts structtag.Options, limits bool) error {
	for _, tool := range t.tools {
		if ctx.Err() != nil {
			return nil
		}
		if err := t.checkTool(ctx, tool, opts, limits); err != nil {
			return err
		}
	}
	return nil
}

// checkTool compiles tool's arguments schema as the structural tag holds
// it (in the family's style) and package structtag compiles it with opts,
// so that a schema it refuses is reported against the request: at
// /tools/i/parameters followed by the schema's own pointer, with the
// front-end's reason. With limits, a schema that alone crosses one of
// opts.Limits is reported too; without, it is left to the compile, whose
// limits may be higher. A compile stopped by ctx reports nothing.
func (t tagPlan) checkTool(ctx context.Context, tool Tool, opts structtag.Options, limits bool) error {
	ptr := t.parameters(tool)
	data, err := marshal(arguments(tool, t.style))
	if err != nil {
		return errorf(ptr, "must be a JSON Schema object: %v", err)
	}
	argumentCompiles.Add(1)
	_, err = structtag.CompileContext(ctx, data, opts)
	if err == nil || ctx.Err() != nil || !limits && errors.Is(err, grammar.ErrLimit) {
		return nil
	}
	var ge *grammar.Error
	if !errors.As(err, &ge) {
		return &Error{Pointer: ptr, Reason: err.Error(), Err: err}
	}
	return t.toolError(tool, strings.TrimPrefix(ge.Pointer, "/format/json_schema"), ge, err)
}

// toolError is the error ge (err) of the front-end about tool's
// arguments schema, at rest, a pointer within the schema, reported at the
// tool's parameters.
func (t tagPlan) toolError(tool Tool, rest string, ge *grammar.Error, err error) error {
	ptr := t.parameters(tool)
	if rest == "" || rest[0] == '/' {
		ptr += rest
	}
	return &Error{Pointer: ptr, Reason: ge.Msg, Err: err}
}

// toolAt returns the tool whose arguments schema is the json_schema
// format that ptr, a pointer into the structural tag of t, lies in, and
// the rest of ptr within the schema. Tools with equal schemas are told
// apart by none: the first is named, and its error is each one's.
func (t tagPlan) toolAt(ptr string) (Tool, string, bool) {
	at, found := strings.CutPrefix(ptr, "/format")
	if !found || at != "" && at[0] != '/' {
		return Tool{}, "", false
	}
	var segs []string
	if at != "" {
		segs = strings.Split(at[1:], "/")
	}
	var cur any = t.format
	for k, seg := range segs {
		if f, ok := cur.(node); ok && f["type"] == "json_schema" && seg == "json_schema" {
			rest := ""
			if k+1 < len(segs) {
				rest = "/" + strings.Join(segs[k+1:], "/")
			}
			want, err := encodeJSON(f["json_schema"])
			if err != nil {
				return Tool{}, "", false
			}
			for _, tool := range t.tools {
				if got, err := encodeJSON(arguments(tool, t.style)["json_schema"]); err == nil && bytes.Equal(got, want) {
					return tool, rest, true
				}
			}
			return Tool{}, "", false
		}
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case node:
			cur = v[seg]
		case []node:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(v) {
				return Tool{}, "", false
			}
			cur = v[i]
		default:
			return Tool{}, "", false
		}
	}
	return Tool{}, "", false
}

// checkTypes refuses a tool that may be called whose parameters' type
// allows no object, where the family writes the arguments as JSON: a check
// of the request that costs no compile.
func (t tagPlan) checkTypes() error {
	for _, tool := range t.tools {
		if tool.Parameters == nil || t.style != "" || tool.Strict != nil && !*tool.Strict {
			continue
		}
		if typ := tool.paramType(); typ.known && !typ.object {
			return errorf(t.parameters(tool)+"/type", "the arguments of a call are a JSON object, and type %s allows none", typ.text)
		}
	}
	return nil
}

// parameters is the pointer of tool's parameters in the request.
func (t tagPlan) parameters(tool Tool) string {
	i := slices.IndexFunc(t.all, func(u Tool) bool { return u.Name == tool.Name })
	return fmt.Sprintf("/tools/%d/parameters", i)
}

// argumentCompiles counts checkArguments' compiles of one tool's schema,
// for tests: a request compiled whole needs none.
var argumentCompiles atomic.Int64

// schema is the arguments schema of t: its parameters, or any JSON object
// when it has none or is explicitly not strict. The parameters apply to an
// object whatever they say of the type: clients send {} for a tool without
// arguments, and MCP tools often leave "type" out, and arguments are an
// object in every format.
func (t Tool) schema() any {
	if t.Parameters == nil || (t.Strict != nil && !*t.Strict) {
		return json.RawMessage(`{"type":"object"}`)
	}
	if typ := t.paramType(); typ.said && (!typ.known || !typ.object || typ.only) {
		return t.Parameters // an object only, or none, or not a type (the compile says so)
	}
	return asObject(t.Parameters)
}

// paramTypes is what the "type" of a tool's parameters says (the last
// one, where it is written twice, as the JSON Schema front-end reads it).
type paramTypes struct {
	said   bool   // there is one
	known  bool   // it is a name of JSON Schema's types, or a list of them
	object bool   // "object" is one of them
	only   bool   // and the only one
	text   string // as written
}

func (t Tool) paramType() paramTypes {
	var top map[string]json.RawMessage
	if json.Unmarshal(t.Parameters, &top) != nil || top["type"] == nil {
		return paramTypes{}
	}
	typ := paramTypes{said: true, text: string(top["type"])}
	var list []string
	var one string
	if json.Unmarshal(top["type"], &one) == nil {
		list = []string{one}
	} else if json.Unmarshal(top["type"], &list) != nil {
		return typ
	}
	typ.known = true
	for _, name := range list {
		typ.known = typ.known && slices.Contains(jsonTypes, name)
		typ.object = typ.object || name == "object"
	}
	typ.only = typ.object && len(list) == 1
	return typ
}

// asObject returns the parameters p, a JSON object, with "type": "object"
// as their last member: where p has a type of its own (a list that holds
// "object"), the last one counts, as the JSON Schema front-end reads a
// repeated key. The schema stays the document's root, so its references
// ("#/$defs/...") and error pointers hold; a reference to the root itself
// ("#") now takes objects only.
func asObject(p json.RawMessage) json.RawMessage {
	b := bytes.TrimSpace(p)
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:len(b)-1]...) // b is an object (Tool.check): without its "}"
	if len(bytes.TrimSpace(b[1:len(b)-1])) > 0 {
		out = append(out, ',')
	}
	return append(out, `"type":"object"}`...)
}

// jsonTypes are the names of JSON Schema's types.
var jsonTypes = []string{"null", "boolean", "object", "array", "number", "integer", "string"}

// xmlSchema is the arguments schema of t in the XML argument styles, where
// each argument is an element that names its key and only declared keys
// can be written: the parameters whatever Strict says, or an object
// without properties when there are none.
func (t Tool) xmlSchema() json.RawMessage {
	if t.Parameters == nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return t.Parameters
}
