package toolcall

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/pda"
)

// oracle decides whether a string matches a structural tag by reading the
// tag's JSON directly, after the semantics of docs/design/tool-calling.md
// (sections 2 and 3): each format yields the set of places where a match
// that starts at a given place may end. It checks the JSON that
// StructuralTag writes without package structtag; the XML argument styles
// are read for the flat objects of the tests (string values raw, other
// values JSON).
type oracle struct {
	tb       testing.TB
	programs map[string]*pda.Program
}

func newOracle(tb testing.TB) *oracle {
	return &oracle{tb: tb, programs: map[string]*pda.Program{}}
}

// matches reports whether s is a whole match of the structural tag data.
func (o *oracle) matches(data []byte, s string) bool {
	var top map[string]any
	if err := json.Unmarshal(data, &top); err != nil {
		o.tb.Fatalf("structural tag is not JSON: %v", err)
	}
	format, _ := top["format"].(map[string]any)
	for _, e := range o.ends(format, s, 0, nil) {
		if e == len(s) {
			return true
		}
	}
	return false
}

func strs(v any) []string {
	var out []string
	if l, ok := v.([]any); ok {
		for _, x := range l {
			out = append(out, x.(string))
		}
	}
	return out
}

func nodes(v any) []map[string]any {
	var out []map[string]any
	for _, x := range v.([]any) {
		out = append(out, x.(map[string]any))
	}
	return out
}

// dedupe sorts ends and drops repeats.
func dedupe(ends []int) []int {
	sort.Ints(ends)
	out := ends[:0]
	for i, e := range ends {
		if i == 0 || e != ends[i-1] {
			out = append(out, e)
		}
	}
	return out
}

// endsWithAt reports whether one of ss ends at k and starts at or after from.
func endsWithAt(s string, from, k int, ss []string) (string, bool) {
	for _, x := range ss {
		if k-len(x) >= from && s[k-len(x):k] == x {
			return x, true
		}
	}
	return "", false
}

// ends returns the places where a match of n starting at i may end;
// tagEnds are the end strings of the nearest enclosing tag.
func (o *oracle) ends(n map[string]any, s string, i int, tagEnds []string) []int {
	switch n["type"] {
	case "const_string":
		v := n["value"].(string)
		if strings.HasPrefix(s[i:], v) {
			return []int{i + len(v)}
		}
		return nil
	case "regex":
		re := regexp.MustCompile(`^(?:` + n["pattern"].(string) + `)$`)
		var out []int
		for j := i; j <= len(s); j++ {
			if re.MatchString(s[i:j]) {
				out = append(out, j)
			}
		}
		return out
	case "any_text":
		excl := append(strs(n["excludes"]), tagEnds...)
		var out []int
		for k := i; k <= len(s); k++ {
			if _, bad := endsWithAt(s, i, k, excl); bad {
				break
			}
			out = append(out, k)
		}
		return out
	case "json_schema":
		return o.schemaEnds(n, s, i)
	case "sequence":
		at := []int{i}
		for _, e := range nodes(n["elements"]) {
			var next []int
			for _, p := range at {
				next = append(next, o.ends(e, s, p, tagEnds)...)
			}
			at = dedupe(next)
		}
		return at
	case "or":
		var out []int
		for _, e := range nodes(n["elements"]) {
			out = append(out, o.ends(e, s, i, tagEnds)...)
		}
		return dedupe(out)
	case "optional":
		return dedupe(append([]int{i}, o.ends(n["content"].(map[string]any), s, i, tagEnds)...))
	case "tag":
		begin, end := n["begin"].(string), n["end"].(string)
		if !strings.HasPrefix(s[i:], begin) {
			return nil
		}
		var inner []string
		if end != "" {
			inner = []string{end}
		}
		var out []int
		for _, p := range o.ends(n["content"].(map[string]any), s, i+len(begin), inner) {
			if strings.HasPrefix(s[p:], end) {
				out = append(out, p+len(end))
			}
		}
		return dedupe(out)
	case "triggered_tags":
		return dedupe(o.triggered(n, s, i, tagEnds))
	case "tags_with_separator":
		tags, sep := nodes(n["tags"]), n["separator"].(string)
		one := func(p int) []int {
			var out []int
			for _, t := range tags {
				out = append(out, o.ends(t, s, p, nil)...)
			}
			return dedupe(out)
		}
		var out []int
		if n["at_least_one"] != true {
			out = append(out, i)
		}
		at := one(i)
		out = append(out, at...)
		if n["stop_after_first"] == true {
			return dedupe(out)
		}
		for len(at) > 0 {
			var next []int
			for _, p := range at {
				if strings.HasPrefix(s[p:], sep) {
					next = append(next, one(p+len(sep))...)
				}
			}
			at = dedupe(next)
			out = append(out, at...)
		}
		return dedupe(out)
	}
	o.tb.Fatalf("oracle: format type %v not handled", n["type"])
	return nil
}

// triggered is triggered_tags: free text in which a complete trigger must
// be followed by the rest of one of its tags.
func (o *oracle) triggered(n map[string]any, s string, i int, tagEnds []string) []int {
	triggers, tags := strs(n["triggers"]), nodes(n["tags"])
	excl := append(strs(n["excludes"]), tagEnds...)
	stop := n["stop_after_first"] == true
	anyTag := func(p int) []int {
		var out []int
		for _, t := range tags {
			out = append(out, o.ends(t, s, p, nil)...)
		}
		return dedupe(out)
	}
	var out []int
	var free func(p int)
	free = func(p int) {
		for k := p; k <= len(s); k++ {
			if _, bad := endsWithAt(s, p, k, excl); bad {
				return
			}
			if t, ok := endsWithAt(s, p, k, triggers); ok {
				for _, e := range anyTag(k - len(t)) {
					if stop {
						out = append(out, e)
					} else {
						free(e)
					}
				}
				return
			}
			out = append(out, k)
		}
	}
	if n["at_least_one"] == true {
		for _, e := range anyTag(i) {
			if stop {
				out = append(out, e)
			} else {
				free(e)
			}
		}
		return out
	}
	free(i)
	return out
}

// program compiles a JSON Schema for byte-level runs.
func (o *oracle) program(schema []byte) *pda.Program {
	if p, ok := o.programs[string(schema)]; ok {
		return p
	}
	g, _, err := jsonschema.Compile(schema, jsonschema.Options{})
	if err != nil {
		o.tb.Fatalf("oracle: schema %s: %v", schema, err)
	}
	p, err := pda.Compile(g, grammar.DefaultLimits())
	if err != nil {
		o.tb.Fatalf("oracle: schema %s: %v", schema, err)
	}
	o.programs[string(schema)] = p
	return p
}

// jsonEnds is where a JSON document valid for schema, starting at i, may end.
func (o *oracle) jsonEnds(schema []byte, s string, i int) []int {
	st := pda.NewState(o.program(schema))
	var out []int
	for k := i; ; k++ {
		if st.CanEnd() {
			out = append(out, k)
		}
		if k == len(s) || !st.Advance(s[k]) {
			return out
		}
	}
}

// xmlStyles are the four strings of each XML argument style the tests use:
// key prefix, key suffix, value prefix, value closer.
var xmlStyles = map[string][4]string{
	"qwen_xml":    {"<parameter=", ">", "", "</parameter>"},
	"minimax_xml": {`<parameter name="`, `">`, "", "</parameter>"},
	"glm_xml":     {"<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>"},
}

func (o *oracle) schemaEnds(n map[string]any, s string, i int) []int {
	schema, err := json.Marshal(n["json_schema"])
	if err != nil {
		o.tb.Fatal(err)
	}
	style, _ := n["style"].(string)
	if style == "" {
		return o.jsonEnds(schema, s, i)
	}
	st, ok := xmlStyles[style]
	if !ok {
		o.tb.Fatalf("oracle: style %q not handled", style)
	}
	var sch struct {
		Properties map[string]json.RawMessage
		Required   []string
	}
	if err := json.Unmarshal(schema, &sch); err != nil {
		o.tb.Fatal(err)
	}
	ws := func(p int) int {
		for p < len(s) && strings.IndexByte(" \n\t", s[p]) >= 0 {
			p++
		}
		return p
	}
	// One parse: properties are read greedily; the text is the tests', so
	// one reading suffices. Every place of trailing whitespace may end.
	seen := map[string]bool{}
	p := i
	for {
		q := ws(p)
		if !strings.HasPrefix(s[q:], st[0]) {
			break
		}
		q += len(st[0])
		kEnd := strings.Index(s[q:], st[1])
		if kEnd < 0 {
			return nil
		}
		key := s[q : q+kEnd]
		prop, known := sch.Properties[key]
		if !known && sch.Properties != nil || seen[key] {
			return nil
		}
		seen[key] = true
		q = ws(q + kEnd + len(st[1]))
		if !strings.HasPrefix(s[q:], st[2]) {
			return nil
		}
		q += len(st[2])
		var ptype struct{ Type string }
		_ = json.Unmarshal(prop, &ptype)
		if ptype.Type == "string" {
			c := strings.Index(s[q:], st[3])
			if c < 0 {
				return nil
			}
			p = q + c + len(st[3])
			continue
		}
		if prop == nil {
			prop = json.RawMessage("true")
		}
		closed := -1
		for _, e := range o.jsonEnds(prop, s, ws(q)) {
			if e2 := ws(e); strings.HasPrefix(s[e2:], st[3]) {
				closed = e2 + len(st[3])
			}
		}
		if closed < 0 {
			return nil
		}
		p = closed
	}
	for _, r := range sch.Required {
		if !seen[r] {
			return nil
		}
	}
	var out []int
	for k := p; ; k++ {
		out = append(out, k)
		if k == len(s) || strings.IndexByte(" \n\t", s[k]) < 0 {
			return out
		}
	}
}
