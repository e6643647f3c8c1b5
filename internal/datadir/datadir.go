// Package datadir finds the real data rein's tests and benchmarks use: the
// vocabularies cached by `make vocab` and the shared data folder beside the
// checkout (../shared/data). Under `make test` (REIN_REQUIRE_DATA=1) missing
// data fails the test; elsewhere it skips it.
package datadir

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

var (
	rootOnce sync.Once
	root     string
)

// Root returns the module root: the nearest directory above the working
// directory that holds go.mod.
func Root() string {
	rootOnce.Do(func() {
		dir, err := os.Getwd()
		if err != nil {
			return
		}
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				root = dir
				return
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				return
			}
			dir = parent
		}
	})
	return root
}

// Required reports whether missing data must fail tests rather than skip them.
func Required() bool { return os.Getenv("REIN_REQUIRE_DATA") == "1" }

func missing(tb testing.TB, what string) {
	tb.Helper()
	if Required() {
		tb.Fatalf("test data missing: %s (run `make vocab`, and keep ../shared/data beside the checkout)", what)
	}
	tb.Skipf("test data missing: %s", what)
}

// SharedDir returns the shared data folder (../shared/data from the module
// root, or $REIN_SHARED_DATA), or "" when it does not exist.
func SharedDir() string {
	if d := os.Getenv("REIN_SHARED_DATA"); d != "" {
		return d
	}
	d := filepath.Join(Root(), "..", "shared", "data")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}

// Shared returns the path of elem under the shared data folder, failing or
// skipping tb when it is missing.
func Shared(tb testing.TB, elem ...string) string {
	tb.Helper()
	dir := SharedDir()
	p := filepath.Join(append([]string{dir}, elem...)...)
	if dir == "" {
		missing(tb, filepath.Join(append([]string{"../shared/data"}, elem...)...))
		return ""
	}
	if _, err := os.Stat(p); err != nil {
		missing(tb, p)
	}
	return p
}

// TokenizersDir returns the folder of verified vocabularies: $REIN_TOKENIZERS,
// else .cache/tokenizers under the module root (filled by `make vocab`), else
// the shared data's tokenizers folder; "" when none exists.
func TokenizersDir() string {
	if d := os.Getenv("REIN_TOKENIZERS"); d != "" {
		return d
	}
	for _, d := range []string{filepath.Join(Root(), ".cache", "tokenizers"), filepath.Join(SharedDir(), "tokenizers")} {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	return ""
}

// Tokenizer returns the path of a vocabulary file, such as
// Tokenizer(t, "llama3", "tokenizer.json"), failing or skipping tb when it is
// missing.
func Tokenizer(tb testing.TB, elem ...string) string {
	tb.Helper()
	dir := TokenizersDir()
	p := filepath.Join(append([]string{dir}, elem...)...)
	if dir == "" {
		missing(tb, filepath.Join(elem...))
		return ""
	}
	if _, err := os.Stat(p); err != nil {
		missing(tb, p)
	}
	return p
}
