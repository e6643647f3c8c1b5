package jsonschema

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"maps"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/reinlm/rein/grammar"
)

// This file holds the schema document model: a JSON tree that keeps object
// keys in document order (read with gjson), each node with its JSON pointer,
// the base URI and draft in effect there, and a structural hash that ignores
// annotations; and the resolution of $ref through $id, $anchor, JSON pointers
// and remote documents.

type kind uint8

const (
	kindNull kind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// node is one JSON value of a schema document.
type node struct {
	kind  kind
	b     bool     // kindBool
	str   string   // kindString: the decoded string; kindNumber: the raw text
	elems []*node  // kindArray
	keys  []string // kindObject, in document order
	vals  []*node
	index map[string]int // kindObject with many keys: key -> position

	ptr   string // JSON pointer within its document
	base  string // absolute base URI in effect (after this node's own $id)
	draft int    // 4, 6, 7, 2019 or 2020
	key   string // structural identity: hash of the value without annotations, plus base
	id    int    // creation order, unique within a compilation
	rat   *big.Rat
	lone  bool // kindString: str holds lone surrogates, in WTF-8 (see decodeLone)
	neg   conj // a synthetic schema: the negation of this conjunction
	negAt loc  // for neg: the keyword (val) and pointer that asked for it
}

func (n *node) get(k string) *node {
	if n == nil || n.kind != kindObject {
		return nil
	}
	if n.index != nil {
		if i, ok := n.index[k]; ok {
			return n.vals[i]
		}
		return nil
	}
	for i := len(n.keys) - 1; i >= 0; i-- { // an instance may repeat a key: the last
		if n.keys[i] == k {
			return n.vals[i]
		}
	}
	return nil
}

// indexKeys indexes the keys of a large object node, each at its last place.
func (n *node) indexKeys() {
	if len(n.keys) > 8 {
		n.index = make(map[string]int, len(n.keys))
		for i, k := range n.keys {
			n.index[k] = i
		}
	}
}

// dedupe leaves an object node one member per key: of a key written more
// than once, the last value, in the first one's place, as JSON.parse,
// Python's json and Go's encoding/json read it. Every keyword, property
// and pattern then has one schema (a client cannot send two $ref, or two
// schemas for one pattern, and have them both applied where its own
// validator applies one), and every JSON pointer one value. It indexes
// the keys of a large object, and calls repeated with every key met again.
func (n *node) dedupe(repeated func(key string)) {
	var at map[string]int // key -> its place, for a large object
	if len(n.keys) > 8 {
		at = make(map[string]int, len(n.keys))
	}
	kept := 0
	for i, k := range n.keys {
		j := -1
		if at != nil {
			if p, ok := at[k]; ok {
				j = p
			} else {
				at[k] = kept
			}
		} else {
			j = slices.Index(n.keys[:kept], k)
		}
		if j >= 0 {
			n.vals[j] = n.vals[i]
			repeated(k)
			continue
		}
		n.keys[kept], n.vals[kept] = k, n.vals[i]
		kept++
	}
	clear(n.vals[kept:]) // the values left behind, for the collector
	n.keys, n.vals, n.index = n.keys[:kept], n.vals[:kept], at
}

// num returns the value of a number node.
func (n *node) num() *big.Rat {
	if n.rat == nil {
		r, ok := new(big.Rat).SetString(n.str)
		if !ok {
			r = new(big.Rat)
		}
		n.rat = r
	}
	return n.rat
}

// isInt reports whether a number node has an integral value.
func (n *node) isInt() bool { return n.kind == kindNumber && n.num().IsInt() }

// drafts maps $schema URIs (without fragment or trailing slash) to drafts.
var drafts = map[string]int{
	"http://json-schema.org/draft-03/schema":       4,
	"http://json-schema.org/draft-04/schema":       4,
	"http://json-schema.org/draft-06/schema":       6,
	"http://json-schema.org/draft-07/schema":       7,
	"https://json-schema.org/draft/2019-09/schema": 2019,
	"https://json-schema.org/draft/2020-12/schema": 2020,
}

func draftOf(uri string) (int, bool) {
	u := strings.TrimRight(strings.SplitN(uri, "#", 2)[0], "/")
	u = strings.Replace(u, "https://json-schema.org/draft-0", "http://json-schema.org/draft-0", 1)
	d, ok := drafts[u]
	return d, ok
}

// doc is a parsed schema document and what it registers.
type doc struct {
	root *node
	uri  string
}

// schemaIndex holds every document of a compilation and its resources.
type schemaIndex struct {
	c         *compiler
	docs      map[string]*doc  // document URI -> document
	resources map[string]*node // absolute URI without fragment -> resource root
	anchors   map[string]*node // absolute URI + "#" + anchor -> node
	nodes     int
	lone      bool // some string of the documents holds a lone surrogate
	// dynamic counts the $dynamicAnchor of each name, recursive the
	// "$recursiveAnchor": true, over every document read: where there is
	// one, a $dynamicRef ($recursiveRef) can only land on it.
	dynamic   map[string]int
	recursive int
	rootBase  string // base URI of the root schema resource
	// uniqueBy records the references resolved because their anchor was
	// the only one read so far (the anchor's name, "" for
	// $recursiveAnchor), with the pointer of the first: a document loaded
	// later may bring a second, and checkUnique then refuses the schema.
	uniqueBy map[string]string
}

// checkUnique reports the references resolved by a unique anchor that a
// document read afterwards made ambiguous.
func (ix *schemaIndex) checkUnique() error {
	for _, name := range slices.Sorted(maps.Keys(ix.uniqueBy)) {
		ptr := ix.uniqueBy[name]
		n, kw := ix.recursive, "$recursiveRef"
		if name != "" {
			n, kw = ix.dynamic[name], "$dynamicRef"
		}
		if n > 1 {
			if err := ix.c.unsupported(ptr, kw, "resolved by the only dynamic anchor read at the time, but a document loaded later has another: the target depends on the dynamic scope, which cannot be followed"); err != nil {
				return err
			}
		}
	}
	return nil
}

func (ix *schemaIndex) unique(name, ptr string) {
	if ix.uniqueBy == nil {
		ix.uniqueBy = map[string]string{}
	}
	if _, ok := ix.uniqueBy[name]; !ok {
		ix.uniqueBy[name] = ptr
	}
}

// defaultBase is the base URI of a root schema without $id.
const defaultBase = "urn:rein:schema"

// annotations are keywords that never constrain an instance.
var annotations = map[string]bool{
	"title": true, "description": true, "default": true, "examples": true, "example": true,
	"$comment": true, "readOnly": true, "writeOnly": true, "deprecated": true,
	"$schema": true, "contentMediaType": true, "contentEncoding": true, "contentSchema": true,
	"markdownDescription": true, "enumDescriptions": true, "markdownEnumDescriptions": true,
}

// schemaMaps are keywords whose value is an object of schemas; schemaLists
// arrays of schemas; schemaOne a single schema.
var (
	schemaMaps  = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true, "dependencies": true}
	schemaLists = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true, "items": true}
	schemaOne   = map[string]bool{"additionalProperties": true, "additionalItems": true, "items": true, "contains": true, "not": true, "if": true, "then": true, "else": true, "propertyNames": true, "unevaluatedProperties": true, "unevaluatedItems": true, "contentSchema": true}
)

// parse reads data as a document with URI uri and registers its resources.
func (ix *schemaIndex) parse(data []byte, uri string, ptr string) (*doc, error) {
	if err := ix.scan(data, ptr); err != nil {
		return nil, err
	}
	if !gjson.ValidBytes(data) {
		return nil, ix.c.errorf(ptr, "", nil, "schema is not valid JSON")
	}
	doc := &doc{uri: uri}
	var err error
	doc.root, err = ix.build(gjson.ParseBytes(data), "", 0, true)
	if err != nil {
		return nil, err
	}
	ix.docs[uri] = doc
	draft := ix.c.opts.DefaultDraft
	if s := doc.root.get("$schema"); s != nil && s.kind == kindString {
		if d, ok := draftOf(s.str); ok {
			draft = d
		}
	}
	if ix.lone {
		if err := ix.checkLone(doc.root); err != nil {
			return nil, err
		}
	}
	ix.register(doc.root, uri, draft, true)
	ix.hash(doc.root, true)
	return doc, nil
}

// build converts a gjson value into a node tree. In a schema document
// (schema), an object that repeats a key keeps its last value (dedupe); an
// instance keeps every member, and Validate judges each, as the grammar
// does (the README's Limits: documents that repeat an object key).
func (ix *schemaIndex) build(r gjson.Result, ptr string, depth int, schema bool) (*node, error) {
	if depth > ix.c.opts.Limits.SchemaDepth {
		return nil, ix.c.limitf(ptr, "", "schema document is nested deeper than Limits.SchemaDepth (%d)", ix.c.opts.Limits.SchemaDepth)
	}
	ix.nodes++
	if ix.nodes > ix.c.opts.Limits.SchemaNodes {
		return nil, ix.c.limitf(ptr, "", "schema has more JSON values than Limits.SchemaNodes (%d)", ix.c.opts.Limits.SchemaNodes)
	}
	n := &node{ptr: ptr, id: ix.nodes}
	var err error
	switch r.Type {
	case gjson.Null:
		n.kind = kindNull
	case gjson.False:
		n.kind = kindBool
	case gjson.True:
		n.kind, n.b = kindBool, true
	case gjson.Number:
		n.kind, n.str = kindNumber, r.Raw
		if !saneExponent(r.Raw) {
			return nil, ix.c.limitf(ptr, "", "the number %.40s has an exponent beyond ±%d", r.Raw, maxExponent)
		}
	case gjson.String:
		n.kind, n.str = kindString, r.Str
		if ix.lone {
			if _, ok := loneSurrogate([]byte(r.Raw)); ok {
				n.str, n.lone = decodeLone(r.Raw), true
			}
		}
	case gjson.JSON:
		if r.IsArray() {
			n.kind = kindArray
			i := 0
			r.ForEach(func(_, v gjson.Result) bool {
				var e *node
				e, err = ix.build(v, ptr+"/"+strconv.Itoa(i), depth+1, schema)
				n.elems = append(n.elems, e)
				i++
				return err == nil
			})
		} else {
			n.kind = kindObject
			r.ForEach(func(k, v gjson.Result) bool {
				var e *node
				e, err = ix.build(v, ptr+"/"+escapePointer(k.Str), depth+1, schema)
				n.keys = append(n.keys, k.Str)
				n.vals = append(n.vals, e)
				return err == nil
			})
			if !schema {
				n.indexKeys()
			} else {
				n.dedupe(func(k string) {
					ix.c.addWarning(ptr, k, true, "duplicate key: the last of its values counts")
				})
			}
		}
	}
	return n, err
}

// maxExponent bounds the decimal exponent of numbers in schemas, so that
// exact arithmetic on them stays cheap.
const maxExponent = 1000

func saneExponent(raw string) bool {
	i := strings.IndexAny(raw, "eE")
	if i < 0 {
		return len(raw) <= maxExponent
	}
	e, err := strconv.Atoi(strings.TrimPrefix(raw[i+1:], "+"))
	return err == nil && e >= -maxExponent && e <= maxExponent && i <= maxExponent
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// register walks a document, setting each node's base URI and draft and
// recording resources ($id) and anchors ($anchor, $dynamicAnchor, and
// fragment-only ids of older drafts). schema says whether n is in a schema
// position; nodes elsewhere inherit their parent's base.
func (ix *schemaIndex) register(n *node, base string, draft int, schema bool) {
	n.base, n.draft = base, draft
	if n.kind == kindArray {
		for _, e := range n.elems {
			ix.register(e, base, draft, false)
		}
		return
	}
	if n.kind != kindObject {
		return
	}
	if schema {
		if s := n.get("$schema"); s != nil && s.kind == kindString {
			if d, ok := draftOf(s.str); ok {
				draft = d
			}
		}
		idKey := "$id"
		if draft == 4 {
			idKey = "id"
		}
		// Before draft 2019-09, $ref made its siblings (including $id) ignored.
		refOnly := draft <= 7 && n.get("$ref") != nil
		if id := n.get(idKey); id != nil && id.kind == kindString && !refOnly {
			if u, err := resolveURI(base, id.str); err == nil {
				noFrag, frag := splitFragment(u)
				if noFrag != "" && !strings.HasPrefix(id.str, "#") {
					base = noFrag
					if _, dup := ix.resources[base]; !dup {
						ix.resources[base] = n
					}
				}
				if frag != "" && !strings.HasPrefix(frag, "/") {
					ix.anchors[noFrag+"#"+frag] = n
				}
			}
		}
		if a := n.get("$dynamicAnchor"); a != nil && a.kind == kindString {
			if ix.dynamic == nil {
				ix.dynamic = map[string]int{}
			}
			ix.dynamic[a.str]++
		}
		if a := n.get("$recursiveAnchor"); a != nil && a.kind == kindBool && a.b {
			ix.recursive++
		}
		for _, k := range []string{"$anchor", "$dynamicAnchor"} {
			if a := n.get(k); a != nil && a.kind == kindString {
				if _, dup := ix.anchors[base+"#"+a.str]; !dup || k == "$anchor" {
					ix.anchors[base+"#"+a.str] = n
				}
			}
		}
		n.base, n.draft = base, draft
	}
	for i, k := range n.keys {
		v := n.vals[i]
		sub := false
		switch {
		case !schema:
		case schemaMaps[k]:
			if v.kind == kindObject {
				v.base, v.draft = base, draft
				for _, e := range v.vals {
					ix.register(e, base, draft, true)
				}
				continue
			}
		case schemaLists[k] && v.kind == kindArray:
			v.base, v.draft = base, draft
			for _, e := range v.elems {
				ix.register(e, base, draft, true)
			}
			continue
		case schemaOne[k]:
			sub = true
		}
		ix.register(v, base, draft, sub)
	}
}

// hash computes every node's structural key bottom-up. In schema positions
// annotation keywords are left out, so that schemas differing only in their
// descriptions share one rule.
func (ix *schemaIndex) hash(n *node, schema bool) []byte {
	h := fnv.New128a()
	var buf [8]byte
	put := func(b []byte) {
		binary.LittleEndian.PutUint64(buf[:], uint64(len(b)))
		h.Write(buf[:])
		h.Write(b)
	}
	h.Write([]byte{byte(n.kind)})
	switch n.kind {
	case kindBool:
		if n.b {
			h.Write([]byte{1})
		}
	case kindNumber:
		put([]byte(n.num().RatString()))
	case kindString:
		put([]byte(n.str))
	case kindArray:
		for _, e := range n.elems {
			put(ix.hash(e, false))
		}
	case kindObject:
		for i, k := range n.keys {
			v := n.vals[i]
			if schema && (annotations[k] || strings.HasPrefix(k, "x-")) {
				continue
			}
			put([]byte(k))
			switch {
			case schema && schemaMaps[k] && v.kind == kindObject:
				for j, kk := range v.keys {
					put([]byte(kk))
					put(ix.hash(v.vals[j], true))
				}
				v.key = n.base + "#" + v.ptr // maps are not schemas; never compiled alone
			case schema && schemaLists[k] && v.kind == kindArray:
				for _, e := range v.elems {
					put(ix.hash(e, true))
				}
				v.key = n.base + "#" + v.ptr
			default:
				put(ix.hash(v, schema && schemaOne[k]))
			}
		}
	}
	sum := h.Sum(nil)
	n.key = string(sum) + strconv.Itoa(n.draft) + n.base
	return sum
}

func resolveURI(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	if b.Opaque != "" && !r.IsAbs() {
		// Opaque bases (urn:...) only resolve fragment-only references.
		if r.Path == "" && r.Host == "" {
			return strings.SplitN(base, "#", 2)[0] + "#" + r.Fragment, nil
		}
		return "", fmt.Errorf("cannot resolve %q against %q", ref, base)
	}
	return b.ResolveReference(r).String(), nil
}

func splitFragment(u string) (string, string) {
	i := strings.IndexByte(u, '#')
	if i < 0 {
		return u, ""
	}
	frag := u[i+1:]
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	return u[:i], frag
}

// staticRef returns where the reference ref of keyword kw, statically
// resolved to target, lands whatever the dynamic scope, and false when that
// depends on the scope. A $ref lands on target. A $dynamicRef whose target
// carries no $dynamicAnchor of the fragment's name acts as $ref; otherwise
// it lands on the outermost $dynamicAnchor of that name in the dynamic
// scope: the root resource's, when it has one (the root is the outermost
// scope of every evaluation), else target when it is the only one. A
// $recursiveRef lands on target when target has no "$recursiveAnchor": true
// or is the only one. "The only one" counts the documents read so far;
// checkUnique looks again once every document is read.
func (ix *schemaIndex) staticRef(ptr, ref, kw string, target *node) (*node, bool) {
	switch kw {
	case "$dynamicRef":
		_, frag := splitFragment(ref)
		a := target.get("$dynamicAnchor")
		if frag == "" || strings.HasPrefix(frag, "/") || a == nil || a.kind != kindString || a.str != frag {
			return target, true
		}
		if n, ok := ix.anchors[ix.rootBase+"#"+frag]; ok {
			if d := n.get("$dynamicAnchor"); d != nil && d.kind == kindString && d.str == frag {
				return n, true
			}
		}
		ix.unique(frag, ptr)
		return target, ix.dynamic[frag] <= 1
	case "$recursiveRef":
		a := target.get("$recursiveAnchor")
		if a == nil || a.kind != kindBool || !a.b {
			return target, true
		}
		ix.unique("", ptr)
		return target, ix.recursive <= 1
	}
	return target, true
}

// resolve returns the schema node a $ref (or $dynamicRef) at node from points to.
func (ix *schemaIndex) resolve(from *node, ref string, kw string) (*node, error) {
	u, err := resolveURI(from.base, ref)
	if err != nil {
		return nil, ix.c.errorf(from.ptr, kw, nil, "invalid reference %q: %v", ref, err)
	}
	uri, frag := splitFragment(u)
	root, ok := ix.resources[uri]
	if !ok {
		root, err = ix.load(from, uri, kw)
		if err != nil {
			return nil, err
		}
	}
	if frag == "" {
		return root, nil
	}
	if !strings.HasPrefix(frag, "/") {
		if n, ok := ix.anchors[uri+"#"+frag]; ok {
			return n, nil
		}
		return nil, ix.c.errorf(from.ptr, kw, nil, "reference %q: no anchor %q", ref, frag)
	}
	n := root
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n.kind {
		case kindObject:
			n = n.get(tok)
		case kindArray:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.elems) {
				n = nil
			} else {
				n = n.elems[i]
			}
		default:
			n = nil
		}
		if n == nil {
			return nil, ix.c.errorf(from.ptr, kw, nil, "reference %q: no such place", ref)
		}
	}
	return n, nil
}

// load fetches and registers a remote document through Options.LoadRef.
func (ix *schemaIndex) load(from *node, uri, kw string) (*node, error) {
	if ix.c.opts.LoadRef == nil {
		return nil, ix.c.errorf(from.ptr, kw, grammar.ErrUnsupported, "reference to %q, which is not part of the schema (set Options.LoadRef to load it)", uri)
	}
	if len(ix.docs) > ix.c.opts.Limits.SchemaDocuments {
		return nil, ix.c.limitf(from.ptr, kw, "more remote documents than Limits.SchemaDocuments (%d)", ix.c.opts.Limits.SchemaDocuments)
	}
	data, err := ix.c.opts.LoadRef(ix.c.ctx, uri)
	if err != nil {
		return nil, ix.c.errorf(from.ptr, kw, err, "loading %q: %v", uri, err)
	}
	doc, err := ix.parse(data, uri, from.ptr)
	if err != nil {
		return nil, err
	}
	if r, ok := ix.resources[uri]; ok {
		return r, nil
	}
	ix.resources[uri] = doc.root
	return doc.root, nil
}

// compact writes v as compact JSON, keys in document order.
func compact(b *strings.Builder, v *node) {
	switch v.kind {
	case kindNull:
		b.WriteString("null")
	case kindBool:
		b.WriteString(strconv.FormatBool(v.b))
	case kindNumber:
		b.WriteString(v.str)
	case kindString:
		b.WriteString(quote(v.str))
	case kindArray:
		b.WriteByte('[')
		for i, e := range v.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			compact(b, e)
		}
		b.WriteByte(']')
	case kindObject:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(quote(k))
			b.WriteByte(':')
			compact(b, v.vals[i])
		}
		b.WriteByte('}')
	}
}

// quote spells s as a JSON string in the canonical form the grammars use:
// characters literally, except '"' and '\\', the two-character escapes
// \b \f \n \r \t, and \u00XX (lower-case hex) for other control characters.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); {
		if v, ok := surrogateAt(s[i:]); ok {
			fmt.Fprintf(&b, `\u%04x`, v)
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b.WriteString(canonicalSpelling(r))
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

func canonicalSpelling(r rune) string {
	switch r {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	if r < 0x20 {
		return fmt.Sprintf(`\u%04x`, r)
	}
	return string(r)
}

// equal reports whether two JSON values are equal as JSON Schema defines it
// (numbers by value, objects regardless of key order).
func equal(a, b *node) bool {
	if a.kind != b.kind {
		return false
	}
	switch a.kind {
	case kindNull:
		return true
	case kindBool:
		return a.b == b.b
	case kindNumber:
		return a.num().Cmp(b.num()) == 0
	case kindString:
		return a.str == b.str
	case kindArray:
		if len(a.elems) != len(b.elems) {
			return false
		}
		for i := range a.elems {
			if !equal(a.elems[i], b.elems[i]) {
				return false
			}
		}
		return true
	}
	if len(a.keys) != len(b.keys) {
		return false
	}
	for i, k := range a.keys {
		w := b.get(k)
		if w == nil || !equal(a.vals[i], w) {
			return false
		}
	}
	return true
}
