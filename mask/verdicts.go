package mask

// Exit verdicts kept from one mask to the next.
//
// Inside a string, a number or a key, a sequence's masks one token after
// another ask about the same uncertain tokens (those that close the
// string, `",` `"}` `"]` ...) over the same stack below the rule: the top
// moves along the rule's automaton, often to the same node (a string's
// inside loops), and the frame it returns into stays. checkSuffixes runs
// each distinct suffix from that frame, a pushdown step per byte, which is
// most of what a mask costs there. Its verdicts depend on the suffixes and
// the stack alone, so a matcher keeps the last few: for a classification
// and a frame, which suffixes were taken. A frame is named by its id and
// its stamp (pda.State.FrameStamp), which no other frame has ever had, so
// a kept verdict is never read for another stack, whatever was rolled
// back since.

// keptVerdicts is how many (classification, frame) pairs a matcher keeps
// verdicts for: a mask has a few tops, each with at most two suffix tables
// (a derived classification's and its base's).
const keptVerdicts = 8

// minVerdictWords is the least room a kept verdict is given, in words of
// 64 suffixes, so that a matcher's kept verdicts stop growing (allocating)
// once it has run for a while.
const minVerdictWords = 16

// verdicts is a matcher's kept exit verdicts.
type verdicts struct {
	kept [keptVerdicts]verdict
	next int // the entry to replace next, round robin
}

// verdict says which suffixes of x's table (bit i: suffix i) are taken
// after the rule returns into frame, whose stamp is stamp.
type verdict struct {
	x     *nodeIndex
	frame int32
	stamp uint64
	taken []uint64
}

// find returns the kept verdict of x at frame f with stamp, or nil.
func (v *verdicts) find(x *nodeIndex, f int32, stamp uint64) *verdict {
	for i := range v.kept {
		if e := &v.kept[i]; e.x == x && e.frame == f && e.stamp == stamp {
			return e
		}
	}
	return nil
}

// start returns an entry to record the verdicts of x's ns suffixes at
// frame f with stamp into, cleared. It holds no verdict (x is nil) until
// the caller sets x, once every suffix is decided.
func (v *verdicts) start(ns int, f int32, stamp uint64) *verdict {
	e := &v.kept[v.next]
	v.next = (v.next + 1) % keptVerdicts
	words := (ns + 63) / 64
	if cap(e.taken) < words {
		e.taken = make([]uint64, max(words, minVerdictWords))
	}
	e.taken = e.taken[:words]
	clear(e.taken)
	e.x, e.frame, e.stamp = nil, f, stamp
	return e
}
