package tokenizer_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/tokenizer"
)

// byteLevelRunes is GPT-2's byte-level alphabet: the rune byte b is written as.
func byteLevelRunes() []rune {
	var rs []rune
	n := rune(0)
	for b := range 256 {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE {
			rs = append(rs, rune(b))
		} else {
			rs = append(rs, 256+n)
			n++
		}
	}
	return rs
}

// byteLevelFile is a small byte-level tokenizer.json: the 256 bytes (ids
// 0..255), then hello built by merges, and an added special token.
func byteLevelFile() map[string]any {
	vocab := map[string]int{}
	for b, r := range byteLevelRunes() {
		vocab[string(r)] = b
	}
	for i, s := range []string{"he", "ll", "hell", "hello", "Ġw", "Ġwo"} {
		vocab[s] = 256 + i
	}
	return map[string]any{
		"added_tokens": []any{
			map[string]any{"id": 262, "content": "<|end|>", "special": true},
		},
		"normalizer":    nil,
		"pre_tokenizer": map[string]any{"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
		"decoder":       map[string]any{"type": "ByteLevel"},
		"model": map[string]any{
			"type":   "BPE",
			"vocab":  vocab,
			"merges": []any{"h e", "l l", "he ll", "hell o", "Ġ w", []string{"Ġw", "o"}},
		},
	}
}

// sentencePieceFile is a small SentencePiece tokenizer.json with byte
// fallback and a Metaspace pre-tokenizer.
func sentencePieceFile() map[string]any {
	vocab := map[string]int{"<unk>": 0, "<s>": 1, "</s>": 2}
	for b := range 256 {
		vocab[fmt.Sprintf("<0x%02X>", b)] = 3 + b
	}
	for i, s := range []string{"▁", "a", "b", "▁a", "ab", "▁ab"} {
		vocab[s] = 259 + i
	}
	return map[string]any{
		"added_tokens": []any{
			map[string]any{"id": 0, "content": "<unk>", "special": true},
			map[string]any{"id": 1, "content": "<s>", "special": true},
			map[string]any{"id": 2, "content": "</s>", "special": true},
		},
		"pre_tokenizer": map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true},
		"decoder": map[string]any{"type": "Sequence", "decoders": []any{
			map[string]any{"type": "Replace", "pattern": map[string]any{"String": "▁"}, "content": " "},
			map[string]any{"type": "ByteFallback"},
			map[string]any{"type": "Fuse"},
			map[string]any{"type": "Strip", "content": " ", "start": 1, "stop": 0},
		}},
		"model": map[string]any{
			"type": "BPE", "unk_token": "<unk>", "byte_fallback": true,
			"vocab": vocab, "merges": []string{"▁ a", "a b", "▁a b"},
		},
	}
}

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

func TestLoadHFBytesByteLevel(t *testing.T) {
	v, err := tokenizer.LoadHFBytes("tiny", marshal(t, byteLevelFile()), []byte(`{"eos_token": "<|end|>"}`), tokenizer.LoadOptions{})
	require.NoError(t, err)
	assert.Equal(t, "tiny", v.Name())
	assert.Equal(t, 263, v.Size())
	assert.Equal(t, []int{262}, v.StopTokens())
	sp, ok := v.TokenID(" ")
	require.True(t, ok)
	assert.Equal(t, "Ġ", string(byteLevelRunes()[' ']))
	assert.Equal(t, []byte(" "), v.Bytes(sp))
	enc, err := v.Encoder()
	require.NoError(t, err)
	assert.Equal(t, []int{259}, enc.Encode("hello"))
	assert.Equal(t, []int{259, 261, 'r', 'l', 'd'}, enc.Encode("hello world"))
	assert.Equal(t, []int{'<', '|', 'e', 'n', 'd', '|', '>'}, enc.Encode("<|end|>"), "special text is plain text")
}

func TestLoadHFBytesSentencePiece(t *testing.T) {
	v, err := tokenizer.LoadHFBytes("spm", marshal(t, sentencePieceFile()), []byte(`{"eos_token": {"content": "</s>"}}`), tokenizer.LoadOptions{})
	require.NoError(t, err)
	assert.Equal(t, []int{2}, v.StopTokens())
	assert.Equal(t, []byte(" ab"), v.Bytes(264))
	assert.Equal(t, []byte{0x0A}, v.Bytes(3+0x0A))
	assert.False(t, v.IsSpecial(3+0x0A))
	assert.True(t, v.IsSpecial(0))
	enc, err := v.Encoder()
	require.NoError(t, err)
	assert.Equal(t, []int{264, 264}, enc.Encode("ab ab"))
	assert.Equal(t, []int{262, 260}, enc.Encode("aa"))
	assert.Equal(t, []int{259, 3 + 'c'}, enc.Encode("c"), "byte fallback")
	assert.Equal(t, []int{259, 3 + 0xC3, 3 + 0xA9}, enc.Encode("é"), "byte fallback of a two-byte character")
	assert.Empty(t, enc.Encode(""))
}

func TestLoadHFWithoutConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokenizer.json")
	require.NoError(t, os.WriteFile(path, marshal(t, byteLevelFile()), 0o644))
	v, err := tokenizer.LoadHF(path, tokenizer.LoadOptions{})
	require.NoError(t, err)
	assert.Equal(t, filepath.Base(dir), v.Name())
	assert.Empty(t, v.StopTokens(), "no eos_token and no known stop names")

	v, err = tokenizer.LoadHF(path, tokenizer.LoadOptions{Name: "named"})
	require.NoError(t, err)
	assert.Equal(t, "named", v.Name())

	_, err = tokenizer.LoadHF(path, tokenizer.LoadOptions{Config: filepath.Join(dir, "missing.json")})
	assert.ErrorIs(t, err, fs.ErrNotExist)
	_, err = tokenizer.LoadHF(filepath.Join(dir, "nope", "tokenizer.json"), tokenizer.LoadOptions{})
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// A loader ignores the LoadOptions fields that do not apply to it.
func TestLoadOptionsIgnored(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.json")
	v, err := tokenizer.LoadHFBytes("x", marshal(t, byteLevelFile()), nil, tokenizer.LoadOptions{Name: "y", Config: missing, Pattern: `\S+`})
	require.NoError(t, err, "LoadHFBytes reads neither Config nor Pattern")
	assert.Equal(t, "y", v.Name())

	path := filepath.Join(t.TempDir(), "cl100k_base.tiktoken")
	require.NoError(t, os.WriteFile(path, []byte(tiktokenRanks(" a", "ab")), 0o644))
	v, err = tokenizer.LoadTiktoken(path, nil, tokenizer.LoadOptions{Config: missing})
	require.NoError(t, err, "tiktoken has no config")
	assert.Equal(t, "cl100k_base", v.Name())
	enc, err := v.Encoder()
	require.NoError(t, err)
	assert.Equal(t, []int{'x', 256, 'b'}, enc.Encode("x ab"), "cl100k's pattern, chosen by name, keeps \" ab\" whole")

	v, err = tokenizer.LoadTiktoken(path, nil, tokenizer.LoadOptions{Name: "mine", Pattern: `\S+|\s+`})
	require.NoError(t, err)
	assert.Equal(t, "mine", v.Name())
	enc, err = v.Encoder()
	require.NoError(t, err)
	assert.Equal(t, []int{'x', ' ', 257}, enc.Encode("x ab"), "Pattern replaces the pattern the name chose")
}

// edit returns f changed by set: a dotted path → value (nil deletes).
func edit(f map[string]any, set map[string]any) map[string]any {
	for path, val := range set {
		m := f
		keys := strings.Split(path, ".")
		for _, k := range keys[:len(keys)-1] {
			m = m[k].(map[string]any)
		}
		if val == nil {
			delete(m, keys[len(keys)-1])
		} else {
			m[keys[len(keys)-1]] = val
		}
	}
	return f
}

func TestLoadHFErrors(t *testing.T) {
	cases := []struct {
		name    string
		file    func() map[string]any
		set     map[string]any
		field   string // the error names "x/tokenizer.json: FIELD: "
		unsupp  bool   // errors.Is ErrUnsupportedTokenizer rather than ErrMalformed
		encoder bool   // the loader succeeds and Encoder fails
	}{
		{"no model", byteLevelFile, map[string]any{"model": nil}, "model", false, false},
		{"unigram", byteLevelFile, map[string]any{"model.type": "Unigram"}, "model.type", true, false},
		{"vocab not object", byteLevelFile, map[string]any{"model.vocab": []int{1}}, "model.vocab", false, false},
		{"bad id", byteLevelFile, map[string]any{"model.vocab": map[string]any{"a": "x"}}, "model.vocab", false, false},
		{"negative id", byteLevelFile, map[string]any{"model.vocab": map[string]any{"a": -1}}, "model.vocab", false, false},
		{"fractional id", byteLevelFile, map[string]any{"model.vocab": map[string]any{"a": 1.5}}, "model.vocab", false, false},
		{"huge id", byteLevelFile, map[string]any{"model.vocab": map[string]any{"a": 1 << 30}}, "model.vocab", false, false},
		{"duplicate id", byteLevelFile, map[string]any{"model.vocab": map[string]any{"a": 1, "b": 1}}, "model.vocab", false, false},
		{"merge unknown", byteLevelFile, map[string]any{"model.merges": []string{"h e", "x yz"}}, "model.merges[1]", false, false},
		{"merge shape", byteLevelFile, map[string]any{"model.merges": []any{"h e", "he"}}, "model.merges[1]", false, false},
		{"merge pair shape", byteLevelFile, map[string]any{"model.merges": []any{[]any{"h", 1}}}, "model.merges[0]", false, false},
		{"merges not array", byteLevelFile, map[string]any{"model.merges": "h e"}, "model.merges", false, false},
		{"added not array", byteLevelFile, map[string]any{"added_tokens": 5}, "added_tokens", false, false},
		{"added no content", byteLevelFile, map[string]any{"added_tokens": []any{map[string]any{"id": 300}}}, "added_tokens[0].content", false, false},
		{"added no id", byteLevelFile, map[string]any{"added_tokens": []any{map[string]any{"content": "x"}}}, "added_tokens[0].id", false, false},
		{"unknown decoder", byteLevelFile, map[string]any{"decoder": map[string]any{"type": "WordPiece"}}, "decoder.type", true, false},
		{"no decoder", byteLevelFile, map[string]any{"decoder": nil, "pre_tokenizer": nil}, "decoder", true, false},
		{"unknown normalizer", byteLevelFile, map[string]any{"normalizer": map[string]any{"type": "NFKC"}}, "normalizer.type", true, true},
		{"unknown pre-tokenizer", byteLevelFile, map[string]any{"pre_tokenizer": map[string]any{"type": "Digits"}}, "pre_tokenizer.type", true, true},
		{"split behavior", byteLevelFile, map[string]any{"pre_tokenizer": map[string]any{"type": "Split", "pattern": map[string]any{"Regex": "a"}, "behavior": "Removed"}}, "pre_tokenizer.behavior", true, true},
		{"bad regex", byteLevelFile, map[string]any{"pre_tokenizer": map[string]any{"type": "Split", "pattern": map[string]any{"Regex": "(a"}, "behavior": "Isolated"}}, "pre_tokenizer.pattern", true, true},
		{"dropout", byteLevelFile, map[string]any{"model.dropout": 0.1}, "model.dropout", true, true},
		{"metaspace on byte level", byteLevelFile, map[string]any{"pre_tokenizer": map[string]any{"type": "Metaspace", "replacement": "▁"}}, "pre_tokenizer", true, true},
		{"byte level missing a byte", byteLevelFile, map[string]any{"model.vocab": map[string]any{"a": 0}, "model.merges": []string{}}, "model.vocab", true, true},
		{"metaspace replacement", sentencePieceFile, map[string]any{"pre_tokenizer": map[string]any{"type": "Metaspace", "replacement": "ab"}}, "pre_tokenizer.replacement", false, true},

		// Added tokens that would change a model piece (issue 12, item 7).
		{"special reuses a byte token's id", byteLevelFile, added(97, "<|x|>", true), "added_tokens[0].id", false, false},
		{"byte token made special", byteLevelFile, added(97, "a", true), "added_tokens[0].id", false, false},
		{"special reuses byte 0's id", byteLevelFile, added(0, "<|zero|>", true), "added_tokens[0].id", false, false},
		{"added reuses a piece's id", byteLevelFile, added(256, "<|he|>", false), "added_tokens[0].id", false, false},
		{"added renames piece 0", sentencePieceFile, added(0, "<pad>", true), "added_tokens[0].id", false, false},
		{"special reuses a byte-fallback id", sentencePieceFile, added(3+0x0A, "<nl>", true), "added_tokens[0].id", false, false},
		{"byte-fallback token made special", sentencePieceFile, added(3+0x0A, "<0x0A>", true), "added_tokens[0].id", false, false},

		// Vocabularies no grammar could use.
		{"only an empty token", byteLevelFile, map[string]any{"model.vocab": map[string]any{"": 0}, "model.merges": []string{}}, "model.vocab", false, false},
		{"only special tokens", sentencePieceFile, map[string]any{"model.vocab": map[string]any{"<unk>": 0, "<s>": 1, "</s>": 2}, "model.merges": []string{}}, "model.vocab", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := tokenizer.LoadHFBytes("x", marshal(t, edit(c.file(), c.set)), nil, tokenizer.LoadOptions{})
			if c.encoder {
				require.NoError(t, err, "the vocabulary loads; the encoder fails")
				_, err = v.Encoder()
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "x/tokenizer.json: "+c.field+": ")
			var fe *tokenizer.FormatError
			require.True(t, errors.As(err, &fe))
			assert.Equal(t, "x/tokenizer.json", fe.File)
			assert.Equal(t, c.field, fe.Field)
			if c.unsupp {
				assert.ErrorIs(t, err, tokenizer.ErrUnsupportedTokenizer)
			} else {
				assert.ErrorIs(t, err, tokenizer.ErrMalformed)
			}
		})
	}
}

// added is an edit that makes one added token the file's only one.
func added(id int, content string, special bool) map[string]any {
	return map[string]any{"added_tokens": []any{map[string]any{"id": id, "content": content, "special": special}}}
}

// TestLoadHFEmptyTokenIsNoStop: an empty vocabulary entry never becomes the
// stop token, whether eos_token is missing, null or empty.
func TestLoadHFEmptyTokenIsNoStop(t *testing.T) {
	f := byteLevelFile()
	f["model"].(map[string]any)["vocab"].(map[string]int)[""] = 263
	for _, cfg := range []string{"", `{}`, `{"eos_token": null}`, `{"eos_token": ""}`, `{"eos_token": {"content": ""}}`} {
		var config []byte
		if cfg != "" {
			config = []byte(cfg)
		}
		v, err := tokenizer.LoadHFBytes("x", marshal(t, f), config, tokenizer.LoadOptions{})
		require.NoError(t, err, cfg)
		require.Equal(t, 264, v.Size())
		assert.Empty(t, v.Bytes(263))
		assert.Empty(t, v.StopTokens(), "config %q", cfg)
	}
	v, err := tokenizer.LoadHFBytes("x", marshal(t, f), []byte(`{"eos_token": "<|end|>"}`), tokenizer.LoadOptions{})
	require.NoError(t, err)
	assert.Equal(t, []int{262}, v.StopTokens())
}

// TestLoadHFAddedTokensKeepTheEncoder: an added token that re-lists a model
// piece with its own text is accepted, and the Encoder still works.
func TestLoadHFAddedTokensKeepTheEncoder(t *testing.T) {
	v, err := tokenizer.LoadHFBytes("x", marshal(t, edit(sentencePieceFile(), added(1, "<s>", true))), nil, tokenizer.LoadOptions{})
	require.NoError(t, err)
	assert.True(t, v.IsSpecial(1))
	enc, err := v.Encoder()
	require.NoError(t, err)
	assert.Equal(t, []int{259, 3 + 'c'}, enc.Encode("c"), "byte fallback")
}

func TestLoadTiktokenNoUsableToken(t *testing.T) {
	_, err := tokenizer.LoadTiktokenBytes("x", []byte(" 0\n"), nil, tokenizer.LoadOptions{Pattern: tokenizer.GPT2Pattern})
	assert.ErrorIs(t, err, tokenizer.ErrMalformed)
	assert.ErrorContains(t, err, "no token has bytes")
}

func TestLoadHFBadJSON(t *testing.T) {
	for _, data := range []string{"", "{", "[]", "null", `{"model": 1}`, "\xff", `{"model":{"vocab":{"a":0}},}`} {
		_, err := tokenizer.LoadHFBytes("x", []byte(data), nil, tokenizer.LoadOptions{})
		require.Error(t, err, "%q", data)
		assert.ErrorIs(t, err, tokenizer.ErrMalformed, "%q", data)
		assert.True(t, strings.HasPrefix(err.Error(), "x/tokenizer.json: "), err.Error())
	}
	_, err := tokenizer.LoadHFBytes("x", marshal(t, byteLevelFile()), []byte(`{"eos_token": 5}`), tokenizer.LoadOptions{})
	assert.ErrorContains(t, err, "x/tokenizer_config.json: eos_token: ")
	_, err = tokenizer.LoadHFBytes("x", marshal(t, byteLevelFile()), []byte(`{"eos_token": `), tokenizer.LoadOptions{})
	assert.ErrorContains(t, err, "x/tokenizer_config.json: ")
}

// TestLoadHFTruncated loads prefixes of the real Llama-3 file: each fails
// with an error naming the file, never a panic.
func TestLoadHFTruncated(t *testing.T) {
	data, err := os.ReadFile(datadir.Tokenizer(t, "llama3", "tokenizer.json"))
	require.NoError(t, err)
	for _, n := range []int{0, 1, 100, len(data) / 3, len(data) / 2, len(data) - 2} {
		_, err := tokenizer.LoadHFBytes("llama3", data[:n], nil, tokenizer.LoadOptions{})
		require.Error(t, err, n)
		assert.ErrorIs(t, err, tokenizer.ErrMalformed)
		assert.True(t, strings.HasPrefix(err.Error(), "llama3/tokenizer.json: "), err.Error())
	}
}

func TestLoadGPT2Errors(t *testing.T) {
	enc := `{"a": 0, "b": 1, "ab": 2, "<|endoftext|>": 3}`
	v, err := tokenizer.LoadGPT2Bytes("g", []byte(enc), []byte("#version: 0.2\na b\n"), tokenizer.LoadOptions{})
	require.NoError(t, err)
	assert.Equal(t, []int{3}, v.StopTokens())
	assert.True(t, v.IsSpecial(3))
	cases := []struct{ enc, bpe, want string }{
		{`{"a": 0`, "", "g/encoder.json: invalid JSON"},
		{`{"a": "x"}`, "", `g/encoder.json: "a": `},
		{`{}`, "", "g/encoder.json: no tokens"},
		{enc, "a b c\n", "g/vocab.bpe: line 1: "},
		{enc, "#version: 0.2\na b\nb c\n", "g/vocab.bpe: line 3: "},
		{enc, "ab\n", "g/vocab.bpe: line 1: "},
	}
	for _, c := range cases {
		_, err := tokenizer.LoadGPT2Bytes("g", []byte(c.enc), []byte(c.bpe), tokenizer.LoadOptions{})
		require.Error(t, err, c)
		assert.Contains(t, err.Error(), c.want)
		assert.ErrorIs(t, err, tokenizer.ErrMalformed)
	}
	_, err = tokenizer.LoadGPT2(filepath.Join(t.TempDir(), "encoder.json"), "vocab.bpe", tokenizer.LoadOptions{})
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// tiktokenRanks is a rank file of the 256 bytes (rank = byte) and extra.
func tiktokenRanks(extra ...string) string {
	var b strings.Builder
	for c := range 256 {
		fmt.Fprintf(&b, "%s %d\n", base64.StdEncoding.EncodeToString([]byte{byte(c)}), c)
	}
	for i, e := range extra {
		fmt.Fprintf(&b, "%s %d\n", base64.StdEncoding.EncodeToString([]byte(e)), 256+i)
	}
	return b.String()
}

func TestLoadTiktoken(t *testing.T) {
	data := tiktokenRanks("ab", "aab", "ba")
	v, err := tokenizer.LoadTiktokenBytes("tiny", []byte(data), map[string]int{"<|endoftext|>": 261}, tokenizer.LoadOptions{Pattern: `\S+|\s+`})
	require.NoError(t, err)
	assert.Equal(t, 262, v.Size())
	assert.Equal(t, []int{261}, v.StopTokens())
	assert.True(t, v.IsSpecial(259), "a hole")
	assert.Nil(t, v.Bytes(260))
	enc, err := v.Encoder()
	require.NoError(t, err)
	assert.Equal(t, []int{257}, enc.Encode("aab"), "a whole word that is a token")
	// abab: ab (256) merges first, twice; ab+ab is no token.
	assert.Equal(t, []int{256, 256}, enc.Encode("abab"))
	// aaba: a+a is no token; ab (256) before ba (258), then a+ab = aab (257).
	assert.Equal(t, []int{257, 'a'}, enc.Encode("aaba"))
	assert.Equal(t, []int{'a', ' ', 256}, enc.Encode("a ab"))

	_, err = tokenizer.LoadTiktokenBytes("tiny", []byte(tiktokenRanks()), nil, tokenizer.LoadOptions{})
	require.NoError(t, err)

	_, err = tokenizer.LoadTiktokenBytes("mystery", []byte(data), nil, tokenizer.LoadOptions{})
	require.NoError(t, err, "an unknown encoding loads")
	v, _ = tokenizer.LoadTiktokenBytes("mystery", []byte(data), nil, tokenizer.LoadOptions{})
	_, err = v.Encoder()
	assert.ErrorIs(t, err, tokenizer.ErrUnsupportedTokenizer, "but has no pattern to encode with")

	cases := []struct {
		data     string
		specials map[string]int
		want     string
	}{
		{"YQ==\n", nil, "t.tiktoken: line 1: "},
		{"!!! 0\n", nil, "t.tiktoken: line 1: "},
		{"YQ== x\n", nil, "t.tiktoken: line 1: "},
		{"YQ== 0\nYQ== 1\n", nil, "t.tiktoken: line 2: "},
		{"YQ== 0\nYg== 0\n", nil, "t.tiktoken: line 2: "},
		{"YQ== 0\n", map[string]int{"<s>": 0}, "t.tiktoken: specials: "},
		{"", nil, "t.tiktoken: no tokens"},
	}
	for _, c := range cases {
		_, err := tokenizer.LoadTiktokenBytes("t", []byte(c.data), c.specials, tokenizer.LoadOptions{})
		require.Error(t, err, c.data)
		assert.Contains(t, err.Error(), c.want)
		assert.ErrorIs(t, err, tokenizer.ErrMalformed)
	}
	_, err = tokenizer.LoadTiktoken(filepath.Join(t.TempDir(), "x.tiktoken"), nil, tokenizer.LoadOptions{})
	assert.ErrorIs(t, err, fs.ErrNotExist)
}
