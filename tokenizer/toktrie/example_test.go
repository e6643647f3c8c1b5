package toktrie_test

import (
	"fmt"

	"github.com/reinlm/rein/tokenizer/gpt2"
)

// The tokens that start with some bytes sit side by side in sorted order:
// Prefix finds them, and Extends tells whether one goes on with a given
// byte.
func ExampleTrie_Prefix() {
	voc, err := gpt2.Vocab()
	if err != nil {
		panic(err)
	}
	tr := voc.Trie()
	lo, hi := tr.Prefix([]byte("Hel"))
	for i := lo; i < hi; i++ {
		fmt.Printf("%d %q\n", tr.IDs()[i], tr.Token(i))
	}
	var next [4]uint64
	next['p'>>6] |= 1 << ('p' & 63) // is there a token "Help..."?
	fmt.Println(tr.Extends([]byte("Hel"), &next))
	// Output:
	// 12621 "Hel"
	// 28254 "Hell"
	// 15496 "Hello"
	// 22087 "Help"
	// 47429 "Helper"
	// true
}
