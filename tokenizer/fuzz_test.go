package tokenizer_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// checkLoaded exercises a vocabulary that loaded: every accessor and, when
// the encoder builds, a few encodings. Nothing may panic.
func checkLoaded(t *testing.T, v *tokenizer.Vocab, err error) {
	if err != nil {
		var fe *tokenizer.FormatError
		if !errors.As(err, &fe) {
			t.Fatalf("error %v is not a *FormatError", err)
		}
		return
	}
	if v.Size() <= 0 || v.LogitWidth() < v.Size() {
		t.Fatalf("size %d, logit width %d", v.Size(), v.LogitWidth())
	}
	for id := -1; id <= v.Size(); id++ {
		if b := v.Bytes(id); b != nil {
			if got, ok := v.TokenID(string(b)); !ok || string(v.Bytes(got)) != string(b) {
				t.Fatalf("TokenID(%q) = %d, %v", b, got, ok)
			}
		}
		v.IsSpecial(id)
	}
	for _, id := range v.StopTokens() {
		if v.Bytes(id) == nil {
			t.Fatalf("stop token %d is a hole", id)
		}
	}
	enc, err := v.Encoder()
	if err != nil {
		return
	}
	for _, s := range []string{"", "a", "hello world", " \n\n  x'S 123456 é e\u0301 日本 😀", "\xff\xfe"} {
		for _, id := range enc.Encode(s) {
			if id < 0 || id >= v.Size() {
				t.Fatalf("Encode(%q) gave id %d of %d", s, id, v.Size())
			}
		}
	}
}

func FuzzLoadHF(f *testing.F) {
	bl := marshal(f, byteLevelFile())
	sp := marshal(f, sentencePieceFile())
	for _, seed := range [][]byte{bl, sp, bl[:len(bl)/2], sp[:len(sp)-1], []byte(`{}`), []byte(`{"model":{"vocab":{"a":0}}}`),
		[]byte(`{"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]},"decoder":{"type":"ByteLevel"}}`),
		[]byte(`{"model":{"vocab":{"<0x41>":0,"▁":1},"byte_fallback":true},"decoder":{"type":"Metaspace","replacement":"▁"},"pre_tokenizer":{"type":"Metaspace","replacement":"▁"}}`),
	} {
		f.Add(seed, []byte(`{"eos_token":"<|end|>"}`))
	}
	f.Add(bl, []byte(`{"eos_token":{"content":"</s>"}}`))
	f.Add(bl, []byte(`{"eos_token`))
	f.Fuzz(func(t *testing.T, data, cfg []byte) {
		v, err := tokenizer.LoadHFBytes("f", data, cfg, tokenizer.LoadOptions{})
		if err != nil && !strings.HasPrefix(err.Error(), "f/tokenizer") {
			t.Fatalf("error %q does not name the file", err)
		}
		checkLoaded(t, v, err)
	})
}

func FuzzLoadGPT2(f *testing.F) {
	enc, bpe, err := gpt2.Files()
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"a": 0, "b": 1, "ab": 2, "<|endoftext|>": 3}`), []byte("#version: 0.2\na b\n"))
	f.Add(enc[:2000], bpe[:1000])
	f.Add([]byte(`{"\u0120": 0}`), []byte("\u0120 \u0120\n"))
	f.Fuzz(func(t *testing.T, enc, bpe []byte) {
		v, err := tokenizer.LoadGPT2Bytes("g", enc, bpe, tokenizer.LoadOptions{})
		checkLoaded(t, v, err)
	})
}

func FuzzLoadTiktoken(f *testing.F) {
	f.Add([]byte(tiktokenRanks("ab", "aab")), "<|endoftext|>", 300)
	f.Add([]byte("YQ== 0\nYg== 1\n"), "<s>", 1)
	f.Add([]byte("YQ== 0\r\n\r\nYg== 7\n"), "", 3)
	f.Fuzz(func(t *testing.T, data []byte, special string, id int) {
		v, err := tokenizer.LoadTiktokenBytes("t", data, map[string]int{special: id}, tokenizer.LoadOptions{Pattern: tokenizer.Cl100kPattern})
		checkLoaded(t, v, err)
	})
}

// FuzzEncode checks that GPT-2's tokens of any text spell it exactly.
func FuzzEncode(f *testing.F) {
	v, err := gpt2.Vocab()
	if err != nil {
		f.Fatal(err)
	}
	enc, err := v.Encoder()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"", "Hello world", "  \n\n x", "I'm 12345 日本 😀", "\xff\xfe", strings.Repeat("ab", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got := string(decode(v, enc.Encode(s))); got != s {
			t.Fatalf("Encode(%q) spells %q", s, got)
		}
	})
}
