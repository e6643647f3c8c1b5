package toolcall

import (
	"bytes"
	"encoding/json"
)

// node is one structural-tag format object. A map keeps the builders short;
// encoding/json writes its keys sorted, so the output is deterministic.
type node map[string]any

func constString(s string) node { return node{"type": "const_string", "value": s} }

// anyText is free text in which no exclude occurs.
func anyText(excludes []string) node {
	n := node{"type": "any_text"}
	if len(excludes) > 0 {
		n["excludes"] = excludes
	}
	return n
}

// arguments is the arguments of a call to t, in the given json_schema style
// ("" for JSON).
func arguments(t Tool, style string) node {
	if style == "" {
		return node{"type": "json_schema", "json_schema": t.schema()}
	}
	return node{"type": "json_schema", "json_schema": t.xmlSchema(), "style": style}
}

func regex(pattern string) node { return node{"type": "regex", "pattern": pattern} }

// sequence concatenates elems, flattening nested sequences; one element
// stands for itself.
func sequence(elems ...node) node {
	var flat []node
	for _, e := range elems {
		if e["type"] == "sequence" {
			flat = append(flat, e["elements"].([]node)...)
		} else {
			flat = append(flat, e)
		}
	}
	if len(flat) == 1 {
		return flat[0]
	}
	return node{"type": "sequence", "elements": flat}
}

// or is any one of elems; one element stands for itself.
func or(elems ...node) node {
	if len(elems) == 1 {
		return elems[0]
	}
	return node{"type": "or", "elements": elems}
}

func optional(content node) node { return node{"type": "optional", "content": content} }

// orStrings is any one of the strings.
func orStrings(ss ...string) node {
	elems := make([]node, len(ss))
	for i, s := range ss {
		elems[i] = constString(s)
	}
	return or(elems...)
}

func tag(begin string, content node, end string) node {
	return node{"type": "tag", "begin": begin, "content": content, "end": end}
}

// triggeredTags is free text (without excludes) in which each trigger
// opens one of tags.
func triggeredTags(triggers []string, tags []node, atLeastOne, stopAfterFirst bool, excludes []string) node {
	n := node{"type": "triggered_tags", "triggers": triggers, "tags": tags}
	if atLeastOne {
		n["at_least_one"] = true
	}
	if stopAfterFirst {
		n["stop_after_first"] = true
	}
	if len(excludes) > 0 {
		n["excludes"] = excludes
	}
	return n
}

// tagsWithSeparator is tags joined by sep, without free text.
func tagsWithSeparator(tags []node, sep string, atLeastOne, stopAfterFirst bool) node {
	n := node{"type": "tags_with_separator", "tags": tags, "separator": sep}
	if atLeastOne {
		n["at_least_one"] = true
	}
	if stopAfterFirst {
		n["stop_after_first"] = true
	}
	return n
}

// marshal writes the structural tag of format f, without HTML escaping, so
// that the markers read as they are written.
func marshal(f node) ([]byte, error) {
	return encodeJSON(node{"type": "structural_tag", "format": f})
}

// encodeJSON writes v as the structural tag holds it: without HTML escapes,
// so that a schema's bytes are the ones the request's tool had.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
