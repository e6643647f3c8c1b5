package jsonschema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/oracle"
	"github.com/reinlm/rein/pda"
)

// maskBenchFile is one MaskBench case.
type maskBenchFile struct {
	Schema json.RawMessage `json:"schema"`
	Tests  []struct {
		Valid bool            `json:"valid"`
		Data  json.RawMessage `json:"data"`
	} `json:"tests"`
}

// maskBenchResult is the outcome of one schema.
type maskBenchResult struct {
	name    string
	compile error
	// failures: instances judged wrongly ("valid rejected" / "invalid accepted").
	failures []string
	skipped  int // instances over the size cap
}

func (r maskBenchResult) passed() bool { return r.compile == nil && len(r.failures) == 0 }

// maskBenchPDARules is the most rules a grammar may have for the test to
// compile it with package pda too.
const maskBenchPDARules = 600

// maskBenchInstanceCap bounds the instances the Earley oracle checks; larger
// ones are skipped (they are rare and slow to recognize).
const maskBenchInstanceCap = 4 << 10

// runMaskBenchFile compiles one MaskBench schema and checks its instances,
// serialized compactly with keys in document order.
func runMaskBenchFile(path string, opts jsonschema.Options) maskBenchResult {
	res := maskBenchResult{name: filepath.Base(path)}
	data, err := os.ReadFile(path)
	if err != nil {
		res.compile = err
		return res
	}
	var f maskBenchFile
	if err := json.Unmarshal(data, &f); err != nil {
		res.compile = err
		return res
	}
	g, _, err := jsonschema.Compile(f.Schema, opts)
	if err != nil {
		res.compile = err
		return res
	}
	// The grammar must also compile into rein's automaton within its
	// default limits, as the matcher will need it. (The largest grammars
	// are left out: compiling them takes pda minutes.)
	if len(g.Rules) <= maskBenchPDARules {
		if _, err := pda.Compile(g, grammar.Limits{}); err != nil {
			res.compile = err
			return res
		}
	}
	for i, tc := range f.Tests {
		var buf bytes.Buffer
		if err := json.Compact(&buf, tc.Data); err != nil {
			res.failures = append(res.failures, fmt.Sprintf("test %d: %v", i, err))
			continue
		}
		if buf.Len() > maskBenchInstanceCap {
			res.skipped++
			continue
		}
		ok, err := oracle.Accepts(g, buf.Bytes())
		if err != nil {
			res.compile = err
			return res
		}
		if ok != tc.Valid {
			what := "valid rejected"
			if !tc.Valid {
				what = "invalid accepted"
			}
			res.failures = append(res.failures, fmt.Sprintf("test %d: %s: %s", i, what, truncate(buf.String(), 200)))
		}
	}
	return res
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// runMaskBench runs the files on all cores and returns the results in file order.
func runMaskBench(files []string, opts jsonschema.Options) []maskBenchResult {
	out := make([]maskBenchResult, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				out[i] = runMaskBenchFile(files[i], opts)
			}
		})
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// maskBenchFloor is the least share of the sampled MaskBench schemas that
// must pass (compile, accept every valid and reject every invalid instance).
const maskBenchFloor = 0.94

// TestJSONSchemaMaskBench compiles a fixed sample of MaskBench (every 10th
// file) and checks every instance with the Earley oracle. Knobs:
// REIN_MASKBENCH=all runs every file; REIN_MASKBENCH_LENIENT=1,
// REIN_MASKBENCH_ORDER=any and REIN_MASKBENCH_WS=flexible change the
// options; REIN_MASKBENCH_SHOW=1 (with -v) logs every failure, and
// REIN_MASKBENCH_FILE names one file for TestJSONSchemaMaskBenchFile.
func TestJSONSchemaMaskBench(t *testing.T) {
	set := datadir.MaskBench(t)
	files, err := filepath.Glob(filepath.Join(set.Dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	step := set.Stride(10)
	switch {
	case os.Getenv("REIN_MASKBENCH") == "all":
		step = 1
	case testing.Short():
		step = set.Stride(50)
	}
	var sample []string
	for i := 0; i < len(files); i += step {
		sample = append(sample, files[i])
	}
	opts := jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact}
	if os.Getenv("REIN_MASKBENCH_WS") == "flexible" {
		opts.Whitespace = jsonschema.WhitespaceFlexible
	}
	if os.Getenv("REIN_MASKBENCH_LENIENT") == "1" {
		opts.Lenient = true
	}
	if os.Getenv("REIN_MASKBENCH_ORDER") == "any" {
		opts.Order = jsonschema.OrderAny
	}
	start := time.Now()
	results := runMaskBench(sample, opts)
	passed, compileErrs, unsupported, limits, skipped := 0, 0, 0, 0, 0
	reasons := map[string]int{}
	for _, r := range results {
		skipped += r.skipped
		switch {
		case r.passed():
			passed++
		case r.compile != nil:
			compileErrs++
			switch {
			case errors.Is(r.compile, grammar.ErrUnsupported):
				unsupported++
			case errors.Is(r.compile, grammar.ErrLimit):
				limits++
			}
			reasons[maskBenchReason(r.compile)]++
		default:
			reasons[strings.SplitN(strings.SplitN(r.failures[0], ": ", 3)[1], ":", 2)[0]]++
		}
		if testing.Verbose() && !r.passed() && os.Getenv("REIN_MASKBENCH_SHOW") != "" {
			if r.compile != nil {
				t.Logf("%s: %v", r.name, r.compile)
			} else {
				t.Logf("%s: %s", r.name, strings.Join(r.failures, "; "))
			}
		}
	}
	rate := float64(passed) / float64(len(results))
	t.Logf("MaskBench sample: %d of %d schemas pass (%.1f%%); %d compile errors (%d unsupported, %d limits); %d large instances skipped; %v",
		passed, len(results), 100*rate, compileErrs, unsupported, limits, skipped, time.Since(start).Round(time.Millisecond))
	keys := make([]string, 0, len(reasons))
	for k := range reasons {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return reasons[keys[i]] > reasons[keys[j]] })
	for i, k := range keys {
		if i == 25 {
			break
		}
		t.Logf("  %4d  %s", reasons[k], k)
	}
	if rate < maskBenchFloor {
		t.Errorf("pass rate %.1f%% is below the floor of %.1f%%", 100*rate, 100*maskBenchFloor)
	}
}

// maskBenchReason shortens a compile error to its kind.
func maskBenchReason(err error) string {
	var e *grammar.Error
	if errors.As(err, &e) {
		msg := e.Msg
		if i := strings.IndexAny(msg, "\"0123456789"); i > 0 {
			msg = msg[:i]
		}
		return "compile: " + msg
	}
	s := err.Error()
	if i := strings.IndexAny(s, "\"0123456789"); i > 0 {
		s = s[:i]
	}
	return "compile: " + strconv.Quote(s)
}

// TestJSONSchemaMaskBenchFile diagnoses one file named by REIN_MASKBENCH_FILE:
// the grammar, and where each misjudged instance stops being viable.
func TestJSONSchemaMaskBenchFile(t *testing.T) {
	name := os.Getenv("REIN_MASKBENCH_FILE")
	if name == "" {
		t.Skip("set REIN_MASKBENCH_FILE")
	}
	path := filepath.Join(datadir.MaskBench(t).Dir, name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f maskBenchFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	opts := jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact, Lenient: os.Getenv("REIN_MASKBENCH_LENIENT") == "1"}
	g, warns, err := jsonschema.Compile(f.Schema, opts)
	t.Logf("warnings: %v", warns)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d rules\n%s", len(g.Rules), truncate(g.String(), 20000))
	for i, tc := range f.Tests {
		var buf bytes.Buffer
		if err := json.Compact(&buf, tc.Data); err != nil {
			t.Fatal(err)
		}
		ok, err := oracle.Accepts(g, buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if ok == tc.Valid {
			continue
		}
		s := buf.Bytes()
		n := 0
		for n < len(s) {
			if v, _ := oracle.ViablePrefix(g, s[:n+1]); !v {
				break
			}
			n++
		}
		t.Logf("test %d (valid=%v): accepted=%v; viable up to %d: %s<<<HERE>>>%s", i, tc.Valid, ok, n, truncate(string(s[:n]), 3000), truncate(string(s[n:]), 200))
	}
}
