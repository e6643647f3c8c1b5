// Command maskbench runs JSONSchemaBench's MaskBench protocol with rein:
//
//	go run ./examples/maskbench -data ../shared/data/maskbench -tokenizer ../shared/data/tokenizers/llama3/tokenizer.json
//
// For every schema file it compiles the schema (timing compile plus first
// mask), feeds each test instance — serialized compactly in document order
// and tokenized with rein's Encoder — token by token, timing every mask, and
// checks that valid instances are accepted to the end and invalid ones
// refused. It prints a table by dataset and, last, the summary line.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/maskbench"
	"github.com/reinlm/rein/tokenizer"
)

func main() {
	data := flag.String("data", "../shared/data/maskbench", "folder of MaskBench schema files")
	tok := flag.String("tokenizer", "../shared/data/tokenizers/llama3/tokenizer.json", "tokenizer.json of the model")
	jsonOut := flag.String("json", "", "write per-schema results to this file as JSON")
	every := flag.Int("every", 1, "run every n-th file (in name order)")
	limit := flag.Int("limit", 0, "run at most this many files")
	lenient := flag.Bool("lenient", false, "ignore keywords that cannot be enforced (listed as warnings)")
	anyOrder := flag.Bool("any-order", false, "accept object properties in any order")
	verbose := flag.Bool("v", false, "log every failing schema")
	flag.Parse()

	vocab, err := tokenizer.LoadHF(*tok)
	if err != nil {
		fail(err)
	}
	opts := maskbench.Options{Dir: *data, Vocab: vocab, Every: *every, Limit: *limit}
	opts.Schema.Lenient = *lenient
	if *anyOrder {
		opts.Schema.Order = grammar.OrderAny
	}
	if *verbose {
		opts.Log = os.Stderr
	}
	rep, err := maskbench.Run(opts)
	if err != nil {
		fail(err)
	}
	rep.WriteTable(os.Stdout)
	if *jsonOut != "" {
		b, err := json.MarshalIndent(rep.Schemas, "", " ")
		if err == nil {
			err = os.WriteFile(*jsonOut, b, 0o644)
		}
		if err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "maskbench:", err)
	os.Exit(1)
}
