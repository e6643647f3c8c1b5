package rein_test

import (
	"context"
	"fmt"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// A scheduler starts each request's compile as the request arrives and
// polls the handles: a request joins the running batch once its grammar is
// ready, or fails alone.
func ExampleCompiler_CompileAsync() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	compiler, err := rein.NewCompiler(vocab, rein.CompilerOptions{})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	waiting := map[string]*rein.Handle{
		"weather": compiler.CompileAsync(ctx, rein.JSONSchema(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)),
		"answer":  compiler.CompileAsync(ctx, rein.Choice("yes", "no")),
		"broken":  compiler.CompileAsync(ctx, rein.JSONSchema(`{"type":"object","properties":{"n":{"type":"integr"}}}`)),
	}
	for _, name := range []string{"weather", "answer", "broken"} {
		h := waiting[name]
		if _, err := h.Wait(ctx); err != nil { // a real scheduler polls h.Ready() between steps
			fmt.Printf("%s: failed alone: %v\n", name, err)
			continue
		}
		m := h.Compiled().NewMatcher()
		fmt.Printf("%s: ready, starts with '{': %v\n", name, m.AcceptString("{"))
	}
	// Output:
	// weather: ready, starts with '{': true
	// answer: ready, starts with '{': false
	// broken: failed alone: rein: compile json-schema: jsonschema: /properties/n/type: type: unknown type "integr"
}

// Compile waits for the grammar; identical specs share one compiled grammar.
func ExampleCompiler_Compile() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	compiler, err := rein.NewCompiler(vocab, rein.CompilerOptions{})
	if err != nil {
		panic(err)
	}
	a, err := compiler.Compile(context.Background(), rein.Regex(`[0-9]{4}-[0-9]{2}-[0-9]{2}`))
	if err != nil {
		panic(err)
	}
	b, _ := compiler.Compile(context.Background(), rein.Regex(`[0-9]{4}-[0-9]{2}-[0-9]{2}`))
	m := a.NewMatcher()
	fmt.Println("same grammar:", a == b, "accepts a date:", m.AcceptString("2024-05-17") && m.CanEnd())
	st := compiler.Stats()
	fmt.Println("compiles:", st.Compiles, "cache hits:", st.Hits)
	// Output:
	// same grammar: true accepts a date: true
	// compiles: 1 cache hits: 1
}

// An HTTP handler turns a request body, in OpenAI's shape or vLLM's, into
// the spec to compile in one call; a malformed or unsupported request is a
// 400 naming the place.
func ExampleParseRequest() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	compiler, err := rein.NewCompiler(vocab, rein.CompilerOptions{})
	if err != nil {
		panic(err)
	}
	bodies := []string{
		`{"model": "m", "messages": [], "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "strict": true,
			"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"], "additionalProperties": false}}}}`,
		`{"model": "m", "prompt": "Pick one", "structured_outputs": {"choice": ["red", "green"]}}`,
		`{"model": "m", "messages": []}`,
		`{"model": "m", "messages": [], "structured_outputs": {"regex": "[a-z]+", "choice": ["a"]}}`,
	}
	for _, body := range bodies {
		spec, ok, err := rein.ParseRequest([]byte(body), rein.RequestOptions{})
		switch {
		case err != nil:
			fmt.Println("400:", err)
			continue
		case !ok:
			fmt.Println("no constraint")
			continue
		}
		compiled, err := compiler.Compile(context.Background(), spec)
		if err != nil {
			fmt.Println("400:", err)
			continue
		}
		m := compiled.NewMatcher()
		fmt.Printf("%s: accepts %q: %v\n", spec.Kind, `{"ok": true}`, m.AcceptText(`{"ok": true}`) == nil && m.CanEnd())
	}
	// Output:
	// json-schema: accepts "{\"ok\": true}": true
	// choice: accepts "{\"ok\": true}": false
	// no constraint
	// 400: rein: request: /structured_outputs/choice: a second constraint beside regex: set exactly one of json, regex, choice, grammar, json_object, structural_tag
}
