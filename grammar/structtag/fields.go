package structtag

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// fields lists, per format type, the fields XGrammar's newest parser knows
// besides "type". A field not listed is an error (XGrammar ignores it).
var fields = map[string][]string{
	"const_string":         {"value"},
	"json_schema":          {"json_schema", "style", "any_order", "max_whitespace_cnt", "excludes"},
	"qwen_xml_parameter":   {"json_schema", "any_order", "max_whitespace_cnt", "excludes"},
	"grammar":              {"grammar"},
	"regex":                {"pattern"},
	"any_text":             {"excludes", "max_tokens", "max_chars"},
	"sequence":             {"elements"},
	"or":                   {"elements"},
	"optional":             {"content"},
	"plus":                 {"content"},
	"star":                 {"content"},
	"repeat":               {"min", "max", "content"},
	"tag":                  {"begin", "content", "end"},
	"triggered_tags":       {"triggers", "tags", "at_least_one", "stop_after_first", "excludes"},
	"tags_with_separator":  {"tags", "separator", "at_least_one", "stop_after_first"},
	"dispatch":             {"rules", "loop", "excludes"},
	"token":                {"token"},
	"exclude_token":        {"exclude_tokens"},
	"any_tokens":           {"exclude_tokens", "max_tokens"},
	"token_triggered_tags": {"trigger_tokens", "tags", "exclude_tokens", "at_least_one", "stop_after_first"},
	"token_dispatch":       {"rules", "loop", "exclude_tokens"},
}

// required lists, per format type, the fields it must have.
var required = map[string][]string{
	"const_string":         {"value"},
	"json_schema":          {"json_schema"},
	"qwen_xml_parameter":   {"json_schema"},
	"grammar":              {"grammar"},
	"regex":                {"pattern"},
	"sequence":             {"elements"},
	"or":                   {"elements"},
	"optional":             {"content"},
	"plus":                 {"content"},
	"star":                 {"content"},
	"repeat":               {"min", "max", "content"},
	"tag":                  {"begin", "content", "end"},
	"triggered_tags":       {"triggers", "tags"},
	"tags_with_separator":  {"tags", "separator"},
	"dispatch":             {"rules"},
	"token":                {"token"},
	"token_triggered_tags": {"trigger_tokens", "tags"},
	"token_dispatch":       {"rules"},
}

// inferOrder is the order in which XGrammar tries the format types for an
// object without "type".
var inferOrder = []string{
	"tag", "const_string", "json_schema", "any_text", "sequence", "or", "triggered_tags",
	"tags_with_separator", "optional", "plus", "star", "repeat", "dispatch", "token_dispatch",
}

// typeOf returns the format type of the object v: its "type", or the type
// inferred from its fields.
func typeOf(v *value, ptr string) (string, error) {
	if t := v.get("type"); t != nil {
		if t.kind != kindString {
			return "", errorf(pointerTo(ptr, "type"), "the format type must be a string, not %s", t.kind)
		}
		if _, ok := fields[t.text]; !ok {
			return "", errorf(pointerTo(ptr, "type"), "format type not recognized: %q", t.text)
		}
		return t.text, nil
	}
	for _, typ := range inferOrder {
		if fits(v, typ) {
			return typ, nil
		}
	}
	return "", errorf(ptr, "cannot infer the format type of an object with fields %s; give it a \"type\"", strings.Join(v.keys, ", "))
}

// fits reports whether the untyped object v can be a format of type typ:
// it has the type's required fields and no field the type does not know.
// any_text needs "excludes", as in XGrammar, and dispatch string patterns.
func fits(v *value, typ string) bool {
	for _, k := range required[typ] {
		if v.get(k) == nil {
			return false
		}
	}
	for _, k := range v.keys {
		if !slices.Contains(fields[typ], k) {
			return false
		}
	}
	switch typ {
	case "any_text":
		return v.get("excludes") != nil
	case "dispatch":
		if rules := v.get("rules"); rules.kind == kindArray {
			for _, r := range rules.elems {
				if r.kind == kindArray && len(r.elems) > 0 && r.elems[0].kind != kindString {
					return false
				}
			}
		}
	}
	return true
}

// checkKeys rejects a field of the object v at ptr that is not in known,
// and a field given twice.
func checkKeys(v *value, ptr string, known []string) error {
	for i, k := range v.keys {
		if !slices.Contains(known, k) {
			return errorf(pointerTo(ptr, k), "unknown field %q (known: %s)", k, strings.Join(known, ", "))
		}
		if slices.Contains(v.keys[:i], k) {
			return errorf(pointerTo(ptr, k), "field %q given twice", k)
		}
	}
	return nil
}

// checkFields checks the fields of a format object of type typ.
func checkFields(v *value, ptr, typ string) error {
	if err := checkKeys(v, ptr, append([]string{"type"}, fields[typ]...)); err != nil {
		return err
	}
	for _, k := range required[typ] {
		if v.get(k) == nil {
			return errorf(ptr, "a %s format needs the field %q", typ, k)
		}
	}
	return nil
}

// describe names a value for an error: its kind, and a short scalar.
func describe(v *value) string {
	switch v.kind {
	case kindString:
		if len(v.text) <= 40 {
			return strconv.Quote(v.text)
		}
	case kindNumber:
		if len(v.text) <= 40 {
			return v.text
		}
	}
	return v.kind.String()
}

// stringField returns the string field key of v; ok is false when it is
// absent or null.
func stringField(v *value, ptr, key string) (s string, ok bool, err error) {
	f := v.get(key)
	if f == nil || f.kind == kindNull {
		return "", false, nil
	}
	if f.kind != kindString {
		return "", false, errorf(pointerTo(ptr, key), "%q must be a string, not %s", key, describe(f))
	}
	return f.text, true, nil
}

// boolField returns the boolean field key of v, def when it is absent.
func boolField(v *value, ptr, key string, def bool) (bool, error) {
	f := v.get(key)
	if f == nil {
		return def, nil
	}
	if f.kind != kindBool {
		return false, errorf(pointerTo(ptr, key), "%q must be true or false, not %s", key, describe(f))
	}
	return f.b, nil
}

// intValue reads the number v at ptr as an integer; one outside int64 is
// clamped to its bounds, so messages quote v.text, the literal.
func intValue(v *value, ptr, what string) (int64, error) {
	if v.kind != kindNumber {
		return 0, errorf(ptr, "%s must be an integer, not %s", what, describe(v))
	}
	if strings.ContainsAny(v.text, ".eE") {
		return 0, errorf(ptr, "%s must be an integer, not %s", what, describe(v))
	}
	n, err := strconv.ParseInt(v.text, 10, 64)
	if err != nil { // out of range: the literal is a valid JSON integer
		if strings.HasPrefix(v.text, "-") {
			return math.MinInt64, nil
		}
		return math.MaxInt64, nil
	}
	return n, nil
}

// countField reads the optional field key of v: an integer from 0 to
// limit, or null; ok is false when it is absent or null. name says what
// limit is: a field of grammar.Limits ("Limits.Repeat"), whose crossing
// wraps grammar.ErrLimit, or a bound of the format ("2^31-1").
func countField(v *value, ptr, key string, limit int, name string) (n int, ok bool, err error) {
	f := v.get(key)
	if f == nil || f.kind == kindNull {
		return 0, false, nil
	}
	p := pointerTo(ptr, key)
	x, err := intValue(f, p, strconv.Quote(key))
	if err != nil {
		return 0, false, err
	}
	if x < 0 {
		return 0, false, errorf(p, "%q must not be negative, not %s", key, f.text)
	}
	if x > int64(limit) {
		if strings.HasPrefix(name, "Limits.") {
			return 0, false, limitErr(p, "%q is %s, more than %s (%d)", key, f.text, name, limit)
		}
		return 0, false, errorf(p, "%q is %s, more than %s", key, f.text, name)
	}
	return int(x), true, nil
}

// stringList reads the field key of v as a list of strings. With nonEmpty
// the list must have an element; every string must be non-empty.
func stringList(v *value, ptr, key string, nonEmpty bool) ([]string, error) {
	f := v.get(key)
	if f == nil || f.kind == kindNull && !nonEmpty {
		return nil, nil
	}
	p := pointerTo(ptr, key)
	if f.kind != kindArray {
		return nil, errorf(p, "%q must be an array of strings, not %s", key, describe(f))
	}
	if nonEmpty && len(f.elems) == 0 {
		return nil, errorf(p, "%q must have at least one element", key)
	}
	out := make([]string, len(f.elems))
	for i, e := range f.elems {
		if e.kind != kindString {
			return nil, errorf(pointerAt(p, i), "an element of %q must be a string, not %s", key, describe(e))
		}
		if e.text == "" {
			return nil, errorf(pointerAt(p, i), "an element of %q must not be the empty string", key)
		}
		out[i] = e.text
	}
	return out, nil
}

// arrayField returns the elements of the array field key of v, which must
// have at least one.
func arrayField(v *value, ptr, key string) ([]*value, error) {
	f := v.get(key)
	p := pointerTo(ptr, key)
	if f.kind != kindArray {
		return nil, errorf(p, "%q must be an array, not %s", key, describe(f))
	}
	if len(f.elems) == 0 {
		return nil, errorf(p, "%q must have at least one element", key)
	}
	return f.elems, nil
}
