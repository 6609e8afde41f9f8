# SPDX-License-Identifier: GPL-2.0
# Common settings of the grtrace scripts; sourced, not run.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${GRTRACE_CACHE:-$HOME/.cache/grtrace}
TARBALL=${GRTRACE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
SRC=${KERNEL_SRC:-$CACHE/linux-source-6.12}
BUILD=${GRTRACE_BUILD:-$CACHE/build-x86}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Paths relative to the build directory: hits across build directories.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$CACHE}
export CCACHE_NOHASHDIR=1
JOBS=${JOBS:-$(nproc)}
# The patches of the series, in order.
series_patches() { grep -v '^#' "$ROOT/series" | sed '/^$/d'; }
# Kernel paths of the files the series creates.
series_created() {
	series_patches | sed "s#^#$ROOT/patches/#" | xargs cat |
		awk '/^diff --git/ {f=$3; sub("^a/", "", f)} /^new file mode/ {print f}' | sort -u
}
log() { printf '%s\n' "grtrace: $*" >&2; }
die() { log "$*"; exit 1; }
