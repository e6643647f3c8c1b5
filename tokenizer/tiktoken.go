package tokenizer

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Pre-tokenizer patterns (regexp2 syntax) of OpenAI's encodings.
const (
	// GPT2Pattern splits text for GPT-2 (r50k_base, p50k_base).
	GPT2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	// Cl100kPattern splits text for cl100k_base (GPT-4, GPT-3.5); Llama-3
	// uses the same one.
	Cl100kPattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// O200kPattern splits text for o200k_base (GPT-4o).
	O200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
		`|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// O200kBaseSpecials returns the special tokens of o200k_base.
func O200kBaseSpecials() map[string]int {
	return map[string]int{"<|endoftext|>": 199999, "<|endofprompt|>": 200018}
}

// Cl100kBaseSpecials returns the special tokens of cl100k_base.
func Cl100kBaseSpecials() map[string]int {
	return map[string]int{
		"<|endoftext|>":   100257,
		"<|fim_prefix|>":  100258,
		"<|fim_middle|>":  100259,
		"<|fim_suffix|>":  100260,
		"<|endofprompt|>": 100276,
	}
}

// LoadO200kBase loads o200k_base.tiktoken with its special tokens and
// O200kPattern, unless opts.Pattern gives another; see LoadTiktoken.
func LoadO200kBase(path string, opts LoadOptions) (*Vocab, error) {
	if opts.Pattern == "" {
		opts.Pattern = O200kPattern
	}
	return LoadTiktoken(path, O200kBaseSpecials(), opts)
}

// LoadCl100kBase loads cl100k_base.tiktoken with its special tokens and
// Cl100kPattern, unless opts.Pattern gives another; see LoadTiktoken.
func LoadCl100kBase(path string, opts LoadOptions) (*Vocab, error) {
	if opts.Pattern == "" {
		opts.Pattern = Cl100kPattern
	}
	return LoadTiktoken(path, Cl100kBaseSpecials(), opts)
}

// LoadTiktoken loads a tiktoken rank file (one "base64(token) rank" per
// line; the rank is the token id) and adds specials, name → id. The
// vocabulary is named after the file (o200k_base.tiktoken → o200k_base); the
// encoder's pattern is chosen by that name (o200k, cl100k, r50k, p50k) unless
// opts.Pattern gives one, and opts.Name replaces the name; opts.Config is
// ignored. <|endoftext|> is the stop token when present.
func LoadTiktoken(path string, specials map[string]int, opts LoadOptions) (*Vocab, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &FormatError{File: path, Msg: err.Error(), Err: err}
	}
	name := opts.Name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(path), ".tiktoken")
	}
	return loadTiktoken(name, path, data, specials, opts)
}

// LoadTiktokenBytes loads a tiktoken rank file held in memory. Errors name
// the file as name.tiktoken. opts.Name, when set, replaces name; opts.Pattern
// and opts.Config act as in LoadTiktoken.
func LoadTiktokenBytes(name string, data []byte, specials map[string]int, opts LoadOptions) (*Vocab, error) {
	if opts.Name != "" {
		name = opts.Name
	}
	return loadTiktoken(name, name+".tiktoken", data, specials, opts)
}

func loadTiktoken(name, file string, data []byte, specials map[string]int, o LoadOptions) (*Vocab, error) {
	b := &vocabBuilder{file: file}
	seen := make(map[string]int)
	for n, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			continue
		}
		b.field = fmt.Sprintf("line %d", n+1)
		tok64, rank64, ok := bytes.Cut(line, []byte(" "))
		if !ok {
			return nil, malformed(file, b.field, "not \"base64 rank\"")
		}
		tok, err := base64.StdEncoding.DecodeString(string(tok64))
		if err != nil {
			return nil, malformed(file, b.field, "token %q: %v", tok64, err)
		}
		rank, err := strconv.Atoi(string(rank64))
		if err != nil || rank < 0 {
			return nil, malformed(file, b.field, "rank %q is not a token id", rank64)
		}
		if prev, dup := seen[string(tok)]; dup {
			return nil, malformed(file, b.field, "token %q is also rank %d", tok, prev)
		}
		seen[string(tok)] = rank
		if err := b.add(rank, tok, kindNormal); err != nil {
			return nil, err
		}
	}
	if b.count == 0 {
		return nil, malformed(file, "", "no tokens")
	}
	b.field = "specials"
	for _, s := range sortedKeys(specials) {
		if err := b.add(specials[s], []byte(s), kindSpecial); err != nil {
			return nil, err
		}
	}

	spec := encSpec{file: file, vocabFile: file, hf: hfByteLevel, fromRanks: true, ignoreMerges: true, unk: -1}
	pattern := o.Pattern
	if pattern == "" {
		pattern = tiktokenPattern(name)
	}
	if pattern == "" {
		spec.deferred = unsupported(file, "", "no pre-tokenizer pattern is known for %q: give one with LoadOptions.Pattern", name)
	}
	spec.pretok = []preStep{{op: preRegex, pattern: pattern, field: "pattern"}}
	v := b.build(name, spec)
	v.stops = v.defaultStops(-1)
	if err := v.checkUsable(file, ""); err != nil {
		return nil, err
	}
	return v, nil
}

// tiktokenPattern returns the pattern of a known encoding name, or "".
func tiktokenPattern(name string) string {
	switch {
	case strings.HasPrefix(name, "o200k"):
		return O200kPattern
	case strings.HasPrefix(name, "cl100k"):
		return Cl100kPattern
	case strings.HasPrefix(name, "r50k"), strings.HasPrefix(name, "p50k"), strings.HasPrefix(name, "gpt2"):
		return GPT2Pattern
	}
	return ""
}
