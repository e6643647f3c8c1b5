package mask

import (
	"fmt"
	"sync"
)

// FillBatch fills row rows[i] of b for matchers[i], spreading the matchers
// over up to workers goroutines (workers <= 1 fills on the caller's
// goroutine). Each matcher must belong to no other goroutine during the
// call. It returns the first error of any row; the other rows are filled
// all the same.
func FillBatch(matchers []*Matcher, b *Bitmask, rows []int, workers int) error {
	if len(rows) != len(matchers) {
		return fmt.Errorf("%w: %d matchers but %d rows", ErrRow, len(matchers), len(rows))
	}
	if workers <= 1 || len(matchers) <= 1 {
		var first error
		for i, m := range matchers {
			if err := m.FillBitmask(b, rows[i]); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	workers = min(workers, len(matchers))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(matchers); i += workers {
				if err := matchers[i].FillBitmask(b, rows[i]); err != nil && errs[w] == nil {
					errs[w] = err
				}
			}
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
