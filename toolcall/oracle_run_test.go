package toolcall

import (
	"fmt"
	"testing"
)

// allCases is every family's table.
func allCases() []outputCase {
	var out []outputCase
	for _, f := range callFormats {
		out = append(out, f.cases()...)
	}
	return out
}

func (c outputCase) name() string {
	s := fmt.Sprintf("%v/%s", c.model, c.choice)
	if c.reasoning {
		s += "/reasoning"
	}
	return s
}

// TestOutputsByOracle checks every table against the structural tag JSON
// read by the test oracle.
func TestOutputsByOracle(t *testing.T) {
	o := newOracle(t)
	for _, c := range allCases() {
		t.Run(c.name(), func(t *testing.T) {
			data, err := StructuralTag(c.choice.request(c.model, c.reasoning))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.accept {
				if !o.matches(data, s) {
					t.Errorf("refused %q\nstructural tag: %s", s, data)
				}
			}
			for _, s := range c.reject {
				if o.matches(data, s) {
					t.Errorf("accepted %q\nstructural tag: %s", s, data)
				}
			}
		})
	}
}
