// Command maskbench runs JSONSchemaBench's MaskBench protocol with rein:
//
//	go run ./examples/maskbench -data ../shared/data/maskbench -tokenizer ../shared/data/tokenizers/llama3/tokenizer.json
//
// For every schema file it compiles the schema (timing compile plus first
// mask), feeds each test instance — serialized compactly in document order
// and tokenized with rein's Encoder — token by token, timing every mask, and
// checks that valid instances are accepted to the end and invalid ones
// refused. It prints a table by dataset and, last, the summary line.
//
// With -jumpforward it measures jump-forward decoding instead: each valid
// instance is decoded by a model that wants exactly that document, with the
// grammar's forced bytes appended as canonical tokens between model steps;
// it prints, by dataset, the share of tokens jump-forward delivered, the
// model steps saved and the tokens that differ from the Encoder's own
// encoding. Schemas are compiled with compact whitespace there (no
// whitespace between JSON tokens) unless -compact=false:
//
//	go run ./examples/maskbench -jumpforward -data ../shared/data/maskbench -tokenizer .cache/tokenizers/llama3/tokenizer.json
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
	jump := flag.Bool("jumpforward", false, "measure jump-forward decoding on the valid instances instead of masks")
	compact := flag.Bool("compact", false, "compile schemas with compact whitespace (default with -jumpforward)")
	flag.Parse()
	compactSet := false
	flag.Visit(func(f *flag.Flag) { compactSet = compactSet || f.Name == "compact" })

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
	if *compact || (*jump && !compactSet) {
		opts.Schema.Whitespace = grammar.WhitespaceCompact
	}
	if *jump {
		rep, err := maskbench.RunJumpForward(opts)
		if err != nil {
			fail(err)
		}
		rep.WriteTable(os.Stdout)
		writeJSON(*jsonOut, rep.Schemas)
		return
	}
	rep, err := maskbench.Run(opts)
	if err != nil {
		fail(err)
	}
	rep.WriteTable(os.Stdout)
	writeJSON(*jsonOut, rep.Schemas)
}

// writeJSON writes the per-schema results to path, if one was given.
func writeJSON(path string, v any) {
	if path == "" {
		return
	}
	b, err := json.MarshalIndent(v, "", " ")
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "maskbench:", err)
	os.Exit(1)
}
