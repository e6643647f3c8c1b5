package rein_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/reinlm/rein"
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// benchCase is a MaskBench schema with one of its valid instances.
type benchCase struct {
	name, schema, instance string
}

// maskbenchCases returns n MaskBench schemas (every 97th file) that the JSON
// Schema front-end accepts, each with a compact valid instance of at most
// 1500 bytes.
func maskbenchCases(tb testing.TB, n int) []benchCase {
	tb.Helper()
	set := datadir.MaskBench(tb)
	files, err := filepath.Glob(filepath.Join(set.Dir, "*.json"))
	require.NoError(tb, err)
	sort.Strings(files)
	var out []benchCase
	for i := 0; i < len(files) && len(out) < n; i += set.Stride(97) {
		raw, err := os.ReadFile(files[i])
		require.NoError(tb, err)
		schema := gjson.GetBytes(raw, "schema").Raw
		if _, _, err := jsonschema.Compile([]byte(schema), jsonschema.Options{}); err != nil {
			continue
		}
		for _, tc := range gjson.GetBytes(raw, "tests").Array() {
			var buf bytes.Buffer
			if tc.Get("valid").Bool() && json.Compact(&buf, []byte(tc.Get("data").Raw)) == nil && buf.Len() <= 1500 {
				out = append(out, benchCase{name: filepath.Base(files[i]), schema: schema, instance: buf.String()})
				break
			}
		}
	}
	require.Len(tb, out, n)
	return out
}

func newCompiler(tb testing.TB, voc *tokenizer.Vocab, opts rein.CompilerOptions) *rein.Compiler {
	tb.Helper()
	c, err := rein.NewCompiler(voc, opts)
	require.NoError(tb, err)
	return c
}

// TestCompilerKinds compiles each kind of spec, good and bad, and checks
// what the compiled grammar accepts or what the error says.
func TestCompilerKinds(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	c := newCompiler(t, voc, rein.CompilerOptions{})
	tests := []struct {
		name    string
		spec    rein.Spec
		accepts string // a complete output the grammar accepts
		rejects string // an output it does not accept whole
		wantErr string // a piece of the error
		is      error
	}{
		{name: "regex", spec: rein.Regex(`(yes|no) [0-9]{1,3}`), accepts: "yes 42", rejects: "maybe"},
		{name: "json schema", spec: rein.JSONSchema(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`), accepts: `{"n":7}`, rejects: `{}`},
		{name: "json schema, compact", spec: rein.Spec{Kind: rein.KindJSONSchema, Source: `{"type":"array","items":{"type":"boolean"}}`, Schema: jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact}}, accepts: `[true,false]`, rejects: `[true, false]`},
		{name: "gbnf", spec: rein.GBNF(`start ::= "a" start | "b"`, "start"), accepts: "aab", rejects: "aa"},
		{name: "ebnf", spec: rein.EBNF("start ::= \"a\"\n    start\n  | Regex(\"b+\")", "start"), accepts: "abb", rejects: "aa"},
		{name: "bad ebnf", spec: rein.EBNF("root ::= \"a\" |", ""), wantErr: "1:"},
		{name: "json", spec: rein.JSON(), accepts: `{"a": [1, 2.5, null]}`, rejects: `{"a": }`},
		{name: "choice", spec: rein.Choice("red", "green", "blue"), accepts: "green", rejects: "gre"},
		{name: "bad regex", spec: rein.Regex(`(a`), wantErr: "compile regex"},
		{name: "bad schema", spec: rein.JSONSchema(`{"type":"object","properties":{"a":{"type":"nope"}}}`), wantErr: "/properties/a"},
		{name: "bad json", spec: rein.JSONSchema(`{"type":`), wantErr: "compile json-schema"},
		{name: "bad gbnf", spec: rein.GBNF("root ::= \"a\"\nb ::= (", ""), wantErr: "2:"},
		{name: "missing root", spec: rein.GBNF(`x ::= "a"`, ""), wantErr: `missing root rule "root"`},
		{name: "no choices", spec: rein.Choice(), wantErr: "no options"},
		{name: "unknown kind", spec: rein.Spec{Kind: 99}, is: rein.ErrSpec},
		{name: "schema with its own Limits", spec: rein.Spec{Kind: rein.KindJSONSchema, Source: `{}`, Schema: jsonschema.Options{Limits: grammar.Limits{SchemaDepth: 1 << 30}}}, is: rein.ErrSpec},
		{name: "schema with LoadRef", spec: rein.Spec{Kind: rein.KindJSONSchema, Source: `{}`, Schema: jsonschema.Options{LoadRef: func(context.Context, string) ([]byte, error) { return nil, nil }}}, is: rein.ErrSpec},
		{name: "remote ref without LoadRef", spec: rein.JSONSchema(`{"$ref":"https://example.com/s.json"}`), is: grammar.ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			compiled, err := c.Compile(context.Background(), tt.spec)
			if tt.wantErr != "" || tt.is != nil {
				require.Error(t, err)
				assert.Nil(t, compiled)
				if tt.wantErr != "" {
					assert.ErrorContains(t, err, tt.wantErr)
				}
				if tt.is != nil {
					assert.ErrorIs(t, err, tt.is)
				}
				return
			}
			require.NoError(t, err)
			m := compiled.NewMatcher()
			assert.True(t, m.AcceptString(tt.accepts) && m.CanEnd(), "%q refused", tt.accepts)
			m.Reset()
			assert.False(t, m.AcceptString(tt.rejects) && m.CanEnd(), "%q accepted", tt.rejects)
		})
	}
	var gerr *grammar.Error
	_, err := c.Compile(context.Background(), rein.GBNF("root ::= \"a\"\nb ::= (", ""))
	require.ErrorAs(t, err, &gerr, "front-end errors keep their position")
	assert.Equal(t, 2, gerr.Pos.Line)
}

// TestCompilerSharesConcurrentCompiles has 64 goroutines compile
// overlapping sets of 40 MaskBench schemas through one Compiler: each schema
// is compiled once, every request for it gets the same compiled grammar, and
// its masks are those of a compile made alone.
func TestCompilerSharesConcurrentCompiles(t *testing.T) {
	voc := vocabtest.Core(t)
	cases := maskbenchCases(t, 40)
	c := newCompiler(t, voc, rein.CompilerOptions{CacheBytes: 8 << 30})
	const goroutines, perGoroutine = 64, 12
	got := make([][perGoroutine]*mask.Compiled, goroutines)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for k := range perGoroutine {
				i := (g*5 + k*7) % len(cases)
				var err error
				if k%2 == 0 {
					got[g][k], err = c.Compile(context.Background(), rein.JSONSchema(cases[i].schema))
				} else {
					h := c.CompileAsync(context.Background(), rein.JSONSchema(cases[i].schema))
					for !h.Ready() {
						time.Sleep(50 * time.Microsecond)
					}
					got[g][k], err = h.Compiled(), h.Err()
				}
				assert.NoError(t, err, cases[i].name)
			}
		}()
	}
	close(start)
	wg.Wait()

	byCase := map[int]*mask.Compiled{}
	for g := range goroutines {
		for k := range perGoroutine {
			i := (g*5 + k*7) % len(cases)
			require.NotNil(t, got[g][k])
			if prev, ok := byCase[i]; ok {
				assert.Same(t, prev, got[g][k], "%s: two compiled grammars", cases[i].name)
			}
			byCase[i] = got[g][k]
		}
	}
	st := c.Stats()
	assert.Equal(t, int64(len(byCase)), st.Compiles, "each schema compiled once")
	assert.Equal(t, int64(goroutines*perGoroutine), st.Requests)
	assert.Equal(t, st.Requests, st.Hits+st.Joins+st.Compiles)
	assert.Zero(t, st.Failures)
	assert.Zero(t, st.Evictions)
	assert.Equal(t, len(byCase), st.Entries)

	enc, err := voc.Encoder()
	require.NoError(t, err)
	every := 4
	if race.Enabled {
		every = 16
	}
	for i, shared := range byCase {
		if i%every != 0 {
			continue
		}
		g, _, err := jsonschema.Compile([]byte(cases[i].schema), jsonschema.Options{})
		require.NoError(t, err)
		alone, err := mask.Compile(g, voc, mask.Options{})
		require.NoError(t, err)
		ids := enc.Encode(cases[i].instance)
		assert.Equal(t, maskTrace(t, alone.NewMatcher(), ids), maskTrace(t, shared.NewMatcher(), ids), cases[i].name)
	}
}

// maskTrace feeds ids to m and returns a hash of the mask before each token
// and at the end, and where it stopped if a token was refused.
func maskTrace(tb testing.TB, m *mask.Matcher, ids []int) []uint64 {
	bm := mask.NewBitmask(1, m.Compiled().VocabSize())
	var trace []uint64
	for k := 0; ; k++ {
		require.NoError(tb, m.FillBitmask(bm, 0))
		trace = append(trace, rowHash(bm.Row(0)))
		if k == len(ids) {
			return trace
		}
		if err := m.Accept(ids[k]); err != nil {
			return append(trace, uint64(k))
		}
	}
}

func rowHash(row []uint32) uint64 {
	h := fnv.New64a()
	var b [4]byte
	for _, w := range row {
		b[0], b[1], b[2], b[3] = byte(w), byte(w>>8), byte(w>>16), byte(w>>24)
		h.Write(b[:])
	}
	return h.Sum64()
}

// TestMatchersConcurrentOnSharedGrammars runs 64 matchers at once, eight on
// each of eight shared compiled grammars (their token index cold at the
// start, so it fills under contention), each filling and accepting along its
// schema's instance; every mask equals the one computed single-threaded on
// a compile of its own.
func TestMatchersConcurrentOnSharedGrammars(t *testing.T) {
	voc := vocabtest.Core(t)
	cases := maskbenchCases(t, 8)
	enc, err := voc.Encoder()
	require.NoError(t, err)
	ids := make([][]int, len(cases))
	want := make([][]uint64, len(cases))
	for i, bc := range cases {
		g, _, err := jsonschema.Compile([]byte(bc.schema), jsonschema.Options{})
		require.NoError(t, err)
		alone, err := mask.Compile(g, voc, mask.Options{})
		require.NoError(t, err)
		ids[i] = enc.Encode(bc.instance)
		if race.Enabled && len(ids[i]) > 60 {
			ids[i] = ids[i][:60]
		}
		want[i] = maskTrace(t, alone.NewMatcher(), ids[i])
	}
	c := newCompiler(t, voc, rein.CompilerOptions{})
	shared := make([]*mask.Compiled, len(cases))
	for i, bc := range cases {
		shared[i], err = c.Compile(context.Background(), rein.JSONSchema(bc.schema))
		require.NoError(t, err)
	}
	const matchers = 64
	got := make([][]uint64, matchers)
	var wg sync.WaitGroup
	for j := range matchers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := j % len(cases)
			got[j] = maskTrace(t, shared[i].NewMatcher(), ids[i])
		}()
	}
	wg.Wait()
	for j := range matchers {
		assert.Equal(t, want[j%len(cases)], got[j], "matcher %d (%s)", j, cases[j%len(cases)].name)
	}
}

// request is one sequence of the engine loop in TestFailureStaysInItsRequest.
type request struct {
	name   string
	handle *rein.Handle // nil: unconstrained
	m      *mask.Matcher
	out    []byte
	err    error
	done   bool
}

// TestFailureStaysInItsRequest runs a small engine loop over a batch of
// requests: six with good schemas, one unconstrained, one whose schema is
// malformed, one whose compile panics (its $ref loader panics), one whose
// matcher breaks in the middle of decoding (replaced by a zero Matcher, which
// FillBitmask refuses) and one that accepts a token its mask refused. The five bad ones fail with
// their own errors; the others finish with valid JSON that their grammar
// accepts.
func TestFailureStaysInItsRequest(t *testing.T) {
	voc := vocabtest.Core(t)
	cases := maskbenchCases(t, 7)
	c := newCompiler(t, voc, rein.CompilerOptions{
		LoadRef: func(_ context.Context, uri string) ([]byte, error) {
			panic("loader blew up on " + uri)
		},
	})
	ctx := context.Background()
	var reqs []*request
	for _, bc := range cases[:6] {
		reqs = append(reqs, &request{name: bc.name, handle: c.CompileAsync(ctx, rein.JSONSchema(bc.schema))})
	}
	reqs = append(reqs,
		&request{name: "unconstrained"},
		&request{name: "malformed", handle: c.CompileAsync(ctx, rein.JSONSchema(`{"type":"object","properties":{"a":{"minimum":"x"}}}`))},
		&request{name: "compile panic", handle: c.CompileAsync(ctx, rein.JSONSchema(`{"$ref":"https://example.com/boom.json"}`))},
		&request{name: "breaks mid-batch", handle: c.CompileAsync(ctx, rein.JSONSchema(cases[6].schema))},
		&request{name: "bad token", handle: c.CompileAsync(ctx, rein.JSON())},
	)
	for _, r := range reqs {
		if r.handle == nil {
			continue
		}
		compiled, err := r.handle.Wait(ctx)
		if err != nil {
			r.err, r.done = err, true
			continue
		}
		r.m = compiled.NewMatcher()
	}

	filler := mask.NewBatchFiller(4)
	defer filler.Close()
	bm := mask.NewBitmask(len(reqs), voc.Size())
	rng := rand.New(rand.NewPCG(1, 2))
	bytesOf := singleByteTokens(voc)
	var (
		matchers []*mask.Matcher
		active   []*request
		rows     []int
		errs     []error
	)
	for step := 0; step < 2000; step++ {
		matchers, active, rows = matchers[:0], active[:0], rows[:0]
		for _, r := range reqs {
			if !r.done && r.m != nil {
				matchers, active, rows = append(matchers, r.m), append(active, r), append(rows, len(rows))
			}
		}
		if len(active) == 0 {
			break
		}
		if step == 3 {
			for _, r := range active {
				if r.name == "breaks mid-batch" {
					matchers[slicesIndex(active, r)] = new(mask.Matcher)
				}
			}
		}
		errs = append(errs[:0], make([]error, len(matchers))...)
		_ = filler.Fill(matchers, bm, rows, errs)
		for k, r := range active {
			if errs[k] != nil {
				r.err, r.done = errs[k], true
				continue
			}
			id := pickToken(r.m, bm.Row(k), rng, step, bytesOf)
			if r.name == "bad token" && step == 5 {
				id = refusedToken(bm.Row(k))
			}
			if err := r.m.Accept(id); err != nil {
				r.err, r.done = err, true
				continue
			}
			if r.m.IsTerminated() {
				r.done = true
				continue
			}
			r.out = append(r.out, voc.Bytes(id)...)
		}
	}

	byName := map[string]*request{}
	for _, r := range reqs {
		byName[r.name] = r
	}
	assert.ErrorContains(t, byName["malformed"].err, "/properties/a/minimum")
	var pe *mask.PanicError
	if assert.ErrorAs(t, byName["compile panic"].err, &pe) {
		assert.Equal(t, "compile", pe.Op)
		assert.Contains(t, fmt.Sprint(pe.Value), "loader blew up")
	}
	assert.ErrorIs(t, byName["breaks mid-batch"].err, mask.ErrMatcher)
	assert.ErrorIs(t, byName["bad token"].err, mask.ErrRejected)
	for _, r := range reqs[:6] {
		require.NoError(t, r.err, r.name)
		assert.True(t, r.m.IsTerminated(), "%s did not finish", r.name)
		assert.True(t, json.Valid(r.out), "%s: invalid JSON %q", r.name, r.out)
		t.Logf("%s: %s", r.name, r.out)
		fresh := r.m.Compiled().NewMatcher()
		assert.True(t, fresh.AcceptString(string(r.out)) && fresh.CanEnd(), "%s: grammar refuses %q", r.name, r.out)
	}
	assert.NoError(t, byName["unconstrained"].err)
	st := c.Stats()
	assert.Equal(t, int64(2), st.Failures)
}

func slicesIndex(rs []*request, r *request) int {
	for i, x := range rs {
		if x == r {
			return i
		}
	}
	return -1
}

// pickToken samples like an engine with random logits: a random allowed
// token for the first 16 steps, then the single-byte token that brings the
// output closest to an end, and a stop token once it may end.
func pickToken(m *mask.Matcher, row []uint32, rng *rand.Rand, step int, single [256]int) int {
	voc := m.Compiled().Vocab()
	if step >= 16 && m.CanEnd() {
		for _, s := range voc.StopTokens() {
			if row[s>>5]&(1<<(uint(s)&31)) != 0 {
				return s
			}
		}
	}
	if step < 16 {
		var allowed []int
		for id := range voc.Size() {
			if row[id>>5]&(1<<(uint(id)&31)) != 0 && !voc.IsSpecial(id) {
				allowed = append(allowed, id)
			}
		}
		if len(allowed) > 0 {
			return allowed[rng.IntN(len(allowed))]
		}
	}
	best, bestDist := -1, int(^uint(0)>>1)
	for _, id := range single {
		if id < 0 || row[id>>5]&(1<<(uint(id)&31)) == 0 {
			continue
		}
		m.AcceptToken(id)
		if d := m.BytesToEnd(); d < bestDist {
			best, bestDist = id, d
		}
		_ = m.Rollback(1)
	}
	return best
}

// refusedToken returns a non-special token the row does not allow.
func refusedToken(row []uint32) int {
	for id := 0; ; id++ {
		if row[id>>5]&(1<<(uint(id)&31)) == 0 {
			return id
		}
	}
}

func singleByteTokens(voc *tokenizer.Vocab) [256]int {
	var t [256]int
	for i := range t {
		t[i] = -1
	}
	for id := range voc.Size() {
		if b := voc.Bytes(id); len(b) == 1 && !voc.IsSpecial(id) && t[b[0]] < 0 {
			t[b[0]] = id
		}
	}
	return t
}

// blockingLoader is a CompilerOptions.LoadRef that holds every compile that
// reaches it until release is closed, so tests can keep a compile running.
type blockingLoader struct {
	entered chan string
	release chan struct{}
}

func newBlockingLoader() *blockingLoader {
	return &blockingLoader{entered: make(chan string, 16), release: make(chan struct{})}
}

func (l *blockingLoader) load(_ context.Context, uri string) ([]byte, error) {
	l.entered <- uri
	<-l.release
	return []byte(`{"type":"integer"}`), nil
}

func remoteSchema(name string) rein.Spec {
	return rein.JSONSchema(`{"$ref":"https://example.com/` + name + `.json"}`)
}

// TestCompileCancellation checks that a request whose context ends is
// answered at once, that a compile goes on while any request waits for it,
// and that a compile nobody waits for any more is abandoned.
func TestCompileCancellation(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	l := newBlockingLoader()
	c := newCompiler(t, voc, rein.CompilerOptions{Workers: 1, LoadRef: l.load})

	// A holds the only compile slot inside its loader.
	hA := c.CompileAsync(context.Background(), remoteSchema("a"))
	assert.Equal(t, "https://example.com/a.json", <-l.entered)
	assert.False(t, hA.Ready())
	assert.NoError(t, hA.Err(), "no error while pending")
	assert.Nil(t, hA.Compiled())

	// B waits for a slot; its context is cancelled.
	ctxB, cancelB := context.WithCancel(context.Background())
	hB := c.CompileAsync(ctxB, rein.Regex(`b+`))
	assert.False(t, hB.Ready())
	cancelB()
	assert.True(t, hB.Ready())
	assert.ErrorIs(t, hB.Err(), context.Canceled)
	_, err := hB.Wait(context.Background())
	assert.ErrorIs(t, err, context.Canceled)

	// C1 and C2 share one compile; C1 goes, C2 stays.
	ctxC1, cancelC1 := context.WithCancel(context.Background())
	hC1 := c.CompileAsync(ctxC1, rein.Regex(`c+`))
	hC2 := c.CompileAsync(context.Background(), rein.Regex(`c+`))
	cancelC1()
	_, err = hC1.Wait(context.Background())
	assert.ErrorIs(t, err, context.Canceled)
	assert.False(t, hC2.Ready())

	// A Wait with a short context gives up without abandoning the request.
	waitCtx, cancelWait := context.WithTimeout(context.Background(), time.Millisecond)
	_, err = hC2.Wait(waitCtx)
	cancelWait()
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.False(t, hC2.Ready())

	// A deadline that passes while waiting.
	ctxD, cancelD := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancelD()
	_, err = c.Compile(ctxD, rein.Regex(`d+`))
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	close(l.release)
	compiledA, err := hA.Wait(context.Background())
	require.NoError(t, err)
	assert.NotNil(t, compiledA)
	compiledC, err := hC2.Wait(context.Background())
	require.NoError(t, err)
	assert.True(t, compiledC.NewMatcher().AcceptString("ccc"))
	assert.ErrorIs(t, hC1.Err(), context.Canceled, "an outcome never changes once Ready")

	// B's and D's compiles were abandoned; asking again compiles anew.
	st := c.Stats()
	assert.Equal(t, int64(4), st.Compiles) // a, b, c, d
	assert.Equal(t, int64(1), st.Joins)
	compiledB, err := c.Compile(context.Background(), rein.Regex(`b+`))
	require.NoError(t, err)
	assert.NotNil(t, compiledB)
	assert.Equal(t, int64(5), c.Stats().Compiles)

	// An already cancelled context is answered at once, from the cache too.
	dead, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Compile(dead, rein.Regex(`e+`))
	assert.ErrorIs(t, err, context.Canceled)
	got, err := c.Compile(dead, rein.Regex(`b+`))
	require.NoError(t, err)
	assert.Same(t, compiledB, got)
}

// TestCompileTimeout checks CompilerOptions.Timeout: a compile that outlives
// it fails with a limit error even though its caller would wait.
func TestCompileTimeout(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	c := newCompiler(t, voc, rein.CompilerOptions{
		Timeout: time.Millisecond,
		LoadRef: func(context.Context, string) ([]byte, error) {
			time.Sleep(50 * time.Millisecond) // longer than the time limit
			return []byte(`{"type":"integer"}`), nil
		},
	})
	_, err := c.Compile(context.Background(), remoteSchema("slow"))
	assert.ErrorIs(t, err, grammar.ErrLimit)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = c.Compile(context.Background(), rein.Regex(`quick`))
	assert.NoError(t, err, "a quick compile finishes within the limit")
}

// TestCacheBudget checks the LRU cache: it keeps within its byte budget by
// dropping the least recently used grammars, and a negative budget turns it
// off.
func TestCacheBudget(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	ctx := context.Background()
	specs := []rein.Spec{rein.Regex(`a{1,40}`), rein.Regex(`b{1,40}`), rein.Regex(`c{1,40}`), rein.Regex(`d{1,40}`)}
	// Nothing shared from other tests, which the budget would count too.
	mask.ResetSharedIndex(voc)
	// No warming nor preparing: they would grow the grammars while the
	// test counts them.
	probe := newCompiler(t, voc, rein.CompilerOptions{WarmWorkers: -1, PrepareWork: -1})
	_, err := probe.Compile(ctx, specs[0])
	require.NoError(t, err)
	one := probe.Stats().Bytes
	require.Positive(t, one)

	c := newCompiler(t, voc, rein.CompilerOptions{CacheBytes: 2*one + one/2, WarmWorkers: -1, PrepareWork: -1}) // room for two
	for _, s := range specs {
		_, err := c.Compile(ctx, s)
		require.NoError(t, err)
		st := c.Stats()
		assert.LessOrEqual(t, st.Bytes, 2*one+one/2)
	}
	st := c.Stats()
	assert.Equal(t, 2, st.Entries)
	assert.Equal(t, int64(2), st.Evictions)
	_, err = c.Compile(ctx, specs[3]) // most recent: a hit
	require.NoError(t, err)
	assert.Equal(t, int64(1), c.Stats().Hits)
	_, err = c.Compile(ctx, specs[0]) // evicted: compiled again
	require.NoError(t, err)
	assert.Equal(t, int64(5), c.Stats().Compiles)

	off := newCompiler(t, voc, rein.CompilerOptions{CacheBytes: -1, PrepareWork: -1, WarmWorkers: -1}) // grammars grow only as matchers use them
	a, err := off.Compile(ctx, specs[0])
	require.NoError(t, err)
	b, err := off.Compile(ctx, specs[0])
	require.NoError(t, err)
	assert.NotSame(t, a, b)
	// Its grammars grow as they are used (their keys' classifications are
	// their own); without a cache nothing counts it.
	g, err := off.Compile(ctx, rein.JSONSchema(`{"type":"object","properties":{"k1":{"enum":["v1a","w1b"]}},"required":["k1"]}`))
	require.NoError(t, err)
	size := g.MemoryBytes()
	bm := mask.NewBitmask(1, voc.Size())
	m := g.NewMatcher()
	require.NoError(t, m.FillBitmask(bm, 0))
	require.True(t, m.AcceptString(`{"k`))
	require.NoError(t, m.FillBitmask(bm, 0))
	require.Greater(t, g.MemoryBytes(), size, "the grammar grew")
	assert.Zero(t, off.Stats().Entries)
	assert.Zero(t, off.Stats().Bytes)
	assert.Equal(t, int64(3), off.Stats().Compiles)
}

// TestCacheKeys checks that specs differing in kind, options or source are
// cached apart, and identical ones together.
func TestCacheKeys(t *testing.T) {
	voc := vocabtest.Load(t, "gpt2")
	c := newCompiler(t, voc, rein.CompilerOptions{})
	ctx := context.Background()
	specs := []rein.Spec{
		rein.JSONSchema(`{"type":"integer"}`),
		rein.Spec{Kind: rein.KindJSONSchema, Source: `{"type":"integer"}`, Schema: jsonschema.Options{Whitespace: jsonschema.WhitespaceCompact}},
		rein.JSONSchema(`{"type":"number"}`),
		rein.Regex(`{"type":"integer"}`),
		rein.GBNF(`root ::= "x"`, ""),
		rein.GBNF(`root ::= "x"`, "root"),
		rein.Choice("ab", "c"),
		rein.Choice("a", "bc"),
		rein.JSON(),
	}
	for _, s := range specs {
		_, err := c.Compile(ctx, s)
		require.NoError(t, err)
	}
	st := c.Stats()
	assert.Equal(t, int64(8), st.Compiles, "GBNF root \"\" and \"root\" are the same spec")
	assert.Equal(t, int64(1), st.Hits)
}

// CompilerOptions.Limits reach every stage: each front-end's source limits,
// the automaton's size. Each case sets one field low enough to fail a spec
// that compiles under the defaults, and the error names that field.
func TestCompilerLimits(t *testing.T) {
	voc := vocabtest.Core(t)
	tests := []struct {
		name  string
		lim   grammar.Limits
		spec  rein.Spec
		field string
	}{
		{"automaton", grammar.Limits{TotalStates: 10}, rein.JSON(), "Limits.TotalStates"},
		{"regex source", grammar.Limits{RegexBytes: 4}, rein.Regex(`abcdef`), "Limits.RegexBytes"},
		{"gbnf source", grammar.Limits{GBNFBytes: 8}, rein.GBNF(`root ::= "abcdef"`, ""), "Limits.GBNFBytes"},
		{"schema depth", grammar.Limits{SchemaDepth: 2}, rein.JSONSchema(`{"items":{"items":{"items":{"type":"integer"}}}}`), "Limits.SchemaDepth"},
		{"schema enum", grammar.Limits{Enum: 2}, rein.JSONSchema(`{"enum":[1,2,3]}`), "Limits.Enum"},
		{"choice", grammar.Limits{ChoiceBytes: 5}, rein.Choice("abc", "def"), "Limits.ChoiceBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newCompiler(t, voc, rein.CompilerOptions{}).Compile(context.Background(), tt.spec)
			require.NoError(t, err, "the spec compiles under the defaults")
			_, err = newCompiler(t, voc, rein.CompilerOptions{Limits: tt.lim}).Compile(context.Background(), tt.spec)
			require.ErrorIs(t, err, grammar.ErrLimit)
			assert.Contains(t, err.Error(), tt.field)
		})
	}
	c := newCompiler(t, voc, rein.CompilerOptions{Limits: grammar.Limits{TotalStates: 10}})
	_, err := c.Compile(context.Background(), rein.Regex(`ab`))
	assert.NoError(t, err, "a grammar within the limits compiles")
}

func TestNewCompilerNeedsVocab(t *testing.T) {
	_, err := rein.NewCompiler(nil, rein.CompilerOptions{})
	assert.ErrorIs(t, err, mask.ErrVocab)
}

func TestKindString(t *testing.T) {
	for k, want := range map[rein.Kind]string{rein.KindRegex: "regex", rein.KindJSONSchema: "json-schema", rein.KindChoice: "choice", 0: "kind(0)", 77: "kind(77)"} {
		assert.Equal(t, want, k.String())
	}
}
