package jumpforward_test

import (
	"fmt"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/jumpforward"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// An engine calls Next once per step, after accepting the model's token, and
// edits its sequence the way the result says. Here the "model" wants to
// write one document and takes the Encoder's next token for the rest of it;
// the grammar writes what it forces.
func ExampleForwarder_Next() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	enc, err := vocab.Encoder()
	if err != nil {
		panic(err)
	}
	schema := `{"type":"object","properties":{
		"name":{"type":"string"},
		"house":{"enum":["Gryffindor","Hufflepuff","Ravenclaw","Slytherin"]}},
		"required":["name","house"],"additionalProperties":false}`
	g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact, Order: jsonschema.OrderDeclared})
	if err != nil {
		panic(err)
	}
	compiled, err := mask.Compile(g, vocab, mask.Options{})
	if err != nil {
		panic(err)
	}
	m := compiled.NewMatcher()
	fw, err := jumpforward.New(compiled, jumpforward.Options{})
	if err != nil {
		panic(err)
	}

	doc := `{"name":"Harry","house":"Ravenclaw"}`
	var seq []int
	written := 0
	for {
		jf := fw.Next(m, seq)
		if !jf.Empty() {
			fmt.Printf("jump:  %q (forced %q, roll back %d)\n", text(vocab.Bytes, jf.Tokens), jf.Forced, jf.Rollback)
			for _, id := range seq[len(seq)-jf.Rollback:] {
				written -= len(vocab.Bytes(id))
			}
			seq = append(seq[:len(seq)-jf.Rollback], jf.Tokens...)
			for _, id := range jf.Tokens {
				written += len(vocab.Bytes(id))
			}
		}
		if written == len(doc) {
			break
		}
		id := enc.Encode(doc[written:])[0] // the model's choice
		if !m.AcceptToken(id) {
			panic("refused")
		}
		fmt.Printf("model: %q\n", vocab.Bytes(id))
		seq = append(seq, id)
		written += len(vocab.Bytes(id))
	}
	fmt.Println("can end:", m.CanEnd())
	// Output:
	// jump:  ["{\"" "name"] (forced "{\"name\":\"", roll back 0)
	// model: "\":\""
	// model: "Harry"
	// model: "\",\""
	// jump:  ["house" "\":\""] (forced "house\":\"", roll back 0)
	// model: "Raven"
	// jump:  ["claw" "\"}"] (forced "claw\"}", roll back 0)
	// can end: true
}

func text(bytes func(int) []byte, ids []int) []string {
	var out []string
	for _, id := range ids {
		out = append(out, string(bytes(id)))
	}
	return out
}

// Forced reports the bytes the grammar forces without changing the matcher.
func ExampleForwarder_Forced() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	g, err := grammar.FromRegex(`(INFO|WARN|ERROR) \[[a-z]+\] (done|failed)`, grammar.Limits{})
	if err != nil {
		panic(err)
	}
	compiled, err := mask.Compile(g, vocab, mask.Options{})
	if err != nil {
		panic(err)
	}
	fw, err := jumpforward.New(compiled, jumpforward.Options{})
	if err != nil {
		panic(err)
	}
	m := compiled.NewMatcher()
	for _, s := range []string{"", "W", "ARN [db] ", "f"} {
		m.AcceptString(s)
		fmt.Printf("%q\n", fw.Forced(m))
	}
	// Output:
	// ""
	// "ARN ["
	// ""
	// "ailed"
}

// Next without a Forwarder: one line per step, for code that does not keep
// one (it makes a Forwarder per call).
func ExampleNext() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	g, err := grammar.FromRegex(`Answer: (yes|no)\.`, grammar.Limits{})
	if err != nil {
		panic(err)
	}
	compiled, err := mask.Compile(g, vocab, mask.Options{})
	if err != nil {
		panic(err)
	}
	m := compiled.NewMatcher()
	jf := jumpforward.Next(m, nil)
	fmt.Printf("forced %q, append %q\n", jf.Forced, text(vocab.Bytes, jf.Tokens))
	// Output: forced "Answer: ", append ["Answer" ":"]
}

// An engine that cannot rewrite its KV cache sets Options.AppendOnly: a step
// never replaces a token the sequence has. Where the canonical step would
// (the model ended the name with `"` alone, and `","` is the tokenizer's
// own spelling), the append-only one leaves the bytes to the model, and
// appends what is still forced once the model has written its token.
func ExampleOptions_appendOnly() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	enc, err := vocab.Encoder()
	if err != nil {
		panic(err)
	}
	schema := `{"type":"object","properties":{"name":{"type":"string"},"house":{"enum":["Gryffindor","Slytherin"]}},"required":["name","house"],"additionalProperties":false}`
	g, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact, Order: jsonschema.OrderDeclared})
	if err != nil {
		panic(err)
	}
	compiled, err := mask.Compile(g, vocab, mask.Options{})
	if err != nil {
		panic(err)
	}
	quote, _ := vocab.TokenID(`"`)
	seq := append(enc.Encode(`{"name":"Harry`), quote) // the model's tokens
	for _, appendOnly := range []bool{false, true} {
		fw, err := jumpforward.New(compiled, jumpforward.Options{AppendOnly: appendOnly})
		if err != nil {
			panic(err)
		}
		m := compiled.NewMatcher()
		for _, id := range seq {
			m.AcceptToken(id)
		}
		jf := fw.Next(m, seq)
		fmt.Printf("append-only %v: forced %q, roll back %d, append %q\n", appendOnly, jf.Forced, jf.Rollback, text(vocab.Bytes, jf.Tokens))
		if appendOnly {
			comma := enc.Encode(`,"`)[0] // the model writes on
			m.AcceptToken(comma)
			jf = fw.Next(m, append(seq, comma))
			fmt.Printf("after %q: roll back %d, append %q\n", vocab.Bytes(comma), jf.Rollback, text(vocab.Bytes, jf.Tokens))
		}
	}
	// Output:
	// append-only false: forced ",\"house\":\"", roll back 1, append ["\",\"" "house" "\":\""]
	// append-only true: forced ",\"house\":\"", roll back 0, append []
	// after ",\"": roll back 0, append ["house" "\":\""]
}
