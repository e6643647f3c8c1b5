//go:build ignore

// Golden files for the tiktoken vocabularies (gpt2 = r50k_base, cl100k, o200k),
// made by the reference implementation github.com/tiktoken-go/tokenizer, not
// by rein. make-goldens.sh runs it from a scratch module outside the
// repository, so rein's go.mod never depends on it.
//
// It writes GOLDEN_DIR/vocab-NAME.json in the format hf.cjs describes
// (digests as in digests.cjs). Token bytes are exact: Go strings hold any
// bytes, and Decode of one rank returns that rank's bytes. The special tokens
// are those tiktoken defines for each encoding. It also writes its encodings
// of inputs.json to SCRATCH_DIR/tiktoken-go-NAME.json, for tiktoken.cjs, which
// checks every digest and special token against js-tiktoken and writes the
// encode-NAME.json goldens.
//
// usage: go run tiktoken.go GOLDEN_DIR SCRATCH_DIR
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"

	"github.com/tiktoken-go/tokenizer"
)

const chunk = 256

type encoding struct {
	name     string
	enc      tokenizer.Encoding
	specials map[string]int
}

var encodings = []encoding{
	{"gpt2", tokenizer.R50kBase, map[string]int{"<|endoftext|>": 50256}},
	{"cl100k", tokenizer.Cl100kBase, map[string]int{
		"<|endoftext|>": 100257, "<|fim_prefix|>": 100258, "<|fim_middle|>": 100259,
		"<|fim_suffix|>": 100260, "<|endofprompt|>": 100276,
	}},
	{"o200k", tokenizer.O200kBase, map[string]int{"<|endoftext|>": 199999, "<|endofprompt|>": 200018}},
}

func main() {
	out, scratch := os.Args[1], os.Args[2]
	var inputs []string
	data, err := os.ReadFile(filepath.Join(out, "inputs.json"))
	check(err)
	check(json.Unmarshal(data, &inputs))
	reference := "github.com/tiktoken-go/tokenizer"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == reference {
				reference += "@" + d.Version
			}
		}
	}

	for _, e := range encodings {
		codec, err := tokenizer.Get(e.enc)
		check(err)

		// Every rank's bytes, then the specials' text; holes stay nil.
		var toks [][]byte
		for id := 0; ; id++ {
			s, err := codec.Decode([]uint{uint(id)})
			if err != nil {
				break
			}
			toks = append(toks, []byte(s))
		}
		var special []int
		for text, id := range e.specials {
			for len(toks) <= id {
				toks = append(toks, nil)
			}
			toks[id] = []byte(text)
			special = append(special, id)
		}
		slices.Sort(special)
		for id, t := range toks {
			if t == nil && !slices.Contains(special, id) {
				special = append(special, id) // a hole is special too
			}
		}
		slices.Sort(special)
		v := map[string]any{
			"reference": reference, "vocab": e.name, "size": len(toks), "chunk": chunk,
			"special": special, "digests": digests(toks),
		}
		vj, err := json.MarshalIndent(v, "", " ")
		check(err)
		check(os.WriteFile(filepath.Join(out, "vocab-"+e.name+".json"), append(vj, '\n'), 0o644))

		all := make([][]uint, len(inputs))
		for i, in := range inputs {
			all[i], _, err = codec.Encode(in)
			check(err)
			if all[i] == nil {
				all[i] = []uint{}
			}
		}
		ej, err := json.Marshal(map[string]any{"reference": reference, "ids": all})
		check(err)
		check(os.WriteFile(filepath.Join(scratch, "tiktoken-go-"+e.name+".json"), ej, 0o644))
		fmt.Printf("%s: %d tokens, %d special or holes, %d inputs encoded\n", e.name, len(toks), len(special), len(inputs))
	}
}

func digests(toks [][]byte) []string {
	var out []string
	for start := 0; start < len(toks); start += chunk {
		h := sha256.New()
		for id := start; id < min(start+chunk, len(toks)); id++ {
			hx := "-"
			if toks[id] != nil {
				hx = hex.EncodeToString(toks[id])
			}
			fmt.Fprintf(h, "%d %s\n", id, hx)
		}
		out = append(out, hex.EncodeToString(h.Sum(nil)))
	}
	return out
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
