# rein's build and test entry points. `make test` is the whole suite: it fetches
# and verifies the real vocabularies when they are missing, then vets, lints
# and runs every test with the race detector. Real-data tests never skip here.

GO          ?= go
CACHE       := $(CURDIR)/.cache
BIN         := $(CACHE)/bin
STATICCHECK := $(BIN)/staticcheck
STATICCHECK_VERSION := v0.8.2

export REIN_REQUIRE_DATA := 1

.PHONY: test vocab lint vet staticcheck bench

# The race run scales the long property tests down (internal/race); the
# second run repeats those at full size without the detector, and the third
# runs the MaskBench runner over its CI sample against the floor in
# internal/maskbench/testdata/floor.json.
test: vocab lint cuda-check
	$(GO) test -race -timeout 40m ./...
	$(GO) test -count=1 -timeout 20m -run 'TestMaskMatchesReference|TestMaskAgreesWithEarley|TestRandomDecoding' ./mask/
	$(GO) test -count=1 -timeout 20m -run 'TestMaskBenchFloor' -v ./internal/maskbench/

vocab:
	@bash scripts/fetch-vocab.sh $(CACHE)/tokenizers

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
