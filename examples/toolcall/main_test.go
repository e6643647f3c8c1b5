package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun runs the example on Qwen3's vocabulary and checks the turn it
// prints: thinking, text, two valid calls to two tools, the end of turn.
func TestRun(t *testing.T) {
	path := filepath.Join("..", "..", ".cache", "tokenizers", "qwen3", "tokenizer.json")
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("REIN_REQUIRE_DATA") == "1" {
			t.Fatalf("%s is missing: run `make vocab`", path)
		}
		t.Skipf("%s is missing: run `make vocab`", path)
	}
	for _, seed := range []uint64{1, 2, 3} {
		var out bytes.Buffer
		if err := run(&out, path, seed); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, out.String())
		}
		s := out.String()
		for _, want := range []string{"thinking: The user asks", "text:     Let me look that up.", "call:     get_weather(", "call:     get_time(", "end:      <|im_end|>"} {
			if !strings.Contains(s, want) {
				t.Errorf("seed %d: no %q in\n%s", seed, want, s)
			}
		}
		if strings.Count(s, "arguments valid: true") != 2 {
			t.Errorf("seed %d: want two valid calls in\n%s", seed, s)
		}
	}
}
