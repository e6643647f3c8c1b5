package fsm_test

import (
	"context"
	"fmt"
	"regexp/syntax"

	"github.com/reinlm/rein/fsm"
)

// Strings of two or three characters that do not start with a digit: a
// pattern's complement intersected with length bounds, turned back into a
// regular expression.
func ExampleRuneRegexp() {
	re, err := syntax.Parse(`(?s)[0-9].*`, syntax.Perl)
	if err != nil {
		panic(err)
	}
	digit, err := fsm.RuneRegexp(context.Background(), re, 1000)
	if err != nil {
		panic(err)
	}
	length, err := fsm.RuneLength(fsm.ScalarValues(), 2, 3, 1000)
	if err != nil {
		panic(err)
	}
	d, err := digit.Complement(fsm.ScalarValues()).Intersect(context.Background(), length, 1000)
	if err != nil {
		panic(err)
	}
	for _, s := range []string{"ab", "1b", "é世", "a", "abcd"} {
		fmt.Printf("%s %v\n", s, d.Match(s))
	}
	out, err := d.ToRegexp(context.Background(), fsm.RegexpLimits{})
	if err != nil {
		panic(err)
	}
	fmt.Println(out)
	// Output:
	// ab true
	// 1b false
	// é世 true
	// a false
	// abcd false
	// [^0-9\x{d800}-\x{dfff}][^\x{d800}-\x{dfff}](?:(?:)|[^\x{d800}-\x{dfff}])
}
