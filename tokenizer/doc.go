// Package tokenizer loads real tokenizer vocabularies as exact byte strings
// and encodes text the way the model's own tokenizer does.
//
// # Vocabularies
//
// A Vocab maps every token id to the bytes it stands for: Bytes(id). Those
// bytes are what the model emits, so a token may hold part of a UTF-8
// character (Mistral's <0xE2>, GPT-2's "\xf0\x9f\x98") or span JSON
// punctuation (`",`). Special tokens (BOS, EOS, chat markers) stand for their
// literal text but are flagged by IsSpecial, as are holes, ids below Size
// that no token uses; a grammar never allows them, except StopTokens when it
// can end. LogitWidth is the width of the model's logit rows, which may
// exceed Size (Qwen2.5 pads 151,669 tokens to 151,936 logits). A Vocab is
// immutable and safe for concurrent use; WithLogitWidth and WithStopTokens
// return copies.
//
// # Loaders
//
// LoadHF reads a Hugging Face tokenizer.json whose model is BPE, telling its
// family from the decoder: byte-level (GPT-2, Llama-3, Qwen: token strings
// in GPT-2's byte alphabet, 'Ġ' for a space) or SentencePiece (Llama-2,
// Mistral: '▁' for a space, <0xXX> for a raw byte under byte fallback). It
// reads tokenizer_config.json beside the file for eos_token. LoadGPT2 reads
// OpenAI's encoder.json and vocab.bpe, LoadTiktoken a tiktoken rank file
// (LoadO200kBase and LoadCl100kBase add the special tokens). Each has a
// *Bytes variant for data in memory; package tokenizer/gpt2 embeds GPT-2's
// vocabulary. Every loader takes a LoadOptions by value as its last argument,
// whose zero value asks for the defaults:
//
//	v, err := tokenizer.LoadHF("llama3/tokenizer.json", tokenizer.LoadOptions{})
//	v, err = tokenizer.LoadTiktoken(path, nil, tokenizer.LoadOptions{Pattern: tokenizer.Cl100kPattern})
//
// Loaders never panic. A malformed or truncated file, or one of a kind rein
// does not implement (a Unigram model, an unknown decoder), gives a
// *FormatError naming the file and the field ("llama3/tokenizer.json:
// model.vocab: …") that unwraps to ErrMalformed or ErrUnsupportedTokenizer. What only
// encoding needs, the normalizer and the pre-tokenizer, is checked when the
// Encoder is built, so that a vocabulary rein cannot encode with still loads
// for masking.
//
// Vocab.Trie returns the trie of the ordinary tokens (package toktrie),
// built on first use and shared, like the token data, by the copies the
// With* methods make: mask walks it to classify tokens, jump-forward asks it
// which tokens extend some bytes.
//
// # Encoding
//
// Vocab.Encoder returns the vocabulary's Encoder, built once and shared.
// Encode runs the model's pipeline: non-special added tokens are split out
// whole (Qwen's <think>); each stretch is normalized (NFC for Qwen, '▁' for
// spaces and a leading '▁' for Mistral), cut into words by the model's
// pre-tokenizer regex (the Split pattern of tokenizer.json, or GPT-2's and
// tiktoken's patterns, run by dlclark/regexp2, with case-insensitive groups
// folded as the reference Rust engines fold them), and each word is encoded
// by BPE: the lowest-ranked merge of two adjacent tokens first, the leftmost
// among equals, in O(n log n) for long words. A word that is a whole token is
// that token when the model says so (Llama-3's ignore_merges, and always for
// tiktoken). SentencePiece characters with no piece fall back to their
// bytes' <0xXX> tokens. Short words are cached. Special tokens' text is
// plain text to Encode: it never produces a special token.
//
// The tests compare every token of six real vocabularies (Llama-3, Qwen3,
// Mistral, GPT-2, cl100k_base, o200k_base) and the encodings of hundreds of
// strings with the reference implementations; scripts/golden makes those
// golden files.
//
// tokenizer knows nothing of grammars.
package tokenizer
