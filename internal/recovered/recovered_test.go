package recovered

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The excerpt starts at the function that panicked, not in the runtime or in
// the recovering function, and keeps at most 16 lines.
func TestStackStartsAtThePanic(t *testing.T) {
	var got string
	func() {
		defer func() {
			if recover() != nil {
				got = Stack()
			}
		}()
		panicHere()
	}()
	first, _, _ := strings.Cut(got, "\n")
	assert.Contains(t, first, "panicHere")
	assert.LessOrEqual(t, strings.Count(got, "\n")+1, stackLines)
}

func panicHere() { panic("boom") }
