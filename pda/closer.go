package pda

// closer holds what computing closures needs: the interned stack frames and
// the set of (node, frame) pairs met in the current generation (one depth
// of a State, one step of a Stepper).
type closer struct {
	frames []frame
	ftab   []int32 // open-addressing index of frames: 0 empty, -1 deleted, id+1
	fmask  uint32
	fused  int // non-empty entries of ftab

	work  []Top
	vtab  []uint64 // visited (node,frame) keys, tagged by generation
	vgen  []uint32
	gen   uint32
	vmask uint32
}

func (s *closer) init() {
	s.ftab = make([]int32, 64)
	s.fmask = 63
	s.initVisited()
}

func (s *closer) initVisited() {
	s.vtab = make([]uint64, 64)
	s.vgen = make([]uint32, 64)
	s.vmask = 63
}

func (s *closer) resetFrames() {
	s.frames = s.frames[:0]
	clear(s.ftab)
	s.fused = 0
}

// newGeneration forgets every visited pair.
func (s *closer) newGeneration() {
	s.gen++
	if s.gen == 0 {
		clear(s.vgen)
		s.gen = 1
	}
}

// closure appends to out the tops reachable from (n, f) without consuming a
// byte: rule calls push a frame, rule ends pop one. Pairs visited in this
// generation are skipped, so each is expanded once. It reports whether a
// rule end popped the bottom frame.
func (s *closer) closure(p *Program, n, f int32, out []Top) ([]Top, bool) {
	canEnd := false
	s.work = append(s.work[:0], Top{n, f})
	for len(s.work) > 0 {
		t := s.work[len(s.work)-1]
		s.work = s.work[:len(s.work)-1]
		if !s.visit(t) {
			continue
		}
		if p.final[t.Node] {
			if t.Frame < 0 {
				canEnd = true
			} else {
				fr := s.frames[t.Frame]
				s.work = append(s.work, Top{fr.ret, fr.parent})
			}
		}
		for _, c := range p.calls[t.Node] {
			g := t.Frame
			if !c.Tail {
				g = s.intern(c.Return, t.Frame)
			}
			s.work = append(s.work, Top{c.Start, g})
		}
		if p.hasBytes[t.Node] {
			out = append(out, t)
		}
	}
	return out, canEnd
}

// visit marks (node, frame) as seen in the current generation and reports whether
// it was new.
func (s *closer) visit(t Top) bool {
	key := uint64(uint32(t.Node))<<32 | uint64(uint32(t.Frame))
	h := uint32((key * 0x9E3779B97F4A7C15) >> 40)
	for {
		i := h & s.vmask
		if s.vgen[i] != s.gen {
			s.vgen[i] = s.gen
			s.vtab[i] = key
			return true
		}
		if s.vtab[i] == key {
			return false
		}
		h++
		if h-uint32((key*0x9E3779B97F4A7C15)>>40) > s.vmask/2 {
			s.growVisited()
			return s.visit(t)
		}
	}
}

func (s *closer) growVisited() {
	// Rehash the current generation's keys into a table twice the size.
	oldTab, oldGen, g := s.vtab, s.vgen, s.gen
	size := 2 * len(oldTab)
	s.vtab = make([]uint64, size)
	s.vgen = make([]uint32, size)
	s.vmask = uint32(size - 1)
	for i, k := range oldTab {
		if oldGen[i] == g {
			h := uint32((k * 0x9E3779B97F4A7C15) >> 40)
			for s.vgen[h&s.vmask] == g {
				h++
			}
			s.vgen[h&s.vmask] = g
			s.vtab[h&s.vmask] = k
		}
	}
}

// intern returns the id of frame (ret, parent), creating it if needed.
// ftab is an open-addressing index: 0 empty, -1 deleted, id+1 a frame.
func (s *closer) intern(ret, parent int32) int32 {
	key := frame{ret, parent}
	h := frameHash(key)
	free := int32(-1)
	for probe := uint32(0); ; probe++ {
		i := (h + probe) & s.fmask
		e := s.ftab[i]
		if e == 0 {
			if free < 0 {
				free = int32(i)
				s.fused++
			}
			break
		}
		if e < 0 {
			if free < 0 {
				free = int32(i)
			}
			continue
		}
		if s.frames[e-1] == key {
			return e - 1
		}
	}
	id := int32(len(s.frames))
	s.frames = append(s.frames, key)
	s.ftab[free] = id + 1
	if s.fused*2 > len(s.ftab) {
		s.rehashFrames()
	}
	return id
}

func frameHash(f frame) uint32 {
	return (uint32(f.ret)*0x9E3779B1 ^ uint32(f.parent)*0x85EBCA77) * 0xC2B2AE3D
}

// truncateFrames removes the frames from id n on, and their index entries.
func (s *closer) truncateFrames(n int) {
	for id := len(s.frames) - 1; id >= n; id-- {
		h := frameHash(s.frames[id])
		for probe := uint32(0); ; probe++ {
			i := (h + probe) & s.fmask
			if s.ftab[i] == int32(id)+1 {
				s.ftab[i] = -1
				break
			}
		}
	}
	s.frames = s.frames[:n]
}

// rehashFrames rebuilds the index, dropping deleted entries, at a size that
// keeps it at most a quarter full.
func (s *closer) rehashFrames() {
	size := len(s.ftab)
	for size < 4*len(s.frames) {
		size *= 2
	}
	if size == len(s.ftab) {
		clear(s.ftab)
	} else {
		s.ftab = make([]int32, size)
	}
	s.fmask = uint32(size - 1)
	s.fused = len(s.frames)
	for id, fr := range s.frames {
		h := frameHash(fr)
		for probe := uint32(0); ; probe++ {
			i := (h + probe) & s.fmask
			if s.ftab[i] == 0 {
				s.ftab[i] = int32(id) + 1
				break
			}
		}
	}
}
