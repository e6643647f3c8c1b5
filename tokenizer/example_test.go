package tokenizer_test

import (
	"fmt"
	"log"

	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// LoadHF reads a Hugging Face tokenizer.json, and tokenizer_config.json
// beside it for the end-of-sequence token. (This example needs the file, so
// it is not run; `make vocab` fetches Llama-3's.)
func ExampleLoadHF() {
	v, err := tokenizer.LoadHF(".cache/tokenizers/llama3/tokenizer.json", tokenizer.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	hello, _ := v.TokenID("Hello")
	fmt.Println(v.Name(), v.Size(), hello, v.StopTokens())
	// Llama-3 prints: llama3 128256 9906 [128001 128009]
}

// LoadHFBytes loads a tokenizer.json held in memory; here a tiny
// SentencePiece one.
func ExampleLoadHFBytes() {
	file := []byte(`{
	  "added_tokens": [{"id": 0, "content": "</s>", "special": true}],
	  "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": true},
	  "decoder": {"type": "Metaspace", "replacement": "▁"},
	  "model": {"type": "BPE", "unk_token": "</s>",
	    "vocab": {"</s>": 0, "▁": 1, "h": 2, "i": 3, "▁h": 4, "▁hi": 5},
	    "merges": ["▁ h", "▁h i"]}
	}`)
	v, err := tokenizer.LoadHFBytes("tiny", file, []byte(`{"eos_token": "</s>"}`), tokenizer.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	enc, err := v.Encoder()
	if err != nil {
		log.Fatal(err)
	}
	for _, id := range enc.Encode("hi hi") {
		fmt.Printf("%d %q\n", id, v.Bytes(id))
	}
	fmt.Println("stop:", v.StopTokens(), v.IsSpecial(0))
	// Output:
	// 5 " hi"
	// 5 " hi"
	// stop: [0] true
}

// LoadO200kBase reads OpenAI's o200k_base.tiktoken with its special tokens.
// (Not run: it needs the file.)
func ExampleLoadO200kBase() {
	v, err := tokenizer.LoadO200kBase(".cache/tokenizers/tiktoken/o200k_base.tiktoken", tokenizer.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(v.Size(), v.StopTokens())
	// prints: 200019 [199999]
}

// Encode gives the ids the model's own tokenizer gives. Token bytes are
// exact: a token may be part of a character, or span JSON punctuation.
func ExampleEncoder_Encode() {
	v, err := gpt2.Vocab()
	if err != nil {
		log.Fatal(err)
	}
	enc, err := v.Encoder()
	if err != nil {
		log.Fatal(err)
	}
	for _, id := range enc.Encode(`{"city": "Zürich 😀"}`) {
		fmt.Printf("%d %q\n", id, v.Bytes(id))
	}
	// Output:
	// 4895 "{\""
	// 19205 "city"
	// 1298 "\":"
	// 366 " \""
	// 57 "Z"
	// 9116 "ü"
	// 7527 "rich"
	// 30325 " \xf0\x9f\x98"
	// 222 "\x80"
	// 20662 "\"}"
}

// A model may pad its output layer past the vocabulary; masks must then be
// as wide as the logits.
func ExampleVocab_WithLogitWidth() {
	v, err := gpt2.Vocab()
	if err != nil {
		log.Fatal(err)
	}
	padded, err := v.WithLogitWidth(50304)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(padded.Size(), padded.LogitWidth(), padded.IsSpecial(50300))
	// Output: 50257 50304 true
}
