package reintest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/reintest"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// reporter stands in for a test's *testing.T in these examples: it prints
// what the test would report.
type reporter struct{ testing.TB }

func (reporter) Helper()                           {}
func (reporter) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (reporter) Fatalf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// weather is the schema of a tool call's arguments, with compact JSON.
func weather() rein.Spec {
	spec := rein.JSONSchema(`{
		"type": "object",
		"properties": {
			"city": {"type": "string", "maxLength": 12},
			"unit": {"enum": ["celsius", "fahrenheit"]}
		},
		"required": ["city", "unit"],
		"additionalProperties": false
	}`)
	spec.Schema.Whitespace = jsonschema.WhitespaceCompact
	return spec
}

// Match says whether a grammar takes a text, and where it stops: it reads
// the text as bytes, so the tokenizer's choices do not matter.
func ExampleMatch() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	compiler, err := rein.NewCompiler(vocab, rein.CompilerOptions{})
	if err != nil {
		panic(err)
	}
	c, err := compiler.Compile(context.Background(), weather())
	if err != nil {
		panic(err)
	}
	for _, text := range []string{
		`{"city":"Oslo","unit":"celsius"}`,
		`{"city":"Oslo","unit":"cel`,
		`{"city":"Oslo","unit":"kelvin"}`,
	} {
		r := reintest.Match(c, text)
		fmt.Printf("%-32s  %v\n", text, r)
		if r.Status == reintest.Refused {
			fmt.Printf("%-32s  from %s\n", "", text[r.Offset:])
		}
	}
	// Output:
	// {"city":"Oslo","unit":"celsius"}  complete
	// {"city":"Oslo","unit":"cel        incomplete after 26 bytes
	// {"city":"Oslo","unit":"kelvin"}   refused at byte 23
	//                                   from kelvin"}
}

// MatchTokens checks the tokens an engine sampled, as its matcher would, and
// names the first one the grammar refuses.
func ExampleMatchTokens() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	enc, err := vocab.Encoder()
	if err != nil {
		panic(err)
	}
	c := reintest.Compile(reporter{}, vocab, rein.Regex(`(yes|no), [0-9]{1,3}`))
	stop := vocab.StopTokens()[0]

	ids := append(enc.Encode("yes, 42"), stop)
	fmt.Println(ids, reintest.MatchTokens(c, ids))

	ids = append(enc.Encode("yes, 4"), stop, stop)
	r := reintest.MatchTokens(c, ids)
	fmt.Println(ids, r.Status, "at token", r.Token, "after the stop token:", errors.Is(r.Err, mask.ErrTerminated))

	ids = enc.Encode("no, 4096")
	r = reintest.MatchTokens(c, ids)
	fmt.Printf("%v %v at token %d %q, byte %d %q\n", ids, r.Status, r.Token, vocab.Bytes(ids[r.Token]), r.Offset, "no, 4096"[r.Offset:])
	// Output:
	// [8505 11 5433 50256] complete
	// [8505 11 604 50256 50256] refused at token 4 after the stop token: true
	// [3919 11 42479] refused at token 2 " 4096", byte 7 "6"
}

// Decode writes documents under a grammar with a seeded fake model, the way
// an engine's loop does: the same seed gives the same document, and every
// document is one the grammar accepts.
func ExampleDecode() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	c := reintest.Compile(reporter{}, vocab, weather())
	quote, _ := vocab.TokenID(`"`)
	for seed := range uint64(3) {
		d, err := reintest.Decode(c, reintest.DecodeOptions{
			Seed: seed,
			Bias: map[int]float32{quote: 12}, // close strings soon: a model is that peaked
		})
		if err != nil {
			panic(err)
		}
		fmt.Println(d.Complete, len(d.Tokens), d.Text)
	}
	// Output:
	// true 21 {"city":" fingerprint","unit":"celsius"}
	// true 20 {"unit":"celsius","city":" Dancing"}
	// true 20 {"city":"","unit":"celsius"}
}

// The Assert functions report a text that does not match with the
// testing.TB's Errorf, quoting the text around the byte where it stops.
func ExampleAssertMatch() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	t := reporter{} // in a test: the test's *testing.T
	c := reintest.Compile(t, vocab, weather())

	reintest.AssertMatch(t, c, `{"city":"Oslo","unit":"celsius"}`)   // passes: reports nothing
	reintest.AssertMatch(t, c, `{"city":"Oslo","unit":"kelvin"}`)    // a value the schema refuses
	reintest.AssertMatch(t, c, `{"city":"Oslo"`)                     // a document cut short
	reintest.AssertNoMatch(t, c, `{"city":"Oslo","unit":"celsius"}`) // a document it does accept
	// Output:
	// reintest.AssertMatch: text does not match the grammar: refused at byte 23 (line 1, column 24), after `{"city":"Oslo","unit":"` at `kelvin"}`
	// reintest.AssertMatch: text does not match the grammar: the grammar takes all 14 bytes but needs at least 18 more to end, after `{"city":"Oslo"`
	// reintest.AssertNoMatch: the grammar accepts the whole text `{"city":"Oslo","unit":"celsius"}`
}

// Compile fails the test, with t.Fatalf, when a spec does not compile.
func ExampleCompile() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	t := reporter{} // in a test: the test's *testing.T
	c := reintest.Compile(t, vocab, rein.Regex(`[0-9]{4}-[0-9]{2}`))
	fmt.Println(reintest.Match(c, "2024-05"))

	reintest.Compile(t, vocab, rein.JSONSchema(`{"type":"object","properties":{"n":{"type":"integr"}}}`))
	// Output:
	// complete
	// reintest.Compile: rein: compile json-schema: jsonschema: /properties/n/type: type: unknown type "integr"
}
