package rein_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reinlm/rein/internal/datadir"
	"github.com/reinlm/rein/internal/latency"
	"github.com/reinlm/rein/internal/maskbench"
	"github.com/reinlm/rein/internal/vocabtest"
	"github.com/reinlm/rein/mask"
)

// BenchmarkFirstPass runs MaskBench's committed sample through the
// fresh-process line (maskbench.RunFresh): every schema compiled through a
// new rein.Compiler and polled until Ready, then its instances masked token
// by token. The vocabulary's shared index is reset before each iteration,
// so every iteration is a first pass; the figures are over all iterations:
// every mask ("mask-"), compile-to-Ready ("compile-") and Ready to the end
// of the first mask ("first-mask-"), with the schemas passed.
func BenchmarkFirstPass(b *testing.B) {
	dir := filepath.Join(datadir.Root(), "testdata", "maskbench-sample")
	for _, name := range []string{"llama3", "qwen3"} {
		b.Run(name, func(b *testing.B) {
			voc := vocabtest.Load(b, name)
			var masks, compile, first latency.Sample
			passed := 0
			for b.Loop() {
				mask.ResetSharedIndex(voc)
				rep, err := maskbench.RunFresh(maskbench.Options{Dir: dir, Vocab: voc})
				require.NoError(b, err)
				masks.AddSample(&rep.Masks)
				compile.AddSample(&rep.Compile)
				first.AddSample(&rep.FirstMask)
				passed = rep.Passed()
			}
			masks.Report(b, "mask-")
			compile.Report(b, "compile-")
			first.Report(b, "first-mask-")
			b.ReportMetric(float64(passed), "passed")
		})
	}
}
