# rein's CUDA targets, included from the Makefile (which sets GO, CACHE and
# STATICCHECK; the defaults below serve `make -f Makefile -f mk/cuda.mk`).
#
#   cuda-deps      install cuda.h and libcuda from Debian when missing
#   cuda-check     vet, lint and build the cuda package and examples/cuda with
#                  the cuda tag, and compile the GPU test binary
#                  ($(CUDA_TEST_BIN)) and the example ($(CUDA_EXAMPLE_BIN)),
#                  to be run on a GPU host; needs no GPU
#   cuda-ptx       regenerate cuda/mask.ptx from cuda/mask.cu (installs nvcc
#                  when missing); commit both files
#   cuda-gpu-test  on a GPU host: run the GPU tests and benchmarks, and the
#                  example, from the binaries that cuda-check compiled
#
# The untagged package is vetted, linted and tested by the ordinary targets.

GO          ?= go
CACHE       ?= $(CURDIR)/.cache
STATICCHECK ?= $(CACHE)/bin/staticcheck
CUDA_TEST_BIN    := $(CACHE)/cuda/cuda.test
CUDA_EXAMPLE_BIN := $(CACHE)/cuda/example

.PHONY: cuda-deps cuda-check cuda-ptx cuda-gpu-test

cuda-deps:
	@bash scripts/cuda/install-deps.sh

cuda-check: cuda-deps $(STATICCHECK)
	$(GO) vet -tags cuda ./cuda/... ./examples/cuda/
	$(STATICCHECK) -tags cuda ./cuda/... ./examples/cuda/
	@mkdir -p $(dir $(CUDA_TEST_BIN))
	$(GO) build -tags cuda -o $(CUDA_EXAMPLE_BIN) ./examples/cuda/
	$(GO) test -c -tags cuda -o $(CUDA_TEST_BIN) ./cuda/

cuda-ptx:
	@bash scripts/cuda/build-ptx.sh

cuda-gpu-test:
	cd cuda && $(CUDA_TEST_BIN) -test.v -test.count=1 -test.run . -test.bench . -test.benchtime 1s
	$(CUDA_EXAMPLE_BIN) -batch 8
