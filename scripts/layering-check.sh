#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The layers of the series' code call one way only.
#
# Kernel (the objects of step kernel, $BUILD/drivers/gpu/grtrace): from the
# bottom, grtrace_events (tracepoints, rings), grtrace_sched (probes on the
# DRM scheduler's tracepoints), grtrace_stream (relay,
# per-CPU counters, METADATA), grtrace_govern (verdicts, job table,
# aggregates), grtrace_core (session: state, probe, emit, config commit),
# grtrace_debugfs (files, the key table).  No object may use a symbol that
# an object above it defines.
#
# tools/grtrace (in $SRC): the graph of its src/ files' #include "..." has
# no cycle, and only the input layer names debugfs.
#
# The drivers grtrace records from their own tracepoints (the DRM
# scheduler, virtio-gpu, amdgpu, i915, nouveau) carry no grtrace code: no
# file of theirs in $SRC names grtrace, but the scheduler's tests of
# grtrace's record; nor does a line the 6.12 backport adds to them.
# KTAP: one result per check.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

ktap_begin 6
CHECK=layering
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

layers=(grtrace_events grtrace_sched grtrace_stream grtrace_govern grtrace_core grtrace_debugfs)
obj=$BUILD/drivers/gpu/grtrace
for l in "${layers[@]}"; do
	[ -f "$obj/$l.o" ] || echo "$obj/$l.o missing (step kernel)" >> "$OUT/err"
done
if [ ! -s "$OUT/err" ]; then
	for ((i = 0; i < ${#layers[@]}; i++)); do
		nm --defined-only "$obj/${layers[$i]}.o" | awk '$2 ~ /[TDBR]/ {print $3}' | sort -u > "$OUT/def.$i"
		nm --undefined-only "$obj/${layers[$i]}.o" | awk '{print $2}' | sort -u > "$OUT/undef.$i"
	done
	for ((i = 0; i < ${#layers[@]}; i++)); do
		for ((j = i + 1; j < ${#layers[@]}; j++)); do
			comm -12 "$OUT/undef.$i" "$OUT/def.$j" | sed "s/^/${layers[$i]} uses ${layers[$j]}'s /" >> "$OUT/err"
		done
	done
fi
ERR_LINES=20 result "$([ ! -s "$OUT/err" ]; echo $?)" "kernel: ${layers[*]}: no object uses a symbol of one above it"

grep -ril grtrace "$SRC/drivers/gpu/drm/scheduler" "$SRC/drivers/gpu/drm/virtio" \
	"$SRC/drivers/gpu/drm/amd/amdgpu" "$SRC/drivers/gpu/drm/i915" \
	"$SRC/drivers/gpu/drm/nouveau" \
	"$SRC/include/drm/gpu_scheduler.h" "$SRC/include/trace/events/amdgpu.h" \
	"$SRC/include/trace/events/nouveau.h" > "$OUT/named" 2> "$OUT/err"
# grep: 0 found, 1 none, 2 an error (a file missing).
[ $? -lt 2 ] && grep -v '^'"$SRC"'/drivers/gpu/drm/scheduler/tests/' "$OUT/named" |
	sed "s#^$SRC/#names grtrace: #" >> "$OUT/err"
result "$([ ! -s "$OUT/err" ]; echo $?)" "drm/scheduler, drm/virtio, amdgpu, i915 and nouveau carry no grtrace code"

# The same of the 6.12 backport, from its patches (its tree, Debian's
# 6.12, has no grtrace of its own): no line they add to those drivers,
# nor any file they create there, names grtrace.
python3 - "$ROOT/patches-6.12" > "$OUT/err" 2>&1 <<'PY'
import glob, re, sys
drivers = re.compile(r'^(drivers/gpu/drm/(scheduler|virtio|amd/amdgpu|i915|nouveau)/'
                     r'|include/drm/gpu_scheduler\.h$|include/trace/events/(amdgpu|nouveau)\.h$)')
patches = sorted(glob.glob(sys.argv[1] + '/kernel/[0-9]*.patch'))
if not patches:
    sys.exit(f'no patches in {sys.argv[1]}/kernel')
bad = 0
for p in patches:
    path = None
    for line in open(p, errors='replace'):
        m = re.match(r'^diff --git a/(\S+) b/(\S+)', line)
        if m:
            path = m.group(2)
            if drivers.match(path) and 'grtrace' in path.lower():
                print(f'{p.rsplit("/", 1)[1]}: creates {path}')
                bad += 1
            continue
        if path and drivers.match(path) and line.startswith('+') and \
                not line.startswith('+++') and 'grtrace' in line.lower():
            print(f'{p.rsplit("/", 1)[1]}: {path}: {line.rstrip()}')
            bad += 1
sys.exit(1 if bad else 0)
PY
ERR_LINES=20 result $? "6.12 backport: drm/scheduler, drm/virtio, amdgpu, i915 and nouveau carry no grtrace code"

src=$SRC/tools/grtrace/src
make -s -j"$JOBS" -C "$SRC/tools/grtrace" O="$OUT/tool" NO_BPF=1 > "$OUT/err" 2>&1
result $? "tools/grtrace builds" || finish
# Two graphs, each acyclic: files by #include "...", and objects by the
# symbols one uses that another defines (a module calling back into one
# that calls it).
python3 - "$src" "$OUT/tool" > "$OUT/err" 2>&1 <<'PY'
import glob, os, re, subprocess, sys
src, objdir = sys.argv[1:]
mod = lambda f: os.path.basename(f).rsplit('.', 1)[0]
edges = {}
for f in sorted(glob.glob(os.path.join(src, '*.[ch]'))):
    for i in re.findall(r'^#include "([^"]+)"', open(f).read(), re.M):
        if os.path.exists(os.path.join(src, i)):
            edges.setdefault(os.path.basename(f), set()).add(i)
objs = [o for o in glob.glob(os.path.join(objdir, '**', '*.o'), recursive=True)
        if os.path.exists(os.path.join(src, mod(o) + '.c'))]
defs, undefs = {}, {}
for o in objs:
    for line in subprocess.run(['nm', o], capture_output=True, text=True).stdout.splitlines():
        p = line.split()
        if len(p) == 2 and p[0] == 'U':
            undefs.setdefault(mod(o), set()).add(p[1])
        elif len(p) == 3 and p[1] in 'TDBR':
            defs[p[2]] = mod(o)
for m, us in undefs.items():
    for u in us:
        if u in defs and defs[u] != m:
            edges.setdefault(m + '.o', set()).add(defs[u] + '.o')
state, stack, cycles = {}, [], []
def visit(m):
    state[m] = 1
    stack.append(m)
    for n in sorted(edges.get(m, ())):
        if state.get(n) == 1:
            cycles.append(stack[stack.index(n):] + [n])
        elif not state.get(n):
            visit(n)
    stack.pop()
    state[m] = 2
for m in sorted(edges):
    if not state.get(m):
        visit(m)
for c in cycles:
    print('cycle: ' + ' -> '.join(c))
print(f'{len(objs)} objects, {sum(len(v) for v in edges.values())} edges')
sys.exit(1 if cycles else 0)
PY
result $? "tools/grtrace: its modules depend on each other without a cycle (includes and symbols)"
grep -ln 'debugfs\|/sys/kernel' "$src"/*.c 2> /dev/null | xargs -r -n1 basename > "$OUT/files"
n=$(wc -l < "$OUT/files")
cp "$OUT/files" "$OUT/err"
[ "$n" -le 1 ]
result $? "tools/grtrace: one source file names debugfs ($(paste -sd' ' "$OUT/files"))"
finish
