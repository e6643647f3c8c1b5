package fsm

import "sync"

// workspace is the working memory of Minimize, Trim, CanReachFinal and the
// forced-bytes table. Workspaces are pooled, like subset builders, so that
// transforming many small DFAs does not allocate their scratch each time.
// Each field is owned by one step; the comments say which.
type workspace struct {
	// reachable, coReachable, useful
	reach, live []bool
	off, pred   []int32
	fill, stack []int32

	// Minimize
	id, orig, syms, delta, delta2 []int32
	letterSet                     []int32
	final                         []bool
	newID, order                  []int32

	// refine
	inOff, inLetter, inFrom, predFill []int32
	letterCount, letterStart          []int32
	letters, bucket                   []int32
	elems, loc, blockOf               []int32
	start, end, marked                []int32
	queued                            []bool
	work, splitter, touched           []int32

	// compactClasses, sameColumns
	colHash         []uint64
	colTable, first []int32
	remap           []int16
	reps            []int32

	// forcedTable
	next, length, path []int32
	by                 []byte
	done, heads        []bool
}

var workspacePool = sync.Pool{New: func() any { return new(workspace) }}

func getWorkspace() *workspace { return workspacePool.Get().(*workspace) }

// put returns w to the pool unless it grew large.
func (w *workspace) put() {
	if cap(w.pred)+cap(w.delta)+cap(w.inFrom) <= maxPooled {
		workspacePool.Put(w)
	}
}
