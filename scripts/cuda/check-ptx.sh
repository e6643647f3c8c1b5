#!/usr/bin/env bash
# Assembles the committed cuda/mask.ptx with ptxas for every GPU generation
# rein supports as a floor (sm_80: A100, RTX 30; sm_90: H100, H200), so that
# a kernel that does not assemble fails CI on a machine with no GPU. Also
# checks that mask.ptx records the sha256 of the mask.cu it was built from.
#
# ptxas is $PTXAS, else the one on PATH: Debian's nvidia-cuda-toolkit
# (non-free) has it, and `scripts/cuda/install-deps.sh --toolkit` installs it
# (as root; CI does). Without it the script fails.
set -euo pipefail
cd "$(dirname "$0")/../.."

ptxas=${PTXAS:-$(command -v ptxas || true)}
if [ -z "$ptxas" ]; then
	echo "check-ptx: no ptxas (install nvidia-cuda-toolkit: scripts/cuda/install-deps.sh --toolkit, as root)" >&2
	exit 1
fi

want=$(sed -n 's|^// source sha256 \([0-9a-f]*\)$|\1|p' cuda/mask.ptx)
got=$(sha256sum cuda/mask.cu | cut -d' ' -f1)
if [ "$want" != "$got" ]; then
	echo "check-ptx: cuda/mask.ptx was built from another mask.cu (sha256 $want, mask.cu has $got); run make cuda-ptx" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for arch in sm_80 sm_90; do
	"$ptxas" -arch="$arch" -o "$tmp/mask.$arch.cubin" cuda/mask.ptx
	echo "check-ptx: cuda/mask.ptx assembles for $arch ($(wc -c <"$tmp/mask.$arch.cubin") bytes of SASS; $("$ptxas" --version | tail -1))"
done
