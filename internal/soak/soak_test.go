package soak_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/masktest"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// soakCase is one schema to decode from, with the suite's test instances
// (compacted) and their verdicts when it comes from the suite.
type soakCase struct {
	name    string
	schema  []byte
	verdict map[string]bool
}

// soakResult is what one schema's documents came to.
type soakResult struct {
	compiled   bool
	docs       int
	suiteHits  int
	validatorN int      // documents the validator could not judge (an error)
	unjudged   []string // why, for the verbose log
	failures   []string
	dump       []dumped // the documents, for REIN_SOAK_DUMP
}

// dumped is one generated document as REIN_SOAK_DUMP writes it: a line of
// JSON that testdata/crosscheck.py checks with an independent validator.
type dumped struct {
	Name   string          `json:"name"`
	Seed   uint64          `json:"seed"`
	Schema json.RawMessage `json:"schema"`
	Doc    string          `json:"doc"`
}

const (
	soakSeeds     = 3
	soakMaxTokens = 40 // random steps before steering toward the end
	soakStopBias  = 0.25
)

// TestSoak decodes documents with random logits from every 20th MaskBench
// schema and every schema of the JSON Schema Test Suite, three seeds each,
// and checks each document: it ends (no dead end, no refused token), it is
// JSON, the front-end's validator accepts it, and where it is one of the
// suite's instances the suite's verdict is "valid". No invalid document may
// be accepted.
//
// With REIN_SOAK_DUMP=file it also writes every document as a line of JSON
// (name, seed, schema, doc) for testdata/crosscheck.py, which checks them
// with Python's jsonschema: the front-end's validator shares the
// front-end's reading of the schema, so only an independent validator
// catches a keyword read wrongly.
func TestSoak(t *testing.T) {
	voc := vocabtest.Load(t, "llama3")
	every, seeds := 20, uint64(soakSeeds)
	if testing.Short() || race.Enabled {
		every = 200
	}
	// A longer soak than CI's: REIN_SOAK_EVERY=1 REIN_SOAK_SEEDS=10.
	if n, err := strconv.Atoi(os.Getenv("REIN_SOAK_EVERY")); err == nil && n > 0 {
		every = n
	}
	if n, err := strconv.Atoi(os.Getenv("REIN_SOAK_SEEDS")); err == nil && n > 0 {
		seeds = uint64(n)
	}
	var cases []soakCase
	for _, f := range datadir.MaskBench(t).Files(t, every) {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		cases = append(cases, soakCase{name: filepath.Base(f), schema: []byte(gjson.GetBytes(raw, "schema").Raw)})
	}
	suite := datadir.Shared(t, "json-schema-test-suite")
	suiteCases := loadSuite(t, filepath.Join(suite, "tests", "draft2020-12"))
	if testing.Short() || race.Enabled {
		suiteCases = suiteCases[:len(suiteCases)/10]
	}
	cases = append(cases, suiteCases...)
	opts := jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact, LoadRef: suiteLoader(filepath.Join(suite, "remotes"))}

	results := make([]soakResult, len(cases))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				results[i] = soakOne(cases[i], voc, opts, seeds)
			}
		})
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()

	compiled, docs, hits, unjudged, failed := 0, 0, 0, 0, 0
	for i, r := range results {
		if r.compiled {
			compiled++
		}
		docs += r.docs
		hits += r.suiteHits
		unjudged += r.validatorN
		for _, u := range r.unjudged {
			if testing.Verbose() {
				t.Logf("%s: not judged: %s", cases[i].name, u)
			}
		}
		for _, f := range r.failures {
			failed++
			t.Errorf("%s: %s", cases[i].name, f)
		}
	}
	if path := os.Getenv("REIN_SOAK_DUMP"); path != "" {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		for _, r := range results {
			for _, d := range r.dump {
				require.NoError(t, enc.Encode(d))
			}
		}
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	}
	t.Logf("soak: %d schemas (%d compiled), %d documents, %d equal to a suite instance, %d the validator could not judge, %d failures",
		len(cases), compiled, docs, hits, unjudged, failed)
	assert.Positive(t, docs)
}

// soakOne compiles one schema and decodes seeds documents from it. A
// schema that does not compile is skipped (the suite's floor test counts
// those); a panic anywhere is a failure.
func soakOne(c soakCase, voc *tokenizer.Vocab, opts jsonschema.Options, seeds uint64) (r soakResult) {
	defer func() {
		if p := recover(); p != nil {
			r.failures = append(r.failures, fmt.Sprintf("panic: %v", p))
		}
	}()
	g, _, err := jsonschema.Compile(c.schema, opts)
	if err != nil {
		return r
	}
	comp, err := mask.Compile(g, voc, mask.Options{})
	if err != nil {
		return r
	}
	r.compiled = true
	for seed := range seeds {
		m := comp.NewMatcher()
		rng := rand.New(rand.NewPCG(seed, uint64(len(c.schema))))
		out, err := masktest.Walk(m, rng, soakMaxTokens, soakStopBias, nil)
		if err != nil {
			if !errors.Is(err, grammar.ErrLimit) {
				r.failures = append(r.failures, fmt.Sprintf("seed %d: decoding failed: %v (schema %s)", seed, err, c.schema))
			}
			continue
		}
		r.docs++
		if json.Valid(c.schema) {
			r.dump = append(r.dump, dumped{Name: c.name, Seed: seed, Schema: c.schema, Doc: string(out)})
		}
		if !json.Valid(out) {
			r.failures = append(r.failures, fmt.Sprintf("seed %d: not JSON: %q (schema %s)", seed, out, c.schema))
			continue
		}
		ok, err := jsonschema.Validate(c.schema, out, opts)
		switch {
		case err != nil:
			r.validatorN++
			r.unjudged = append(r.unjudged, fmt.Sprintf("seed %d: %s: %v", seed, out, err))
		case !ok:
			r.failures = append(r.failures, fmt.Sprintf("seed %d: invalid document accepted (internal validator): %s (schema %s)", seed, out, c.schema))
		}
		var buf bytes.Buffer
		if json.Compact(&buf, out) == nil {
			if valid, found := c.verdict[buf.String()]; found {
				r.suiteHits++
				if !valid {
					r.failures = append(r.failures, fmt.Sprintf("seed %d: invalid document accepted (suite verdict): %s (schema %s)", seed, out, c.schema))
				}
			}
		}
	}
	return r
}

// loadSuite reads every test group of the suite's files in dir.
func loadSuite(t *testing.T, dir string) []soakCase {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	sort.Strings(files)
	var out []soakCase
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var groups []struct {
			Description string          `json:"description"`
			Schema      json.RawMessage `json:"schema"`
			Tests       []struct {
				Data  json.RawMessage `json:"data"`
				Valid bool            `json:"valid"`
			} `json:"tests"`
		}
		require.NoError(t, json.Unmarshal(data, &groups), f)
		for _, g := range groups {
			c := soakCase{name: filepath.Base(f) + ": " + g.Description, schema: g.Schema, verdict: map[string]bool{}}
			for _, tc := range g.Tests {
				var buf bytes.Buffer
				require.NoError(t, json.Compact(&buf, tc.Data))
				c.verdict[buf.String()] = tc.Valid
			}
			out = append(out, c)
		}
	}
	return out
}

// suiteLoader maps the suite's remote URIs (http://localhost:1234/...) to
// its remotes folder.
func suiteLoader(remotes string) func(context.Context, string) ([]byte, error) {
	return func(_ context.Context, uri string) ([]byte, error) {
		const prefix = "http://localhost:1234/"
		rel := filepath.FromSlash(strings.TrimPrefix(uri, prefix))
		if !strings.HasPrefix(uri, prefix) || strings.Contains(rel, "..") {
			return nil, fmt.Errorf("no such remote document: %s", uri)
		}
		return os.ReadFile(filepath.Join(remotes, rel))
	}
}
