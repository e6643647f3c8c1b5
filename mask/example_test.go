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
