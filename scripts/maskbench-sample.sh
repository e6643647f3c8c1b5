#!/usr/bin/env bash
# Rebuilds testdata/maskbench-sample from the full MaskBench set: for each
# dataset (internal/maskbench.Dataset: the file name up to "---", or without
# its trailing "_N"), the 1st, 51st, 101st, ... file in name order, and the
# files that tests name (pinned below). The sample's LICENSE and SOURCE are
# kept.
#
# usage: scripts/maskbench-sample.sh [FULL_DIR]   (default: $REIN_MASKBENCH_DIR,
#        else ../shared/data/maskbench beside the checkout)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
full=${1:-${REIN_MASKBENCH_DIR:-$root/../shared/data/maskbench}}
out=$root/testdata/maskbench-sample
[ -d "$full" ] || { echo "maskbench-sample: no folder $full" >&2; exit 1; }
# Files a test reads by name (mask/shared_test.go).
pinned=(BFCL_javascript_21.json Github_easy---o57229.json Glaiveai2K---calculate_area_bcc08b54.json)
find "$out" -maxdepth 1 -name '*.json' -delete
(cd "$full" && ls -- *.json) | LC_ALL=C sort |
	awk '{ds = $0; sub(/(---.*|_[0-9]+)?\.json$/, "", ds); if (n[ds]++ % 50 == 0) print}' |
	cat - <(printf '%s\n' "${pinned[@]}") |
	while read -r f; do cp "$full/$f" "$out/$f" && chmod 644 "$out/$f"; done
echo "maskbench-sample: $(find "$out" -maxdepth 1 -name '*.json' | wc -l) files in $out"
