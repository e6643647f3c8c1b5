#!/usr/bin/env bash
# Fills DEST with the JSON Schema Test Suite's drafts before 2020-12
# (draft4, draft6, draft7, draft2019-09, each with optional/, and remotes/),
# which the suite tests run beside the draft 2020-12 copy in
# testdata/json-schema-test-suite. They come from the Go module
# github.com/qri-io/jsonschema@v0.2.1 (MIT), which vendors the suite in its
# testdata: go mod download verifies the module against the checksum
# database and the pinned hash below. qri-io's own *_modified.json files are
# left out. With DEST complete it does nothing.
#
# usage: scripts/fetch-suite.sh DEST
set -euo pipefail

dest=${1:?usage: fetch-suite.sh DEST}
module=github.com/qri-io/jsonschema@v0.2.1
want=h1:NNFoKms+kut6ABPf6xiKNM5214jzxAhDBrPHCJ97Wg0=
[ -f "$dest/COMPLETE" ] && exit 0

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
json=$(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "$module")
dir=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
sum=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Sum": "\(.*\)",*$/\1/p')
if [ -z "$dir" ] || [ ! -d "$dir/testdata" ]; then
	echo "fetch-suite: go mod download of $module failed" >&2
	exit 1
fi
if [ "$sum" != "$want" ]; then
	echo "fetch-suite: $module has hash $sum, want $want" >&2
	exit 1
fi
staging=$(mktemp -d "$(dirname "$dest")/.suite.XXXXXX" 2>/dev/null || { mkdir -p "$(dirname "$dest")"; mktemp -d "$(dirname "$dest")/.suite.XXXXXX"; })
# A failed run leaves no staging folder behind; the copies are made
# writable first, since a user who is not root cannot remove files from
# the read-only folders the module cache holds.
trap 'rm -rf "$tmp"; if [ -d "$staging" ]; then chmod -R u+w "$staging"; rm -rf "$staging"; fi' EXIT
for d in draft4 draft6 draft7 draft2019-09 remotes; do
	cp -R "$dir/testdata/$d" "$staging/$d"
done
chmod -R u+w,go+rX "$staging"
find "$staging" -name '*_modified.json' -delete
cp "$dir/LICENSE" "$staging/LICENSE.go-module"
printf 'JSON Schema Test Suite (MIT), vendored by %s (testdata/), %s\n' "$module" "$want" > "$staging/SOURCE"
touch "$staging/COMPLETE"
rm -rf "$dest"
mv "$staging" "$dest"
