#!/usr/bin/env bash
# Installs, when missing, what rein's cuda package needs on a Debian host
# (bookworm or newer), from Debian's non-free and contrib components:
#
#   (default)   cuda.h and libcuda.so, to build and link the package with the
#               cuda tag (gorgonia.org/cu links -lcuda): nvidia-cuda-dev,
#               which pulls in libcuda1. About 1.5 GB to download and 5.2 GB
#               installed; about 1.5 minutes on a 2-core machine.
#   --toolkit   nvcc and ptxas too, for scripts/cuda/build-ptx.sh and
#               scripts/cuda/check-ptx.sh: nvidia-cuda-toolkit (another 130 MB,
#               with g++-11 for nvcc's host side).
#   --check     installs nothing: exits 0 when cuda.h and libcuda are found,
#               1 when not (make test's test for running cuda-check).
#
# Neither needs a GPU: a binary linked here runs against the driver's own
# libcuda.so.1 on a GPU host. The script enables contrib and non-free on the
# apt sources of the host's Debian release when they are off, and does
# nothing at all when the C compiler already finds cuda.h and libcuda (and
# nvcc is on PATH, with --toolkit). Installing needs root, or sudo.
set -euo pipefail

toolkit=0 check=0
case "${1:-}" in
--toolkit) toolkit=1 ;;
--check) check=1 ;;
"") ;;
*)
	echo "usage: $0 [--toolkit | --check]" >&2
	exit 2
	;;
esac

CC=${CC:-gcc}

links() {
	printf '#include <cuda.h>\nint main(void) { return cuInit(0) == CUDA_SUCCESS ? 0 : 1; }\n' |
		"$CC" -x c - -o /dev/null -lcuda >/dev/null 2>&1
}

present() {
	links && { [ "$toolkit" = 0 ] || { command -v nvcc && command -v ptxas; } >/dev/null 2>&1; }
}

if [ "$check" = 1 ]; then
	links
	exit
fi

if present; then
	echo "cuda deps: present"
	exit 0
fi

sudo=
if [ "$(id -u)" != 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "cuda deps: missing, and installing them needs root or sudo" >&2
		exit 1
	fi
	sudo=sudo
fi

# The release's codename: apt entries whose suites are it (or it-updates,
# it-security, ...) are Debian's own, and get contrib and non-free.
# shellcheck source=/dev/null
. /etc/os-release
code=${VERSION_CODENAME:?cannot tell the Debian release from /etc/os-release}

# enable_components FILE: adds contrib and non-free to the Debian entries of
# an apt sources file, in deb822 (.sources) or one-line (.list) format; leaves
# the file alone when they are there already.
enable_components() {
	local file=$1 tmp
	tmp=$(mktemp)
	if [[ $file == *.sources ]]; then
		awk -v code="$code" '
			function flush(   i, j, s, debian, line) {
				debian = 0
				for (i = 1; i <= n; i++)
					if (buf[i] ~ /^Suites:/) {
						split(substr(buf[i], 8), s, /[ \t]+/)
						for (j in s)
							if (s[j] == code || index(s[j], code "-") == 1)
								debian = 1
					}
				for (i = 1; i <= n; i++) {
					line = buf[i]
					if (debian && line ~ /^Components:/) {
						if (line !~ /[ \t]contrib([ \t]|$)/) line = line " contrib"
						if (line !~ /[ \t]non-free([ \t]|$)/) line = line " non-free"
					}
					print line
				}
				n = 0
			}
			/^[ \t]*$/ { flush(); print; next }
			{ buf[++n] = $0 }
			END { flush() }
		' "$file" >"$tmp"
	else
		awk -v code="$code" '
			/^deb(-src)?[ \t]/ {
				debian = 0
				for (i = 2; i <= NF; i++)
					if ($i == code || index($i, code "-") == 1)
						debian = 1
				if (debian) {
					if ($0 !~ /[ \t]contrib([ \t]|$)/) $0 = $0 " contrib"
					if ($0 !~ /[ \t]non-free([ \t]|$)/) $0 = $0 " non-free"
				}
			}
			{ print }
		' "$file" >"$tmp"
	fi
	if cmp -s "$file" "$tmp"; then
		rm -f "$tmp"
		return
	fi
	echo "cuda deps: enabling contrib and non-free in $file"
	$sudo cp "$tmp" "$file"
	rm -f "$tmp"
}

start=$SECONDS
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && enable_components "$f"
done

pkgs=(nvidia-cuda-dev)
[ "$toolkit" = 1 ] && pkgs+=(nvidia-cuda-toolkit)
echo "cuda deps: installing ${pkgs[*]}"
$sudo apt-get update -q >/dev/null
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" >/dev/null

if ! present; then
	echo "cuda deps: installed ${pkgs[*]}, but cuda.h, libcuda or nvcc is still not found" >&2
	exit 1
fi
echo "cuda deps: installed in $((SECONDS - start)) s"
