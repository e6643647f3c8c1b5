package fsm

// ForcedBytes returns the bytes that every accepted continuation from state s
// starts with: the longest w such that from s, while the state reached is not
// final, has no symbol edges and has exactly one byte value leading to a state
// that can still reach a final state (through bytes or symbols), that byte is
// taken. It is empty when s is final, has symbol edges, branches, or is -1.
//
// On the DFAs Minimize and Trim return, and after ComputeForced, the result is
// a look-up into a table built once, sharing storage between states: it must
// not be modified. Otherwise each call computes the table anew.
func (d *DFA) ForcedBytes(s int32) []byte {
	if s < 0 || int(s) >= d.NumStates() {
		return nil
	}
	if d.forced == nil {
		w := getWorkspace()
		defer w.put()
		w.load(d, nil)
		return w.forcedTable(d, w.coReachable(d, nil)).bytes(s)
	}
	return d.forced.bytes(s)
}

// forcedTable holds ForcedBytes for every state: state s has
// buf[span[2s]:span[2s+1]]. States on one chain share the suffixes of one
// string.
type forcedTable struct {
	buf  []byte
	span []int32
}

func (f *forcedTable) bytes(s int32) []byte {
	lo, hi := f.span[2*s], f.span[2*s+1]
	return f.buf[lo:hi:hi]
}

// ComputeForced builds the table that ForcedBytes reads, for DFAs that do not
// come from Minimize or Trim (which have it already). It modifies d, so it
// must run before d is shared between goroutines, and after the last change
// to d's fields.
func (d *DFA) ComputeForced() {
	if d.forced == nil {
		w := getWorkspace()
		defer w.put()
		w.load(d, nil)
		d.forced = w.forcedTable(d, w.coReachable(d, nil))
	}
}

// Paths is the compressed view of an automaton: for each node, the bytes
// read along its chain of forced successors (a node's forced successor is
// the one node it can go on to, by one byte value). Nodes on one chain share
// the suffixes of one string, so the table holds each chain once. DFA
// builds it for ForcedBytes; rein's pushdown automaton (internal/pda)
// builds it over its linked rules.
type Paths struct{ t forcedTable }

// Bytes returns node s's path, nil when s is out of range. The slice is
// shared: callers must not modify it.
func (p *Paths) Bytes(s int32) []byte {
	if s < 0 || int(2*s) >= len(p.t.span) {
		return nil
	}
	return p.t.bytes(s)
}

// NewPaths builds the paths of a graph of len(next) nodes: next[s] is the
// forced successor of node s, or -1, and by[s] the byte that leads there.
// A chain that loops back into itself is cut where it would repeat.
func NewPaths(next []int32, by []byte) *Paths {
	w := getWorkspace()
	defer w.put()
	n := len(next)
	w.next, w.by = resize(w.next, n), resize(w.by, n)
	copy(w.next, next)
	copy(w.by, by)
	return &Paths{*w.chains(n)}
}

// forcedTable builds the ForcedBytes table; live says which states can reach
// a final state, nil if all can.
func (w *workspace) forcedTable(d *DFA, live []bool) *forcedTable {
	n, k := d.NumStates(), d.NumClasses
	isLive := func(s int32) bool { return live == nil || live[s] }

	// Per class, whether it has one byte, and a byte of it.
	var many [256]bool
	var member [256]byte
	var seen [256]bool
	for b := range 256 {
		c := d.Classes[b]
		many[c] = seen[c]
		seen[c], member[c] = true, byte(b)
	}

	// next[s] is the one live successor of a forcing state, by its byte;
	// else -1.
	w.next, w.by = resize(w.next, n), resize(w.by, n)
	next, by := w.next, w.by
	for s := range n {
		next[s] = -1
		if !isLive(int32(s)) || d.Final[s] || len(d.Calls[s]) > 0 {
			continue
		}
		count, t := 0, int32(-1)
		for c, u := range d.Trans[s*k : (s+1)*k] {
			if u >= 0 && isLive(u) {
				count++
				if many[c] {
					count++
				}
				t, by[s] = u, member[c]
			}
		}
		if count == 1 {
			next[s] = t
		}
	}
	return w.chains(n)
}

// chains writes the paths of the forced successors in w.next and w.by.
func (w *workspace) chains(n int) *forcedTable {
	next, by := w.next, w.by
	// heads are the forcing states no forcing state leads to.
	w.heads, w.done, w.length = resize(w.heads, n), resize(w.done, n), resize(w.length, n)
	heads, done, length := w.heads, w.done, w.length
	for s := range n {
		heads[s] = next[s] >= 0
	}
	for s := range n {
		if next[s] >= 0 {
			heads[next[s]] = false
		}
	}
	// Lengths, by walking each chain to a known length. On a DFA a chain
	// cannot loop (its states could not reach a final state); a loop given
	// to NewPaths is cut where the walk meets a state already seen.
	path := w.path[:0]
	for s := range n {
		path = path[:0]
		for u := int32(s); !done[u]; u = next[u] {
			done[u] = true
			path = append(path, u)
			if next[u] < 0 {
				break
			}
		}
		for i := len(path) - 1; i >= 0; i-- {
			if u := path[i]; next[u] >= 0 {
				length[u] = length[next[u]] + 1
			}
		}
	}
	w.path = path
	// Write each chain once, from its head; the states on it share the
	// suffixes of that string.
	total := 0
	for s := range n {
		if heads[s] {
			total += int(length[s])
		}
	}
	f := &forcedTable{span: make([]int32, 2*n)}
	if total == 0 {
		return f
	}
	f.buf = make([]byte, 0, total)
	for s := range n {
		if !heads[s] {
			continue
		}
		at := int32(len(f.buf))
		u := int32(s)
		for range length[s] {
			f.buf = append(f.buf, by[u])
			u = next[u]
		}
		end := int32(len(f.buf))
		for u, i := int32(s), at; i < end && f.span[2*u+1] == 0; u, i = next[u], i+1 {
			f.span[2*u], f.span[2*u+1] = i, end
		}
	}
	return f
}
