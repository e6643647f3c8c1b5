package mask_test

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/grammar/structtag"
	"github.com/reinlm/rein/internal/oracle"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// This file checks FillBitmask against the Earley oracle's token-level
// Matcher (internal/oracle) on grammars with token terminals, LitTokens
// literals and trigger-safe free text, on the real Qwen3, Llama-3 and
// Mistral vocabularies: at every step of seeded walks the mask must allow
// exactly the tokens the oracle allows, and both must agree on whether the
// output may end and whether a stop token ended it; where a script is a
// complete output, both must let it end there. An ordinary token that is both
// text and a token terminal's keeps both readings in both. The oracle (an Earley
// recognizer over bytes and whole tokens) shares no code with packages pda
// and mask.

// callGBNF is a small JSON tool call: {"name": ..., "arguments": {...}}.
const callGBNF = `
call  ::= "{\"name\": " name ", \"arguments\": " obj "}"
name  ::= "\"get_weather\"" | "\"get_time\""
obj   ::= "{" ( pair ( ", " pair )* )? "}"
pair  ::= str ": " value
value ::= str | num | obj | "[" ( value ( ", " value )* )? "]" | "true" | "false" | "null"
str   ::= "\"" [^"\\\x00-\x1f]* "\""
num   ::= "-"? [0-9]+ ( "." [0-9]+ )?
`

// withCall returns the grammar whose root is root(call), where call is the
// rule index of callGBNF's call.
func withCall(t *testing.T, root func(call *grammar.Expr) *grammar.Expr) *grammar.Grammar {
	t.Helper()
	g, err := grammar.ParseGBNF(callGBNF, "call", grammar.Limits{})
	require.NoError(t, err)
	call := grammar.Call(g.Root)
	g.Rules = append(g.Rules, grammar.Rule{Name: "root", Body: root(call)})
	g.Root = len(g.Rules) - 1
	require.NoError(t, g.Validate())
	return g
}

// scriptPiece is one part of a typical output that walks follow until they
// stray: text, spelled by whatever allowed tokens are prefixes of it, or one
// token by id (tok >= 0), or, with all, the mark of a place where every
// token id is checked, or, with end, the mark of the end of a complete
// output, where the output must be able to end and a stop token must end it.
type scriptPiece struct {
	text string
	tok  int
	all  bool
	end  bool
}

func scriptText(s string) scriptPiece { return scriptPiece{text: s, tok: -1} }
func scriptTok(id int) scriptPiece    { return scriptPiece{tok: id} }

// spent reports whether p is text all spelled already (or none), neither a
// token nor a mark.
func (p scriptPiece) spent() bool { return p.tok < 0 && p.text == "" && !p.all && !p.end }

// checkAll marks the place where every token id is checked.
var checkAll = scriptPiece{tok: -1, all: true}

// scriptEnd ends a script that is a complete output: there both the mask
// and the oracle must say the output may end, and the stop token the walk
// then takes must end it. It is the script's last piece.
var scriptEnd = scriptPiece{tok: -1, end: true}

// scriptToks spells texts as exactly those tokens, one piece each.
func scriptToks(t *testing.T, voc *tokenizer.Vocab, texts ...string) []scriptPiece {
	t.Helper()
	var out []scriptPiece
	for _, s := range texts {
		id, ok := voc.TokenID(s)
		require.True(t, ok, "%s has no token %q", voc.Name(), s)
		out = append(out, scriptTok(id))
	}
	return out
}

func joinScripts(parts ...[]scriptPiece) []scriptPiece { return slices.Concat(parts...) }

// tokenOracleCase is a grammar for one vocabulary and the outputs its walks
// follow. exact scripts are followed to the end, every token id checked
// where they say so; the others lead random walks, which stray from them.
type tokenOracleCase struct {
	name    string
	voc     *tokenizer.Vocab
	g       *grammar.Grammar
	scripts [][]scriptPiece
	exact   [][]scriptPiece
}

func tokenOracleCases(t *testing.T) []tokenOracleCase {
	var cases []tokenOracleCase
	const (
		weather = `{"name": "get_weather", "arguments": {"city": "Paris", "days": [1, 2.5], "unit": null}}`
		clock   = `{"name": "get_time", "arguments": {}}`
	)
	if slices.Contains(vocabtest.Available("qwen3"), "qwen3") {
		voc := vocabtest.Load(t, "qwen3")
		tok := func(s string) int { return tokenIDOf(t, voc, s) }
		ordinaryStop, err := voc.WithStopTokens(append(voc.StopTokens(), tok("</tool_call>")))
		require.NoError(t, err)
		// <tool_call>, </tool_call>, <think> and </think> are ordinary
		// (added, not special) tokens in Qwen3: text, one token or several.
		calls := func(call *grammar.Expr) *grammar.Expr {
			return grammar.Rep(grammar.Cat(grammar.Lit("<tool_call>\n"), call, grammar.Lit("\n</tool_call>"), grammar.Text("<tool_call>")), 0, -1)
		}
		tools := withCall(t, func(call *grammar.Expr) *grammar.Expr {
			return grammar.Cat(grammar.Text("<tool_call>"), calls(call))
		})
		cases = append(cases,
			tokenOracleCase{
				name: "qwen3/tool calls after free text", voc: voc, g: tools,
				scripts: [][]scriptPiece{
					{scriptText("Sure.<tool_call>\n" + weather + "\n</tool_call>\nDone."), scriptEnd},
					{scriptText("<tool_call>\n" + clock + "\n</tool_call><tool_call>\n" + weather + "\n</tool_call>"), scriptEnd},
					{scriptText("I'll use <tool and <tool_call <tool_call>\n" + clock + "\n</tool_call>"), scriptEnd},
				},
				exact: [][]scriptPiece{
					// The trigger split over several tokens, after a token
					// holding text before its first byte.
					joinScripts(scriptToks(t, voc, "Sure", "..<", "tool"), []scriptPiece{checkAll}, scriptToks(t, voc, "_call", ">\n"), []scriptPiece{checkAll, scriptText(clock + "\n</tool_call>"), scriptEnd}),
					// The trigger as its one added token, then a second call
					// right after the first.
					{scriptTok(tok("<tool_call>")), scriptText("\n" + clock + "\n</tool_call>"), checkAll, scriptTok(tok("<tool_call>")), scriptText("\n" + clock + "\n</tool_call>ok"), scriptEnd},
					// Text that starts the trigger and turns away.
					joinScripts(scriptToks(t, voc, "<", "tool", "_c", "all"), []scriptPiece{checkAll}, scriptToks(t, voc, " ", "<", "tool", "_call", ">\n"), []scriptPiece{scriptText(clock)}),
				},
			},
			tokenOracleCase{
				name: "qwen3/think then tool calls", voc: voc,
				g: withCall(t, func(call *grammar.Expr) *grammar.Expr {
					return grammar.Cat(grammar.Lit("<think>"), grammar.Text("</think>"), grammar.Lit("</think>\n\n"), grammar.Text("<tool_call>"), calls(call))
				}),
				scripts: [][]scriptPiece{
					{scriptText("<think>\nThe </think weather <think>.\n</think>\n\nChecking.<tool_call>\n" + weather + "\n</tool_call>"), scriptEnd},
				},
				exact: [][]scriptPiece{
					joinScripts(scriptToks(t, voc, "<think>", "Hmm", "</", "think"), []scriptPiece{checkAll}, scriptToks(t, voc, ">\n\n", "<tool_call>"), []scriptPiece{scriptText("\n" + clock)}),
				},
			},
			tokenOracleCase{
				// Token terminals: <think>, any tokens but </think>, </think>;
				// free text, and calls opened and closed by the one tokens.
				name: "qwen3/think and tool calls as token terminals", voc: voc,
				g: withCall(t, func(call *grammar.Expr) *grammar.Expr {
					return grammar.Cat(
						grammar.Token("<think>"), grammar.Rep(grammar.TokenSet(true, []string{"</think>"}, nil), 0, -1), grammar.Token("</think>"),
						grammar.Lit("\n\n"), grammar.Text("<tool_call>"),
						grammar.Rep(grammar.Cat(grammar.Token("<tool_call>"), grammar.Lit("\n"), call, grammar.Lit("\n"), grammar.Token("</tool_call>"), grammar.Text("<tool_call>")), 0, -1))
				}),
				scripts: [][]scriptPiece{
					{scriptTok(tok("<think>")), scriptText("Let me <|im_start|> think."), scriptTok(tok("</think>")), scriptText("\n\nOK."), scriptTok(tok("<tool_call>")), scriptText("\n" + weather + "\n"), scriptTok(tok("</tool_call>")), scriptEnd},
				},
				exact: [][]scriptPiece{
					{scriptTok(tok("<think>")), scriptTok(tok("<|im_start|>")), scriptTok(tok("<tool_call>")), checkAll, scriptTok(tok("</think>")), scriptText("\n\n<tool"), checkAll, scriptTok(tok("<tool_call>")), scriptText("\n" + clock + "\n"), scriptTok(tok("</tool_call>")), scriptEnd},
					// Half a character of free text: no token terminal may follow.
					{scriptTok(tok("<think>")), scriptTok(tok("</think>")), scriptText("\n\n"), scriptTok(tok("\xe6")), checkAll, scriptTok(tok("\x97")), scriptTok(tok("\xa5")), scriptTok(tok("<tool_call>"))},
				},
			},
			tokenOracleCase{
				// Excludes inside others: "<tool_c" holds "tool_c", and
				// "all>" ends "<tool_call>" and "_call>".
				name: "qwen3/overlapping excludes", voc: voc,
				g: withCall(t, func(call *grammar.Expr) *grammar.Expr {
					return grammar.Cat(grammar.Text("<tool_call>", "tool_c", "all>", "日本"), grammar.Lit("<tool_call>"), call)
				}),
				scripts: [][]scriptPiece{
					{scriptText("tool_ca <tool_ <tool_call>" + clock), scriptEnd},
					{scriptText("日 本 日本 <tool_call>" + clock), scriptEnd},
				},
				exact: [][]scriptPiece{
					joinScripts(scriptToks(t, voc, "<", "tool"), []scriptPiece{checkAll}, scriptToks(t, voc, "_c"), []scriptPiece{checkAll}, scriptToks(t, voc, "all", ">"), []scriptPiece{scriptText(clock), scriptEnd}),
					joinScripts(scriptToks(t, voc, "tool"), []scriptPiece{checkAll}, scriptToks(t, voc, " ", "日"), []scriptPiece{checkAll}),
				},
			},
			tokenOracleCase{
				// Up to four tokens of any kind, then text; and where the
				// same ordinary token is text or a token terminal, both
				// readings are kept: after <tool_call>, "x" (text) and "y"
				// (token) may follow; after "A:|", "|" is the literal
				// (text) or a second token (token).
				name: "qwen3/any tokens, and both readings kept", voc: voc,
				g: rootGrammar(grammar.Or(
					grammar.Cat(grammar.Lit("A:"), grammar.Rep(grammar.AnyToken(), 0, 4), grammar.Lit("|"), grammar.Text()),
					grammar.Cat(grammar.Lit("<tool_call>"), grammar.Lit("x")),
					grammar.Cat(grammar.Token("<tool_call>"), grammar.Lit("y")),
				)),
				scripts: [][]scriptPiece{
					{scriptText("A:"), scriptTok(tok("<|im_start|>")), scriptTok(tok("<tool_call>")), scriptText("|free"), scriptEnd},
					{scriptTok(tok("<tool_call>")), scriptText("y"), scriptEnd},
					{scriptText("A:"), scriptTok(tok("|")), scriptTok(tok("|")), scriptTok(tok("|")), scriptText("|x"), scriptEnd},
				},
				exact: [][]scriptPiece{
					{scriptTok(tok("<tool_call>")), checkAll, scriptText("x"), scriptEnd},
					{scriptTok(tok("<tool_call>")), scriptText("y"), checkAll, scriptEnd},
					{scriptText("A:"), checkAll, scriptTok(tok("<|vision_pad|>")), scriptTok(tok("hello")), scriptText("|"), scriptEnd},
					// "|" three times: the literal after none, one or two
					// of them as tokens.
					{scriptText("A:"), scriptTok(tok("|")), checkAll, scriptTok(tok("|")), scriptTok(tok("|")), checkAll, scriptText("free"), scriptEnd},
				},
			},
			tokenOracleCase{
				// A structural tag whose end is </think> as a token, an
				// ordinary token in Qwen3: inside the free text it is text
				// too, so both readings are kept, and the output may end
				// right after it. Under "text wins" it could never close.
				name: "qwen3/tag with a token end", voc: voc, g: thinkTag(t, voc),
				scripts: [][]scriptPiece{
					{scriptTok(tok("<think>")), scriptText("Let me think about </think> and <think>."), scriptTok(tok("</think>")), scriptEnd},
					{scriptText("<think>\nHmm."), scriptTok(tok("</think>")), scriptText(" more </think"), scriptTok(tok("</think>")), scriptEnd},
				},
				exact: [][]scriptPiece{
					{scriptTok(tok("<think>")), scriptText("some text"), scriptTok(tok("</think>")), checkAll, scriptEnd},
					// </think> as the end, and as text going on.
					{scriptText("<think>a"), scriptTok(tok("</think>")), scriptText("b"), checkAll, scriptTok(tok("</think>")), scriptEnd},
				},
			},
			tokenOracleCase{
				// </tool_call>, an ordinary token, made a stop token: never
				// text, so the call ends with its text in other tokens; and
				// a branch through ids no token has, which cannot be taken.
				name: "qwen3/an ordinary stop token, and ids out of the vocabulary", voc: ordinaryStop,
				g: withCall(t, func(call *grammar.Expr) *grammar.Expr {
					return grammar.Or(
						grammar.Cat(grammar.Lit("<tool_call>\n"), call, grammar.Lit("\n</tool_call>"), grammar.Rep(grammar.AnyToken(), 0, 2)),
						grammar.Cat(grammar.Lit("<tool_"), grammar.TokenIDs(ordinaryStop.Size(), 1<<30)),
						grammar.Cat(grammar.Lit("</"), grammar.TokenSet(false, nil, []grammar.TokenRange{{Lo: ordinaryStop.Size(), Hi: 1<<31 - 1}})),
					)
				}),
				scripts: [][]scriptPiece{
					{scriptText("<tool_call>\n" + weather + "\n</tool_call>"), scriptEnd},
				},
				exact: [][]scriptPiece{
					{checkAll, scriptText("<tool_call>\n" + clock + "\n"), checkAll, scriptText("</tool_call>"), checkAll, scriptTok(tok("</tool_call>"))},
				},
			},
		)
	}
	if slices.Contains(vocabtest.Available("llama3"), "llama3") {
		// This is Llama-3's vocabulary; Llama-3.1 puts <|eom_id|> at 128008
		// and <|python_tag|> at 128010, reserved special tokens here. Make
		// 128008 a stop token as in Llama-3.1 and call them by those ids.
		base := vocabtest.Load(t, "llama3")
		voc, err := base.WithStopTokens(append(base.StopTokens(), 128008))
		require.NoError(t, err)
		const pythonTag, eom = 128010, 128008
		require.True(t, voc.IsSpecial(pythonTag) && voc.IsSpecial(eom))
		tok := func(s string) int { return tokenIDOf(t, voc, s) }
		cases = append(cases,
			tokenOracleCase{
				name: "llama3/python_tag call or text", voc: voc,
				g: withCall(t, func(call *grammar.Expr) *grammar.Expr {
					return grammar.Or(grammar.Cat(grammar.TokenIDs(pythonTag), call, grammar.Token(string(voc.Bytes(eom)))), grammar.Text())
				}),
				scripts: [][]scriptPiece{
					{scriptTok(pythonTag), scriptText(weather), scriptTok(eom)},
					{scriptText("It is sunny <|python_tag|> in Paris."), scriptEnd},
				},
				exact: [][]scriptPiece{
					{scriptTok(pythonTag), checkAll, scriptText(clock), checkAll, scriptTok(eom)},
				},
			},
			tokenOracleCase{
				// A header, then one to sixteen tokens that are not in the
				// special range, then <|eot_id|>, a stop token, by a terminal.
				name: "llama3/header and a negated range", voc: voc,
				g: rootGrammar(grammar.Cat(
					grammar.Token("<|start_header_id|>"), grammar.Lit("assistant"), grammar.Token("<|end_header_id|>"), grammar.Lit("\n\n"),
					grammar.Rep(grammar.TokenSet(true, nil, []grammar.TokenRange{{Lo: 128000, Hi: 128255}}), 1, 16),
					grammar.Token("<|eot_id|>"))),
				scripts: [][]scriptPiece{
					{scriptTok(tok("<|start_header_id|>")), scriptText("assistant"), scriptTok(tok("<|end_header_id|>")), scriptText("\n\nHello, world!"), scriptTok(tok("<|eot_id|>"))},
				},
				exact: [][]scriptPiece{
					{scriptTok(tok("<|start_header_id|>")), scriptText("assistant"), scriptTok(tok("<|end_header_id|>")), scriptText("\n\n"), checkAll, scriptText("<|eot_id|>"), checkAll, scriptTok(tok("<|eot_id|>"))},
				},
			},
		)
	}
	if slices.Contains(vocabtest.Available("mistral"), "mistral") {
		// Mistral-7B v0.1's vocabulary has no [TOOL_CALLS] token (v0.3
		// has): the calls open with the special <s> or its text, then the
		// text [TOOL_CALLS]; byte-fallback tokens stand for token ids.
		voc := vocabtest.Load(t, "mistral")
		s := tokenIDOf(t, voc, "<s>")
		require.True(t, voc.IsSpecial(s))
		cases = append(cases,
			tokenOracleCase{
				name: "mistral/LitTokens calls or text", voc: voc,
				g: withCall(t, func(call *grammar.Expr) *grammar.Expr {
					return grammar.Or(grammar.Text("[TOOL_CALLS]", "<s>"),
						grammar.Cat(grammar.LitTokens("<s>[TOOL_CALLS] ["), call, grammar.Rep(grammar.Cat(grammar.Lit(", "), call), 0, -1), grammar.Lit("]")))
				}),
				scripts: [][]scriptPiece{
					{scriptTok(s), scriptText("[TOOL_CALLS] [" + weather + ", " + clock + "]"), scriptEnd},
					{scriptText("<s>[TOOL_CALLS] [" + clock + "]"), scriptEnd},
					{scriptText("The <s weather [TOOL_CALLS is fine."), scriptEnd},
				},
				exact: [][]scriptPiece{
					{scriptTok(s), checkAll, scriptText("[TOOL_CALLS] [" + clock + "]"), scriptEnd},
					{scriptText("<s"), checkAll, scriptText(">[TOOL_CALLS] [" + clock + "]"), checkAll, scriptEnd},
				},
			},
			tokenOracleCase{
				// Byte-fallback tokens <0x00>..<0xFF> (ids 3 to 258) by id:
				// ordinary tokens taken as tokens, except where their byte
				// is text the grammar allows ("?").
				name: "mistral/byte tokens by id", voc: voc,
				g: rootGrammar(grammar.Cat(grammar.Text("!"), grammar.Lit("!"), grammar.Rep(grammar.TokenSet(false, nil, []grammar.TokenRange{{Lo: 3, Hi: 258}}), 1, 4), grammar.Lit("?"))),
				scripts: [][]scriptPiece{
					{scriptText("Hi!"), scriptTok(3 + 'a'), scriptTok(3 + 0xC3), scriptText("?"), scriptEnd},
				},
				exact: [][]scriptPiece{
					// <0xFF> is a token, whose byte no text holds; <0x3F> is "?".
					{scriptText("Hi!"), checkAll, scriptTok(3 + 0xFF), scriptTok(3 + '?'), checkAll, scriptEnd},
				},
			},
		)
	}
	return cases
}

// thinkTag compiles, for Qwen3's voc, the structural tag of a think block
// whose end is the token </think>.
func thinkTag(t *testing.T, voc *tokenizer.Vocab) *grammar.Grammar {
	t.Helper()
	const request = `{"type": "structural_tag", "format": {"type": "tag", "begin": "<think>",
		"content": {"type": "any_text"}, "end": {"type": "token", "token": "</think>"}}}`
	g, err := structtag.Compile([]byte(request), structtag.Options{TokenID: voc.TokenID})
	require.NoError(t, err)
	return g
}

func rootGrammar(body *grammar.Expr) *grammar.Grammar {
	return &grammar.Grammar{Rules: []grammar.Rule{{Name: "root", Body: body}}}
}

func tokenIDOf(t *testing.T, voc *tokenizer.Vocab, text string) int {
	t.Helper()
	id, ok := voc.TokenID(text)
	require.True(t, ok, "%s has no token %q", voc.Name(), text)
	return id
}

// TestTokenMaskMatchesOracle runs every case's exact scripts and seeded
// random walks led by its scripts. At every step the mask must equal the
// oracle on the special and stop tokens, a sample of tokens holding '<' or
// '[', and 1,000 random ids; and on every id at the start and where an exact
// script says so.
func TestTokenMaskMatchesOracle(t *testing.T) {
	walks, maxSteps, sample, everyID := 4, 30, 1000, true
	if race.Enabled || testing.Short() {
		// Every id would take minutes under the race detector.
		walks, maxSteps, sample, everyID = 1, 10, 200, false
	}
	for _, tc := range tokenOracleCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			c, err := mask.Compile(tc.g, tc.voc, mask.Options{})
			require.NoError(t, err)
			start, err := oracle.NewMatcher(tc.g, tc.voc)
			require.NoError(t, err)
			w := newTokenWalker(t, c, start, sample, everyID)
			for i, s := range tc.exact {
				w.run(fmt.Sprintf("exact script %d", i), s, rand.New(rand.NewPCG(uint64(i), 1)), true, len(s)*64)
			}
			for i := range walks {
				rng := rand.New(rand.NewPCG(uint64(i), 2))
				w.run(fmt.Sprintf("walk %d", i), tc.scripts[i%len(tc.scripts)], rng, false, maxSteps)
			}
		})
	}
}

// tokenWalker runs walks of one compiled grammar beside the oracle.
type tokenWalker struct {
	t       *testing.T
	c       *mask.Compiled
	start   *oracle.Matcher // the oracle at the start, cloned by each walk
	voc     *tokenizer.Vocab
	stops   []int
	always  []int // checked at every step: special and stop tokens, and a sample of tokens holding '<' or '['
	sample  int   // how many random ids are checked besides at every step
	everyID bool  // check every id where asked: at the first start, and where exact scripts say
	full    bool  // every id has been checked at the start
}

func newTokenWalker(t *testing.T, c *mask.Compiled, start *oracle.Matcher, sample int, everyID bool) *tokenWalker {
	voc := c.Vocab()
	w := &tokenWalker{t: t, c: c, start: start, voc: voc, stops: voc.StopTokens(), sample: sample, everyID: everyID}
	var marked []int
	for id := range voc.Size() {
		b := voc.Bytes(id)
		switch {
		case voc.IsSpecial(id) || slices.Contains(w.stops, id):
			w.always = append(w.always, id)
		case strings.ContainsAny(string(b), "<["):
			marked = append(marked, id)
		}
	}
	rng := rand.New(rand.NewPCG(5, 5))
	rng.Shuffle(len(marked), func(i, j int) { marked[i], marked[j] = marked[j], marked[i] })
	w.always = append(w.always, marked[:min(len(marked), 200)]...)
	return w
}

// run walks from the start: it follows script while it can (always, when
// exact; else straying with some probability each step), then picks random
// allowed tokens, for at most maxSteps tokens, comparing the mask with the
// oracle at each step. A quarter of the tokens are rolled back and accepted
// again before the next step.
func (w *tokenWalker) run(name string, script []scriptPiece, rng *rand.Rand, exact bool, maxSteps int) {
	t := w.t
	m := w.c.NewMatcher()
	o := w.start.Clone()
	bm := mask.NewBitmask(1, w.c.VocabSize())
	var hist []string // what was accepted, for messages
	where := func(step int) string {
		return fmt.Sprintf("%s, step %d, after %s", name, step, strings.Join(hist, " "))
	}
	following := true
	ending := false // the script's end has been reached: a stop token comes next
	defer func() {
		t.Logf("%s: %d tokens, ended %v: %s", name, len(hist), o.Terminated(), strings.Join(hist, " "))
	}()
	for step := 0; step < maxSteps; step++ {
		require.NoError(t, m.FillBitmask(bm, 0))
		require.Equal(t, o.CanEnd(), m.CanEnd(), "CanEnd: %s", where(step))
		all := step == 0 && !w.full
		for following && len(script) > 0 && (script[0].spent() || script[0].all || script[0].end) {
			if script[0].end {
				// Liveness: the script is a complete output.
				require.True(t, m.CanEnd() && o.CanEnd(), "%s: the script is a complete output, but CanEnd is %v in the mask, %v in the oracle", where(step), m.CanEnd(), o.CanEnd())
				ending = true
			} else if script[0].all {
				all = true
			}
			script = script[1:]
		}
		w.full = w.full || step == 0
		if !w.check(bm, o, rng, all && w.everyID, where(step)) {
			return
		}
		var id int
		if following && !exact && rng.IntN(12) == 0 {
			following = false
		}
		if following {
			var ok bool
			if id, script, ok = w.next(bm, script, rng); !ok {
				require.False(t, exact, "%s: the exact script cannot go on (%v left)", where(step), script)
				following = false
			}
		}
		if !following || id < 0 {
			if exact {
				return // the exact script is done
			}
			if id = w.random(bm, o, rng); id < 0 {
				require.True(t, o.Terminated() || o.CanEnd(), "%s: nothing allowed", where(step))
				return
			}
		}
		hist = append(hist, describeToken(w.voc, id))
		require.True(t, m.AcceptToken(id), "mask refuses token %s it allowed: %s", describeToken(w.voc, id), where(step))
		require.True(t, o.Accept(id), "oracle refuses token %s, which the mask allowed: %s", describeToken(w.voc, id), where(step))
		require.Equal(t, o.Terminated(), m.IsTerminated(), "terminated: %s", where(step+1))
		if ending && following {
			require.True(t, slices.Contains(w.stops, id) && o.Terminated(), "%s: the stop token did not end the complete output", where(step+1))
		}
		if o.Terminated() {
			return
		}
		if rng.IntN(4) == 0 {
			// Undo and redo the token: the next step checks the state.
			require.NoError(t, m.Rollback(1), where(step+1))
			require.True(t, m.AcceptToken(id), "mask refuses token %s again after a rollback: %s", describeToken(w.voc, id), where(step))
		}
	}
}

// check compares the mask with the oracle, on every id when all, else on
// the ids always checked and w.sample random ones, and reports the first
// differences; it returns whether they agree.
func (w *tokenWalker) check(bm *mask.Bitmask, o *oracle.Matcher, rng *rand.Rand, all bool, where string) bool {
	var diffs []string
	differ := func(id int, want bool) bool {
		if got := bm.Allowed(0, id); got != want {
			diffs = append(diffs, fmt.Sprintf("%s: mask %v, oracle %v", describeToken(w.voc, id), got, want))
		}
		return len(diffs) == 8
	}
	if all {
		for id, want := range o.Mask() {
			if differ(id, want) {
				break
			}
		}
	} else {
		ids := slices.Clone(w.always)
		for range w.sample {
			ids = append(ids, rng.IntN(w.c.VocabSize()))
		}
		for _, id := range ids {
			if differ(id, o.Allowed(id)) {
				break
			}
		}
	}
	if len(diffs) > 0 {
		w.t.Errorf("%s: mask and oracle differ on %s", where, strings.Join(diffs, "; "))
		return false
	}
	return true
}

// next returns the next token of script, if the mask allows one, and the
// script after it; id -1 when the script is done, and a stop token the mask
// allows, if any, once its pieces are all taken. A text piece is spelled by
// a random allowed ordinary token whose bytes start it (special tokens never
// spell text); such a token may be read as a token terminal too.
func (w *tokenWalker) next(bm *mask.Bitmask, script []scriptPiece, rng *rand.Rand) (int, []scriptPiece, bool) {
	for len(script) > 0 && script[0].spent() {
		script = script[1:]
	}
	if len(script) == 0 {
		for _, s := range w.stops {
			if bm.Allowed(0, s) {
				return s, nil, true
			}
		}
		return -1, nil, true
	}
	p := script[0]
	if p.tok >= 0 {
		return p.tok, script[1:], bm.Allowed(0, p.tok)
	}
	var cands []int
	for n := 1; n <= len(p.text) && n <= 64; n++ {
		if id, ok := w.voc.TokenID(p.text[:n]); ok && bm.Allowed(0, id) && !w.voc.IsSpecial(id) {
			cands = append(cands, id)
		}
	}
	if len(cands) == 0 {
		return -1, script, false
	}
	id := cands[rng.IntN(len(cands))]
	rest := slices.Clone(script)
	rest[0].text = p.text[len(w.voc.Bytes(id)):]
	return id, rest, true
}

// random returns a random allowed token: a stop token now and then where
// the output may end, an allowed special token or one holding '<' or '['
// now and then, else any allowed token; -1 when none is allowed.
func (w *tokenWalker) random(bm *mask.Bitmask, o *oracle.Matcher, rng *rand.Rand) int {
	if o.CanEnd() && rng.IntN(6) == 0 {
		for _, s := range w.stops {
			if bm.Allowed(0, s) {
				return s
			}
		}
	}
	if rng.IntN(3) == 0 {
		var pick []int
		for _, id := range w.always {
			if bm.Allowed(0, id) {
				pick = append(pick, id)
			}
		}
		if len(pick) > 0 {
			return pick[rng.IntN(len(pick))]
		}
	}
	row := bm.Row(0)
	n := 0
	for _, x := range row {
		n += bits.OnesCount32(x)
	}
	if n == 0 {
		return -1
	}
	k := rng.IntN(n)
	for i, x := range row {
		if c := bits.OnesCount32(x); k >= c {
			k -= c
			continue
		}
		for ; k > 0; k-- {
			x &= x - 1
		}
		return 32*i + bits.TrailingZeros32(x)
	}
	return -1
}

func describeToken(voc *tokenizer.Vocab, id int) string {
	kind := ""
	if voc.IsSpecial(id) {
		kind = " special"
	}
	if slices.Contains(voc.StopTokens(), id) {
		kind += " stop"
	}
	return fmt.Sprintf("%d%s %q", id, kind, voc.Bytes(id))
}
