package rein

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/jsonschema"
	"github.com/reinlm/rein/grammar/structtag"
	"github.com/reinlm/rein/internal/recovered"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
	"github.com/reinlm/rein/toolcall"
)

// Kind is the language a Spec's source is written in.
type Kind uint8

// The kinds of grammar a Compiler compiles.
const (
	KindRegex         Kind = iota + 1 // Go RE2 syntax, matched in full (grammar.FromRegex)
	KindJSONSchema                    // a JSON Schema (jsonschema.Compile)
	KindGBNF                          // llama.cpp's GBNF with token terminals and %json (grammar.ParseGBNFOptions)
	KindJSON                          // any JSON value (grammar.JSON)
	KindChoice                        // exactly one of a list of strings (grammar.Choice)
	KindGrammar                       // a grammar built in Go (package grammar)
	KindStructuralTag                 // an XGrammar structural tag (structtag.Compile)
	KindToolCalls                     // a model's tool calls for an OpenAI-style request (package toolcall)
	KindEBNF                          // XGrammar's EBNF, as vLLM's grammar requests are written (grammar.ParseEBNFContext)
)

var kindNames = [...]string{KindRegex: "regex", KindJSONSchema: "json-schema", KindGBNF: "gbnf", KindJSON: "json", KindChoice: "choice", KindGrammar: "grammar", KindStructuralTag: "structural-tag", KindToolCalls: "tool-calls", KindEBNF: "ebnf"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Spec says what to compile: a kind, its source and the options of its
// front-end. Build one with Regex, JSONSchema, GBNF, JSON or Choice. Two
// specs with the same kind, source and options share one compiled grammar.
type Spec struct {
	Kind    Kind
	Source  string   // the regex, schema, GBNF or structural tag text; unused for KindJSON, KindChoice and KindGrammar
	Root    string   // KindGBNF, KindEBNF: the start rule ("" means "root")
	Choices []string // KindChoice: the strings to choose from
	// ToolCalls is KindToolCalls' request: the model's format, the tools,
	// tool_choice, parallel_tool_calls and reasoning. The Compiler copies
	// it when the spec is given to it: it may be reused at once.
	ToolCalls toolcall.Request
	// Grammar is KindGrammar's grammar. The Compiler reads it while it
	// compiles: do not modify it until the compile is done.
	Grammar *grammar.Grammar
	// Schema tunes KindJSONSchema. Its LoadRef and Limits must be zero:
	// remote documents are loaded through CompilerOptions.LoadRef, so that
	// the cache stays true to its keys, and the limits are the Compiler's
	// (CompilerOptions.Limits), so that no request can raise them.
	Schema jsonschema.Options
}

// Regex is the spec of a regular expression in Go's RE2 syntax that the
// whole output must match.
func Regex(pattern string) Spec { return Spec{Kind: KindRegex, Source: pattern} }

// JSONSchema is the spec of the JSON documents a schema validates, with the
// front-end's default options. To tune them, set the Spec's Schema field.
func JSONSchema(schema string) Spec { return Spec{Kind: KindJSONSchema, Source: schema} }

// GBNF is the spec of a GBNF grammar starting at rule root ("" means "root").
func GBNF(src, root string) Spec { return Spec{Kind: KindGBNF, Source: src, Root: root} }

// EBNF is the spec of a grammar in XGrammar's EBNF dialect (the grammars
// vLLM's requests carry) starting at rule root ("" means "root"); see
// grammar.ParseEBNF for how it differs from GBNF.
func EBNF(src, root string) Spec { return Spec{Kind: KindEBNF, Source: src, Root: root} }

// JSON is the spec of any one JSON value.
func JSON() Spec { return Spec{Kind: KindJSON} }

// Choice is the spec of exactly one of options, byte for byte.
func Choice(options ...string) Spec { return Spec{Kind: KindChoice, Choices: options} }

// StructuralTag is the spec of an XGrammar structural tag: the JSON an
// OpenAI-style request gives as response_format, {"type": "structural_tag",
// "format": {...}}, or the format object alone (see package
// grammar/structtag). Token texts in it are resolved against the
// Compiler's vocabulary, so an unknown one fails with the JSON pointer of
// where it is.
func StructuralTag(json string) Spec { return Spec{Kind: KindStructuralTag, Source: json} }

// ToolCalls is the spec of a tool-calling turn: the output format of the
// request's model family (free text, reasoning, calls with their markers)
// with each call's arguments checked against its tool's schema, as
// package toolcall builds it from the request's tools, tool_choice and
// parallel_tool_calls. Its cache key is the request itself (the tools'
// descriptions aside), so equal requests share one compiled grammar; a bad
// request fails with an error wrapping toolcall.ErrInvalid that names the
// place.
func ToolCalls(r toolcall.Request) Spec { return Spec{Kind: KindToolCalls, ToolCalls: r} }

// Grammar is the spec of a grammar built in Go, with package grammar's
// constructors or by composing parsed ones (token terminals, embedded
// schemas and all). Its cache key is the grammar's whole content, so two
// equal grammars built apart share one compiled grammar; computing it is
// bounded by CompilerOptions.Limits (Rules, ExprNodes and SchemaBytes), and a grammar
// past them fails with an error wrapping grammar.ErrLimit.
func Grammar(g *grammar.Grammar) Spec { return Spec{Kind: KindGrammar, Grammar: g} }

// ErrSpec reports a Spec that cannot be compiled as given: an unknown kind,
// or a schema spec carrying its own LoadRef or Limits.
var ErrSpec = errors.New("rein: bad grammar spec")

// key returns the cache key of s: kind, options and source, unambiguously.
func (s *Spec) key(lim grammar.Limits) (string, error) {
	var b strings.Builder
	b.WriteByte(byte(s.Kind))
	switch s.Kind {
	case KindRegex, KindStructuralTag:
	case KindJSONSchema:
		if s.Schema.LoadRef != nil {
			return "", fmt.Errorf("%w: Schema.LoadRef is set; use CompilerOptions.LoadRef", ErrSpec)
		}
		if s.Schema.Limits != (grammar.Limits{}) {
			return "", fmt.Errorf("%w: Schema.Limits is set; use CompilerOptions.Limits", ErrSpec)
		}
		fmt.Fprintf(&b, "%+v", s.Schema)
	case KindGBNF, KindEBNF:
		root := s.Root
		if root == "" {
			root = "root"
		}
		fmt.Fprintf(&b, "%d:%s", len(root), root)
	case KindJSON:
		return b.String(), nil
	case KindChoice:
		for _, c := range s.Choices {
			fmt.Fprintf(&b, "%d:%s", len(c), c)
		}
		return b.String(), nil
	case KindGrammar:
		if err := grammarKey(&b, s.Grammar, lim); err != nil {
			return "", err
		}
		return b.String(), nil
	case KindToolCalls:
		// The request, less what does not change the grammar (the tools'
		// descriptions), serialized: that is the key, and the source the
		// compile reads, so the caller may reuse the request at once. The
		// structural tag is built by the compile, not per request: a
		// cache hit costs the serialization only.
		r := s.ToolCalls
		r.Tools = slices.Clone(r.Tools)
		for i := range r.Tools {
			r.Tools[i].Description = ""
		}
		data, err := json.Marshal(r)
		if err != nil {
			return "", fmt.Errorf("%w: tool calls: %w", toolcall.ErrInvalid, err)
		}
		s.Source = string(data)
	default:
		return "", fmt.Errorf("%w: unknown kind %d", ErrSpec, s.Kind)
	}
	b.WriteByte(0)
	b.WriteString(s.Source)
	return b.String(), nil
}

// grammar runs the spec's front-end under ctx and lim; loadRef loads remote
// $refs; voc resolves the token texts of structural tags.
func (s *Spec) grammar(ctx context.Context, lim grammar.Limits, loadRef func(context.Context, string) ([]byte, error), voc *tokenizer.Vocab) (*grammar.Grammar, []jsonschema.Warning, error) {
	switch s.Kind {
	case KindStructuralTag, KindToolCalls:
		opts := structtag.Options{Limits: lim, TokenID: voc.TokenID}
		if s.Kind == KindStructuralTag {
			g, err := structtag.CompileContext(ctx, []byte(s.Source), opts)
			return g, nil, err
		}
		var r toolcall.Request
		if err := json.Unmarshal([]byte(s.Source), &r); err != nil {
			return nil, nil, err
		}
		g, err := toolcall.GrammarContext(ctx, r, opts)
		return g, nil, err
	case KindRegex:
		g, err := grammar.FromRegex(s.Source, lim)
		return g, nil, err
	case KindJSONSchema:
		opts := s.Schema
		opts.Limits = lim
		if loadRef != nil {
			opts.LoadRef = loadRef
		}
		return jsonschema.CompileContext(ctx, []byte(s.Source), opts)
	case KindGBNF:
		g, err := grammar.ParseGBNFOptionsContext(ctx, s.Source, grammar.GBNFOptions{Root: s.Root, Limits: lim, JSONSchema: jsonschema.Embed})
		return g, nil, err
	case KindEBNF:
		g, err := grammar.ParseEBNFContext(ctx, s.Source, grammar.EBNFOptions{Root: s.Root, Limits: lim})
		return g, nil, err
	case KindJSON:
		return grammar.JSON(), nil, nil
	case KindChoice:
		g, err := grammar.Choice(s.Choices, lim)
		return g, nil, err
	case KindGrammar:
		return s.Grammar, nil, s.Grammar.Validate()
	}
	return nil, nil, fmt.Errorf("%w: unknown kind %d", ErrSpec, s.Kind)
}

// CompilerOptions tune a Compiler. The zero value is the default.
type CompilerOptions struct {
	// CacheBytes is the byte budget of the cache of compiled grammars
	// (default 256 MiB; negative: no cache, so every request that does not
	// join a running compile compiles anew). See Compiler for what it counts.
	CacheBytes int64
	// Workers is the most compiles that run at once (default
	// runtime.GOMAXPROCS(0)); the others wait for a slot, still cancellable.
	Workers int
	// Timeout limits the work of one compile, whoever waits on it (default:
	// none). It runs from the moment the compile gets a worker: the time a
	// compile waits for one is bounded by its requests' own contexts. The
	// time compiles step aside for a BatchFiller's fills (the process's
	// background work held back) does not count, up to the limit again:
	// a compile stops by twice its limit at the latest, and under fills
	// back to back its own work, not the fills', decides. Past it, every
	// stage stops within milliseconds, the worker is free again, and the
	// compile fails with an error wrapping grammar.ErrLimit and
	// context.DeadlineExceeded. That failure is cached like any other (see
	// Compiler): the same spec would run out of time again.
	Timeout time.Duration
	// Limits bound what one grammar may cost, at every stage the compiler
	// runs: the front-ends' sources (GBNF, regex, JSON Schema), the pushdown
	// automaton's size, its stack work per byte at match time and the token
	// index's walks. A zero field means its default in grammar.DefaultLimits.
	Limits grammar.Limits
	// LoadRef, when set, loads the documents of JSON Schema $refs to
	// absolute URIs outside the schema (see jsonschema.Options.LoadRef).
	// ctx is the compile's: it ends at the time limit (see Timeout; it has
	// no Deadline, its Err is context.Canceled and context.Cause gives the
	// limit's error) or when no request waits any more, and LoadRef should
	// give up then. It must return the
	// same document for the same URI for the Compiler's life, or the cache
	// will serve grammars built from stale documents; its errors are cached
	// like the compile's other failures, except those wrapping
	// context.Canceled or context.DeadlineExceeded (a loader's own
	// deadline), which are taken as passing.
	LoadRef func(ctx context.Context, uri string) ([]byte, error)
	// WarmWorkers is the most goroutines that classify compiled grammars'
	// nodes in the background (default 0: none). Once a compile is Ready,
	// and on every cache hit, its grammar is queued and its nodes are
	// classified nearest to where its matchers are first, then nearest to
	// the start, so that masks that would otherwise classify the nodes they
	// meet find them done (see mask.Compiled.WarmNext). It pays where an
	// engine leaves time between Ready and the first masks (a prefill) and
	// has a core to spare: warming yields to compiles between nodes, parks
	// while a mask.BatchFiller fills, takes the newest grammar first, and
	// never changes a mask, but it classifies
	// nodes no request may meet, which the grammars then hold. On MaskBench,
	// decoding from the moment a compile is Ready on two cores, it made no
	// mask faster and compiles slower; with a 20 ms prefill before each
	// grammar's first mask, one goroutine halved mask p99 but nearly
	// doubled the grammars' memory, and a first mask that meets the node
	// it is classifying waits for it (see the README): hence off by
	// default. In a continuous batch, whose requests' masks are a forward
	// pass apart, one goroutine cut the step times by 30-45% at p50, p90
	// and p99 on two cores, for 8-18% more peak memory (README).
	//
	// Unless both it and PrepareWork are negative, NewCompiler also
	// classifies, once, the nodes nearly every JSON Schema has (property
	// names, a string's inside, a number), which the vocabulary's grammars
	// then share.
	WarmWorkers int
	// PrepareWork bounds the classification a compile does before it is
	// Ready, in steps of the token index's work (see mask.IndexStats and
	// mask.Compiled.WarmWithin): the nodes nearest to the start are
	// classified first, so that a request's first masks find them done,
	// and then, within three times the bound again, the first position of
	// every JSON object's key (grammar.Rule.Prepare), which nearly every
	// document meets and which costs a few hundred microseconds the first
	// time (default DefaultPrepareWork; negative: none). It costs compile
	// time;
	// what it leaves is warmed in the background (WarmWorkers) or classified
	// by the masks that meet it.
	PrepareWork int64
}

// DefaultPrepareWork is CompilerOptions.PrepareWork's default: on
// MaskBench's schemas, the first few nodes, about a quarter of a
// millisecond of compile time at the median. Back to back on MaskBench
// (maskbench -fresh), 2,500 gave the masks of 5,000 on Llama-3 and Qwen3
// with compile-to-Ready 0.2-0.6 ms sooner at the median; 1,000 gave
// Qwen3's masks a slower p99.
const DefaultPrepareWork = 2_500

// DefaultCacheBytes is the cache budget when CompilerOptions.CacheBytes is 0.
const DefaultCacheBytes = 256 << 20

// Compiler compiles grammars for one vocabulary, on behalf of many requests
// at once. It is safe for concurrent use.
//
// Compiled grammars are cached by kind, source and options in an LRU cache
// with a byte budget, CompilerOptions.CacheBytes. The budget counts each
// grammar's mask.Compiled.MemoryBytes plus the length of its key (the
// automaton and the part of the lazy token index it holds alone), and, once,
// the node classifications the vocabulary's grammars share
// (mask.SharedIndexBytes), which NewCompiler bounds to half the budget with
// mask.SetSharedIndexBudget (the budget is the vocabulary's, shared with
// its WithLogitWidth copies: the last Compiler made with a cache sets it,
// and each Compiler counts at most half its own budget for it). The index
// grows while matchers use a grammar: the grammars report their growth as it
// happens (mask.Options.Growth), and the cache counts it until it measures
// every entry again, once the growth passes a 64th of the budget; so adding
// an entry costs the same however many are cached, and the count errs only
// upwards, by up to a 64th of the budget. Entries are let go when one is
// added or looked up; between those moments the cache may hold more than
// its budget. A grammar larger than the whole budget is compiled and
// returned but not kept.
//
// Identical requests that arrive while one of them is compiling join it: a
// source is compiled once however many requests ask for it at the same time.
// The compile runs under a context of its own that ends at
// CompilerOptions.Timeout (see there for the time fills take) or once
// every request that joined it has gone
// (their contexts have ended); every stage looks at it every few thousand
// steps, so the compile stops within milliseconds and its worker is free
// again. One request going away does not stop a compile others still wait
// for.
//
// Failed compiles are cached too, so that a client retrying a bad or hostile
// spec costs nothing: a front-end error, an automaton limit, a panic, and a
// compile that ran out of CompilerOptions.Timeout (the same spec would run
// out of it again; as load may have been to blame, a time-out is remembered
// for a minute only). Each failure is charged its key's length plus a small
// fixed amount (see CompilerStats.FailedEntries). Not cached: a compile
// stopped because every request waiting for it went away (its requests'
// reasons, not the spec's), and an error from LoadRef that wraps
// context.Canceled or context.DeadlineExceeded (a passing failure).
//
// NewCompiler builds the vocabulary's sorted token index, once per process
// and vocabulary (tens of milliseconds for a large one).
type Compiler struct {
	vocab *tokenizer.Vocab
	opts  CompilerOptions
	slots chan struct{} // one token per running compile

	mu        sync.Mutex
	cache     lru
	inflight  map[string]*flight
	stats     CompilerStats
	warmer    warmer
	compiling atomic.Int32 // compiles running or waiting for a slot
}

// CompilerStats counts what a Compiler has done since it was made.
type CompilerStats struct {
	Requests      int64 // CompileAsync calls with a valid spec: Hits + Joins + Compiles, and those whose context had already ended
	Hits          int64 // requests answered from the cache, with a grammar or a cached failure
	FailedHits    int64 // the Hits answered with a cached failure
	Joins         int64 // requests that joined an identical compile already running
	Compiles      int64 // compiles started
	Failures      int64 // compiles that failed: errors, panics, time limits, cancellations
	Evictions     int64 // entries dropped from the cache to keep its budget
	Entries       int   // entries in the cache now: grammars and failures
	FailedEntries int   // the Entries that are cached failures
	Bytes         int64 // their size, as last measured, and the growth of the compiler's grammars since: an upper bound, by up to a 64th of the budget (growth of grammars evicted since counts until the entries are measured again)
	SharedBytes   int64 // node classifications shared by the vocabulary's grammars, counted once (mask.SharedIndexBytes)
}

// NewCompiler returns a compiler for vocab. It fails with an error wrapping
// mask.ErrVocab when vocab is nil or has no usable token (mask.CheckVocab).
func NewCompiler(vocab *tokenizer.Vocab, opts CompilerOptions) (*Compiler, error) {
	if err := mask.CheckVocab(vocab); err != nil {
		return nil, err
	}
	if opts.CacheBytes == 0 {
		opts.CacheBytes = DefaultCacheBytes
	}
	if opts.Workers < 1 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	c := &Compiler{
		vocab:    vocab,
		opts:     opts,
		slots:    make(chan struct{}, opts.Workers),
		inflight: map[string]*flight{},
	}
	c.cache.budget = opts.CacheBytes
	c.warmer.workers = opts.WarmWorkers
	if opts.CacheBytes > 0 {
		c.cache.shared = func() (int64, int64) {
			sets := mask.SharedTokenSetBytes(vocab)
			return int64(mask.SharedIndexBytes(vocab) - sets), int64(sets)
		}
		mask.SetSharedIndexBudget(vocab, int(opts.CacheBytes/2))
	}
	if opts.WarmWorkers >= 0 || opts.PrepareWork >= 0 {
		primeVocab(vocab)
	}
	return c, nil
}

// primerSchema has the nodes nearly every JSON Schema has: an object's
// property names (and an undeclared key's rest, which every key's positions
// are derived from), a string's inside, a number, and the positions of a
// counted string (whose rows of tokens of at most so many characters every
// maxLength shares).
const primerSchema = `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"},"c":{"type":"array","items":{"type":"integer"}},"d":{"type":"string","maxLength":64}}}`

// primeVocab classifies every node of primerSchema for vocab, as a server
// would at start: the classifications are shared with every grammar of the
// vocabulary that has such nodes, and the rows of tokens a string's inside
// is classified from are built, so that the first request pays for neither.
// It costs 40 to 80 ms the first time for a vocabulary (Llama-3, Qwen3, on
// one core of the development machine), and little once they are shared.
func primeVocab(vocab *tokenizer.Vocab) {
	g, _, err := jsonschema.Compile([]byte(primerSchema), jsonschema.Options{})
	if err != nil {
		return
	}
	c, err := mask.Compile(g, vocab, mask.Options{})
	if err != nil {
		return
	}
	c.Warm(context.Background())
}

// Vocab returns the vocabulary the compiler compiles for.
func (c *Compiler) Vocab() *tokenizer.Vocab { return c.vocab }

// Stats returns the compiler's counters. It first lets go of the entries
// that the grammars' growth since the last compile or lookup has pushed past
// the budget, so that what the cache counts (Bytes, and SharedBytes up to
// half the budget) is within it, unless the shared classifications alone
// take more.
func (c *Compiler) Stats() CompilerStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cache.budget > 0 {
		c.stats.Evictions += c.cache.evict()
	}
	s := c.stats
	s.Entries, s.FailedEntries, s.Bytes = c.cache.len(), c.cache.failed, c.cache.bytes()
	s.SharedBytes = int64(mask.SharedIndexBytes(c.vocab))
	return s
}

// Compile compiles spec, or returns it from the cache, waiting until it is
// done or ctx ends. It is CompileAsync followed by Wait.
func (c *Compiler) Compile(ctx context.Context, spec Spec) (*mask.Compiled, error) {
	return c.CompileAsync(ctx, spec).Wait(ctx)
}

// build runs the stages of one compile under ctx: the front-end, the
// automaton, the token index. Each stage stops soon after ctx ends, with an
// error wrapping ctx.Err(). A panic in any stage becomes the compile's error.
func (c *Compiler) build(ctx context.Context, spec *Spec) (res result) {
	defer func() {
		if r := recover(); r != nil {
			res = result{err: &mask.PanicError{Op: "compile", Value: r, Stack: recovered.Stack()}}
		}
	}()
	g, warnings, err := spec.grammar(ctx, c.opts.Limits, c.opts.LoadRef, c.vocab)
	if err != nil {
		return result{warnings: warnings, err: err}
	}
	if err := ctx.Err(); err != nil {
		return result{err: err}
	}
	opts := mask.Options{Limits: c.opts.Limits}
	if c.cache.budget > 0 {
		opts.Growth = &c.cache.grown // without a cache, no one counts it
	}
	compiled, err := mask.CompileContext(ctx, g, c.vocab, opts)
	if err != nil {
		return result{warnings: warnings, err: err}
	}
	return result{compiled: compiled, warnings: slices.Clip(warnings)}
}
