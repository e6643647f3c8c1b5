package jsonschema

import (
	"fmt"
	"regexp/syntax"
	"strings"

	"github.com/reinlm/rein/fsm"
	"github.com/reinlm/rein/internal/ecma"
)

// This file compiles ECMA-262 patterns with lookahead assertions, (?=...)
// and (?!...), which Go's syntax lacks. Without back-references such a
// pattern is regular: the strings it matches in are built with automata,
// reading the pattern right to left with what must follow each point (its
// continuation):
//
//	a·K            the strings a matches, then K
//	(?=b)·K        (b·Σ*) ∩ K: b matches from here, perhaps past K's end
//	(?!b)·K        K minus b·Σ*
//	$·K            the empty string, if K takes it
//
// and the whole pattern, which ECMA-262 matches anywhere in the string, is
// Σ*·P·Σ* (no Σ* before an alternative that starts with ^). The result is
// written back as an anchored Go regex, so the rest of the compiler (and
// patternProperties' name matching) sees an ordinary pattern.
//
// A lookahead inside a repeated group ((?:(?!ab).)*) is refused: its
// continuation changes with each repetition. So are ^ after the start of
// an alternative, lookbehind and back-references.

// maxLookaheadTree bounds the size of the regex a lookahead pattern is
// written back as.
const maxLookaheadTree = 20000

// laNode is a pattern read for lookaheads: an alternation of sequences
// whose items are plain ECMA-262 text (with no lookahead inside), groups
// holding one, lookaheads and anchors.
type laNode struct {
	kind laKind
	text string      // laText: the ECMA-262 source
	alts [][]*laNode // laGroup, laLook: the alternatives
	neg  bool        // laLook: (?!
}

type laKind uint8

const (
	laText laKind = iota
	laGroup
	laLook
	laStart // ^
	laEnd   // $
)

// lookaheadRegex returns an anchored Go regex matching exactly the strings
// in which the ECMA-262 pattern src matches.
func (c *compiler) lookaheadRegex(src string) (string, error) {
	p := laParser{src: src}
	alts, err := p.alternation(0)
	if err != nil {
		return "", err
	}
	if p.i < len(src) {
		return "", fmt.Errorf("unbalanced parenthesis")
	}
	all, err := c.lengthDFA(0, -1) // Σ*
	if err != nil {
		return "", err
	}
	var whole *fsm.RuneDFA
	for _, seq := range alts {
		anchored := len(seq) > 0 && seq[0].kind == laStart
		if anchored {
			seq = seq[1:]
		}
		d, err := c.laSeq(seq, all, all)
		if err != nil {
			return "", err
		}
		if !anchored {
			if d, err = c.concatDFA(all, d); err != nil {
				return "", err
			}
		}
		if whole == nil {
			whole = d
		} else if whole, err = c.unionDFA(whole, d); err != nil {
			return "", err
		}
	}
	re, err := whole.ToRegexp(c.ctx, fsm.RegexpLimits{MaxStates: c.patternStates() + 1})
	if err != nil {
		return "", fmt.Errorf("%w: %w", errAutomatonSize, err)
	}
	if n := treeSize(re, map[*syntax.Regexp]int{}); n > maxLookaheadTree {
		return "", fmt.Errorf("%w: the pattern without its lookaheads is a regex of more than %d nodes", errAutomatonSize, maxLookaheadTree)
	}
	return `^(?:` + re.String() + `)$`, nil
}

// laSeq returns the automaton of seq followed by the continuation k; all
// is Σ*.
func (c *compiler) laSeq(seq []*laNode, k, all *fsm.RuneDFA) (*fsm.RuneDFA, error) {
	var err error
	for i := len(seq) - 1; i >= 0; i-- {
		switch x := seq[i]; x.kind {
		case laText:
			src, terr := ecma.Translate(x.text)
			if terr != nil {
				return nil, terr
			}
			re, perr := syntax.Parse(src, syntax.Perl)
			if perr != nil {
				return nil, perr
			}
			if hasAnchor(re) {
				return nil, fmt.Errorf("an anchor beside a lookahead inside the pattern is not supported")
			}
			d, derr := c.regexDFA(re)
			if derr != nil {
				return nil, derr
			}
			if k, err = c.concatDFA(d, k); err != nil {
				return nil, err
			}
		case laGroup:
			if k, err = c.laAlts(x.alts, k, all); err != nil {
				return nil, err
			}
		case laLook:
			look, err := c.laAlts(x.alts, all, all)
			if err != nil {
				return nil, err
			}
			if x.neg {
				look = complement(look)
			}
			if k, err = c.intersect(look, k); err != nil {
				return nil, err
			}
		case laEnd:
			if !k.Match("") {
				return complement(all), nil // nothing
			}
			if k, err = c.lengthDFA(0, 0); err != nil {
				return nil, err
			}
		case laStart:
			return nil, fmt.Errorf("^ inside a pattern with a lookahead is supported only at the start of an alternative")
		}
	}
	return k, nil
}

// laAlts is the union of the alternatives alts, each followed by k.
func (c *compiler) laAlts(alts [][]*laNode, k, all *fsm.RuneDFA) (*fsm.RuneDFA, error) {
	var out *fsm.RuneDFA
	for _, alt := range alts {
		d, err := c.laSeq(alt, k, all)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = d
		} else if out, err = c.unionDFA(out, d); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (c *compiler) concatDFA(a, b *fsm.RuneDFA) (*fsm.RuneDFA, error) {
	d, err := fsm.RuneConcat(c.ctx, a, b, c.patternStates())
	if err != nil && c.ctx.Err() != nil {
		return nil, c.stopped()
	}
	return d, automatonErr(err)
}

// unionDFA is a ∪ b, as the complement of the intersection of complements.
func (c *compiler) unionDFA(a, b *fsm.RuneDFA) (*fsm.RuneDFA, error) {
	d, err := c.intersect(complement(a), complement(b))
	if err != nil {
		return nil, err
	}
	return complement(d), nil
}

// hasAnchor reports whether re holds a ^ or $ (of any kind) or \b.
func hasAnchor(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, s := range re.Sub {
		if hasAnchor(s) {
			return true
		}
	}
	return false
}

// treeSize is the number of nodes of re written out as a tree (ToRegexp
// shares subexpressions), saturating past maxLookaheadTree.
func treeSize(re *syntax.Regexp, memo map[*syntax.Regexp]int) int {
	if n, ok := memo[re]; ok {
		return n
	}
	n := 1
	for _, s := range re.Sub {
		n = min(n+treeSize(s, memo), maxLookaheadTree+1)
	}
	memo[re] = n
	return n
}

// laParser reads an ECMA-262 pattern into laNodes.
type laParser struct {
	src string
	i   int
}

// alternation reads alternatives up to a closing parenthesis or the end.
func (p *laParser) alternation(depth int) ([][]*laNode, error) {
	if depth > 32 {
		return nil, fmt.Errorf("groups nested more than 32 deep beside a lookahead")
	}
	var alts [][]*laNode
	for {
		seq, err := p.sequence(depth)
		if err != nil {
			return nil, err
		}
		alts = append(alts, seq)
		if p.i < len(p.src) && p.src[p.i] == '|' {
			p.i++
			continue
		}
		return alts, nil
	}
}

// sequence reads items up to |, a closing parenthesis or the end. Runs of
// text, groups without a lookahead included, are kept as one item.
func (p *laParser) sequence(depth int) ([]*laNode, error) {
	var seq []*laNode
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			seq = append(seq, &laNode{kind: laText, text: text.String()})
			text.Reset()
		}
	}
	for p.i < len(p.src) {
		switch ch := p.src[p.i]; ch {
		case '|', ')':
			flush()
			return seq, nil
		case '^', '$':
			flush()
			kind := laStart
			if ch == '$' {
				kind = laEnd
			}
			seq = append(seq, &laNode{kind: kind})
			p.i++
		case '\\':
			end := min(p.i+2, len(p.src))
			text.WriteString(p.src[p.i:end])
			p.i = end
		case '[':
			end, err := classEnd(p.src, p.i)
			if err != nil {
				return nil, err
			}
			text.WriteString(p.src[p.i:end])
			p.i = end
		case '(':
			start := p.i
			look := strings.HasPrefix(p.src[p.i:], "(?=") || strings.HasPrefix(p.src[p.i:], "(?!")
			neg := strings.HasPrefix(p.src[p.i:], "(?!")
			switch {
			case look:
				p.i += 3
			case strings.HasPrefix(p.src[p.i:], "(?:"):
				p.i += 3
			case strings.HasPrefix(p.src[p.i:], "(?<=") || strings.HasPrefix(p.src[p.i:], "(?<!"):
				return nil, fmt.Errorf("lookbehind is not supported")
			case strings.HasPrefix(p.src[p.i:], "(?<"):
				end := strings.IndexByte(p.src[p.i:], '>')
				if end < 0 {
					return nil, fmt.Errorf("unterminated group name")
				}
				p.i += end + 1
			default:
				p.i++
			}
			alts, err := p.alternation(depth + 1)
			if err != nil {
				return nil, err
			}
			if p.i >= len(p.src) || p.src[p.i] != ')' {
				return nil, fmt.Errorf("missing closing )")
			}
			p.i++
			qStart := p.i
			p.i = quantifierEnd(p.src, p.i)
			quantified := p.i > qStart
			switch {
			case look && quantified:
				return nil, fmt.Errorf("a repeated lookahead is not supported")
			case look:
				flush()
				seq = append(seq, &laNode{kind: laLook, alts: alts, neg: neg})
			case !hasLook(alts):
				// No lookahead inside: plain text, quantifier and all.
				text.WriteString(p.src[start:p.i])
			case quantified:
				return nil, fmt.Errorf("a lookahead inside a repeated group is not supported")
			default:
				flush()
				seq = append(seq, &laNode{kind: laGroup, alts: alts})
			}
		default:
			text.WriteByte(ch)
			p.i++
		}
	}
	flush()
	return seq, nil
}

// hasLook reports whether alternatives hold a lookahead or an anchor
// (which must be read as items of their own, not as text).
func hasLook(alts [][]*laNode) bool {
	for _, seq := range alts {
		for _, x := range seq {
			if x.kind != laText {
				return true
			}
		}
	}
	return false
}

// classEnd returns the index after the character class starting at i.
func classEnd(src string, i int) (int, error) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case ']':
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("missing closing ]")
}

// quantifierEnd returns the index after the quantifier at i (i when there
// is none), its lazy ? included.
func quantifierEnd(src string, i int) int {
	if i >= len(src) {
		return i
	}
	j := i
	switch src[i] {
	case '*', '+', '?':
		j = i + 1
	case '{':
		k := i + 1
		for k < len(src) && (src[k] >= '0' && src[k] <= '9' || src[k] == ',') {
			k++
		}
		if k == i+1 || k >= len(src) || src[k] != '}' {
			return i // a literal {
		}
		j = k + 1
	default:
		return i
	}
	if j < len(src) && src[j] == '?' {
		j++
	}
	return j
}
