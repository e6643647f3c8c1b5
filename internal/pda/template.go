package pda

import (
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/grammar"
)

// Rule templates.
//
// Front-ends write many rules that differ only in the rules they call: the
// states of an object whose properties may come in any order (one rule per
// set of properties written, each calling the next) are alike but for their
// callees, and so are the rules of a schema's repeated shapes. A rule's
// automaton depends on its body's structure alone, a call being a symbol
// edge, so the automaton built for one such body serves every body of the
// same structure once its symbols are renamed: the calls are numbered by
// first occurrence in the key, and a renaming maps distinct callees to
// distinct callees, so the renamed automaton is the minimal one of the
// other body too (its states may be numbered otherwise).

// templates holds, for one compile, the automaton built for each body
// structure met so far.
type templates struct {
	byKey map[string]template
	key   []byte  // scratch: the key of the body looked up last
	slots []int32 // scratch: that body's callees, by slot
	ok    bool    // the last body had a key
}

// template is an automaton built for a body and that body's callees, by
// slot.
type template struct {
	d      *fsm.DFA
	tokens bool
	slots  []int32
}

// lookup returns the automaton of body from a template of its structure,
// or false; a miss leaves the key for add.
func (t *templates) lookup(body *grammar.Expr) (*fsm.DFA, bool, bool) {
	t.key, t.slots = t.key[:0], t.slots[:0]
	t.key, t.ok = t.appendKey(t.key, body, 0)
	if !t.ok {
		return nil, false, false
	}
	tp, found := t.byKey[string(t.key)]
	if !found {
		return nil, false, false
	}
	return rename(tp.d, tp.slots, t.slots), tp.tokens, true
}

// add keeps d, the automaton of the body lookup missed last, as a template.
func (t *templates) add(d *fsm.DFA, tokens bool) {
	if !t.ok {
		return
	}
	if t.byKey == nil {
		t.byKey = map[string]template{}
	}
	t.byKey[string(t.key)] = template{d: d, tokens: tokens, slots: slices.Clone(t.slots)}
}

// maxKeyDepth bounds the depth of body the key describes: a deeper one is
// built as it is (a front-end's bodies are shallow; the key's walk must not
// recurse as deep as a hand-written body may nest).
const maxKeyDepth = 64

// maxSlots bounds the distinct callees of a body the key describes: slots
// are found by a linear search, and a body calling more rules gains little.
const maxSlots = 64

// appendKey appends the structure of e to key: every field the automaton
// depends on, a call as its slot. It reports false for an operator it does
// not describe (regular expressions, token terminals, free text: their
// rules are built as they are).
func (t *templates) appendKey(key []byte, e *grammar.Expr, depth int) ([]byte, bool) {
	if depth > maxKeyDepth {
		return key, false
	}
	key = append(key, byte(e.Op))
	switch e.Op {
	case grammar.OpEmpty:
	case grammar.OpBytes:
		if e.Special {
			key = append(key, 1)
		} else {
			key = append(key, 0)
		}
		key = binary.AppendUvarint(key, uint64(len(e.Bytes)))
		key = append(key, e.Bytes...)
	case grammar.OpClass:
		key = binary.AppendUvarint(key, uint64(len(e.Ranges)))
		for _, r := range e.Ranges {
			key = binary.AppendUvarint(key, uint64(r.Lo))
			key = binary.AppendUvarint(key, uint64(r.Hi))
		}
	case grammar.OpRepeat:
		key = binary.AppendVarint(key, int64(e.Min))
		key = binary.AppendVarint(key, int64(e.Max))
		fallthrough
	case grammar.OpSeq, grammar.OpAlt:
		key = binary.AppendUvarint(key, uint64(len(e.Subs)))
		for _, sub := range e.Subs {
			var ok bool
			if key, ok = t.appendKey(key, sub, depth+1); !ok {
				return key, false
			}
		}
	case grammar.OpRef:
		slot := slices.Index(t.slots, int32(e.Rule))
		if slot < 0 && len(t.slots) == maxSlots {
			return key, false
		}
		if slot < 0 {
			slot = len(t.slots)
			t.slots = append(t.slots, int32(e.Rule))
		}
		key = binary.AppendUvarint(key, uint64(slot))
	default:
		return key, false
	}
	return key, true
}

// rename returns a copy of d whose calls to from[k] call to[k] instead.
func rename(d *fsm.DFA, from, to []int32) *fsm.DFA {
	out := *d
	out.Final = slices.Clone(d.Final)
	out.Trans = slices.Clone(d.Trans)
	out.Calls = make([][]fsm.Call, len(d.Calls))
	for s, cs := range d.Calls {
		if len(cs) == 0 {
			continue
		}
		cs = slices.Clone(cs)
		for i := range cs {
			cs[i].Sym = to[slices.Index(from, cs[i].Sym)]
		}
		slices.SortFunc(cs, func(x, y fsm.Call) int { return cmp.Compare(x.Sym, y.Sym) })
		out.Calls[s] = cs
	}
	return &out
}
