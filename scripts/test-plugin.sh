#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The libtraceevent plugin of the grtrace events (tools/tracing/grtrace-plugin):
# build it out of tree into a temporary directory, check its install
# directories, that trace-cmd loads it, and its lines on the trace.dat files
# recorded by this run's guest test (its e2e test's share); then every
# grtrace event type, missing fields and eviction on synthetic records with
# the field layout of those recordings.
# KTAP; exits non-zero on any failure.
source "$(dirname "$0")/lib.sh"
# build, three installs, list -P; the guest's recording (guest_recordings:
# one), four checks of it; the synthetic harness's five
ktap_begin 15

OUT=$(mktemp -d /tmp/grtrace-plugin.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
PDIR=$ROOT/tools/tracing/grtrace-plugin
PLUG=$OUT/plugins
# Only the plugin under test: no user plugin dir, no environment one
export HOME=$OUT/home
unset TRACEEVENT_PLUGIN_DIR
mkdir -p "$HOME"
CHECK=plugin

# trace-cmd report with the plugin under test only, or without plugins
report() { TRACEEVENT_PLUGIN_DIR=$PLUG trace-cmd report "$@"; }

build_check "build (make O=, -Wall -Wextra, no warnings)" \
	-f "$OUT/build/plugin_grtrace.so" \
	-C "$PDIR" O="$OUT/build"
[ -f "$OUT/build/plugin_grtrace.so" ] || finish

make -s -C "$PDIR" O="$OUT/build" install DESTDIR="$OUT/inst" \
	plugin_dir=/usr/lib/traceevent/plugins > /dev/null 2> "$OUT/err" &&
	[ -f "$OUT/inst/usr/lib/traceevent/plugins/plugin_grtrace.so" ]
result $? "make install DESTDIR= plugin_dir="

TRACEEVENT_PLUGIN_DIR=$OUT/envdir make -s -C "$PDIR" O="$OUT/build" install \
	> /dev/null 2> "$OUT/err" && [ -f "$OUT/envdir/plugin_grtrace.so" ]
result $? "make install into \$TRACEEVENT_PLUGIN_DIR"

user=$HOME/.local/lib/traceevent/plugins/plugin_grtrace.so
make -s -C "$PDIR" O="$OUT/build" install > /dev/null 2> "$OUT/err" &&
	trace-cmd list -P 2> "$OUT/err" | sed 's|//*|/|g' | grep -qxF "  $user" &&
	make -s -C "$PDIR" O="$OUT/build" uninstall > /dev/null 2> "$OUT/err" &&
	[ ! -e "$user" ]
result $? "make install: ~/.local/lib/traceevent/plugins, where trace-cmd looks; uninstall"

make -s -C "$PDIR" O="$OUT/build" install plugin_dir="$PLUG" > /dev/null 2> "$OUT/err" &&
	TRACEEVENT_PLUGIN_DIR=$PLUG trace-cmd list -P 2> "$OUT/err" |
	grep -qxF "  $PLUG/plugin_grtrace.so"
result $? "trace-cmd list -P finds it in \$TRACEEVENT_PLUGIN_DIR"

guest_recordings

# Checks the plugin's lines of "trace-cmd report -t": the format of every
# line, and every duration against the (nanosecond) timestamps printed.
check_lines() {
	awk '
	function ns(t, a) {
		sub(/:$/, "", t); split(t, a, ".")
		return a[1] * 1000000000 + a[2] * 10 ^ (9 - length(a[2]))
	}
	function get(name, i) {
		for (i = e + 1; i <= NF; i++)
			if (index($i, name "=") == 1)
				return substr($i, length(name) + 2)
		return ""
	}
	function bad(msg) { if (nbad++ < 5) print msg ": " $0; }
	# name=N.NNNus must be the time from first to now
	function dur(name, first, v, a) {
		v = get(name)
		if (v !~ /^[0-9]+\.[0-9][0-9][0-9]us$/)
			return bad("no " name "=")
		split(v, a, /[.u]/)
		if (a[1] * 1000 + a[2] != t - first)
			bad(name "= is not " (t - first) "ns")
		ndur++
	}
	{
		e = 0
		for (i = 2; i <= NF; i++)
			if ($i ~ /^grtrace_[a-z_]+:$/ && $(i - 1) ~ /^[0-9]+\.[0-9]+:$/) {
				e = i
				break
			}
		if (!e)
			next
		t = ns($(e - 1))
		type = substr($e, 9, length($e) - 9)
		f = get("fence")
		n[type]++
		if ($(e + 1) != type ||
		    $(e + 4) !~ /^(graphics|compute|copy|video_decode|video_encode|other)$/ ||
		    (type == "ctx_switch" ? $(e + 5) != "ctx" : f !~ /^[0-9]+:[0-9]+$/))
			bad("not \"type dev ring engine fence=C:S\"")
		if (type == "submit") {
			if (get("pid") !~ /^[0-9]+$/ || get("comm") == "" ||
			    get("depth") !~ /^[0-9]+$/)
				bad("submit without pid= comm= depth=")
			sub_[f] = t
			delete com[f]
			delete sta[f]
			delete end_[f]
		} else if (type == "commit") {
			com[f] = t
		} else if (type == "start") {
			sta[f] = t
		} else if (type == "end") {
			if (f in sta)
				dur("exec", sta[f])
			else if (f in com)
				dur("device", com[f])
			end_[f] = t
		} else if (type == "complete") {
			if (f in sub_) {
				dur("total", sub_[f])
				ntotal++
			}
			# as of END, or START for queue= (only with a START)
			tt = t
			t = end_[f]
			if ((f in end_) && (f in sta))
				dur("exec", sta[f])
			else if ((f in end_) && (f in com))
				dur("device", com[f])
			if ((f in com) && (f in sta)) {
				t = sta[f]
				dur("queue", com[f])
			}
			t = tt
		}
	}
	END {
		if (!n["submit"] || !n["complete"] || !ntotal)
			bad("no submit, complete or total=")
		printf "%d lines, %d submit, %d complete, %d total=, %d durations checked\n",
			NR, n["submit"], n["complete"], ntotal, ndur
		exit nbad > 0
	}'
}

for dat in "${dats[@]}"; do
	name=real/$(basename "$dat")
	trace-cmd report -N -i "$dat" > "$OUT/plain" 2> "$OUT/err.log"
	rc=$?
	grep -E 'FAILED TO PARSE| grtrace_[a-z_]+: ' "$OUT/plain" | grep -vE \
		'grtrace_[a-z_]+: +dev=[^ ]+ ring=[^ ]+ ring_id=[0-9]+ engine=(graphics|compute|copy|video_decode|video_encode|other) ctx=[0-9]+ (fence=[0-9]+:[0-9]+|next_ctx=[0-9]+)' \
		> "$OUT/err"
	[ $rc = 0 ] && [ ! -s "$OUT/err" ] && grep -q 'grtrace_submit: .* comm=' "$OUT/plain"
	result $? "$name: without the plugin (-N), every grtrace event parses with the kernel's print fmt"

	report -V -i "$dat" > "$OUT/verbose" 2>&1
	nfmt=$(trace-cmd dump --events -i "$dat" 2> /dev/null | grep -c '^name: grtrace_')
	nover=$(grep -c 'overriding event ([0-9]*) grtrace:grtrace_' "$OUT/verbose")
	grep -qF "registering plugin: $PLUG/plugin_grtrace.so" "$OUT/verbose" &&
		[ "$nfmt" -gt 0 ] && [ "$nover" = "$nfmt" ]
	result $? "$name: trace-cmd report loads the plugin, handlers of all $nfmt grtrace events"

	report -t -i "$dat" > "$OUT/plug" 2> "$OUT/err.log"
	rc=$?
	grep -F 'FAILED TO PARSE' "$OUT/plug" > "$OUT/err"
	[ $rc = 0 ] && [ ! -s "$OUT/err" ] &&
		[ "$(grep -c ' grtrace_[a-z_]*: ' "$OUT/plug")" = \
		  "$(grep -c ' grtrace_[a-z_]*: ' "$OUT/plain")" ]
	result $? "$name: with the plugin, every grtrace event, no FAILED TO PARSE"

	check_lines < "$OUT/plug" > "$OUT/err"
	result $? "$name: type dev ring engine fence= on every line, submit pid= comm= depth=, total= of every complete with its submit, durations = timestamps ($(tail -1 "$OUT/err"))"
done
[ ${#dats[@]} -gt 0 ] || finish

# Synthetic records of every event type, laid out by the recorded formats
mkdir -p "$OUT/fmt"
trace-cmd dump --events -i "${dats[0]}" 2> /dev/null | awk -v dir="$OUT/fmt" '
	/^name: / { f = ($2 ~ /^grtrace_/) ? dir "/" $2 : "" }
	f { print > f }
	/^print fmt:/ { f = "" }'
cat > "$OUT/harness.c" << 'EOF'
/* Prints "TS EVENT FIELD=VALUE... [@size=N]" lines of stdin as records */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>

int main(int argc, char **argv)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_plugin_list *plugins;
	static char fmt[65536], line[4096];
	char *tok, *val;
	int i;

	tep_set_file_bigendian(tep, tep_is_bigendian());
	for (i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		size_t n = f ? fread(fmt, 1, sizeof(fmt), f) : 0;

		if (!n || tep_parse_event(tep, fmt, n, "grtrace"))
			fprintf(stderr, "harness: cannot parse %s\n", argv[i]);
		if (f)
			fclose(f);
	}
	plugins = tep_load_plugins(tep);
	while (fgets(line, sizeof(line), stdin)) {
		unsigned char data[1024] = { 0 };
		struct tep_record rec = { .data = data };
		struct tep_format_field *f;
		struct tep_event *ev;
		struct trace_seq s;
		int end = 0;

		rec.ts = strtoull(strtok(line, " \n"), NULL, 0);
		ev = tep_find_event_by_name(tep, "grtrace", strtok(NULL, " \n"));
		if (!ev)
			continue;
		for (f = ev->format.fields; f; f = f->next)
			if (f->offset + f->size > end)
				end = f->offset + f->size;
		memcpy(data, &(unsigned short){ ev->id }, 2);
		while ((tok = strtok(NULL, " \n")) && (val = strchr(tok, '='))) {
			*val++ = '\0';
			f = tep_find_field(ev, tok);
			if (!strcmp(tok, "@size")) {
				end = atoi(val);
			} else if (!f) {
				continue;
			} else if (f->flags & TEP_FIELD_IS_DYNAMIC) {
				unsigned int loc = (strlen(val) + 1) << 16 | end;

				memcpy(data + f->offset, &loc, 4);
				strcpy((char *)data + end, val);
				end += strlen(val) + 1;
			} else if (f->flags & TEP_FIELD_IS_ARRAY) {
				strncpy((char *)data + f->offset, val, f->size);
			} else {
				unsigned long long v = strtoull(val, NULL, 0);

				memcpy(data + f->offset, &v, f->size);
			}
		}
		rec.size = end;
		trace_seq_init(&s);
		tep_print_event(tep, &s, &rec, "%s: %s", TEP_PRINT_NAME,
				TEP_PRINT_INFO);
		trace_seq_terminate(&s);
		printf("%s\n", s.buffer);
		trace_seq_destroy(&s);
	}
	tep_unload_plugins(plugins, tep);
	tep_free(tep);
	return 0;
}
EOF
# shellcheck disable=SC2046
nice cc -Wall -O1 -g $(pkg-config --cflags libtraceevent) -o "$OUT/harness" \
	"$OUT/harness.c" $(pkg-config --libs libtraceevent) 2> "$OUT/err"
rc=$?
fmts=("$OUT"/fmt/grtrace_*)
result $rc "synthetic: harness builds, formats of ${#fmts[@]} grtrace events"
[ -x "$OUT/harness" ] || finish

VALGRIND=()
if command -v valgrind > /dev/null; then
	VALGRIND=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite
		  --error-exitcode=9)
fi
harness() {
	TRACEEVENT_PLUGIN_DIR=$PLUG "${VALGRIND[@]}" "$OUT/harness" "$@" 2>> "$OUT/vg"
}

J="dev=card0 ring=gfx0 engine=1 fence_context=5"
cat > "$OUT/in" << EOF
1000 grtrace_submit $J fence_seqno=1 pid=42 comm=glxgears depth=3
2000 grtrace_sync_wait_enter $J fence_seqno=1 aux_context=4 aux_seqno=9
2500 grtrace_sync_wait_exit $J fence_seqno=1 aux_context=4 aux_seqno=9
3000 grtrace_commit $J fence_seqno=1
5000 grtrace_start $J fence_seqno=1
5500 grtrace_ctx_switch dev=card0 ring=gfx0 engine=1 ctx_id=7 aux_context=8 flags=1
5600 grtrace_ctx_switch dev=card0 ring=gfx0 engine=3 ctx_id=8 aux_context=7 flags=0
9000 grtrace_end $J fence_seqno=1
9500 grtrace_irq dev=card0 ring=gfx0 engine=1
10000 grtrace_complete $J fence_seqno=1 status=0
10000 grtrace_complete $J fence_seqno=1 status=0
11000 grtrace_error $J fence_seqno=2 status=1
11500 grtrace_error $J fence_seqno=2 status=7
12000 grtrace_complete dev=card0 ring=gfx0 engine=9 fence_context=5 fence_seqno=2 status=-62
20000 grtrace_submit $J fence_seqno=1 pid=43 comm=glxgears depth=1
22000 grtrace_commit $J fence_seqno=1
25000 grtrace_end $J fence_seqno=1
27123 grtrace_complete $J fence_seqno=1 status=-125
30000 grtrace_summary dev=card0 ring=gfx0 ring_id=3 window_ns=500000000 jobs=4 lat_sum=10000 lat_min=1000 lat_max=5500 dev_sum=125000000 depth_sum=9 depth_n=4 depth_peak=4 errors=1 dropped=2
31000 grtrace_summary dev=card0 ring=gfx0 ring_id=3 window_ns=1000 jobs=0 lat_sum=0 lat_min=0 lat_max=0 dev_sum=0 depth_sum=0 depth_n=0 depth_peak=0 errors=0 dropped=0
EOF
cat > "$OUT/expect" << 'EOF'
grtrace_submit: submit card0 gfx0 compute fence=5:1 pid=42 comm=glxgears depth=3
grtrace_sync_wait_enter: sync_wait_enter card0 gfx0 compute fence=5:1 dep=4:9
grtrace_sync_wait_exit: sync_wait_exit card0 gfx0 compute fence=5:1 dep=4:9 wait=0.500us
grtrace_commit: commit card0 gfx0 compute fence=5:1
grtrace_start: start card0 gfx0 compute fence=5:1
grtrace_ctx_switch: ctx_switch card0 gfx0 compute ctx 7 -> 8 preempt
grtrace_ctx_switch: ctx_switch card0 gfx0 video_decode ctx 8 -> 7
grtrace_end: end card0 gfx0 compute fence=5:1 exec=4.000us
grtrace_irq: irq card0 gfx0 compute fence=0:0
grtrace_complete: complete card0 gfx0 compute fence=5:1 status=ok exec=4.000us total=9.000us queue=2.000us
grtrace_complete: complete card0 gfx0 compute fence=5:1 status=ok exec=4.000us total=9.000us queue=2.000us
grtrace_error: error card0 gfx0 compute fence=5:2 code=timeout
grtrace_error: error card0 gfx0 compute fence=5:2 code=7
grtrace_complete: complete card0 gfx0 9 fence=5:2 status=-ETIME
grtrace_submit: submit card0 gfx0 compute fence=5:1 pid=43 comm=glxgears depth=1
grtrace_commit: commit card0 gfx0 compute fence=5:1
grtrace_end: end card0 gfx0 compute fence=5:1 device=3.000us
grtrace_complete: complete card0 gfx0 compute fence=5:1 status=-ECANCELED device=3.000us total=7.123us
grtrace_summary: summary card0 gfx0 window=500000.000us jobs=4 lat_avg=2.500us lat_min=1.000us lat_max=5.500us busy=25.0% depth_avg=2.25 depth_peak=4 errors=1 dropped=2
grtrace_summary: summary card0 gfx0 window=1.000us jobs=0 busy=0.0% errors=0 dropped=0
EOF
: > "$OUT/vg"
harness "$OUT"/fmt/* < "$OUT/in" > "$OUT/got" &&
	diff "$OUT/expect" "$OUT/got" > "$OUT/err"
result $? "synthetic: all 10 job event types and summary, names, durations, reprint, reused fence"

# A format without status and fence_seqno, and records cut short
mkdir -p "$OUT/fmt2"
cp "$OUT"/fmt/* "$OUT/fmt2"
sed -i '/ status;/d; / fence_seqno;/d' "$OUT/fmt2/grtrace_complete"
cat > "$OUT/in" << EOF
1000 grtrace_submit $J fence_seqno=1 pid=42 comm=glxgears depth=3
2000 grtrace_complete $J fence_seqno=1 status=0
3000 grtrace_submit $J fence_seqno=1 pid=42 comm=glxgears depth=3 @size=40
4000 grtrace_sync_wait_exit $J fence_seqno=1 aux_context=4 aux_seqno=9 @size=20
EOF
cat > "$OUT/expect" << 'EOF'
grtrace_submit: submit card0 gfx0 compute fence=5:1 pid=42 comm=glxgears depth=3
grtrace_complete: complete card0 gfx0 compute fence=! status=!
grtrace_submit: submit ! ! ! fence=5:1 pid=! comm=! depth=!
grtrace_sync_wait_exit: sync_wait_exit ! ! ! fence=! dep=!
EOF
harness "$OUT"/fmt2/* < "$OUT/in" > "$OUT/got" &&
	diff "$OUT/expect" "$OUT/got" > "$OUT/err"
result $? "synthetic: missing fields and short records print '!'"

# 5000 jobs: the oldest are evicted (4096 kept), the latest still known
for i in $(seq 1 5000); do
	echo "$i grtrace_submit $J fence_seqno=$i pid=1 comm=x depth=1"
done > "$OUT/in"
echo "6000 grtrace_complete $J fence_seqno=1 status=0" >> "$OUT/in"
echo "6000 grtrace_complete $J fence_seqno=5000 status=0" >> "$OUT/in"
harness "$OUT"/fmt/* < "$OUT/in" | tail -2 > "$OUT/got" &&
	grep -q 'fence=5:1 status=ok$' "$OUT/got" &&
	grep -q 'fence=5:5000 status=ok total=1.000us$' "$OUT/got"
rc=$?
cp "$OUT/got" "$OUT/err"
result $rc "synthetic: 5000 jobs in flight, the oldest evicted, the latest kept"

cp "$OUT/vg" "$OUT/err" 2> /dev/null || echo "valgrind not installed (make deps)" > "$OUT/err"
[ ${#VALGRIND[@]} -gt 0 ] && [ ! -s "$OUT/vg" ]
result $? "synthetic: valgrind, no memory error, nothing leaked after the unloader"

finish
