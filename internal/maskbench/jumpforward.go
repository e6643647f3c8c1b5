package maskbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tidwall/gjson"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/latency"
	"github.com/reinlm/rein/jumpforward"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// JumpSchema is the jump-forward outcome for one schema file: its valid
// instances decoded by a model that wants exactly that document.
type JumpSchema struct {
	File, Dataset string
	CompileErr    string // "" when the schema compiled
	Failure       string // the first instance jump-forward decoding failed on
	Docs          int    // valid instances decoded to the end
	Refused       int    // valid instances the grammar refuses (left out)
	Tokens        int    // tokens of the final sequences
	Jumped        int    // of which delivered by jump-forward
	ModelSteps    int    // tokens the model sampled, those a jump rolled back included (stop tokens not counted)
	RolledBack    int    // tokens jumps removed from the sequence (0 in append-only mode)
	NonCanonical  int    // final tokens that are not tokens of the Encoder's own encoding
}

// JumpReport collects a jump-forward run.
type JumpReport struct {
	Schemas   []JumpSchema
	NextTimes []time.Duration // one per call of Forwarder.Next
	Wall      time.Duration
	Compact   bool // schemas compiled with compact whitespace
	// AppendOnly: the Forwarder never replaced a token (Options.AppendOnly).
	AppendOnly bool
	// Lexemes: the model wrote each JSON lexeme apart (Options.Lexemes).
	Lexemes bool
}

// RunJumpForward decodes every valid instance of the MaskBench files in
// o.Dir the way a model that wants exactly that document would, with
// jump-forward: at each step the Forwarder appends what the grammar forces
// (re-tokenized canonically), then the model takes the next token of the
// Encoder's encoding of the instance (serialized compactly, in document
// order). It counts the tokens jump-forward delivered and the tokens of the
// final sequence that differ from the Encoder's encoding of the same text.
func RunJumpForward(o Options) (*JumpReport, error) {
	files, enc, err := prepare(o)
	if err != nil {
		return nil, err
	}
	r := &JumpReport{Compact: o.Schema.Whitespace == jsonschema.WhitespaceCompact, AppendOnly: o.AppendOnly, Lexemes: o.Lexemes}
	start := time.Now()
	for i, f := range files {
		res := jumpFile(f, o, enc, r)
		r.Schemas = append(r.Schemas, res)
		if o.Log != nil && res.Failure != "" {
			fmt.Fprintf(o.Log, "FAIL %s: %s\n", filepath.Base(f), oneLine(res.Failure, 300))
		}
		if o.Log != nil && res.NonCanonical > 0 {
			fmt.Fprintf(o.Log, "NON-CANONICAL %s: %d tokens\n", filepath.Base(f), res.NonCanonical)
		}
		if o.Log != nil && (i+1)%500 == 0 {
			fmt.Fprintf(o.Log, "... %d/%d files, %v\n", i+1, len(files), time.Since(start).Round(time.Second))
		}
		if o.Progress != nil {
			o.Progress(i+1, len(files))
		}
	}
	r.Wall = time.Since(start)
	return r, nil
}

// Instances is a MaskBench file compiled for decoding runs.
type Instances struct {
	Grammar  *grammar.Grammar
	Compiled *mask.Compiled
	Valid    []string // the valid instances the grammar accepts, serialized compactly in document order
	Refused  int      // valid instances the grammar refuses
}

// LoadInstances compiles a MaskBench file's schema with opts for voc and
// returns its valid instances, each checked token by token (the Encoder's
// encoding) against a matcher.
func LoadInstances(file string, voc *tokenizer.Vocab, opts jsonschema.Options) (*Instances, error) {
	enc, err := voc.Encoder()
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	doc := gjson.ParseBytes(raw)
	g, _, err := jsonschema.Compile([]byte(doc.Get("schema").Raw), opts)
	if err != nil {
		return nil, err
	}
	c, err := mask.Compile(g, voc, mask.Options{})
	if err != nil {
		return nil, err
	}
	out := &Instances{Grammar: g, Compiled: c}
	m := c.NewMatcher()
	for _, tc := range doc.Get("tests").Array() {
		var buf bytes.Buffer
		if !tc.Get("valid").Bool() || json.Compact(&buf, []byte(tc.Get("data").Raw)) != nil {
			continue
		}
		if !accepts(m, enc.Encode(buf.String())) {
			out.Refused++
			continue
		}
		out.Valid = append(out.Valid, buf.String())
	}
	return out, nil
}

func jumpFile(file string, o Options, enc *tokenizer.Encoder, r *JumpReport) (res JumpSchema) {
	res = JumpSchema{File: file, Dataset: Dataset(file)}
	defer func() {
		// A panic is a bug in rein; it fails this schema, not the run.
		if p := recover(); p != nil {
			res.Failure = fmt.Sprintf("panic: %v", p)
		}
	}()
	in, err := LoadInstances(file, o.Vocab, o.Schema)
	var fw *jumpforward.Forwarder
	if err == nil {
		fw, err = jumpforward.New(in.Compiled, jumpforward.Options{AppendOnly: o.AppendOnly})
	}
	if err != nil {
		res.CompileErr = err.Error()
		return res
	}
	res.Refused = in.Refused
	m := in.Compiled.NewMatcher()
	for k, doc := range in.Valid {
		st, err := wantDocument(fw, m, enc, doc, o.Lexemes, &r.NextTimes)
		if err != nil {
			if res.Failure == "" {
				res.Failure = fmt.Sprintf("valid instance %d: %v", k, err)
			}
			continue
		}
		res.Docs++
		res.Tokens += st.Tokens
		res.Jumped += st.Jumped
		res.ModelSteps += st.ModelSteps
		res.RolledBack += st.RolledBack
		res.NonCanonical += st.NonCanonical
	}
	return res
}

// accepts reports whether m (reset first) takes every token of ids and may
// end after them.
func accepts(m *mask.Matcher, ids []int) bool {
	m.Reset()
	for _, id := range ids {
		if !m.AcceptToken(id) {
			return false
		}
	}
	return m.CanEnd()
}

// DocStats counts one decoded document.
type DocStats struct {
	Tokens       int // tokens of the final sequence
	Jumped       int // of which appended by jump-forward
	ModelSteps   int // tokens the model sampled, those a jump later rolled back included
	RolledBack   int // tokens jumps removed from the sequence
	NonCanonical int // tokens whose byte span is not that of a token of the Encoder's encoding
}

// WantDocument decodes doc with m (reset first) and fw, as a model that
// wants exactly doc: before every model step fw.Next may append forced
// tokens; the model then takes the Encoder's next token for the rest of doc
// (the canonical token at that position while the sequence is a prefix of
// the canonical encoding). Each Next call's time is appended to times when
// times is not nil. It fails when the text leaves doc, the matcher refuses a
// token, or the grammar cannot end after doc.
func WantDocument(fw *jumpforward.Forwarder, m *mask.Matcher, enc *tokenizer.Encoder, doc string, times *[]time.Duration) (DocStats, error) {
	return wantDocument(fw, m, enc, doc, false, times)
}

// wantDocument is WantDocument; with lexemes the model writes each JSON
// lexeme of doc in tokens of its own (see Options.Lexemes).
func wantDocument(fw *jumpforward.Forwarder, m *mask.Matcher, enc *tokenizer.Encoder, doc string, lexemes bool, times *[]time.Duration) (DocStats, error) {
	voc := enc.Vocab()
	canon := enc.Encode(doc)
	var ends []int // lexemes: the end of each lexeme, in order
	if lexemes {
		ends = lexemeEnds(doc)
	}
	m.Reset()
	var seq []int
	var jumped []bool
	text, modelSteps, rolledBack := 0, 0, 0
	for steps := 0; ; steps++ {
		if steps > 4*len(doc)+16 {
			return DocStats{}, fmt.Errorf("no progress after %d steps", steps)
		}
		t0 := time.Now()
		jf := fw.Next(m, seq)
		if times != nil {
			*times = append(*times, time.Since(t0))
		}
		if !jf.Empty() {
			for _, id := range seq[len(seq)-jf.Rollback:] {
				text -= len(voc.Bytes(id))
			}
			seq, jumped = seq[:len(seq)-jf.Rollback], jumped[:len(jumped)-jf.Rollback]
			rolledBack += jf.Rollback
			for _, id := range jf.Tokens {
				b := voc.Bytes(id)
				if !strings.HasPrefix(doc[text:], string(b)) {
					return DocStats{}, fmt.Errorf("jump-forward wrote %q where the document has %q", b, oneLine(doc[text:], 40))
				}
				text += len(b)
				seq, jumped = append(seq, id), append(jumped, true)
			}
		}
		if text == len(doc) {
			break
		}
		var id int
		switch {
		case lexemes:
			for len(ends) > 0 && ends[0] <= text {
				ends = ends[1:]
			}
			id = enc.Encode(doc[text:ends[0]])[0]
		case len(seq) < len(canon) && commonPrefixLen(seq, canon) == len(seq):
			id = canon[len(seq)]
		default:
			id = enc.Encode(doc[text:])[0]
		}
		if !m.AcceptToken(id) {
			return DocStats{}, fmt.Errorf("token %d %q refused after %q", id, voc.Bytes(id), oneLine(doc[:text], 80))
		}
		seq, jumped = append(seq, id), append(jumped, false)
		text += len(voc.Bytes(id))
		modelSteps++
	}
	if !m.CanEnd() {
		return DocStats{}, fmt.Errorf("the grammar cannot end after the document")
	}
	st := DocStats{Tokens: len(seq), ModelSteps: modelSteps, RolledBack: rolledBack}
	for _, j := range jumped {
		if j {
			st.Jumped++
		}
	}
	st.NonCanonical = nonCanonical(voc, seq, canon)
	return st, nil
}

// lexemeEnds returns the end offsets of the JSON lexemes of doc, in order:
// strings (quotes included), numbers and literals, single punctuation
// bytes, runs of whitespace. The last is len(doc).
func lexemeEnds(doc string) []int {
	var ends []int
	for i := 0; i < len(doc); {
		j := i + 1
		switch c := doc[i]; {
		case c == '"':
			for j < len(doc) && doc[j] != '"' {
				if doc[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(doc))
		case strings.IndexByte("{}[],:", c) >= 0:
		case strings.IndexByte(" \t\n\r", c) >= 0:
			for j < len(doc) && strings.IndexByte(" \t\n\r", doc[j]) >= 0 {
				j++
			}
		default:
			for j < len(doc) && strings.IndexByte("{}[],:\" \t\n\r", doc[j]) < 0 {
				j++
			}
		}
		ends = append(ends, j)
		i = j
	}
	return ends
}

func commonPrefixLen(a, b []int) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// nonCanonical counts the tokens of seq whose byte span is not the span of
// a token of canon (both spell the same text).
func nonCanonical(voc *tokenizer.Vocab, seq, canon []int) int {
	spans := make(map[[2]int]int, len(canon))
	at := 0
	for _, id := range canon {
		n := len(voc.Bytes(id))
		spans[[2]int{at, at + n}] = id
		at += n
	}
	bad := 0
	at = 0
	for _, id := range seq {
		n := len(voc.Bytes(id))
		if c, ok := spans[[2]int{at, at + n}]; !ok || c != id {
			bad++
		}
		at += n
	}
	return bad
}

type jumpRow struct {
	schemas, compiled, failed, docs, refused, tokens, jumped, steps, rolledBack, nonCanonical int
}

func (x *jumpRow) add(s JumpSchema) {
	x.schemas++
	x.docs += s.Docs
	x.refused += s.Refused
	x.tokens += s.Tokens
	x.jumped += s.Jumped
	x.steps += s.ModelSteps
	x.rolledBack += s.RolledBack
	x.nonCanonical += s.NonCanonical
	if s.CompileErr == "" {
		x.compiled++
	}
	if s.Failure != "" {
		x.failed++
	}
}

func pctOf(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

func (r *JumpReport) mode() string {
	var m []string
	if r.AppendOnly {
		m = append(m, "append-only")
	}
	if r.Lexemes {
		m = append(m, "model writes lexemes apart")
	}
	if len(m) == 0 {
		return ""
	}
	return " (" + strings.Join(m, ", ") + ")"
}

func (r *JumpReport) whitespace() string {
	if r.Compact {
		return "compact"
	}
	return "flexible"
}

// Summary is the last line of the jump-forward report.
func (r *JumpReport) Summary() string {
	var all jumpRow
	for _, s := range r.Schemas {
		all.add(s)
	}
	var next latency.Sample
	for _, d := range r.NextTimes {
		next.Add(d)
	}
	return fmt.Sprintf("jump-forward%s: %d of %d tokens (%.1f%%) delivered by jump-forward, %d model steps saved, %d tokens rolled back, non-canonical tokens %d (%s JSON, %d documents); Next %s",
		r.mode(), all.jumped, all.tokens, pctOf(all.jumped, all.tokens), all.tokens-all.steps, all.rolledBack, all.nonCanonical, r.whitespace(), all.docs,
		next.String())
}

// WriteTable prints the per-dataset table and the summary line.
func (r *JumpReport) WriteTable(w io.Writer) {
	rows := map[string]*jumpRow{}
	var names []string
	for _, s := range r.Schemas {
		x := rows[s.Dataset]
		if x == nil {
			x = &jumpRow{}
			rows[s.Dataset] = x
			names = append(names, s.Dataset)
		}
		x.add(s)
	}
	sort.Strings(names)
	ws := r.whitespace()
	fmt.Fprintf(w, "jump-forward%s on %s JSON (schemas compiled with %s whitespace); documents: valid instances decoded, refused: valid instances the grammar refuses, failed: schemas where decoding failed\n", r.mode(), ws, ws)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "dataset\tschemas\tcompiled\tdocuments\trefused\tfailed\ttokens\tjumped\tjumped %\tsteps saved\trolled back\tnon-canonical\t")
	for _, name := range names {
		x := rows[name]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f\t%d\t%d\t%d\t\n", name, x.schemas, x.compiled, x.docs, x.refused, x.failed, x.tokens, x.jumped, pctOf(x.jumped, x.tokens), x.tokens-x.steps, x.rolledBack, x.nonCanonical)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d Next calls in %v\n", len(r.NextTimes), r.Wall.Round(time.Second))
	fmt.Fprintln(w, r.Summary())
}
