// Package tokenizer loads real tokenizer vocabularies as exact byte strings
// and encodes text the way the model's own tokenizer does.
//
// A Vocab maps every token id to the bytes it stands for, knows the special
// and stop tokens and the model's logit width. Loaders read Hugging Face
// tokenizer.json files (byte-level BPE and SentencePiece with byte fallback),
// GPT-2's encoder.json with vocab.bpe, and tiktoken rank files. An Encoder
// turns text into the model's canonical token ids; jump-forward decoding uses
// it to re-tokenize.
//
// tokenizer knows nothing of grammars.
package tokenizer
