#!/usr/bin/env bash
# Regenerates tokenizer/testdata/golden/ from the reference implementations,
# never from rein:
#   - @lenml/tokenizers (transformers.js' tokenizers) for llama3, qwen3 and
#     mistral (hf.cjs);
#   - github.com/tiktoken-go/tokenizer for the token bytes of gpt2 (r50k_base),
#     cl100k and o200k (tiktoken.go), cross-checked against js-tiktoken, which
#     also gives their encodings (tiktoken.cjs).
# Everything is installed into a scratch folder that is removed afterwards;
# rein's go.mod and the repository's node_modules are never touched.
#
# usage: scripts/golden/make-goldens.sh [TOKENIZERS_DIR]
# (default: .cache/tokenizers, else ../shared/data/tokenizers)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
vocab=${1:-}
if [ -z "$vocab" ]; then
	for d in "$root/.cache/tokenizers" "$root/../shared/data/tokenizers"; do
		if [ -d "$d/llama3" ]; then vocab=$d; break; fi
	done
fi
if [ -z "$vocab" ]; then
	echo "make-goldens: no vocabularies (run make vocab)" >&2
	exit 1
fi
out=$root/tokenizer/testdata/golden
mkdir -p "$out"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

echo "installing the references into $scratch"
mkdir -p "$scratch/node" "$scratch/go"
(cd "$scratch/node" && npm install --no-audit --no-fund --silent @lenml/tokenizers@3.7.2 js-tiktoken@1.0.21)
export NODE_PATH="$scratch/node/node_modules"

node "$here/inputs.cjs" "$out/inputs.json"
node "$here/hf.cjs" "$vocab" "$out"

cp "$here/tiktoken.go" "$scratch/go/main.go"
(
	cd "$scratch/go"
	export GOWORK=off GOFLAGS=-mod=mod
	go mod init rein.invalid/goldens >/dev/null 2>&1
	go get github.com/tiktoken-go/tokenizer@v0.10.0 >/dev/null 2>&1
	go run main.go "$out" "$scratch"
)
node "$here/tiktoken.cjs" "$out" "$scratch"
echo "goldens written to $out"
