package mask_test

import (
	"fmt"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer/gpt2"
)

// An engine compiles a grammar once per request, keeps one Matcher per
// sequence, and at every step fills the bitmask, masks its logits, samples
// and accepts the token.
func ExampleCompile() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	g, err := grammar.FromRegex(`(yes|no), [0-9]{1,3}`, grammar.Limits{})
	if err != nil {
		panic(err)
	}
	compiled, err := mask.Compile(g, vocab, mask.Options{})
	if err != nil {
		panic(err)
	}
	m := compiled.NewMatcher()
	bitmask := mask.NewBitmask(1, vocab.Size())

	if err := m.FillBitmask(bitmask, 0); err != nil {
		panic(err)
	}
	yes, _ := vocab.TokenID("yes")
	maybe, _ := vocab.TokenID("maybe")
	fmt.Println("yes allowed:", bitmask.Allowed(0, yes), "maybe allowed:", bitmask.Allowed(0, maybe))

	for _, text := range []string{"yes", ",", " 4", "2"} {
		id, _ := vocab.TokenID(text)
		fmt.Printf("accept %q: %v\n", text, m.AcceptToken(id))
	}
	fmt.Println("can end:", m.CanEnd())
	// Output:
	// yes allowed: true maybe allowed: false
	// accept "yes": true
	// accept ",": true
	// accept " 4": true
	// accept "2": true
	// can end: true
}

// Apply masks a batch of logits on the CPU in place: disallowed tokens
// become -Inf.
func ExampleApply() {
	bm := mask.NewBitmask(1, 5)
	bm.Set(0, 1)
	bm.Set(0, 3)
	logits := []float32{0.5, 1.5, 2.5, 3.5, 4.5, 9.9} // one row, padded to width 6
	if err := mask.Apply(logits, 6, bm, nil); err != nil {
		panic(err)
	}
	fmt.Println(logits)
	// Output: [-Inf 1.5 -Inf 3.5 -Inf -Inf]
}

// Speculative decoding: a draft model proposes k tokens, ValidateTokens
// says how many the grammar takes (without moving the matcher), the engine
// keeps that many of the target model's verdicts and accepts them; had it
// accepted more, Rollback undoes any number of steps.
func ExampleMatcher_ValidateTokens() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	g, err := grammar.FromRegex(`(yes|no), [0-9]{1,3}`, grammar.Limits{})
	if err != nil {
		panic(err)
	}
	compiled, err := mask.Compile(g, vocab, mask.Options{})
	if err != nil {
		panic(err)
	}
	m := compiled.NewMatcher()
	ids := func(texts ...string) []int {
		var out []int
		for _, t := range texts {
			id, _ := vocab.TokenID(t)
			out = append(out, id)
		}
		return out
	}

	draft := ids("yes", ",", " 4", "!", "2")
	n := m.ValidateTokens(draft)
	fmt.Println("the grammar takes", n, "of", len(draft), "draft tokens; matcher still at", m.NumTokens())
	for _, id := range draft[:n] {
		m.AcceptToken(id)
	}

	// A step too far is undone token by token.
	m.AcceptToken(ids("2")[0])
	fmt.Println("after one more:", m.NumTokens(), "tokens, can end:", m.CanEnd())
	if err := m.Rollback(1); err != nil {
		panic(err)
	}
	fmt.Println("rolled back:", m.NumTokens(), "tokens")
	// Output:
	// the grammar takes 3 of 5 draft tokens; matcher still at 0
	// after one more: 4 tokens, can end: true
	// rolled back: 3 tokens
}

// Beam search: every beam holds its own matcher, forked from its parent's
// when it branches; the forks share the compiled grammar and nothing else.
func ExampleMatcher_Fork() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	g, err := grammar.FromRegex(`(yes|no), [0-9]{1,3}`, grammar.Limits{})
	if err != nil {
		panic(err)
	}
	compiled, err := mask.Compile(g, vocab, mask.Options{})
	if err != nil {
		panic(err)
	}
	root := compiled.NewMatcher()
	token := func(t string) int { id, _ := vocab.TokenID(t); return id }

	// Two beams branch after the root's first step.
	root.AcceptToken(token("no"))
	beams := map[string]*mask.Matcher{"comma": root.Fork(), "space": root.Fork()}
	fmt.Println("comma beam takes \",\":", beams["comma"].AcceptToken(token(",")))
	fmt.Println("space beam takes \" 7\":", beams["space"].AcceptToken(token(" 7")))

	// A beam that survives goes on; its fork and the root are untouched.
	b := beams["comma"]
	fmt.Println("comma beam takes \" 7\":", b.AcceptToken(token(" 7")), "can end:", b.CanEnd())
	fmt.Println("root still at", root.NumTokens(), "token")
	// Output:
	// comma beam takes ",": true
	// space beam takes " 7": false
	// comma beam takes " 7": true can end: true
	// root still at 1 token
}

// Why a sequence stops, and where the grammar refuses: MustEnd says the
// output is complete with nothing else allowed (the engine can end it
// without sampling), and a refusal says at which byte.
func ExampleMatcher_StopReason() {
	vocab, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	g, err := grammar.FromRegex(`(yes|no), [0-9]{1,2}`, grammar.Limits{})
	if err != nil {
		panic(err)
	}
	compiled, err := mask.Compile(g, vocab, mask.Options{})
	if err != nil {
		panic(err)
	}
	m := compiled.NewMatcher()
	fmt.Println(m.AcceptText("no, 4x"))
	fmt.Println(m.AcceptText("no, 4"), m.StopReason())
	fmt.Println(m.AcceptText("2"), m.StopReason(), m.MustEnd())
	m.AcceptToken(vocab.StopTokens()[0])
	fmt.Println(m.StopReason())
	// Output:
	// mask: token rejected by the grammar: text "no, 4x", refused at byte 5
	// <nil> not stopped
	// <nil> complete: only a stop token may come true
	// stopped by a stop token
}
