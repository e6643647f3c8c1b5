package structtag_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/structtag"
)

// manyTriggers is a triggered_tags request of n triggers and m tags, each
// tag beginning with its own trigger.
func manyTriggers(n, m int) []byte {
	var b strings.Builder
	b.WriteString(`{"type":"triggered_tags","triggers":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"<t%d>"`, i)
	}
	b.WriteString(`],"tags":[`)
	for i := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"begin":"<t%d>x","content":{"type":"const_string","value":"y"},"end":"."}`, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

// BenchmarkManyTriggers compiles a request of 200,000 triggers and 16,000
// tags (3 MB): each tag's begin is looked up among the triggers by its
// prefixes, not compared with every trigger.
func BenchmarkManyTriggers(b *testing.B) {
	req := manyTriggers(200_000, 16_000)
	for b.Loop() {
		_, err := structtag.Compile(req, structtag.Options{})
		require.NoError(b, err)
	}
}
