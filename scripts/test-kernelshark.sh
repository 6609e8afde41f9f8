#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# KernelShark and the grtrace lanes: on each trace.dat recorded in the QEMU
# guest (this run's e2e test's share), "grtrace export --kernelshark
# --kernelshark-session" writes a lanes file (a task per lane of a ring, a box of it
# per phase of a job) and a KernelShark session; trace-cmd must read the
# file whole, with every job of the recording, each phase's box from and
# to the job's times in the recording; the session must show the lanes as
# task rows named "dev/ring lane N" (as the file's task list names them),
# not as "CPU N" rows.  Then KernelShark 2.x runs under Xvfb with the
# recording and the lanes file appended (kernelshark -i trace.dat -a
# lanes.dat) and with the session: it must load them, stay alive, map its
# window, load the grtrace libtraceevent plugin and print nothing but its
# usual notices; screenshots go to $KS_SHOTS (default
# results/test/kernelshark).
# KTAP; exits non-zero on any failure.
source "$(dirname "$0")/lib.sh"
# tools, build, the two recordings; five checks of each and one of the
# guest's relay stream; Xvfb; seven checks of KernelShark on each
ktap_begin 30

OUT=$(mktemp -d /tmp/grtrace-kshark.XXXXXX)
SHOTS=${KS_SHOTS:-$RUN/kernelshark}
TIMEOUT=${KS_TIMEOUT:-120}	# seconds for KernelShark to load and settle
XVFB_PID= KS_PID=
cleanup() {
	[ -n "$KS_PID" ] && kill "$KS_PID" 2> /dev/null
	[ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2> /dev/null
	rm -rf "$OUT"
}
trap cleanup EXIT
CHECK=kernelshark ERR_LINES=8

tools_present kernelshark Xvfb xwininfo xdotool import identify trace-cmd

G=$OUT/grtrace/grtrace
PLUG=$OUT/plugins
nice make -s -j"$JOBS" -C "$ROOT/tools/grtrace" O="$OUT/grtrace" UAPI_INCLUDE="$ROOT" \
	> "$OUT/build.log" 2>&1 &&
	nice make -s -C "$ROOT/tools/tracing/grtrace-plugin" O="$OUT/plugin" \
	install plugin_dir="$PLUG" >> "$OUT/build.log" 2>&1
rc=$?
grep -E "warning|error|missing" "$OUT/build.log" > "$OUT/err"
[ $rc = 0 ] && [ ! -s "$OUT/err" ] && [ -x "$G" ] && [ -f "$PLUG/plugin_grtrace.so" ]
result $? "grtrace (with libtracecmd) and the plugin build"
[ -x "$G" ] || finish

guest_recordings
# And the 3D run of step demo (kmscube and glmark2 on virgl).
mkdir -p "$OUT/real"
cp "$RUN/demo/trace.dat" "$OUT/real/demo.dat" 2> "$OUT/err"
rc=$?
[ $rc != 0 ] || dats+=("$OUT/real/demo.dat")
result $rc "demo recording present ($RUN/demo/trace.dat)"
[ ${#dats[@]} -gt 0 ] || finish

# Per ring of a recording, from the kernel's own print format: "RING N"
# with N the jobs with two stages or more (a phase to draw); and "FENCE SUBMIT COMMIT START END COMPLETE" of
# each job ("-" for a stage not recorded) in "$2".
expected() {
	trace-cmd report -N -t -i "$1" 2> /dev/null | awk -v starts="$2" '
	{
		e = 0
		for (i = 2; i <= NF; i++)
			if ($i ~ /^grtrace_(submit|commit|start|end|complete):$/) {
				e = i
				break
			}
		if (!e)
			next
		ring = fence = ""
		for (i = e + 1; i <= NF; i++) {
			if ($i ~ /^ring=/)
				ring = substr($i, 6)
			if ($i ~ /^fence=/)
				fence = substr($i, 7)
		}
		k = ring " " fence
		t = $(e - 1)
		sub(/:$/, "", t)
		ev = substr($e, 9, length($e) - 9)
		if (ev == "submit" && !(k in sub_))
			sub_[k] = t
		if (ev == "commit" && !(k in com))
			com[k] = t
		if (ev == "start" && !(k in sta))
			sta[k] = t
		if (ev == "end" && !(k in end_))
			end_[k] = t
		if (ev == "complete" && !(k in cpl))
			cpl[k] = t
		seen[k] = 1
	}
	END {
		for (k in seen)
			# Two stages make a phase the lanes draw: a job the
			# recording began after its START has its complete
			# phase, END to COMPLETE; one it ended between COMMIT
			# and END its host phase, SUBMIT to COMMIT.
			if ((k in sub_) + (k in com) + (k in sta) + (k in end_) + (k in cpl) >= 2) {
				split(k, a, " ")
				n[a[1]]++
				print a[2], ((k in sub_) ? sub_[k] : "-"), ((k in com) ? com[k] : "-"),
				      ((k in sta) ? sta[k] : "-"), ((k in end_) ? end_[k] : "-"),
				      ((k in cpl) ? cpl[k] : "-") > starts
			}
		for (r in n)
			print r, n[r]
	}' | sort
}

# Per ring of a lanes file: "RING N" with N the jobs with boxes (a box per
# phase); "FENCE TS PHASE DURATION" of each box in "$2"
lanes_jobs() {
	trace-cmd report -t -i "$1" 2> "$OUT/lanes.err" | awk -v boxes="$2" '
	/ lane: / {
		split($0, a, / lane: +/)
		split(a[2], b, " ")
		sub(/.*\//, "", b[1])
		cpu = $0
		sub(/.*\[/, "", cpu)
		sub(/\].*/, "", cpu)
		ring[cpu + 0] = b[1]
	}
	/ job: / {
		cpu = $0
		sub(/.*\[/, "", cpu)
		sub(/\].*/, "", cpu)
		for (i = 1; i <= NF; i++)
			if ($i == "job:")
				break
		t = $(i - 1)
		sub(/:$/, "", t)
		f = ""
		for (j = i; j <= NF; j++)
			if ($j ~ /^fence=/)
				f = substr($j, 7)
		d = ""
		for (j = i; j <= NF; j++)
			if ($j ~ /^dur_ns=/)
				d = substr($j, 8)
		print f, t, $(i + 2), d > boxes
		if (!((ring[cpu + 0], f) in seen))
			n[ring[cpu + 0]]++
		seen[ring[cpu + 0], f] = 1
		nbox++
	}
	/sched_switch:/ { sw++ }
	END {
		for (r in n)
			print r, n[r]
		if (sw != 2 * nbox)
			print "switches:", sw, "boxes:", nbox
	}' | sort
}

lanes=()
for dat in "${dats[@]}"; do
	name=real/$(basename "$dat")
	lanes_dat=${dat%.dat}.lanes.dat
	"$G" export --kernelshark "$lanes_dat" --kernelshark-session "${lanes_dat%.dat}.json" -i "$dat" \
		> "$OUT/summary" 2> "$OUT/err"
	rc=$?
	[ $rc = 0 ] && [ -s "$lanes_dat" ]
	result $? "$name: grtrace export --kernelshark --kernelshark-session ($(head -1 "$OUT/summary" | cut -d: -f2-))"
	[ -s "$lanes_dat" ] || continue
	lanes+=("$lanes_dat")

	trace-cmd report -i "$lanes_dat" > "$OUT/report" 2> "$OUT/err"
	rc=$?
	grep -E 'FAILED TO PARSE|\[UNKNOWN' "$OUT/report" >> "$OUT/err"
	[ $rc = 0 ] && [ ! -s "$OUT/err" ] && [ -s "$OUT/report" ]
	result $? "$name: trace-cmd report reads the lanes file ($(grep -c . "$OUT/report") lines, $(head -1 "$OUT/report"))"

	expected "$dat" "$OUT/starts" > "$OUT/expect"
	lanes_jobs "$lanes_dat" "$OUT/boxes" > "$OUT/got"
	cat "$OUT/lanes.err" > "$OUT/err"
	diff "$OUT/expect" "$OUT/got" >> "$OUT/err" && [ -s "$OUT/expect" ] &&
		[ ! -s "$OUT/lanes.err" ]
	result $? "$name: one box per job, jobs per ring as in the recording ($(tr '\n' ' ' < "$OUT/got" | sed 's/ $//'))"

	# Every phase's box starts and ends at its job's stages as recorded
	# (a COMMIT not recorded counts as SUBMIT, an END as COMPLETE): host
	# SUBMIT-COMMIT, queue COMMIT-START, exec START-END, device
	# COMMIT-END, complete END-COMPLETE; the lanes share the recording's
	# clock.
	awk 'function ns(t, a) { split(t, a, "."); return a[1] * 1000000000 + a[2] }
	     NR == FNR { sub_[$1] = $2; com[$1] = ($3 != "-") ? $3 : $2; sta[$1] = $4
			 end_[$1] = ($5 != "-") ? $5 : $6; cpl[$1] = $6
			 next }
	     { f = $1; p = $3
	       from = (p == "host") ? sub_[f] : (p == "exec") ? sta[f] : (p == "complete") ? end_[f] : com[f]
	       to = (p == "host") ? com[f] : (p == "queue") ? sta[f] : (p == "complete") ? cpl[f] : end_[f]
	       if (!(f in sub_)) { print "no job " f " in the recording"; bad++ }
	       else if ($2 != from) { print f ": " p " box at " $2 ", job at " from; bad++ }
	       else if (ns($2) + $4 != ns(to)) {
		       print f ": " p " box ends " $4 " ns after " $2 ", job at " to; bad++ }
	       n++ }
	     END { if (!n) print "no boxes"; exit bad > 0 || !n }' \
		"$OUT/starts" "$OUT/boxes" > "$OUT/err"
	result $? "$name: every phase's box starts and ends at its job's recorded times, to the ns ($(wc -l < "$OUT/boxes") boxes)"

	# The lanes come back named: the session shows the rows of the lanes'
	# tasks, each named "dev/ring lane N" by the file's task list, and
	# none of the file's "CPUs"; the recording with all its CPUs.
	trace-cmd dump --cmd-lines -i "$lanes_dat" > "$OUT/cmd" 2> "$OUT/err" &&
		python3 - "${lanes_dat%.dat}.json" "$OUT/cmd" "$dat" "$lanes_dat" \
		"$OUT/summary" << 'EOF' >> "$OUT/err" 2>&1
import json, os, re, sys
sess, cmd, dat, lanes, summary = sys.argv[1:]
s = json.load(open(sess))
names = {int(p): n.strip() for p, n in
         (l.split(None, 1) for l in open(cmd) if re.match(r'\d+ ', l))}
st = s['data streams']
assert s['type'] == 'kshark.config.session' and len(st) == 2, f'{len(st)} streams'
for d, path in zip(st, (dat, lanes)):
    assert d['data']['file'] == os.path.realpath(path), d['data']
    assert d['data']['time'] == int(os.stat(path).st_mtime), 'time of change'
assert st[0]['CPUPlots'] and not st[0]['TaskPlots'], st[0]
assert st[1]['CPUPlots'] == [], f"lanes shown as CPU rows: {st[1]['CPUPlots']}"
n = int(re.search(r': (\d+) lanes,', open(summary).readline()).group(1))
rows = [names.get(p, '') for p in st[1]['TaskPlots']]
assert len(rows) == n, f'{len(rows)} task rows for {n} lanes'
bad = [r for r in rows if not re.fullmatch(r'\S+/\S+ lane \d+', r)]
assert not bad, f'unnamed or misnamed lanes: {bad[:5]}'
print(f'{n} lanes: {", ".join(rows[:3])}...')
EOF
	result $? "$name: the session shows the lanes as named rows ($(tail -1 "$OUT/err" | cut -c1-80))"
done

# The relay stream of the guest's e2e test too: CLOCK_MONOTONIC, said in the file
mkdir -p "$OUT/relay"
if cp "$GUEST_SHARE"/e2e/events[0-9]*.bin "$OUT/relay/" 2> "$OUT/err"; then
	"$G" export -k "$OUT/relay.lanes.dat" -i "$OUT/relay" > /dev/null 2> "$OUT/err" &&
		trace-cmd report -i "$OUT/relay.lanes.dat" > "$OUT/report" 2>> "$OUT/err" &&
		! grep -q 'FAILED TO PARSE' "$OUT/report" &&
		trace-cmd dump --options -i "$OUT/relay.lanes.dat" 2>> "$OUT/err" |
		grep -qxF '[mono]'
	result $? "guest relay stream: lanes file readable, clock mono"
else
	result 1 "guest relay stream present ($GUEST_SHARE/e2e/events*.bin)"
fi
[ ${#lanes[@]} -gt 0 ] || finish

# ---- KernelShark under Xvfb ----
mkdir -p "$OUT/home" "$OUT/xdg" "$OUT/kscache" "$SHOTS"
chmod 700 "$OUT/xdg"
printf '[General]\nnoRootWarn=true\n' > "$OUT/kscache/setting.ini"
exec 5> "$OUT/display"
Xvfb -displayfd 5 -screen 0 1280x1024x24 -nolisten tcp > "$OUT/xvfb.log" 2>&1 &
XVFB_PID=$!
exec 5>&-
for _ in $(seq 1 100); do
	[ -s "$OUT/display" ] && break
	sleep 0.1
done
export DISPLAY=:$(head -1 "$OUT/display")
xwininfo -root > /dev/null 2> "$OUT/err"
result $? "Xvfb runs (DISPLAY=$DISPLAY)"
[ "$DISPLAY" != ":" ] || finish

# Start KernelShark; wait until its window is up, both files are loaded
# and two screenshots a second apart are the same (but for a few pixels).  Sets KS_PID, SETTLE.
ks_run() {
	local shot=$1 files=$2 t0=$SECONDS prev= win=
	shift 2
	: > "$OUT/ks.log"
	HOME=$OUT/home XDG_RUNTIME_DIR=$OUT/xdg KS_USER_CACHE_DIR=$OUT/kscache \
		TRACEEVENT_PLUGIN_DIR=$PLUG QT_X11_NO_MITSHM=1 \
		kernelshark "$@" > "$OUT/ks.log" 2>&1 &
	KS_PID=$!
	SETTLE=
	while [ $((SECONDS - t0)) -lt "$TIMEOUT" ] && kill -0 "$KS_PID" 2> /dev/null; do
		sleep 1
		[ "$(grep -c '^Loading ' "$OUT/ks.log")" -ge "$files" ] || continue
		if [ -z "$win" ]; then
			win=$(xdotool search --pid "$KS_PID" --name '^Kernel Shark' 2> /dev/null | head -1)
			[ -n "$win" ] || continue
			xdotool windowmove "$win" 0 0 windowsize "$win" 1200 980
			continue
		fi
		import -window root "$shot" 2> /dev/null || continue
		# a blinking text cursor is not a change
		if [ -n "$prev" ] && [ "$(compare -metric AE "$shot" "$prev" null: 2>&1)" -lt 200 ] 2> /dev/null; then
			SETTLE=$((SECONDS - t0))
			return 0
		fi
		prev=$OUT/prev.png
		cp "$shot" "$prev"
	done
	return 1
}

# Quit through the menu shortcut, as a user would; kill if that fails.
ks_quit() {
	local w

	w=$(xdotool search --pid "$KS_PID" --name '^Kernel Shark' 2> /dev/null | head -1)
	if [ -n "$w" ]; then
		xdotool windowfocus "$w" 2> /dev/null
		sleep 0.5
		xdotool key ctrl+q 2> /dev/null
	fi
	for _ in $(seq 1 20); do
		kill -0 "$KS_PID" 2> /dev/null || break
		sleep 0.5
	done
	if kill -0 "$KS_PID" 2> /dev/null; then
		kill "$KS_PID"
		wait "$KS_PID" 2> /dev/null
		KS_PID=
		return 1
	fi
	wait "$KS_PID"
	local rc=$?
	KS_PID=
	return $rc
}

# What KernelShark may print: the files it loads, its plugins that find
# nothing to do in a stream (no KVM, no sched_switch), Qt's notices.
ks_log_clean() {
	grep -vE '^Loading +"[^"]*"$|^plugin "(kvm_combo|sched_events|missed_events)" failed to initialize on stream |^QStandardPaths: |^This plugin does not support |^$' \
		"$OUT/ks.log"
}

for i in "${!lanes[@]}"; do
	dat=${lanes[$i]%.lanes.dat}.dat
	base=$(basename "${dat%.dat}")
	name=real/$(basename "$dat")

	ks_run "$SHOTS/$base.png" 2 -i "$dat" -a "${lanes[$i]}"
	rc=$?
	cp "$OUT/ks.log" "$SHOTS/$base.log"
	{ tail -5 "$OUT/ks.log"; kill -0 "$KS_PID" 2> /dev/null || echo "kernelshark exited"; } > "$OUT/err"
	result $rc "$name: kernelshark -i trace.dat -a lanes.dat loads both, window up, its drawing settled (in ${SETTLE:-?} s)"
	[ $rc = 0 ] || { ks_quit; continue; }

	maps=$(cat "/proc/$KS_PID/maps" 2> /dev/null)
	grep -qF "$PLUG/plugin_grtrace.so" <<< "$maps" &&
		grep -q 'plugin-sched_events.so' <<< "$maps"
	result $? "$name: KernelShark loaded the grtrace libtraceevent plugin (\$TRACEEVENT_PLUGIN_DIR) and its sched_events plugin"

	xwininfo -root -tree | grep '"Kernel Shark' > "$OUT/err"
	geo=$(grep -o '[0-9]*x[0-9]*+' "$OUT/err" | head -1)
	[ -n "$geo" ]
	result $? "$name: window mapped (${geo%+}), screenshot $base.png"

	ks_log_clean > "$OUT/err"
	[ ! -s "$OUT/err" ]
	result $? "$name: no error in KernelShark's output"

	ks_quit
	result $? "$name: KernelShark quits cleanly (Ctrl+Q, exit status 0)"

	: > "$OUT/err"
	rm -f "$SHOTS/$base-lanes.png"
	ks_run "$SHOTS/$base-lanes.png" 0 -s "${lanes[$i]%.dat}.json"
	rc=$?
	ks_log_clean >> "$OUT/err"
	[ $rc = 0 ] && [ ! -s "$OUT/err" ] &&
		import -window root -crop 1200x980+0+0 "$SHOTS/$base-lanes.png" 2>> "$OUT/err"
	result $? "$name: kernelshark -s, the session of grtrace export --kernelshark-session, loads, no error ($base-lanes.png, ${SETTLE:-?} s)"
	ks_quit
	# What it drew: a row per lane of the session, the lanes' boxes
	n=$(python3 -c 'import json, sys; print(sum(len(s["TaskPlots"]) for s in json.load(open(sys.argv[1]))["data streams"]))' \
		"${lanes[$i]%.dat}.json" 2> /dev/null)
	if [ $rc = 0 ]; then
		checker "$name: ks-shot" python3 "$ROOT/scripts/ks-shot-check.py" "$SHOTS/$base-lanes.png" "${n:-0}"
	else
		result 1 "$name: ks-shot (no screenshot of the session)"
	fi
done

finish
