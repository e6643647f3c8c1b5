package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/tidwall/gjson"
)

// LoadHF loads a Hugging Face tokenizer.json (a BPE model with the byte-level
// decoder of GPT-2, Llama-3 and Qwen, or SentencePiece pieces with byte
// fallback as in Llama-2 and Mistral). It reads tokenizer_config.json beside
// it, when there is one, for the end-of-sequence token. The vocabulary is
// named after the file's folder unless opts.Name says otherwise;
// opts.Config names tokenizer_config.json elsewhere, and opts.Pattern is
// ignored (tokenizer.json gives the pre-tokenizer).
//
// Some files are refused as malformed although Hugging Face loads them,
// because the vocabulary would not be what the model's tokenizer does: an
// added token that reuses the id of a model piece with other text, of a
// byte-fallback token, or (special) of a byte-level token of one byte; and a
// vocabulary with no token a grammar could allow (every one special, a stop
// token or empty).
func LoadHF(tokenizerJSON string, opts LoadOptions) (*Vocab, error) {
	data, err := os.ReadFile(tokenizerJSON)
	if err != nil {
		return nil, &FormatError{File: tokenizerJSON, Msg: err.Error(), Err: err}
	}
	cfgPath := opts.Config
	if cfgPath == "" {
		cfgPath = filepath.Join(filepath.Dir(tokenizerJSON), "tokenizer_config.json")
	}
	cfg, err := os.ReadFile(cfgPath)
	switch {
	case err == nil:
	case opts.Config == "" && errors.Is(err, os.ErrNotExist):
		cfg, cfgPath = nil, ""
	default:
		return nil, &FormatError{File: cfgPath, Msg: err.Error(), Err: err}
	}
	name := opts.Name
	if name == "" {
		name = filepath.Base(filepath.Dir(tokenizerJSON))
	}
	return loadHF(name, tokenizerJSON, data, cfgPath, cfg)
}

// LoadHFBytes loads a tokenizer.json held in memory, with its
// tokenizer_config.json when tokenizerConfig is not nil. It refuses what
// LoadHF refuses. Errors name the files as name/tokenizer.json and
// name/tokenizer_config.json. opts.Name replaces name; opts.Config and
// opts.Pattern are ignored.
func LoadHFBytes(name string, tokenizerJSON, tokenizerConfig []byte, opts LoadOptions) (*Vocab, error) {
	if opts.Name != "" {
		name = opts.Name
	}
	cfgFile := ""
	if tokenizerConfig != nil {
		cfgFile = name + "/tokenizer_config.json"
	}
	return loadHF(name, name+"/tokenizer.json", tokenizerJSON, cfgFile, tokenizerConfig)
}

// hfKind is the family a tokenizer.json belongs to, read from its decoder.
type hfKind uint8

const (
	hfByteLevel     hfKind = iota + 1 // tokens are written in GPT-2's byte-level alphabet
	hfSentencePiece                   // tokens use '▁' for spaces and <0xXX> for raw bytes
)

// byteFallbackPiece matches SentencePiece's byte tokens.
var byteFallbackPiece = regexp.MustCompile(`^<0x[0-9A-Fa-f]{2}>$`)

func loadHF(name, file string, data []byte, cfgFile string, cfg []byte) (*Vocab, error) {
	if err := validJSON(file, data); err != nil {
		return nil, err
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return nil, malformed(file, "", "the top level is not an object")
	}
	model := root.Get("model")
	if !model.IsObject() {
		return nil, malformed(file, "model", "missing or not an object")
	}
	if t := model.Get("type"); t.Exists() && t.String() != "BPE" {
		return nil, unsupported(file, "model.type", "%s models are not supported (only BPE)", t.Raw)
	}
	kind, replacement, byteFallbackDecoder, err := hfDecoderKind(file, root)
	if err != nil {
		return nil, err
	}

	// model.vocab: piece → id.
	vocab := model.Get("vocab")
	if !vocab.IsObject() {
		return nil, malformed(file, "model.vocab", "missing or not an object")
	}
	b := &vocabBuilder{file: file, field: "model.vocab"}
	pieces := make(map[string]int32)
	var verr error
	vocab.ForEach(func(k, v gjson.Result) bool {
		id, err := jsonID(v)
		if err != nil {
			verr = malformed(file, "model.vocab", "%q: %v", k.String(), err)
			return false
		}
		piece := k.String()
		var tok []byte
		tk := kindNormal
		switch {
		case kind == hfByteLevel:
			tok = byteLevelDecode(piece)
		case byteFallbackDecoder && byteFallbackPiece.MatchString(piece):
			n, _ := strconv.ParseUint(piece[3:5], 16, 8)
			tok, tk = []byte{byte(n)}, kindByte
		default:
			tok = []byte(strings.ReplaceAll(piece, string(replacement), " "))
		}
		if err := b.add(id, tok, tk); err != nil {
			verr = err
			return false
		}
		pieces[piece] = int32(id)
		return true
	})
	if verr != nil {
		return nil, verr
	}
	if len(pieces) == 0 {
		return nil, malformed(file, "model.vocab", "empty")
	}

	// added_tokens: literal text, special or not, overriding model entries.
	spec := encSpec{file: file, vocabFile: file, vocabField: "model.vocab", hf: kind, replacement: replacement}
	addedIDs := map[string]int{}
	b.field = "added_tokens"
	added := root.Get("added_tokens")
	if added.Exists() && !added.IsArray() {
		return nil, malformed(file, "added_tokens", "not an array")
	}
	for i, t := range added.Array() {
		field := fmt.Sprintf("added_tokens[%d]", i)
		if !t.IsObject() {
			return nil, malformed(file, field, "not an object")
		}
		id, err := jsonID(t.Get("id"))
		if err != nil {
			return nil, malformed(file, field+".id", "%v", err)
		}
		content := t.Get("content")
		if content.Type != gjson.String {
			return nil, malformed(file, field+".content", "missing or not a string")
		}
		special := t.Get("special").Bool()
		if err := b.checkReuse(field, id, content.String(), special, kind, pieces); err != nil {
			return nil, err
		}
		tk := kindAdded
		if special {
			tk = kindSpecial
		} else {
			spec.added = append(spec.added, addedToken{content.String(), int32(id)})
		}
		b.field = field
		if err := b.override(id, []byte(content.String()), tk); err != nil {
			return nil, err
		}
		addedIDs[content.String()] = id
	}

	if err := spec.parseHFModel(model, pieces); err != nil {
		return nil, err
	}
	spec.deferred = spec.parseHFText(root)

	eos, err := hfEOS(cfgFile, cfg)
	if err != nil {
		return nil, err
	}
	v := b.build(name, spec)
	eosID := -1 // no eos_token: no stop token by that name, not even an empty piece
	if eos != "" {
		if id, ok := addedIDs[eos]; ok {
			eosID = id
		} else if id, ok := pieces[eos]; ok {
			eosID = int(id)
		}
	}
	v.stops = v.defaultStops(eosID)
	if err := v.checkUsable(file, "model.vocab"); err != nil {
		return nil, err
	}
	return v, nil
}

// samePiece reports whether text is the model piece of token id, as written
// in model.vocab.
func samePiece(pieces map[string]int32, text string, id int) bool {
	p, ok := pieces[text]
	return ok && int(p) == id
}

// checkReuse refuses an added token (at field) whose id is already a model
// piece it would change: a SentencePiece byte-fallback token (the Encoder
// needs it for bytes no piece covers), a piece of other text (the Encoder
// would write the added text where the model means the piece's), or, in a
// byte-level vocabulary, a one-byte piece made special (the Encoder needs
// one ordinary token per byte). Real files only re-list pieces such as <s>
// with their own text, which stays allowed.
func (b *vocabBuilder) checkReuse(field string, id int, content string, special bool, kind hfKind, pieces map[string]int32) error {
	if id < 0 || id >= len(b.set) || !b.set[id] {
		return nil
	}
	old := b.toks[id]
	switch {
	case b.kinds[id] == kindByte:
		return malformed(b.file, field+".id", "token id %d is the byte-fallback token of byte 0x%02X; %q needs an id of its own", id, old[0], content)
	case string(old) != content && !samePiece(pieces, content, id):
		return malformed(b.file, field+".id", "token id %d is the model's token %q; %q needs an id of its own", id, old, content)
	case special && kind == hfByteLevel && len(old) == 1 && b.kinds[id] == kindNormal:
		return malformed(b.file, field+".id", "token id %d is the byte-level token of byte 0x%02X and cannot be special", id, old[0])
	}
	return nil
}

// validJSON checks data is one JSON value, naming the offset of the first
// error.
func validJSON(file string, data []byte) error {
	if gjson.ValidBytes(data) {
		return nil
	}
	var raw json.RawMessage
	err := json.Unmarshal(data, &raw)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return malformed(file, "", "invalid JSON at byte %d: %v", se.Offset, err)
	}
	if err == nil {
		err = errors.New("not valid JSON")
	}
	return malformed(file, "", "%v", err)
}

// jsonID reads a token id: a non-negative integer that fits an int32.
func jsonID(v gjson.Result) (int, error) {
	if v.Type != gjson.Number {
		if !v.Exists() {
			return 0, errors.New("missing id")
		}
		return 0, fmt.Errorf("id %s is not a number", v.Raw)
	}
	if v.Num < 0 || v.Num > math.MaxInt32 || v.Num != math.Trunc(v.Num) {
		return 0, fmt.Errorf("id %s is not a token id", v.Raw)
	}
	return int(v.Num), nil
}

// hfDecoderKind reads the decoder (or, without one, the pre-tokenizer) to
// tell byte-level files from SentencePiece ones.
func hfDecoderKind(file string, root gjson.Result) (kind hfKind, replacement rune, byteFallback bool, err error) {
	dec := root.Get("decoder")
	if !dec.Exists() || dec.Type == gjson.Null {
		if hasType(root.Get("pre_tokenizer"), "ByteLevel") {
			return hfByteLevel, 0, false, nil
		}
		return 0, 0, false, unsupported(file, "decoder", "missing, and the pre-tokenizer is not ByteLevel")
	}
	var decs []gjson.Result
	field := "decoder"
	switch t := dec.Get("type").String(); t {
	case "Sequence":
		decs = dec.Get("decoders").Array()
		field = "decoder.decoders"
		if len(decs) == 0 {
			return 0, 0, false, malformed(file, field, "missing or empty")
		}
	default:
		decs = []gjson.Result{dec}
	}
	for i, d := range decs {
		f := field
		if len(decs) > 1 || field != "decoder" {
			f = fmt.Sprintf("%s[%d]", field, i)
		}
		switch t := d.Get("type").String(); t {
		case "ByteLevel":
			kind = hfByteLevel
		case "ByteFallback":
			byteFallback = true
			kind = hfSentencePiece
		case "Metaspace":
			r := d.Get("replacement").String()
			if utf8.RuneCountInString(r) != 1 {
				return 0, 0, false, malformed(file, f+".replacement", "%q is not one character", r)
			}
			replacement = []rune(r)[0]
			kind = hfSentencePiece
		case "Replace":
			from := d.Get("pattern.String")
			to := d.Get("content").String()
			if from.Type != gjson.String || to != " " || utf8.RuneCountInString(from.String()) != 1 {
				return 0, 0, false, unsupported(file, f, "only Replace of one character by a space is supported")
			}
			replacement = []rune(from.String())[0]
			kind = hfSentencePiece
		case "Fuse", "Strip":
			// They join and trim decoded strings; a token's bytes are unchanged.
		case "":
			return 0, 0, false, malformed(file, f+".type", "missing")
		default:
			return 0, 0, false, unsupported(file, f+".type", "decoder %q is not supported", t)
		}
	}
	switch {
	case kind == 0:
		return 0, 0, false, unsupported(file, "decoder", "neither ByteLevel nor SentencePiece (Metaspace, Replace ▁, ByteFallback)")
	case kind == hfSentencePiece && replacement == 0:
		replacement = '▁'
	}
	return kind, replacement, byteFallback, nil
}

// hasType reports whether a component, or one in its Sequence, has type t.
func hasType(c gjson.Result, t string) bool {
	if c.Get("type").String() == t {
		return true
	}
	for _, key := range []string{"pretokenizers", "normalizers", "decoders"} {
		for _, sub := range c.Get(key).Array() {
			if hasType(sub, t) {
				return true
			}
		}
	}
	return false
}

// hfEOS reads eos_token from tokenizer_config.json: a string, or an object
// with a "content" string.
func hfEOS(file string, cfg []byte) (string, error) {
	if cfg == nil {
		return "", nil
	}
	if err := validJSON(file, cfg); err != nil {
		return "", err
	}
	root := gjson.ParseBytes(cfg)
	if !root.IsObject() {
		return "", malformed(file, "", "the top level is not an object")
	}
	eos := root.Get("eos_token")
	switch {
	case !eos.Exists() || eos.Type == gjson.Null:
		return "", nil
	case eos.Type == gjson.String:
		return eos.String(), nil
	case eos.IsObject() && eos.Get("content").Type == gjson.String:
		return eos.Get("content").String(), nil
	}
	return "", malformed(file, "eos_token", "neither a string nor an object with a content string")
}

// parseHFModel reads the BPE model's merges and options. pieces maps the
// model's token strings to ids; merges name them.
func (s *encSpec) parseHFModel(model gjson.Result, pieces map[string]int32) error {
	file := s.file
	s.unk = -1
	if u := model.Get("unk_token"); u.Type == gjson.String {
		if id, ok := pieces[u.String()]; ok {
			s.unk = id
		}
	}
	s.ignoreMerges = model.Get("ignore_merges").Bool()
	s.byteFallback = model.Get("byte_fallback").Bool()
	s.fuseUnk = model.Get("fuse_unk").Bool()
	for _, f := range []string{"continuing_subword_prefix", "end_of_word_suffix"} {
		if x := model.Get(f); x.Exists() && x.Type != gjson.Null && x.String() != "" {
			s.deferred = unsupported(file, "model."+f, "%s is not supported", x.Raw)
		}
	}
	if d := model.Get("dropout"); d.Exists() && d.Type != gjson.Null && d.Float() != 0 {
		s.deferred = unsupported(file, "model.dropout", "BPE dropout is not deterministic")
	}

	merges := model.Get("merges")
	if !merges.Exists() {
		return nil
	}
	if !merges.IsArray() {
		return malformed(file, "model.merges", "not an array")
	}
	var buf []byte
	var err error
	i := 0
	merges.ForEach(func(_, m gjson.Result) bool {
		var a, b string
		switch {
		case m.Type == gjson.String:
			var ok bool
			a, b, ok = strings.Cut(m.String(), " ")
			if !ok || strings.Contains(b, " ") {
				err = malformed(file, fmt.Sprintf("model.merges[%d]", i), "%s is not two tokens separated by a space", m.Raw)
				return false
			}
		case m.IsArray():
			n, ok := 0, true
			m.ForEach(func(_, x gjson.Result) bool {
				ok = n < 2 && x.Type == gjson.String
				if n == 0 {
					a = x.String()
				} else {
					b = x.String()
				}
				n++
				return ok
			})
			if !ok || n != 2 {
				err = malformed(file, fmt.Sprintf("model.merges[%d]", i), "%s is not a pair of strings", m.Raw)
				return false
			}
		default:
			err = malformed(file, fmt.Sprintf("model.merges[%d]", i), "%s is neither a string nor a pair", m.Raw)
			return false
		}
		l, ok1 := pieces[a]
		r, ok2 := pieces[b]
		buf = append(append(buf[:0], a...), b...)
		res, ok3 := pieces[string(buf)]
		if !ok1 || !ok2 || !ok3 {
			err = malformed(file, fmt.Sprintf("model.merges[%d]", i), "%s names a token that is not in model.vocab", m.Raw)
			return false
		}
		s.merges = append(s.merges, merge{l, r, res})
		i++
		return true
	})
	return err
}

// parseHFText reads the normalizer and pre-tokenizer. What it cannot handle
// is returned, and reported by Encoder rather than by the loader: the
// vocabulary itself does not depend on it.
func (s *encSpec) parseHFText(root gjson.Result) error {
	if err := s.parseNormalizer(root.Get("normalizer"), "normalizer"); err != nil {
		return err
	}
	if err := s.parsePreTokenizer(root.Get("pre_tokenizer"), "pre_tokenizer"); err != nil {
		return err
	}
	return s.deferred
}

func (s *encSpec) parseNormalizer(n gjson.Result, field string) error {
	if !n.Exists() || n.Type == gjson.Null {
		return nil
	}
	switch t := n.Get("type").String(); t {
	case "Sequence":
		for i, sub := range n.Get("normalizers").Array() {
			if err := s.parseNormalizer(sub, fmt.Sprintf("%s.normalizers[%d]", field, i)); err != nil {
				return err
			}
		}
	case "NFC":
		s.normalizers = append(s.normalizers, normStep{op: normNFC})
	case "Prepend":
		p := n.Get("prepend")
		if p.Type != gjson.String {
			return malformed(s.file, field+".prepend", "missing or not a string")
		}
		s.normalizers = append(s.normalizers, normStep{op: normPrepend, to: p.String()})
	case "Replace":
		from := n.Get("pattern.String")
		to := n.Get("content")
		if from.Type != gjson.String || to.Type != gjson.String || from.String() == "" {
			return unsupported(s.file, field, "only Replace of a non-empty String pattern by a string is supported")
		}
		s.normalizers = append(s.normalizers, normStep{op: normReplace, from: from.String(), to: to.String()})
	default:
		return unsupported(s.file, field+".type", "normalizer %q is not supported", t)
	}
	return nil
}

func (s *encSpec) parsePreTokenizer(p gjson.Result, field string) error {
	if !p.Exists() || p.Type == gjson.Null {
		return nil
	}
	switch t := p.Get("type").String(); t {
	case "Sequence":
		for i, sub := range p.Get("pretokenizers").Array() {
			if err := s.parsePreTokenizer(sub, fmt.Sprintf("%s.pretokenizers[%d]", field, i)); err != nil {
				return err
			}
		}
	case "Split":
		if b := p.Get("behavior").String(); b != "Isolated" {
			return unsupported(s.file, field+".behavior", "Split behavior %q is not supported (only Isolated)", b)
		}
		if p.Get("invert").Bool() {
			return unsupported(s.file, field+".invert", "inverted Split is not supported")
		}
		pat := p.Get("pattern")
		var re string
		switch {
		case pat.Get("Regex").Type == gjson.String:
			re = pat.Get("Regex").String()
		case pat.Get("String").Type == gjson.String:
			re = regexp2.Escape(pat.Get("String").String())
		default:
			return malformed(s.file, field+".pattern", "neither a Regex nor a String")
		}
		s.pretok = append(s.pretok, preStep{op: preRegex, pattern: re, field: field + ".pattern"})
	case "ByteLevel":
		if s.hf != hfByteLevel {
			return unsupported(s.file, field, "ByteLevel pre-tokenizer on a SentencePiece vocabulary")
		}
		if p.Get("add_prefix_space").Bool() {
			s.pretok = append(s.pretok, preStep{op: prePrefixSpace})
		}
		if u := p.Get("use_regex"); !u.Exists() || u.Bool() {
			s.pretok = append(s.pretok, preStep{op: preRegex, pattern: GPT2Pattern, field: field})
		}
	case "Metaspace":
		if s.hf != hfSentencePiece {
			return unsupported(s.file, field, "Metaspace pre-tokenizer on a byte-level vocabulary")
		}
		r := []rune(p.Get("replacement").String())
		if len(r) != 1 {
			return malformed(s.file, field+".replacement", "not one character")
		}
		step := preStep{op: preMetaspace, replacement: r[0], splitWords: true}
		if sp := p.Get("split"); sp.Exists() {
			step.splitWords = sp.Bool()
		}
		switch sc := p.Get("prepend_scheme"); {
		case sc.Exists():
			switch sc.String() {
			case "always":
				step.prepend = prependAlways
			case "first":
				step.prepend = prependFirst
			case "never":
			default:
				return unsupported(s.file, field+".prepend_scheme", "%s is not supported", sc.Raw)
			}
		case p.Get("add_prefix_space").Bool():
			step.prepend = prependAlways
		}
		s.pretok = append(s.pretok, step)
	default:
		return unsupported(s.file, field+".type", "pre-tokenizer %q is not supported", t)
	}
	return nil
}
