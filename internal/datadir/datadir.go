// Package datadir is the one place that finds the real data rein's tests and
// benchmarks use:
//
//   - the vocabularies, cached and checksum-verified by `make vocab` in
//     .cache/tokenizers (or $REIN_TOKENIZERS, or the shared data folder's);
//   - llama.cpp's grammars and cases and the JSON Schema Test Suite, committed
//     whole under testdata/ with their licences;
//   - MaskBench: the full set (8,782 schemas) from $REIN_MASKBENCH_DIR or the
//     shared data folder when present, else the stratified sample committed in
//     testdata/maskbench-sample.
//
// The shared data folder ($REIN_SHARED_DATA, else ../shared/data beside the
// checkout) is an accelerator, never a requirement. Under `make test`
// (REIN_REQUIRE_DATA=1) missing data fails the test; elsewhere it skips it,
// naming the data set.
package datadir

import (
	"os"
	"path/filepath"
	"sort"
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

// missing fails tb under Required, else skips it, naming the data set and how
// to get it.
func missing(tb testing.TB, what, how string) {
	tb.Helper()
	if Required() {
		tb.Fatalf("test data missing: %s (%s)", what, how)
	}
	tb.Skipf("needs %s (%s)", what, how)
}

func isDir(d string) bool {
	st, err := os.Stat(d)
	return err == nil && st.IsDir()
}

// SharedDir returns the shared data folder ($REIN_SHARED_DATA, else
// ../shared/data from the module root), or "" when it does not exist.
func SharedDir() string {
	d := os.Getenv("REIN_SHARED_DATA")
	if d == "" {
		d = filepath.Join(Root(), "..", "shared", "data")
	}
	if isDir(d) {
		return d
	}
	return ""
}

// Shared returns the path of a data set committed under testdata/ (such as
// Shared(t, "gbnf", "llama.cpp", "grammars") or Shared(t,
// "json-schema-test-suite")), else of the same path in the shared data
// folder, failing or skipping tb when neither exists. MaskBench is found by
// MaskBench instead.
func Shared(tb testing.TB, elem ...string) string {
	tb.Helper()
	rel := filepath.Join(elem...)
	p := filepath.Join(Root(), "testdata", rel)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if dir := SharedDir(); dir != "" {
		if q := filepath.Join(dir, rel); exists(q) {
			return q
		}
	}
	missing(tb, "testdata/"+filepath.ToSlash(rel), "neither committed under testdata/ nor in the shared data folder")
	return ""
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// MaskBenchSampleStride is the sample's stride: testdata/maskbench-sample
// holds every MaskBenchSampleStride-th file of each MaskBench dataset.
const MaskBenchSampleStride = 50

// MaskBenchSet is a folder of MaskBench schema files.
type MaskBenchSet struct {
	Dir  string
	Full bool // the full set, not the committed sample
}

// MaskBench returns the full MaskBench set when it is present
// ($REIN_MASKBENCH_DIR, else maskbench/ in the shared data folder), else the
// sample committed in testdata/maskbench-sample, which is always there.
func MaskBench(tb testing.TB) MaskBenchSet {
	tb.Helper()
	if d := MaskBenchFullDir(); d != "" {
		if !isDir(d) {
			tb.Fatalf("datadir: REIN_MASKBENCH_DIR=%s is not a folder", d)
		}
		return MaskBenchSet{Dir: d, Full: true}
	}
	d := filepath.Join(Root(), "testdata", "maskbench-sample")
	if !isDir(d) {
		tb.Fatalf("datadir: the committed MaskBench sample %s is missing", d)
	}
	return MaskBenchSet{Dir: d}
}

// MaskBenchFullDir returns the full MaskBench set's folder ($REIN_MASKBENCH_DIR
// as given, else the shared data folder's maskbench/), or "" when there is
// none.
func MaskBenchFullDir() string {
	if d := os.Getenv("REIN_MASKBENCH_DIR"); d != "" {
		return d
	}
	if s := SharedDir(); s != "" && isDir(filepath.Join(s, "maskbench")) {
		return filepath.Join(s, "maskbench")
	}
	return ""
}

// MaskBenchFull returns the full MaskBench set's folder for the tests that
// run all of it, which belong to `make conformance` (REIN_CONFORMANCE=1):
// there a missing set fails the test; elsewhere, `make test` included, the
// test skips.
func MaskBenchFull(tb testing.TB) string {
	tb.Helper()
	const what = "the full MaskBench set (8,782 schemas)"
	const how = "set REIN_MASKBENCH_DIR or keep ../shared/data beside the checkout, and run `make conformance`"
	if os.Getenv("REIN_CONFORMANCE") != "1" {
		tb.Skipf("needs %s (%s)", what, how)
	}
	d := MaskBenchFullDir()
	if d == "" || !isDir(d) {
		tb.Fatalf("test data missing: %s (%s)", what, how)
	}
	return d
}

// Stride scales a stride over the full set to this set: every itself for the
// full set, every/MaskBenchSampleStride (at least 1) for the sample, so that
// a test picks about as many files from either.
func (s MaskBenchSet) Stride(every int) int {
	if s.Full {
		return max(every, 1)
	}
	return max(every/MaskBenchSampleStride, 1)
}

// Files lists the set's .json files in name order, every Stride(every)-th.
func (s MaskBenchSet) Files(tb testing.TB, every int) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(s.Dir, "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("datadir: no MaskBench files in %s (%v)", s.Dir, err)
	}
	sort.Strings(files)
	step := s.Stride(every)
	out := make([]string, 0, len(files)/step+1)
	for i := 0; i < len(files); i += step {
		out = append(out, files[i])
	}
	return out
}

// TokenizersDir returns the folder of verified vocabularies: $REIN_TOKENIZERS,
// else .cache/tokenizers under the module root (filled by `make vocab`), else
// the shared data's tokenizers folder; "" when none exists.
func TokenizersDir() string {
	if d := os.Getenv("REIN_TOKENIZERS"); d != "" {
		return d
	}
	dirs := []string{filepath.Join(Root(), ".cache", "tokenizers")}
	if s := SharedDir(); s != "" {
		dirs = append(dirs, filepath.Join(s, "tokenizers"))
	}
	for _, d := range dirs {
		if isDir(d) {
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
	rel := filepath.Join(elem...)
	if dir := TokenizersDir(); dir != "" {
		if p := filepath.Join(dir, rel); exists(p) {
			return p
		}
	}
	missing(tb, "the vocabulary file "+filepath.ToSlash(rel), "run `make vocab`")
	return ""
}

// SuiteDrafts returns the folder of the JSON Schema Test Suite's drafts
// before 2020-12 (draft4, draft6, draft7, draft2019-09, remotes):
// $REIN_SUITE_DRAFTS, else .cache/json-schema-test-suite under the module
// root (filled by `make suite`), failing or skipping tb when it is missing.
func SuiteDrafts(tb testing.TB) string {
	tb.Helper()
	d := os.Getenv("REIN_SUITE_DRAFTS")
	if d == "" {
		d = filepath.Join(Root(), ".cache", "json-schema-test-suite")
	}
	if !exists(filepath.Join(d, "COMPLETE")) {
		missing(tb, "the JSON Schema Test Suite's earlier drafts", "run `make suite`")
	}
	return d
}
