#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The grtrace command line tool (tools/grtrace): build it out of tree into
# $RUN/cli-tool, run its host-side tests (tools/grtrace/tests), the golden
# outputs and the README's example.  Nothing here reads a guest's files,
# so the step runs beside the guests; step recordings runs this build on
# their recordings.  KTAP; exits non-zero on any failure.  The tool's own
# tests run from the tree of step tree (they source the kernel's
# ktap_helpers.sh).
source "$(dirname "$0")/lib.sh"
# the tools its tests need, build, install, the tool's tests, the golden
# outputs, the README's example
ktap_begin 6

OUT=$(mktemp -d /tmp/grtrace-cli.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
G=$RUN/cli-tool/grtrace
CHECK=cli
rm -rf "$RUN/cli-tool"

# What the tool's tests would skip without (valgrind, strace, trace-cmd,
# setpriv): here, where make deps installed them, none may be missing.
tools_present valgrind strace trace-cmd setpriv
build_check "build (make O=, -Wall -Wextra, no warnings)" -x "$G" \
	-C "$ROOT/tools/grtrace" O="$RUN/cli-tool" UAPI_INCLUDE="$ROOT"
[ -x "$G" ] || finish

make -s -j"$JOBS" -C "$ROOT/tools/grtrace" O="$RUN/cli-tool" install DESTDIR="$OUT/inst" PREFIX=/usr \
	> /dev/null 2> "$OUT/err" && [ -x "$OUT/inst/usr/bin/grtrace" ] &&
	[ -s "$OUT/inst/usr/share/bash-completion/completions/grtrace" ]
result $? "make install DESTDIR= PREFIX=: the tool and its bash completion"

# The tool's suite prints its plan last: the count it must reach is here.
checker -n 285 tests/run-tests.sh env GRTRACE="$G" "$SRC/tools/grtrace/tests/run-tests.sh" \
	"$OUT/tests"

# The outputs of report and export on the synthetic streams and two real
# recordings, byte for byte those of scripts/golden/out/ (a file each).
GOLD=$ROOT/scripts/golden/out
python3 "$SRC/tools/grtrace/tests/gen-streams.py" "$OUT/gen" > /dev/null &&
	GRTRACE=$G "$ROOT/scripts/golden/golden.sh" "$OUT/gen" "$OUT/golden" "$OUT/golden/out" \
		2> "$OUT/err" &&
	diff -r "$GOLD" "$OUT/golden/out" > "$OUT/err"
result $? "report, export: the outputs of $(ls "$GOLD" | wc -l) commands as in scripts/golden/out/"

# The README's first example: its command on sample/virgl-demo prints
# the lines the README shows, in that order, and names both clients.
python3 - "$G" "$ROOT" > "$OUT/err" 2>&1 << 'EOF'
import re, subprocess, sys
g, root = sys.argv[1:3]
readme = open(root + '/README.md').read()
m = re.search(r'\n    \$ grtrace report -i sample/virgl-demo\n((?:    .*\n|\n)+?)\n(?!    )', readme)
if not m:
    sys.exit('README.md: no example of grtrace report -i sample/virgl-demo')
want = [l[4:] for l in m.group(1).splitlines() if l.strip()]
got = subprocess.run([g, 'report', '-i', root + '/sample/virgl-demo'], cwd=root, check=True,
                     capture_output=True, text=True).stdout.splitlines()
i = 0
for line in got:
    if i < len(want) and line == want[i]:
        i += 1
if i < len(want) or not any(l.startswith('kmscube[') for l in want) or \
        not any(l.startswith('glmark2-es2-drm[') for l in want):
    sys.exit(f'README line {i + 1} of its example is not in the output: {want[i:i + 1]}')
print(f'{len(want)} lines of the README in the output')
EOF
result $? "README: its example is grtrace report -i sample/virgl-demo's output, both clients in it"
finish
