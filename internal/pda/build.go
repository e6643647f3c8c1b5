package pda

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/grammar"
	"github.com/reinlm/rein/internal/byteset"
)

// ErrLeftRecursion reports a rule that can call itself before consuming a byte.
var ErrLeftRecursion = errors.New("left recursion")

// ErrEmptyLanguage reports a grammar that matches no string at all.
var ErrEmptyLanguage = errors.New("grammar matches nothing")

// Compile turns a grammar into a Program. Every rule is determinized and
// minimized; rules that can match nothing are removed with every call to
// them; rules unreachable from the root are dropped. Left recursion (a rule
// that can call itself before consuming any byte) is rewritten away first
// (grammar.RemoveLeftRecursion); where it cannot be, the error wraps
// ErrLeftRecursion and says why.
//
// lim bounds the automata (its fields RuleStates, TotalStates and
// NFAStates; a zero field means its default) and, through StepWork, the
// work a State of the program may do for one byte. An automaton past its
// bound is an error wrapping grammar.ErrLimit that names the field.
func Compile(g *grammar.Grammar, lim grammar.Limits) (*Program, error) {
	return CompileContext(context.Background(), g, lim)
}

// CompileContext is Compile that stops once ctx ends, with an error wrapping
// ctx.Err(): building, determinizing and minimizing each rule's automaton
// look at ctx every few thousand steps, and the passes over all rules
// between rules, so it returns within about a millisecond of the end.
func CompileContext(ctx context.Context, g *grammar.Grammar, lim grammar.Limits) (*Program, error) {
	return compile(ctx, g, lim, nil, true)
}

// compile builds g's program; canRewrite lets it rewrite a left-recursive g
// once (grammar.RemoveLeftRecursion).
func compile(ctx context.Context, g *grammar.Grammar, lim grammar.Limits, classes TokenClasses, canRewrite bool) (*Program, error) {
	lim = lim.WithDefaults()
	if ctx == nil {
		ctx = context.Background()
	}
	if err := g.Validate(); err != nil {
		return nil, err
	}
	dfas := make([]*fsm.DFA, len(g.Rules))
	hasTokens := false
	var tpl templates
	for i, r := range g.Rules {
		d, tokens, ok := tpl.lookup(r.Body)
		if !ok {
			var err error
			if d, tokens, err = compileRule(ctx, r.Body, lim, classes); err != nil {
				return nil, fmt.Errorf("pda: rule %q: %w", r.Name, err)
			}
			tpl.add(d, tokens)
		}
		dfas[i] = d
		hasTokens = hasTokens || tokens
	}

	// Productive rules: least fixpoint of "can reach a final state using
	// bytes and calls to productive rules".
	productive := make([]bool, len(dfas))
	usable := func(sym int32) bool { return productive[sym] }
	for changed := true; changed; {
		if err := stopped(ctx); err != nil {
			return nil, err
		}
		changed = false
		for i, d := range dfas {
			if !productive[i] && d.CanReachFinal(usable) {
				productive[i] = true
				changed = true
			}
		}
	}
	if !productive[g.Root] {
		return nil, fmt.Errorf("pda: root rule %q: %w", g.Rules[g.Root].Name, ErrEmptyLanguage)
	}
	if err := stopped(ctx); err != nil {
		return nil, err
	}
	for i, d := range dfas {
		if productive[i] {
			dfas[i] = d.Trim(usable)
		}
	}
	if err := stopped(ctx); err != nil {
		return nil, err
	}

	// Rules reachable from the root.
	reach := []int{g.Root}
	seen := make([]bool, len(dfas))
	seen[g.Root] = true
	for k := 0; k < len(reach); k++ {
		d := dfas[reach[k]]
		for _, cs := range d.Calls {
			for _, c := range cs {
				if !seen[c.Sym] {
					seen[c.Sym] = true
					reach = append(reach, int(c.Sym))
				}
			}
		}
	}
	if err := checkLeftRecursion(g, dfas, reach); err != nil {
		// Rewrite the grammar without left recursion and start again;
		// where it cannot be, the error says why and which rules cycle.
		if !canRewrite {
			return nil, err
		}
		g2, rerr := grammar.RemoveLeftRecursionContext(ctx, g, lim)
		if rerr != nil {
			return nil, fmt.Errorf("%w, and it cannot be rewritten away: %w", err, rerr)
		}
		return compile(ctx, g2, lim, classes, false)
	}
	if err := stopped(ctx); err != nil {
		return nil, err
	}
	p, err := link(g, dfas, reach, lim)
	if err != nil {
		return nil, err
	}
	p.hasTokens = hasTokens
	return p, nil
}

// stopped returns an error wrapping ctx.Err() once ctx has ended.
func stopped(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("pda: stopped: %w", err)
	}
	return nil
}

// compileRule builds one rule body's NFA and returns its minimized DFA.
// An automaton past a bound of lim is an error wrapping both grammar.ErrLimit
// and, where fsm found it, fsm.ErrTooLarge.
func compileRule(ctx context.Context, body *grammar.Expr, lim grammar.Limits, classes TokenClasses) (*fsm.DFA, bool, error) {
	if err := stopped(ctx); err != nil {
		return nil, false, err
	}
	n := fsm.NFA{MaxStates: lim.NFAStates}
	start, end := n.NewState(), n.NewState()
	b := ruleBuilder{n: &n, max: lim.NFAStates, ctx: ctx, classes: classes, lim: lim}
	if err := b.expr(body, start, end); err != nil {
		return nil, false, limitError(err, "NFAStates", lim.NFAStates)
	}
	d, err := fsm.MinimalDFAContext(ctx, &n, start, []int{end}, lim.RuleStates)
	if err != nil {
		return nil, false, limitError(err, "RuleStates", lim.RuleStates)
	}
	return d, b.tokens, nil
}

// limitError makes an fsm.ErrTooLarge from building a rule wrap
// grammar.ErrLimit too: one past the state bound names the field of
// grammar.Limits that set it, one past fsm's own fixed work bounds says so.
// Other errors are returned as they are.
func limitError(err error, field string, value int) error {
	switch {
	case !errors.Is(err, fsm.ErrTooLarge) || errors.Is(err, grammar.ErrLimit):
		return err
	case errors.Is(err, fsm.ErrTooManyStates):
		return fmt.Errorf("%w: %w (Limits.%s is %d)", grammar.ErrLimit, err, field, value)
	}
	return fmt.Errorf("%w: %w (a fixed bound of the automaton construction)", grammar.ErrLimit, err)
}

type ruleBuilder struct {
	n       *fsm.NFA
	max     int
	ctx     context.Context
	classes TokenClasses
	lim     grammar.Limits
	tokens  bool // the rule has a token terminal
}

var errNFATooLarge = fmt.Errorf("%w: rule expands to more automaton states than Limits.NFAStates (repetition bounds too large?)", grammar.ErrLimit)

// nfaCheckEvery is how many NFA states a rule builder adds between two looks
// at its context.
const nfaCheckEvery = 1 << 12

func (b *ruleBuilder) state() (int, error) {
	n := b.n.NumStates()
	if n >= b.max {
		return 0, errNFATooLarge
	}
	if n%nfaCheckEvery == 0 {
		if err := stopped(b.ctx); err != nil {
			return 0, err
		}
	}
	return b.n.NewState(), nil
}

func (b *ruleBuilder) expr(e *grammar.Expr, from, to int) error {
	switch e.Op {
	case grammar.OpEmpty:
		b.n.Epsilon(from, to)
	case grammar.OpBytes:
		return b.chain(len(e.Bytes), from, to, func(i, cur, next int) error {
			b.n.Bytes(cur, next, e.Bytes[i], e.Bytes[i])
			return nil
		})
	case grammar.OpClass:
		pairs := make([]rune, 0, 2*len(e.Ranges))
		for _, r := range e.Ranges {
			pairs = append(pairs, r.Lo, r.Hi)
		}
		b.n.Runes(from, to, pairs)
	case grammar.OpSeq:
		if len(e.Subs) == 0 {
			b.n.Epsilon(from, to)
			return nil
		}
		return b.chain(len(e.Subs), from, to, func(i, cur, next int) error {
			return b.expr(e.Subs[i], cur, next)
		})
	case grammar.OpAlt:
		for _, s := range e.Subs {
			// Give each branch its own entry so epsilon loops inside one
			// branch cannot leak into another.
			st, err := b.state()
			if err != nil {
				return err
			}
			b.n.Epsilon(from, st)
			if err := b.expr(s, st, to); err != nil {
				return err
			}
		}
	case grammar.OpRepeat:
		return b.repeat(e.Subs[0], e.Min, e.Max, from, to)
	case grammar.OpRef:
		b.n.Symbol(from, to, int32(e.Rule))
	case grammar.OpRegex:
		if err := b.n.Regexp(from, to, e.Regexp); err != nil {
			if errors.Is(err, fsm.ErrUnsupportedRegexp) {
				// The front-ends refuse what fsm cannot build; a grammar
				// made by hand may still carry it.
				return fmt.Errorf("%w: %w", grammar.ErrUnsupported, err)
			}
			return err
		}
		if b.n.NumStates() > b.max {
			return errNFATooLarge
		}
	case grammar.OpToken:
		return b.tokenClasses(e, from, to)
	case grammar.OpText:
		return b.text(e.Excludes, from, to)
	default:
		return fmt.Errorf("unknown expression operator %d", e.Op)
	}
	return nil
}

// chain links k steps from `from` to `to` through k-1 fresh states; step i
// builds its part between cur and next.
func (b *ruleBuilder) chain(k, from, to int, step func(i, cur, next int) error) error {
	cur := from
	for i := 0; i < k; i++ {
		next := to
		if i < k-1 {
			st, err := b.state()
			if err != nil {
				return err
			}
			next = st
		}
		if err := step(i, cur, next); err != nil {
			return err
		}
		cur = next
	}
	return nil
}

func (b *ruleBuilder) repeat(sub *grammar.Expr, min, max int, from, to int) error {
	cur := from
	for i := 0; i < min; i++ {
		next, err := b.state()
		if err != nil {
			return err
		}
		if err := b.expr(sub, cur, next); err != nil {
			return err
		}
		cur = next
	}
	if max < 0 {
		// cur -> loop -> cur, with its own loop state so the star's epsilon
		// edges do not merge with neighbours.
		loop, err := b.state()
		if err != nil {
			return err
		}
		b.n.Epsilon(cur, loop)
		body, err := b.state()
		if err != nil {
			return err
		}
		if err := b.expr(sub, loop, body); err != nil {
			return err
		}
		b.n.Epsilon(body, loop)
		b.n.Epsilon(loop, to)
		return nil
	}
	for i := min; i < max; i++ {
		b.n.Epsilon(cur, to)
		next, err := b.state()
		if err != nil {
			return err
		}
		if err := b.expr(sub, cur, next); err != nil {
			return err
		}
		cur = next
	}
	b.n.Epsilon(cur, to)
	return nil
}

// maxCycleNames bounds the rules a left-recursion error lists.
const maxCycleNames = 8

// checkLeftRecursion finds a rule that can reach a call to itself without
// consuming a byte (through calls to rules that can match the empty string).
func checkLeftRecursion(g *grammar.Grammar, dfas []*fsm.DFA, reach []int) error {
	nullable := make([]bool, len(dfas))
	nullableSym := func(sym int32) bool { return nullable[sym] }
	for changed := true; changed; {
		changed = false
		for _, r := range reach {
			if !nullable[r] && epsReachFinal(dfas[r], nullableSym) {
				nullable[r] = true
				changed = true
			}
		}
	}
	// leftCalls[r]: rules r may call at a point where it has consumed nothing.
	leftCalls := make(map[int][]int, len(reach))
	for _, r := range reach {
		d := dfas[r]
		if d.Start < 0 {
			continue
		}
		visited := map[int32]bool{d.Start: true}
		stack := []int32{d.Start}
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, c := range d.Calls[s] {
				leftCalls[r] = append(leftCalls[r], int(c.Sym))
				if nullable[c.Sym] && !visited[c.To] {
					visited[c.To] = true
					stack = append(stack, c.To)
				}
			}
		}
	}
	// Find a cycle with a depth-first search over leftCalls, on an explicit
	// stack: a chain of rules as long as the grammar must not grow the
	// goroutine's.
	const (
		white = iota
		grey
		black
	)
	type frame struct{ rule, next int }
	color := make([]uint8, len(dfas))
	var stack []frame
	for _, r := range reach {
		if color[r] != white {
			continue
		}
		color[r] = grey
		stack = append(stack[:0], frame{rule: r})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			calls := leftCalls[top.rule]
			if top.next == len(calls) {
				color[top.rule] = black
				stack = stack[:len(stack)-1]
				continue
			}
			s := calls[top.next]
			top.next++
			switch color[s] {
			case white:
				color[s] = grey
				stack = append(stack, frame{rule: s})
			case grey:
				var names []string
				for i := len(stack) - 1; i >= 0; i-- {
					if stack[i].rule == s {
						for _, f := range stack[i:] {
							names = append(names, g.Rules[f.rule].Name)
						}
						break
					}
				}
				names = append(names, g.Rules[s].Name)
				if len(names) > maxCycleNames {
					n := len(names)
					names = append(names[:maxCycleNames-2:maxCycleNames-2], fmt.Sprintf("… %d rules …", n-maxCycleNames+1), names[n-1])
				}
				return fmt.Errorf("pda: rule %q is left-recursive (%s): %w",
					names[0], strings.Join(names, " -> "), ErrLeftRecursion)
			}
		}
	}
	return nil
}

// epsReachFinal reports whether d can reach a final state from its start using
// only calls to rules for which nullable holds.
func epsReachFinal(d *fsm.DFA, nullable func(int32) bool) bool {
	if d.Start < 0 {
		return false
	}
	visited := map[int32]bool{d.Start: true}
	stack := []int32{d.Start}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if d.Final[s] {
			return true
		}
		for _, c := range d.Calls[s] {
			if nullable(c.Sym) && !visited[c.To] {
				visited[c.To] = true
				stack = append(stack, c.To)
			}
		}
	}
	return false
}

// link numbers the reachable rules' states into one node space.
func link(g *grammar.Grammar, dfas []*fsm.DFA, reach []int, lim grammar.Limits) (*Program, error) {
	first := make([]int32, len(dfas))
	total := 0
	transLen := 0
	for _, r := range reach {
		first[r] = int32(total)
		total += dfas[r].NumStates()
		transLen += dfas[r].NumStates() * dfas[r].NumClasses
	}
	if total > lim.TotalStates {
		return nil, fmt.Errorf("pda: %d automaton states exceed Limits.TotalStates (%d): %w", total, lim.TotalStates, grammar.ErrLimit)
	}
	p := &Program{
		lim:       lim,
		Rules:     make([]RuleInfo, 0, len(reach)),
		numNodes:  int32(total),
		nodeRule:  make([]int32, total),
		base:      make([]int32, total),
		classOff:  make([]int32, total),
		classes:   make([]uint8, 256*len(reach)),
		rings:     make([]byte, 256*len(reach)),
		trans:     make([]int32, 0, transLen),
		final:     make([]bool, total),
		hasBytes:  make([]bool, total),
		calls:     make([][]Call, total),
		firstByte: make([]byteset.Set, total),
	}
	ruleNo := make([]int32, len(dfas))
	for k, r := range reach {
		ruleNo[r] = int32(k)
	}
	var classBytes []byteset.Set
	for k, r := range reach {
		d := dfas[r]
		copy(p.classes[256*k:], d.Classes[:])
		LinkClasses(p.classes[256*k:256*(k+1)], p.rings[256*k:256*(k+1)])
		p.classRuns = append(p.classRuns, runsOf(d.Classes[:]))
		p.nclasses = append(p.nclasses, int32(d.NumClasses))
		p.Rules = append(p.Rules, RuleInfo{Name: g.Rules[r].Name, MaxTokens: g.Rules[r].MaxTokens, Unique: g.Rules[r].Unique, Prepare: g.Rules[r].Prepare, Start: first[r] + d.Start, NumNodes: int32(d.NumStates()), FirstNode: first[r]})
		p.budgets = p.budgets || g.Rules[r].MaxTokens > 0
		p.unique = p.unique || g.Rules[r].Unique != nil
		// The bytes of each class, so that a state's first bytes are a
		// union per live class rather than a look at every byte.
		classBytes = slices.Grow(classBytes[:0], d.NumClasses)[:d.NumClasses]
		clear(classBytes)
		for b := range 256 {
			classBytes[d.Classes[b]].Add(byte(b))
		}
		for s := 0; s < d.NumStates(); s++ {
			n := first[r] + int32(s)
			p.nodeRule[n] = ruleNo[r]
			p.classOff[n] = int32(256 * k)
			p.base[n] = int32(len(p.trans))
			row := d.Trans[s*d.NumClasses : (s+1)*d.NumClasses]
			for _, t := range row {
				if t >= 0 {
					t += first[r]
					p.hasBytes[n] = true
				}
				p.trans = append(p.trans, t)
			}
			for c, t := range row {
				if t >= 0 {
					p.firstByte[n].Union(&classBytes[c])
				}
			}
			p.final[n] = d.Final[s]
		}
	}
	// Every node's calls, in one backing array.
	numCalls := 0
	for _, r := range reach {
		for _, cs := range dfas[r].Calls {
			numCalls += len(cs)
		}
	}
	callData := make([]Call, 0, numCalls)
	for _, r := range reach {
		d := dfas[r]
		for s := 0; s < d.NumStates(); s++ {
			n := first[r] + int32(s)
			at := len(callData)
			for _, c := range d.Calls[s] {
				callee := dfas[c.Sym]
				ret := first[r] + c.To
				callData = append(callData, Call{
					Start:  first[c.Sym] + callee.Start,
					Return: ret,
					Tail:   d.Final[c.To] && len(d.Calls[c.To]) == 0 && !p.hasBytes[ret],
				})
			}
			if len(callData) > at {
				p.calls[n] = callData[at:len(callData):len(callData)]
			}
		}
	}
	p.Root = p.Rules[0].Start
	p.memBytes = p.computeMemoryBytes()
	return p, nil
}
