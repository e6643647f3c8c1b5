package toolcall

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/grammar/structtag"
	earley "github.com/reinlm/rein/internal/oracle"
	"github.com/reinlm/rein/internal/race"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
	"github.com/reinlm/rein/tokenizer"
)

// This file checks package mask on every built-in format's grammar against
// the Earley oracle (internal/oracle), which shares no code with packages
// pda and mask, on the real Qwen3, Llama-3 and Mistral vocabularies: at
// every step of seeded walks the mask must allow exactly the tokens the
// oracle allows, and both must agree on whether the output may end and
// whether a stop token ended it. None of these vocabularies has a family's
// markers as special tokens, so there the markers are text (mask's text
// path); each family whose acceptance tables run on another vocabulary
// (vocabFor) also runs on that one, where its markers are special tokens
// and so token terminals.

// walkTools are the tools of the walks: get_weather with a string city and
// an integer days from 1 to 14, get_time with an optional string tz. The
// acceptance tables' calls to them are valid here.
var walkTools = []Tool{
	{
		Name: "get_weather",
		Parameters: json.RawMessage(`{"type": "object", "properties": {"city": {"type": "string"},
			"days": {"type": "integer", "minimum": 1, "maximum": 14}}, "required": ["city"], "additionalProperties": false}`),
	},
	{
		Name:       "get_time",
		Parameters: json.RawMessage(`{"type": "object", "properties": {"tz": {"type": "string"}}, "additionalProperties": false}`),
	},
}

// walkConfig is one request of a format's walks, with the outputs of the
// acceptance tables (cases_test.go) that its walks follow until they stray.
type walkConfig struct {
	name    string
	req     Request
	targets []string
}

// walkConfigs returns m's requests: tool choice auto without reasoning, and
// required with reasoning where the family has it.
func walkConfigs(t *testing.T, m Format) []walkConfig {
	f, err := m.family()
	require.NoError(t, err)
	reason := f.think != nil
	var out []walkConfig
	for _, c := range []struct {
		choice    choice
		mode      ChoiceMode
		reasoning bool
	}{{auto, ChoiceAuto, false}, {required, ChoiceRequired, reason}} {
		wc := walkConfig{name: string(c.choice), req: Request{Model: m, Tools: walkTools, Reasoning: c.reasoning, ToolChoice: ToolChoice{Mode: c.mode}}}
		if c.reasoning {
			wc.name += "/reasoning"
		}
		for _, oc := range allCases() {
			if oc.model == m && oc.choice == c.choice && oc.reasoning == c.reasoning {
				for _, s := range oc.accept {
					// The non-strict tool is not among walkTools.
					if s != "" && !strings.Contains(s, "loose") && !slices.Contains(wc.targets, s) {
						wc.targets = append(wc.targets, s)
					}
				}
			}
		}
		require.NotEmpty(t, wc.targets, "%v %s: no accepted outputs in the tables", m, wc.name)
		out = append(out, wc)
	}
	return out
}

// formatWalk is one walk of every format on every vocabulary: the request
// it runs (an index into walkConfigs), its odds of straying from its target
// at each step, one in so many (never for 0), and the steps at which every
// id is checked, for the format of index i on the vocabulary of index v of
// walkVocabs, or len(walkVocabs) + that of ownVocabs.
type formatWalk struct {
	config int
	stray  int
	full   func(i, v int) []int
}

// walkVocabs are the vocabularies every format's walks run on. On these the
// families' markers are text (the Qwen3 family's are ordinary added
// tokens). Each family whose vocabulary of the acceptance tables (vocabFor,
// see testVocab) is one of ownVocabs runs on that one too: there its
// markers are special tokens, and so token terminals.
var (
	walkVocabs = []string{"qwen3", "llama3", "mistral"}
	ownVocabs  = []string{"llama3.1", "mistral-tools", "qwen3+markers"}
)

// small reports whether v is a Mistral vocabulary, the smallest, where
// checking every id costs least.
func small(v int) bool { return v == 2 || v == len(walkVocabs)+1 }

// formatWalks: the first walk follows its target to the end and a stop
// token, every id checked at its start and inside the call on the small
// vocabularies, and inside the call on one of the others in turn; the
// second, on the
// second request, strays soon, every id checked at its start on the small
// vocabularies; the third strays late.
var formatWalks = []formatWalk{
	{config: 0, stray: 0, full: func(i, v int) []int {
		switch {
		case small(v):
			return []int{0, 10}
		case i%len(walkVocabs) == v:
			// Not at the start, where in free text every token is viable
			// and the oracle takes seconds on these large vocabularies.
			return []int{10}
		}
		return nil
	}},
	{config: 1, stray: 8, full: func(i, v int) []int {
		if small(v) {
			return []int{0}
		}
		return nil
	}},
	{config: 0, stray: 20, full: noFull},
}

func noFull(int, int) []int { return nil }

// TestFormatsMaskMatchesOracle runs, for every format on each vocabulary,
// seeded walks that follow an accepted output of the tables for a while and
// then take random allowed tokens (see formatWalks). At every step the mask
// must equal the oracle on every special and stop token, a sample of tokens
// holding one of < [ { " | or a newline (another for each walk), and random
// ids; on every id at the steps formatWalks names.
func TestFormatsMaskMatchesOracle(t *testing.T) {
	p := walkParams{maxSteps: 24, marked: 80, sample: 120, walks: formatWalks}
	if race.Enabled || testing.Short() {
		// Every id would take minutes under the race detector.
		p = walkParams{maxSteps: 8, marked: 30, sample: 50, walks: []formatWalk{
			{config: 0, stray: 0, full: noFull},
			{config: 1, stray: 4, full: noFull},
		}}
	}
	var (
		mu    sync.Mutex
		total walkCounts
	)
	t.Cleanup(func() {
		t.Logf("%d grammars, %d walks, %d steps, %d ids compared (%d steps on every id)",
			total.grammars, total.walks, total.steps, total.ids, total.fullSteps)
	})
	count := func(n walkCounts) {
		mu.Lock()
		defer mu.Unlock()
		total.add(n)
	}
	for v, vname := range walkVocabs {
		t.Run(vname, func(t *testing.T) {
			t.Parallel()
			wv := newWalkVocab(vocabtest.Load(t, vname))
			for i := range families {
				m := Llama3JSON + Format(i)
				t.Run(m.String(), func(t *testing.T) { count(walkFormat(t, m, wv, v, p)) })
			}
		})
	}
	t.Run("own", func(t *testing.T) {
		t.Parallel()
		wvs := map[string]*walkVocab{}
		for i := range families {
			m := Llama3JSON + Format(i)
			name := vocabFor[m]
			v := slices.Index(ownVocabs, name)
			if v < 0 {
				require.Contains(t, walkVocabs, name)
				continue
			}
			t.Run(m.String()+"/"+name, func(t *testing.T) {
				if wvs[name] == nil {
					wvs[name] = newWalkVocab(testVocab(t, name))
				}
				count(walkFormat(t, m, wvs[name], len(walkVocabs)+v, p))
			})
		}
	})
}

// walkVocab is a vocabulary with the tokens its walks check.
type walkVocab struct {
	voc *tokenizer.Vocab
	// always are the special and stop tokens, checked at every step;
	// marked, shuffled, the other tokens whose bytes hold one of < [ { " |
	// or a newline, of which each walk checks its own window.
	always, marked []int
}

func newWalkVocab(voc *tokenizer.Vocab) *walkVocab {
	wv := &walkVocab{voc: voc}
	stops := voc.StopTokens()
	for id := range voc.Size() {
		switch {
		case voc.IsSpecial(id) || slices.Contains(stops, id):
			wv.always = append(wv.always, id)
		case strings.ContainsAny(string(voc.Bytes(id)), "<[{\"|\n"):
			wv.marked = append(wv.marked, id)
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	rng.Shuffle(len(wv.marked), func(i, j int) { wv.marked[i], wv.marked[j] = wv.marked[j], wv.marked[i] })
	return wv
}

// walkFormat runs p's walks of format m (of index i) on wv (of index v),
// compiling each request on first use, and returns the work done. A
// request that does not compile fails the test.
func walkFormat(t *testing.T, m Format, wv *walkVocab, v int, p walkParams) walkCounts {
	voc := wv.voc
	configs := walkConfigs(t, m)
	walkers := make([]*formatWalker, len(configs))
	i := int(m - Llama3JSON)
	for k, fw := range p.walks {
		wc := configs[fw.config]
		w := walkers[fw.config]
		if w == nil {
			g, err := Grammar(wc.req, structtag.Options{TokenID: voc.TokenID})
			require.NoError(t, err, "%s: structtag", wc.name)
			c, err := mask.Compile(g, voc, mask.Options{})
			require.NoError(t, err, "%s: mask.Compile", wc.name)
			start, err := earley.NewMatcher(g, voc)
			require.NoError(t, err, "%s: oracle.NewMatcher", wc.name)
			w = &formatWalker{t: t, c: c, start: start, voc: voc, stops: voc.StopTokens(), p: p}
			walkers[fw.config] = w
		}
		w.always = slices.Clone(wv.always)
		for j := range p.marked {
			w.always = append(w.always, wv.marked[(k*p.marked+j)%len(wv.marked)])
		}
		rng := rand.New(rand.NewPCG(uint64(k), uint64(v*100+i)))
		target := wc.targets[(k+i)%len(wc.targets)]
		w.run(fmt.Sprintf("walk %d (%s)", k, wc.name), target, fw.stray, rng, fw.full(i, v))
	}
	n := walkCounts{grammars: len(configs)}
	for _, w := range walkers {
		if w != nil {
			n.add(w.n)
		}
	}
	return n
}

// walkParams size the walks.
type walkParams struct {
	maxSteps int
	marked   int // how many tokens holding < [ { " | or \n a walk checks at every step
	sample   int // how many random ids are checked besides, at every step
	walks    []formatWalk
}

// walkCounts count the work done, for the log.
type walkCounts struct{ grammars, walks, steps, ids, fullSteps int }

func (a *walkCounts) add(b walkCounts) {
	a.grammars += b.grammars
	a.walks += b.walks
	a.steps += b.steps
	a.ids += b.ids
	a.fullSteps += b.fullSteps
}

// formatWalker runs walks of one compiled grammar beside the oracle.
type formatWalker struct {
	t      *testing.T
	c      *mask.Compiled
	start  *earley.Matcher // the oracle at the start, cloned by each walk
	voc    *tokenizer.Vocab
	stops  []int
	always []int
	p      walkParams
	n      walkCounts
}

// run walks from the start for at most p.maxSteps tokens: it spells target
// with allowed tokens whose bytes start what is left of it (special tokens
// included where allowed), straying with probability 1/stray at each step
// (never for 0), and then takes random allowed tokens. It compares the mask with the
// oracle at every step, on every id at the steps full names. A quarter of
// the tokens are rolled back and accepted again.
func (w *formatWalker) run(name, target string, stray int, rng *rand.Rand, full []int) {
	t := w.t
	w.n.walks++
	m := w.c.NewMatcher()
	o := w.start.Clone()
	bm := mask.NewBitmask(1, w.c.VocabSize())
	var hist []string
	where := func(step int) string {
		return fmt.Sprintf("%s (target %q), step %d, after %s", name, target, step, strings.Join(hist, " "))
	}
	following := true
	rest := target
	defer func() {
		t.Logf("%s: %d tokens, ended %v, following %v: %s", name, len(hist), o.Terminated(), following, strings.Join(hist, " "))
	}()
	for step := range w.p.maxSteps {
		require.NoError(t, m.FillBitmask(bm, 0))
		require.Equal(t, o.CanEnd(), m.CanEnd(), "CanEnd: %s", where(step))
		w.n.steps++
		if !w.check(bm, o, rng, slices.Contains(full, step), where(step)) {
			return
		}
		if following && stray > 0 && rng.IntN(stray) == 0 {
			following = false
		}
		id := -1
		if following {
			var ok bool
			if id, rest, ok = w.next(bm, rest, rng); !ok {
				following = false
			}
		}
		if id < 0 {
			if id = w.random(bm, o, rng); id < 0 {
				require.True(t, o.Terminated() || o.CanEnd(), "%s: nothing allowed", where(step))
				return
			}
		}
		hist = append(hist, describeToken(w.voc, id))
		require.True(t, m.AcceptToken(id), "mask refuses token %s it allowed: %s", describeToken(w.voc, id), where(step))
		require.True(t, o.Accept(id), "oracle refuses token %s, which the mask allowed: %s", describeToken(w.voc, id), where(step))
		require.Equal(t, o.Terminated(), m.IsTerminated(), "terminated: %s", where(step+1))
		if o.Terminated() {
			return
		}
		if rng.IntN(4) == 0 {
			require.NoError(t, m.Rollback(1), where(step+1))
			require.True(t, m.AcceptToken(id), "mask refuses token %s again after a rollback: %s", describeToken(w.voc, id), where(step))
		}
	}
}

// check compares the mask with the oracle, on every id when all, else on
// w.always and w.p.sample random ids, and reports the first differences;
// it returns whether they agree.
func (w *formatWalker) check(bm *mask.Bitmask, o *earley.Matcher, rng *rand.Rand, all bool, where string) bool {
	var diffs []string
	differ := func(id int, want bool) bool {
		if got := bm.Allowed(0, id); got != want {
			diffs = append(diffs, fmt.Sprintf("%s: mask %v, oracle %v", describeToken(w.voc, id), got, want))
		}
		return len(diffs) == 8
	}
	if all {
		w.n.fullSteps++
		for id, want := range o.Mask() {
			w.n.ids++
			if differ(id, want) {
				break
			}
		}
	} else {
		ids := slices.Clone(w.always)
		for range w.p.sample {
			ids = append(ids, rng.IntN(w.c.VocabSize()))
		}
		for _, id := range ids {
			w.n.ids++
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

// next returns an allowed token whose bytes start rest, and what is
// left of rest after it; at the end of rest, an allowed stop token, or -1.
// It reports false when no allowed token starts rest.
func (w *formatWalker) next(bm *mask.Bitmask, rest string, rng *rand.Rand) (int, string, bool) {
	if rest == "" {
		for _, s := range w.stops {
			if bm.Allowed(0, s) {
				return s, "", true
			}
		}
		return -1, "", false
	}
	var cands []int
	for n := 1; n <= len(rest) && n <= 64; n++ {
		if id, ok := w.voc.TokenID(rest[:n]); ok && bm.Allowed(0, id) {
			cands = append(cands, id)
		}
	}
	if len(cands) == 0 {
		return -1, rest, false
	}
	// Mostly the longest, as a tokenizer would, so that walks of a few
	// dozen tokens get through the call to its arguments and end.
	id := cands[len(cands)-1]
	if rng.IntN(4) == 0 {
		id = cands[rng.IntN(len(cands))]
	}
	return id, rest[len(w.voc.Bytes(id)):], true
}

// random returns a random allowed token: a stop token now and then where
// the output may end, one of w.always now and then, else any allowed token,
// the first of four draws that is not only whitespace (so that walks do not
// spend their steps in JSON's unbounded whitespace); -1 when none is
// allowed.
func (w *formatWalker) random(bm *mask.Bitmask, o *earley.Matcher, rng *rand.Rand) int {
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
	id := -1
	for range 4 {
		if id = nthAllowed(row, rng.IntN(n)); strings.TrimSpace(string(w.voc.Bytes(id))) != "" {
			break
		}
	}
	return id
}

// nthAllowed returns the id of the k-th bit set in row, from 0.
func nthAllowed(row []uint32, k int) int {
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
