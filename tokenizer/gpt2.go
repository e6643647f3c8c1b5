package tokenizer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tidwall/gjson"
)

// LoadGPT2 loads OpenAI's original GPT-2 files: encoder.json (byte-level
// token strings to ids) and vocab.bpe (the merges, in priority order).
// <|endoftext|> is the special stop token. The vocabulary is named after the
// folder of encoder.json unless opts.Name says otherwise;
// opts.Pattern replaces GPT2Pattern, and opts.Config is ignored.
func LoadGPT2(encoderJSON, vocabBPE string, opts LoadOptions) (*Vocab, error) {
	enc, err := os.ReadFile(encoderJSON)
	if err != nil {
		return nil, &FormatError{File: encoderJSON, Msg: err.Error(), Err: err}
	}
	bpe, err := os.ReadFile(vocabBPE)
	if err != nil {
		return nil, &FormatError{File: vocabBPE, Msg: err.Error(), Err: err}
	}
	name := opts.Name
	if name == "" {
		name = filepath.Base(filepath.Dir(encoderJSON))
	}
	return loadGPT2(name, encoderJSON, enc, vocabBPE, bpe, opts)
}

// LoadGPT2Bytes loads GPT-2's encoder.json and vocab.bpe held in memory.
// Errors name the files as name/encoder.json and name/vocab.bpe. opts.Name,
// when set, replaces name; opts.Pattern and opts.Config act as in LoadGPT2.
func LoadGPT2Bytes(name string, encoderJSON, vocabBPE []byte, opts LoadOptions) (*Vocab, error) {
	if opts.Name != "" {
		name = opts.Name
	}
	return loadGPT2(name, name+"/encoder.json", encoderJSON, name+"/vocab.bpe", vocabBPE, opts)
}

const endOfText = "<|endoftext|>"

func loadGPT2(name, encFile string, enc []byte, bpeFile string, bpe []byte, o LoadOptions) (*Vocab, error) {
	if err := validJSON(encFile, enc); err != nil {
		return nil, err
	}
	root := gjson.ParseBytes(enc)
	if !root.IsObject() {
		return nil, malformed(encFile, "", "the top level is not an object")
	}
	b := &vocabBuilder{file: encFile}
	pieces := make(map[string]int32)
	var err error
	root.ForEach(func(k, v gjson.Result) bool {
		id, e := jsonID(v)
		if e != nil {
			err = malformed(encFile, fmt.Sprintf("%q", k.String()), "%v", e)
			return false
		}
		kind := kindNormal
		if k.String() == endOfText {
			kind = kindSpecial
		}
		if err = b.add(id, byteLevelDecode(k.String()), kind); err != nil {
			return false
		}
		pieces[k.String()] = int32(id)
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(pieces) == 0 {
		return nil, malformed(encFile, "", "no tokens")
	}

	spec := encSpec{file: bpeFile, vocabFile: encFile, hf: hfByteLevel, unk: -1}
	pattern := o.Pattern
	if pattern == "" {
		pattern = GPT2Pattern
	}
	spec.pretok = []preStep{{op: preRegex, pattern: pattern, field: "pattern"}}
	var buf []byte
	for n, line := range bytes.Split(bpe, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 || bytes.HasPrefix(line, []byte("#version")) {
			continue
		}
		field := fmt.Sprintf("line %d", n+1)
		l, r, ok := bytes.Cut(line, []byte(" "))
		if !ok || bytes.Contains(r, []byte(" ")) {
			return nil, malformed(bpeFile, field, "%q is not two tokens separated by a space", line)
		}
		li, ok1 := pieces[string(l)]
		ri, ok2 := pieces[string(r)]
		buf = append(append(buf[:0], l...), r...)
		res, ok3 := pieces[string(buf)]
		if !ok1 || !ok2 || !ok3 {
			return nil, malformed(bpeFile, field, "%q names a token that is not in %s", line, filepath.Base(encFile))
		}
		spec.merges = append(spec.merges, merge{li, ri, res})
	}
	v := b.build(name, spec)
	v.stops = v.defaultStops(-1)
	if err := v.checkUsable(encFile, ""); err != nil {
		return nil, err
	}
	return v, nil
}
