#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest userspace (kselftests against the kernel's uapi headers)
# and the initramfs that runs the tests: $INITRAMFS, with the modules of
# the kernel in $BUILD.
# KTAP: one result.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
ktap_begin 1
CHECK=initramfs
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
build_initramfs() {
set -e

stage=$CACHE/guest-stage
rm -rf "$stage"
mkdir -p "$stage/opt/grtrace/selftests"

make -C "$SRC" O="$BUILD" -s INSTALL_HDR_PATH="$BUILD/hdr" headers_install
for t in grtrace; do
	out=$stage/opt/grtrace/selftests/$t
	mkdir -p "$out"
	make -C "$SRC/tools/testing/selftests/$t" -s OUTPUT="$out" \
		KHDR_INCLUDES="-isystem $BUILD/hdr/include" all >/dev/null
	for p in $(sed -n 's/^TEST_PROGS := //p' "$SRC/tools/testing/selftests/$t/Makefile"); do
		install -m 0755 "$SRC/tools/testing/selftests/$t/$p" "$out/"
	done
	# Helpers, not tests: out of the directory the test runner walks.
	mkdir -p "$stage/opt/grtrace/bin"
	for p in $(sed -n 's/^TEST_GEN_FILES := //p' "$SRC/tools/testing/selftests/$t/Makefile"); do
		mv "$out/$p" "$stage/opt/grtrace/bin/"
	done
done

# The grtrace tool, against this kernel's uapi header; from the tree of the
# user-space series (GRTRACE_TOOL_SRC: the backport's tree has only the
# kernel series), whose tool step initramfs built already: it is taken as
# it is when this kernel's uapi header is the one it was built against.
tool_src=${GRTRACE_TOOL_SRC:-$SRC}
if [ -n "${GRTRACE_TOOL_SRC:-}" ] && [ -x "$CACHE/grtrace-tool/grtrace" ] &&
   cmp -s "$BUILD/hdr/include/linux/grtrace.h" "$CACHE/grtrace-tool/uapi/linux/grtrace.h"; then
	log "initramfs: the grtrace tool of $CACHE/grtrace-tool (the same uapi header)"
else
	make -C "$tool_src/tools/grtrace" -s -j"$JOBS" O="$CACHE/grtrace-tool" UAPI_INCLUDE="$BUILD/hdr/include"
fi
install -m 0755 "$CACHE/grtrace-tool/grtrace" "$stage/opt/grtrace/bin/"
mkdir -p "$stage/opt/grtrace/profiles"
install -m 0644 "$tool_src"/tools/grtrace/profiles/*.profile "$stage/opt/grtrace/profiles/"
# The grtrace tool's DRM ioctl annotator (BPF; mkinitramfs copies its libraries)
if [ -x "$CACHE/grtrace-tool/bpf/grtrace-bpf-annotate" ]; then
	install -m 0755 "$CACHE/grtrace-tool/bpf/grtrace-bpf-annotate" "$stage/opt/grtrace/bin/"
else
	log "initramfs: no grtrace-bpf-annotate (clang or libbpf-dev missing)"
fi
# The paced emitter of the throughput benchmark.
gcc -O2 -Wall -o "$stage/opt/grtrace/bin/emit-rate" "$ROOT/scripts/guest/emit-rate.c"

extra="$stage/opt/grtrace:/opt/grtrace"
[ -d "$BUILD/modroot/lib/modules" ] && extra="$extra $BUILD/modroot/lib/modules:/lib/modules"
GUEST_EXTRA_DIRS="$extra" "$ROOT/scripts/guest/mkinitramfs.sh" "$INITRAMFS"
log "initramfs: $INITRAMFS"
}
(build_initramfs) > "$OUT/log" 2>&1
rc=$?
tail -5 "$OUT/log" > "$OUT/err"
result $rc "guest userspace (kselftests, grtrace tool, trace-cmd) and $INITRAMFS"
finish
