package jsonschema_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/oracle"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
)

// jsonSchemaSuiteFloor is the least number of tests of the official JSON
// Schema Test Suite (draft 2020-12, required tests) that must pass: a valid
// instance accepted or an invalid one rejected; a schema that does not
// compile fails all its tests.
const jsonSchemaSuiteFloor = 1228

// suiteLoader maps the suite's remote URIs (http://localhost:1234/...) to
// its remotes folder.
func suiteLoader(remotes string) func(context.Context, string) ([]byte, error) {
	return func(_ context.Context, uri string) ([]byte, error) {
		const prefix = "http://localhost:1234/"
		if !strings.HasPrefix(uri, prefix) {
			return nil, fmt.Errorf("no such remote document")
		}
		rel := filepath.FromSlash(strings.TrimPrefix(uri, prefix))
		if strings.Contains(rel, "..") {
			return nil, fmt.Errorf("no such remote document")
		}
		return os.ReadFile(filepath.Join(remotes, rel))
	}
}

func TestJSONSchemaSuite(t *testing.T) {
	dir := datadir.Shared(t, "json-schema-test-suite")
	// format is an annotation in draft 2020-12 unless a schema's
	// vocabulary asserts it, and the required tests check that; the
	// optional format tests (TestJSONSchemaSuiteFormats) assert formats,
	// rein's default.
	opts := jsonschema.Options{
		Whitespace:       jsonschema.WhitespaceCompact,
		LoadRef:          suiteLoader(filepath.Join(dir, "remotes")),
		Lenient:          os.Getenv("REIN_SUITE_LENIENT") == "1",
		FormatAnnotation: true,
	}
	passed, total := runSuite(t, filepath.Join(dir, "tests", "draft2020-12"), opts)
	t.Logf("JSON Schema Test Suite (draft 2020-12): %d of %d tests pass", passed, total)
	if passed < jsonSchemaSuiteFloor {
		t.Errorf("%d tests pass, fewer than the floor of %d", passed, jsonSchemaSuiteFloor)
	}
}

// draftFloors are the required tests of each earlier draft that must pass
// (the suite as github.com/qri-io/jsonschema@v0.2.1 vendors it; make suite).
var draftFloors = []struct {
	dir   string
	draft int
	floor int
}{
	{"draft4", 4, 467},
	{"draft6", 6, 592},
	{"draft7", 7, 658},
	{"draft2019-09", 2019, 674},
}

// TestJSONSchemaSuiteDrafts runs the required tests of drafts 4, 6, 7 and
// 2019-09, each with that draft as the default, against their floors.
func TestJSONSchemaSuiteDrafts(t *testing.T) {
	root := datadir.SuiteDrafts(t)
	for _, d := range draftFloors {
		opts := jsonschema.Options{
			Whitespace:       jsonschema.WhitespaceCompact,
			LoadRef:          suiteLoader(filepath.Join(root, "remotes")),
			DefaultDraft:     d.draft,
			FormatAnnotation: d.draft >= 2019, // as in draft 2020-12 (TestJSONSchemaSuite)
		}
		passed, total := runSuite(t, filepath.Join(root, d.dir), opts)
		t.Logf("JSON Schema Test Suite (%s): %d of %d tests pass (%.1f%%)", d.dir, passed, total, 100*float64(passed)/float64(total))
		if passed < d.floor {
			t.Errorf("%s: %d tests pass, fewer than the floor of %d", d.dir, passed, d.floor)
		}
	}
}

// suiteGroup is one group of a suite file: a schema and its test instances.
type suiteGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// runSuite runs the suite files of dir (not optional/) and returns how many
// tests pass and how many there are; with -v it prints a line per file.
func runSuite(t *testing.T, dir string, opts jsonschema.Options) (passed, total int) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var groups []suiteGroup
		if err := json.Unmarshal(data, &groups); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		fileTotal, filePassed := 0, 0
		for _, g := range groups {
			fileTotal += len(g.Tests)
			gr, _, err := jsonschema.Compile(g.Schema, opts)
			if errors.Is(err, jsonschema.ErrNoValue) {
				// No document can be decoded: every instance is refused.
				for _, tc := range g.Tests {
					if !tc.Valid {
						filePassed++
					}
				}
				continue
			}
			if err != nil {
				if os.Getenv("REIN_SUITE_SHOW") != "" {
					t.Logf("%s: %s: %v", filepath.Base(f), g.Description, err)
				}
				continue
			}
			for _, tc := range g.Tests {
				var buf bytes.Buffer
				if err := json.Compact(&buf, tc.Data); err != nil {
					t.Fatal(err)
				}
				ok, err := suiteAccepts(t, gr, buf.Bytes())
				if err != nil {
					t.Fatalf("%s: %s: %v", filepath.Base(f), g.Description, err)
				}
				if ok == tc.Valid {
					filePassed++
				} else if os.Getenv("REIN_SUITE_SHOW") != "" {
					t.Logf("%s: %s: %s: valid=%v, accepted=%v: %s", filepath.Base(f), g.Description, tc.Description, tc.Valid, ok, buf.String())
				}
			}
		}
		total += fileTotal
		passed += filePassed
		if testing.Verbose() {
			t.Logf("%-28s %3d / %3d", filepath.Base(f), filePassed, fileTotal)
		}
	}
	return passed, total
}

// suiteAccepts judges doc by the Earley oracle, or, where the grammar has
// rules whose items must be distinct (which no grammar-level recognizer
// sees), by a matcher on GPT-2's vocabulary fed doc byte by byte.
func suiteAccepts(t *testing.T, g *grammar.Grammar, doc []byte) (bool, error) {
	unique := false
	for _, r := range g.Rules {
		unique = unique || r.Unique != nil
	}
	if !unique {
		return oracle.Accepts(g, doc)
	}
	c, err := mask.Compile(g, vocabtest.Load(t, "gpt2"), mask.Options{})
	if err != nil {
		return false, err
	}
	m := c.NewMatcher()
	for i := range doc {
		if !m.AcceptString(string(doc[i : i+1])) {
			return false, nil
		}
	}
	return m.CanEnd(), nil
}

// Floors of the suite's optional format tests (draft 2020-12, formats
// asserted): what passes, and at most how many invalid strings are accepted
// (each in a class the README's format note names: leap seconds at any
// minute, hostnames' total length and A-labels, idn-hostname's IDNA rules,
// and format "regex", which is not checked).
const (
	formatSuiteFloor         = 687
	formatSuiteAcceptedLimit = 51
)

// TestJSONSchemaSuiteFormats runs the suite's optional/format tests with
// formats asserted, as rein does, and prints a line per format.
func TestJSONSchemaSuiteFormats(t *testing.T) {
	dir := datadir.Shared(t, "json-schema-test-suite")
	files, err := filepath.Glob(filepath.Join(dir, "tests", "draft2020-12", "optional", "format", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	opts := jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact}
	total, passed, accepted, refused := 0, 0, 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var groups []suiteGroup
		require.NoError(t, json.Unmarshal(data, &groups), f)
		n, ok, acc, ref := 0, 0, 0, 0
		for _, g := range groups {
			n += len(g.Tests)
			gr, _, err := jsonschema.Compile(g.Schema, opts)
			if err != nil {
				continue
			}
			for _, tc := range g.Tests {
				var buf bytes.Buffer
				require.NoError(t, json.Compact(&buf, tc.Data))
				got, err := suiteAccepts(t, gr, buf.Bytes())
				require.NoError(t, err)
				switch {
				case got == tc.Valid:
					ok++
				case got:
					acc++
				default:
					ref++
				}
				if got != tc.Valid && os.Getenv("REIN_SUITE_SHOW") != "" {
					t.Logf("%s: %s: valid=%v, accepted=%v: %s", filepath.Base(f), tc.Description, tc.Valid, got, buf.String())
				}
			}
		}
		t.Logf("%-26s %3d / %3d   invalid accepted %2d   valid refused %2d", filepath.Base(f), ok, n, acc, ref)
		total, passed, accepted, refused = total+n, passed+ok, accepted+acc, refused+ref
	}
	t.Logf("optional/format (draft 2020-12): %d of %d pass; %d invalid accepted, %d valid refused", passed, total, accepted, refused)
	assert.GreaterOrEqual(t, passed, formatSuiteFloor)
	assert.LessOrEqual(t, accepted, formatSuiteAcceptedLimit)
}
