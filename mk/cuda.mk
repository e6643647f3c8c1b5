# rein's CUDA targets, included from the Makefile (which sets GO, CACHE and
# STATICCHECK; the defaults below serve `make -f Makefile -f mk/cuda.mk`).
#
#   cuda-deps      install cuda.h and libcuda from Debian when missing (root;
#                  edits the apt sources; CI runs it, make test never does)
#   cuda-check     vet, lint and build the cuda package and examples/cuda with
#                  the cuda tag, and compile the GPU test binary
#                  ($(CUDA_TEST_BIN)) and the example ($(CUDA_EXAMPLE_BIN)),
#                  to be run on a GPU host; needs no GPU, but CUDA's headers
#   cuda-check-if-present
#                  cuda-check where CUDA's headers and libcuda are installed,
#                  else one line saying it was not run (make test's step)
#   cuda-ptx-check assemble the committed cuda/mask.ptx with ptxas for sm_80
#                  and sm_90; needs no GPU, but ptxas (cuda-deps-toolkit)
#   cuda-deps-toolkit
#                  cuda-deps plus nvcc and ptxas (nvidia-cuda-toolkit)
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

.PHONY: cuda-deps cuda-deps-toolkit cuda-check cuda-check-if-present cuda-ptx-check cuda-ptx cuda-gpu-test

cuda-deps:
	@bash scripts/cuda/install-deps.sh

cuda-deps-toolkit:
	@bash scripts/cuda/install-deps.sh --toolkit

cuda-check-if-present:
	@if bash scripts/cuda/install-deps.sh --check; then \
		$(MAKE) --no-print-directory cuda-check; \
	else \
		echo "cuda-check: not run: CUDA's headers and libcuda are not installed (make cuda-deps installs them, as root; CI runs it)"; \
	fi

cuda-ptx-check:
	@bash scripts/cuda/check-ptx.sh

cuda-check: $(STATICCHECK)
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
