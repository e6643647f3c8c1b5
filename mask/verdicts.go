package mask

// Exit verdicts kept from one mask to the next.
//
// Inside a string, a number or a key, a sequence's masks one token after
// another ask about the same uncertain tokens (those that close the
// string, `",` `"}` `"]` ...) over the same stack below the rule: the top
// moves along the rule's automaton, often to the same node (a string's
// inside loops), and the frame it returns into stays. checkSuffixes runs
// each distinct suffix from that frame, a pushdown step per byte, which is
// most of what a mask costs there, and walks the classification's ranges of
// uncertain tokens (exitRange) the same way. Their verdicts depend on the
// suffixes, the ranges and the stack alone, so a matcher keeps the last
// few: for a classification and a frame, which suffixes were taken and
// which of the ranges' tokens were allowed. A frame is named by its id and
// its stamp (pda.State.FrameStamp), which no other frame has ever had, so
// a kept verdict is never read for another stack, whatever was rolled
// back since.

// keptVerdicts is how many (classification, frame) pairs a matcher keeps
// verdicts for: a mask has a few tops, each with at most two
// classifications to decide (a derived classification and its base), and
// a document's values come back to the same few rules. The least recently
// used goes first.
const keptVerdicts = 16

// minVerdictWords is the least room a kept verdict is given, in words of
// 64 suffixes, so that a matcher's kept verdicts stop growing (allocating)
// once it has run for a while.
const minVerdictWords = 16

// verdicts is a matcher's kept exit verdicts.
type verdicts struct {
	kept      [keptVerdicts]verdict
	tick      uint64 // counts finds and starts: when each entry was last used
	rangeHits int    // finds whose ranges' tokens were kept, not walked (tests)
}

// verdict says which suffixes of x's table (bit i: suffix i) are taken
// after the rule returns into frame, whose stamp is stamp.
//
// Where x has ranges of uncertain tokens (exitRange), ranges holds the
// tokens they allowed at that frame, unless there were more than
// maxKeptRangeTokens (nil: the ranges are walked again).
type verdict struct {
	x          *nodeIndex
	frame      int32
	stamp      uint64
	taken      []uint64
	ranges     []int32 // the tokens x's ranges allowed; nil: not kept
	rangesBuf  []int32 // ranges' room, kept across entries
	rangesOver bool    // while ranges is recorded: more than it keeps
	used       uint64  // the tick it was last found or started at
}

// maxKeptRangeTokens bounds the tokens a verdict keeps for x's ranges: a
// mask that allows more walks the ranges again.
const maxKeptRangeTokens = 1024

// minKeptRangeRoom is the room each verdict is first given for its
// ranges' tokens (roomForRanges).
const minKeptRangeRoom = 256

// roomForRanges gives e room for its ranges' tokens. At the first need,
// every entry gets minKeptRangeRoom, from one allocation: the entries are
// used in turn, and would otherwise allocate one by one for a while.
func (v *verdicts) roomForRanges(e *verdict) {
	if e.rangesBuf != nil {
		return
	}
	slab := make([]int32, keptVerdicts*minKeptRangeRoom)
	for i := range v.kept {
		if k := &v.kept[i]; k.rangesBuf == nil {
			k.rangesBuf = slab[i*minKeptRangeRoom : i*minKeptRangeRoom : (i+1)*minKeptRangeRoom]
		}
	}
}

// keepRange records that x's ranges allowed token id (checkRange).
func (e *verdict) keepRange(id int32) {
	switch n := len(e.ranges); {
	case n >= maxKeptRangeTokens:
		e.rangesOver = true
		return
	case n == cap(e.ranges):
		// Grown by hand, so that the room never passes the bound.
		grown := make([]int32, n, min(2*n, maxKeptRangeTokens))
		copy(grown, e.ranges)
		e.ranges = grown
	}
	e.ranges = append(e.ranges, id)
}

// keepRanges ends the recording of the ranges' tokens (checkRanges):
// ranges is kept (not nil, even where empty) unless there were more than
// maxKeptRangeTokens.
func (e *verdict) keepRanges() {
	if cap(e.ranges) > cap(e.rangesBuf) {
		e.rangesBuf = e.ranges[:0] // grown by append: keep its room
	}
	if e.rangesOver {
		e.ranges = nil
	}
}

// find returns the kept verdict of x at frame f with stamp, or nil.
func (v *verdicts) find(x *nodeIndex, f int32, stamp uint64) *verdict {
	v.tick++
	for i := range v.kept {
		if e := &v.kept[i]; e.x == x && e.frame == f && e.stamp == stamp {
			e.used = v.tick
			return e
		}
	}
	return nil
}

// start returns an entry to record the verdicts of x's ns suffixes at
// frame f with stamp into, cleared: the least recently used one. It
// follows a find that found none. It holds no verdict (x is nil) until
// the caller sets x, once every suffix is decided.
func (v *verdicts) start(ns int, f int32, stamp uint64) *verdict {
	e := &v.kept[0]
	for i := range v.kept {
		if v.kept[i].used < e.used {
			e = &v.kept[i]
		}
	}
	e.used = v.tick
	words := (ns + 63) / 64
	if cap(e.taken) < words {
		e.taken = make([]uint64, max(words, minVerdictWords))
	}
	e.taken = e.taken[:words]
	clear(e.taken)
	e.x, e.frame, e.stamp, e.ranges = nil, f, stamp, nil
	return e
}
