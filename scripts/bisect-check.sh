#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every prefix of the series builds: in a tree of its own (the base
# tarball unpacked, or brought back to it with quilt), the walk applies the
# series one patch at a time.  The other steps, which read $SRC, run
# beside it.
#
# Build directories with the guest kernel's configuration ($BUILD/.config)
# plus scripts/config/vendor.config (amdgpu, i915, nouveau as modules with
# their hooks), without debug info and sanitizers (lib.sh,
# vendor_configure ... lean), and CONFIG_GRTRACE=y, =m or =n; those of =m
# and =n start as copies of =y's after the base.  The targets:
# drivers/gpu/grtrace/, drivers/gpu/drm/scheduler/,
# drivers/gpu/drm/virtio/, every vendor driver C file the series touches
# and every other kernel C file the prefix's patches touch (relay,
# drm_atomic_helper, their tests), as far as it exists at that prefix.
# Every build has W=1; a build fails on a compiler warning that the
# base's build lacks.
#
#   prefix 0 (no patch)   =y with sparse (C=1): the warnings the tree
#                         has without the series
#   prefix k < N          =y, =m and =n (BISECT_MODES; =y alone before the
#                         patch that adds CONFIG_GRTRACE, until which the
#                         three are one configuration), for a patch that
#                         touches kernel sources; a patch under tools/
#                         builds what it touches there instead; one that
#                         touches neither (Documentation/) leaves the
#                         kernel of prefix k-1
#   prefix N (the series) =y with C=1, every target compiled: no warning
#                         the base lacks;
#                         the vendor objects with =m and =n (the
#                         directories are in the whole =m and =n kernels
#                         of step "configs"); every hook option off; the
#                         DRM scheduler hooks off (amdgpu's depend on
#                         them) with the others on.  The full =y kernel
#                         is step "kernel".
#
# A build whose inputs (the patches of its prefix, the configuration, the
# scripts, the compiler) are those of one that passed before is not built
# again (lib.sh, result_cached; GRTRACE_REBUILD=1 builds all).
#
# The builds of one prefix in different build directories: =y first,
# then the others at once, which take from ccache what =y compiled.
# KTAP: one result per build.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# The configurations of a prefix before the last (the last is built in
# all of them and the hook variants): =y, =m and =n, unless BISECT_MODES
# says otherwise.
BISECT_MODES=${BISECT_MODES:-y m n}
mapfile -t patches < <(series_patches)
N=${#patches[@]}
export QUILT_PATCHES=$ROOT/patches QUILT_PC=.pc
cat_patches() { local p; for p in "$@"; do cat "$ROOT/patches/$p"; done; }
touched_by() { cat_patches "$@" | sed -n 's#^diff --git a/\([^ ]*\) b/.*#\1#p' | sort -u; }

all_touched=$(touched_by "${patches[@]}")
# The first prefix with CONFIG_GRTRACE (N + 1 if none has it); before it,
# =m and =n are =y's configuration, and a prefix builds =y alone.
grtrace_at=$((N + 1))
for ((k = 1; k <= N; k++)); do
	if grep -q '^+++ b/drivers/gpu/grtrace/Kconfig$' "$ROOT/patches/${patches[$((k - 1))]}"; then
		grtrace_at=$k
		break
	fi
done
modes_at() { if [ "$1" -lt "$grtrace_at" ]; then echo y; else echo "$BISECT_MODES"; fi; }
created=$(cat_patches "${patches[@]}" |
	awk '/^diff --git/ {f=$3; sub("^a/", "", f)} /^new file mode/ {print f}' | sort -u)
vendor=$(series_vendor_objects)
dirs=$HOOKED_DIRS
# The objects of the other kernel C files the series touches (outside
# the directories and vendor objects above): each prefix builds those
# that exist at it, the base included, whose warnings the others' are
# compared with.  Only a file that its directory's Makefile or Kbuild
# names as an object (a word of its own, after "+=", ":=", "=" or
# another object): one that another C file includes is none (KUnit's
# lib/kunit/executor_test.c, which executor.c includes only with
# CONFIG_KUNIT_TEST, off here: the walk compiles executor.c without it).
others=$(for f in $(grep '\.c$' <<<"$all_touched" | grep -vE '^(Documentation|tools|scripts|samples)/'); do
	skip=
	for d in $dirs; do [ "${f#"$d"}" = "$f" ] || skip=1; done
	for o in $vendor; do [ "$o" != "${f%.c}.o" ] || skip=1; done
	o=$(basename "${f%.c}.o")
	grep -qsE -- "(^|[[:space:]=])${o//./\\.}([[:space:]\\]|$)" \
		"$SRC/$(dirname "$f")/Makefile" "$SRC/$(dirname "$f")/Kbuild" || skip=1
	[ -n "$skip" ] || echo "${f%.c}.o"
done)

# The plan, by the rules of the walk below: the base;
# per prefix before the last, a build per mode when it changes kernel
# source, one per tool it changes; at the last, y-on and its warnings,
# whether sparse ran, m, n, nohooks, nobridge.
plan=1
for ((k = 1; k < N; k++)); do
	files=$(touched_by "${patches[$((k - 1))]}")
	# shellcheck disable=SC2086
	grep -qvE '^(Documentation/|tools/|MAINTAINERS$)' <<<"$files" && plan=$((plan + $(modes_at "$k" | wc -w)))
	grep -q '^tools/grtrace/' <<<"$files" && plan=$((plan + 1))
	grep -q '^tools/tracing/grtrace-plugin/' <<<"$files" && plan=$((plan + 1))
done
[ "$N" -gt 0 ] && plan=$((plan + 7))
ktap_begin $plan
CHECK=bisect
# The walk's own tree, from here on $SRC (vendor_configure builds in it).
SRC=$CACHE/prefix-src/$(basename "$TARBALL" .tar.xz)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
[ -f "$BUILD/.config" ] || { result 1 "the guest kernel is configured (step kernel)"; finish; }

# kernel_diffs PATCH...: patch_diffs without the files no kernel build
# of the walk reads, the tool's, its plugin's, Documentation/ but its
# Kconfig files (the top Kconfig sources Documentation/Kconfig) and
# MAINTAINERS: a change to them alone leaves the kernel builds' inputs,
# and so their cached results, as they were.
kernel_diffs() {
	patch_diffs "$@" | awk '
		/^diff --git / {
			skip = $3 ~ "^a/tools/(grtrace|tracing/grtrace-plugin)/" ||
			       ($3 ~ "^a/Documentation/" && $3 !~ "/Kconfig[^/]*$") ||
			       $3 == "a/MAINTAINERS"
		}
		!skip'
}
# Each patch's changes read once: the keys of prefix K are made of the
# first K (diffs_at, kernel_diffs_at), and a walk reads a patch about N/2
# times.  kernel_diffs' filter starts again at each file's diff line, and
# each patch's changes begin with one: per patch, the same text.
mkdir -p "$OUT/diffs"
for ((k = 0; k < N; k++)); do
	patch_diffs "${patches[$k]}" > "$OUT/diffs/$k"
	kernel_diffs "${patches[$k]}" > "$OUT/diffs/$k.kernel"
done
# diffs_at K [SUFFIX]: patch_diffs of prefix K; kernel_diffs_at K:
# kernel_diffs'.
diffs_at() {
	local diffs=() i

	for ((i = 0; i < $1; i++)); do diffs+=("$OUT/diffs/$i${2:-}"); done
	[ "$1" = 0 ] || cat "${diffs[@]}"
}
kernel_diffs_at() { diffs_at "$1" .kernel; }

# kmake DIR ARG...: the kernel's make of ARGs (flags, targets) in build
# directory DIR, with the idle policy when the walk has it.
kmake() {
	local dir=$1
	shift
	$IDLE make -C "$SRC" O="$dir" CC="ccache gcc" -j"$JOBS" -s W=1 "$@"
}

# children_cpu VAR: the user and system seconds of this shell's children
# that ended (make, the compilers, walk-stale.py), times' second line,
# into VAR (times in a command substitution would time that subshell's).
children_cpu() {
	local f=$OUT/times.$BASHPID

	times > "$f"
	printf -v "$1" %s "$(awk 'NR == 2 {
		for (i = 1; i <= 2; i++) { split($i, t, /m|s/); s += t[1] * 60 + t[2] }
		printf "%.0f", s }' "$f")"
}

# build_key K MODE [FLAGS]: the key of build MODE at prefix K.
build_key() {
	{ echo "bisect $2 ${3:-}"; kernel_diffs_at "$1"; } |
		inputs_key "$0" "$ROOT/scripts/walk-stale.py" "$ROOT/scripts/config/vendor.config"
}
# key_of K MODE [FLAGS]: build_key's, in $key, kept in keys[]: the keys
# tree_for works out, up to the first build that is not cached, are not
# worked out again by build() (in a subshell, which inherits them); each
# costs inputs_key's dozen processes.
declare -A keys
key_of() {
	local id="$1 $2 ${3:-}"

	[ -n "${keys[$id]:-}" ] || keys[$id]=$(build_key "$@")
	key=${keys[$id]}
}

# The tree is at prefix $applied.  tree_at K pushes the patches up to K
# when a build needs them, not before: a walk whose results are all
# cached (a change to the last tools patch) pushes none.  A patch that
# does not apply ends the walk (a count short of its plan); that the
# whole series applies is step tree's check, which the walk, pushing
# only what it builds, does not repeat.
applied=0
tree_at() {
	[ "$applied" -lt "$1" ] || return 0
	if ! (cd "$SRC" && quilt push -q $(($1 - applied)) > "$OUT/err" 2>&1); then
		applied=$(cd "$SRC" && quilt applied 2> /dev/null | wc -l)
		result 1 "$(printf '%02d' $((applied + 1))) (${patches[$applied]}) applies"
		finish
	fi
	applied=$1
}
# tree_for K MODE[:FLAGS]...: the tree at prefix K, if a build of a MODE
# is not cached.
tree_for() {
	local k=$1 m key

	shift
	for m in "$@"; do
		key_of "$k" "${m%%:*}" "$(sed -n 's/^[^:]*://p' <<<"$m")"
		result_cached "$key" > /dev/null || { tree_at "$k"; return; }
	done
}

# build K MODE [FLAGS]: build the targets as they exist at prefix K (the
# tree there: tree_at); the result, "RC NAME", in $OUT/res-MODE, the
# errors in $OUT/err-MODE.
build() {
	local k=$1 mode=$2 flags=${3:-} dir objs="" o t start=$SECONDS name key rc
	local cpu0 cpu1

	children_cpu cpu0
	rm -f "$OUT/res-$mode" "$OUT/warn-$mode" "$OUT/stale-$mode" "$OUT/verify-err-$mode"
	# One directory per CONFIG_GRTRACE value; the hook variants of =y
	# share =y's, rebuilding only what their options change.
	case $mode in
	m | n) dir=$CACHE/prefix-$mode ;;
	*) dir=$CACHE/prefix-y ;;
	esac
	name="$(printf '%02d' "$k") $mode"
	[ "$k" -gt 0 ] && name+=" (${patches[$((k - 1))]%.patch})"
	key_of "$k" "$mode" "$flags"
	if o=$(result_cached "$key"); then
		echo "0 $name: $o" > "$OUT/res-$mode"
		cp "$RESULT_CACHE/$key.warnings" "$OUT/warn-$mode" 2> /dev/null || : > "$OUT/warn-$mode"
		cp "$RESULT_CACHE/$key.sparse" "$OUT/sparse-$mode" 2> /dev/null
		: > "$OUT/err-$mode"
		return 0
	fi
	for o in $vendor; do
		[ -f "$SRC/${o%.o}.c" ] || continue
		# Files the series creates are built only with their hooks.
		if grep -qx "${o%.o}.c" <<<"$created"; then
			case $mode in n | nohooks | nobridge) continue ;; esac
		fi
		objs+=" $o"
	done
	for o in $others; do
		[ -f "$SRC/${o%.o}.c" ] && objs+=" $o"
	done
	t=""
	for o in $dirs; do [ -d "$SRC/$o" ] && t+=" $o"; done
	# The series' =m and =n: step configs built these directories in
	# whole kernels; the vendor objects, which that configuration lacks,
	# are what is left.
	[ "$k" = "$N" ] && case $mode in m | n) t="" ;; esac
	if ! vendor_configure "$dir" "${mode%%-*}" lean > "$OUT/err-$mode" 2>&1; then
		echo "1 $name: configuration" > "$OUT/res-$mode"
		return 1
	fi
	# drivers/gpu/Makefile enters grtrace/ only with CONFIG_GRTRACE_EVENTS:
	# without it the directory builds nothing and has no .cmd file, which
	# walk-stale.py would take for a target never built.
	grep -qx 'CONFIG_GRTRACE_EVENTS=y' "$dir/.config" || t=${t/ drivers\/gpu\/grtrace\//}
	if [ -n "$flags" ]; then
		# Sparse and W=1 speak only when a file is compiled.
		for o in $t; do find "$dir/$o" -name '*.o' -delete 2> /dev/null; done
		# shellcheck disable=SC2086
		(cd "$dir" && rm -f $objs)
	fi
	# Between the first prefix and the last, make runs for the targets
	# it would rebuild (walk-stale.py): those whose sources, headers or
	# configuration changed since the last build of the directory that
	# passed, when every target then was built or found up to date
	# ($dir/.walk-stamp).  The last prefix builds all of them.
	local all stamp=$dir/.walk-stamp built all_t=$t all_objs=$objs like alike=0
	all=$(wc -w <<<"$t $objs")
	if [ -z "$flags" ] && [ "$k" -gt 0 ] && [ "$k" -lt "$N" ]; then
		# What make does first when .config or a Kconfig file changed:
		# the configuration synced, the symbols that changed touched
		# (include/config/SYMBOL).
		if python3 "$ROOT/scripts/walk-stale.py" --needs-sync "$dir" > /dev/null; then
			kmake "$dir" syncconfig >> "$OUT/err-$mode" 2>&1 ||
				{ echo "1 $name: make syncconfig" > "$OUT/res-$mode"; return 1; }
		fi
		# =m's and =n's: what would compile as =y's build compiled it at
		# this prefix, just before (builds), is left to it: a target
		# whose objects and Makefiles read no symbol that has another
		# value in =y (walk-stale.py --like).  Their objects are those
		# of every configuration, and no grtrace option reaches a
		# driver's: most of =m's and =n's builds are grtrace's alone.
		like=
		case $mode in
		m | n)
			[ "$(cat "$OUT/walked-y" 2> /dev/null)" = "$k" ] && [ -z "${WALK_VERIFY:-}" ] &&
				like="--like $CACHE/prefix-y" ;;
		esac
		# shellcheck disable=SC2086
		python3 "$ROOT/scripts/walk-stale.py" "$dir" "$stamp" $globals $like --owed "$dir/.walk-owed" \
			$t $objs > "$OUT/stale-$mode" 2>> "$OUT/err-$mode" ||
			{ echo "1 $name: walk-stale.py" > "$OUT/res-$mode"; return 1; }
		t=$(awk -F'\t' '$1 ~ /\/$/ && $1 !~ /^# / {print $1}' "$OUT/stale-$mode")
		objs=$(awk -F'\t' '$1 !~ /\/$/ && $1 !~ /^# / {print $1}' "$OUT/stale-$mode")
		alike=$(grep -c '^# ' "$OUT/stale-$mode")
	fi
	rc=0
	if [ -n "${t// /}${objs// /}" ]; then
		# shellcheck disable=SC2086
		kmake "$dir" $flags $t $objs > "$dir/log" 2>&1
		rc=$?
	else
		: > "$dir/log"
	fi
	# WALK_VERIFY=1: make for every target after it, which must leave the
	# objects as they were (what walk-stale.py left out was up to date).
	if [ -n "${WALK_VERIFY:-}" ] && [ "$rc" = 0 ] && [ -f "$OUT/stale-$mode" ] &&
		[ "$(wc -l < "$OUT/stale-$mode")" -lt "$all" ]; then
		touch "$OUT/verify-$mode"
		# shellcheck disable=SC2086
		kmake "$dir" $all_t $all_objs >> "$dir/log" 2>&1 || rc=1
		find "$dir" -name '*.o' -newer "$OUT/verify-$mode" | sed "s#^$dir/#walk-stale.py left out #" >> "$OUT/verify-err-$mode"
		[ -s "$OUT/verify-err-$mode" ] && rc=1
	fi
	grep -E 'error|Error' "$dir/log" | head -20 > "$OUT/err-$mode"
	cat "$OUT/verify-err-$mode" 2> /dev/null >> "$OUT/err-$mode"
	warnings "$dir" > "$OUT/warn-$mode"
	# With C=1, whether the kernel took sparse as its checker: kept with
	# the result, as the directory's log is the next build's.
	case " $flags " in
	*" C=1 "*)
		if grep -q 'is not available or not up to date' "$dir/log"; then
			echo refused > "$OUT/sparse-$mode"
		else
			echo ran > "$OUT/sparse-$mode"
		fi ;;
	esac
	# A prefix's build: no warning the base's lacks (y-on's whole set is
	# compared below).
	if [ -z "$flags" ] && [ "$rc" = 0 ] && [ "$k" -gt 0 ] &&
		comm -13 "$OUT/base-warnings" "$OUT/warn-$mode" | grep . >> "$OUT/err-$mode"; then
		rc=1
		sed -i '1i warnings the base lacks:' "$OUT/err-$mode"
	fi
	# The stamp's time is after the build's: a later change is newer.  The
	# last prefix's builds leave none: =m and =n build the vendor objects
	# alone, the hook variants another configuration.
	if [ "$rc" = 0 ] && [ "$k" -lt "$N" ]; then
		# What --like left to =y is stale here until a build makes it.
		sed -n 's/^# \([^\t]*\)\t.*/\1/p' "$OUT/stale-$mode" 2> /dev/null > "$dir/.walk-owed"
		touch "$stamp"
		# =y's directory is at prefix k, for --like above
		[ "$mode" != y ] || echo "$k" > "$OUT/walked-y"
	else
		rm -f "$stamp"
	fi
	built=$(wc -w <<<"$t $objs")
	if [ "$built" = "$all" ]; then
		built="$all targets"
	elif [ "$alike" -gt 0 ]; then
		built="$built of $all targets ($alike compiled as =y's, the others up to date)"
	else
		built="$built of $all targets (the others up to date)"
	fi
	children_cpu cpu1
	echo "$rc $name: $built ($((SECONDS - start)) s, $((cpu1 - cpu0)) s of CPU)" > "$OUT/res-$mode"
	# The warnings before the result: a result kept has its warnings.
	if [ "$rc" = 0 ] && mkdir -p "$RESULT_CACHE" &&
	   cp "$OUT/warn-$mode" "$RESULT_CACHE/$key.warnings" &&
	   { [ ! -f "$OUT/sparse-$mode" ] || cp "$OUT/sparse-$mode" "$RESULT_CACHE/$key.sparse"; }; then
		result_keep "$key" "$built"
	fi
	return $rc
}

# report MODE...: the results of the builds of MODEs, in order; fails if
# one failed.
report() {
	local mode rc name ret=0

	for mode in "$@"; do
		rc=1 name="$mode: no result"
		[ -f "$OUT/res-$mode" ] && read -r rc name < "$OUT/res-$mode"
		mv "$OUT/err-$mode" "$OUT/err" 2> /dev/null
		result "$rc" "$name" || ret=1
	done
	return $ret
}

# builds K MODE...: the builds of prefix K, then their results: =y first,
# then the others (MODEs of different build directories) at once.  An
# object whose preprocessed text is the same in =y, =m and =n (most but
# grtrace's own: the hook options are tested with IS_ENABLED()) is then
# compiled once, and the others take it from ccache.
builds() {
	local k=$1 mode

	shift
	tree_for "$k" "$@"
	for mode in "$@"; do seed "$mode"; done
	case " $* " in *" y "*) build "$k" y & wait ;; esac
	for mode in "$@"; do [ "$mode" = y ] || build "$k" "$mode" & done
	wait
	report "$@"
}

# tool_check K TOOL WHAT build_check-ARGS...: build_check of TOOL at prefix
# K, unless a build of identical inputs passed before.  With ccache, as the
# kernel's: a tools prefix compiles again only the files its patches
# changed (ccache replays a cached object's warnings), in one directory
# under the cache's base (CCACHE_BASEDIR), emptied before each build: the
# compiler commands of every prefix name the same paths.
tool_check() {
	local k=$1 tool=$2 what=$3 key o
	shift 3
	key=$({ echo "bisect $tool"; diffs_at "$k"; } | inputs_key "$0")
	if o=$(result_cached "$key"); then
		result 0 "$(printf '%02d' "$k") $tool $what: $o"
	elif tree_at "$k" && build_check "$(printf '%02d' "$k") $tool $what" "$@"; then
		result_keep "$key" "built"
	fi
}

# seed MODE: the build directory of =m or =n, the first time it is needed
# (the prefix that adds CONFIG_GRTRACE), as a copy of =y's, whose objects
# until then are those of every configuration.
seed() {
	local dir=$CACHE/prefix-$1

	case $1 in m | n) ;; *) return 0 ;; esac
	[ ! -f "$dir/.config" ] && [ -f "$CACHE/prefix-y/.config" ] || return 0
	rm -rf "$dir" && cp -a "$CACHE/prefix-y" "$dir"
}
# warnings DIR: the distinct warnings of a build, without line
# numbers and directories: a header's warning repeats per object.
warnings() {
	grep -E '(warning|error):' "$1/log" |
		sed -E 's#^(\.\./)*##; s#^'"$SRC"'/##; s#^[^ :]*/'"${SRC##*/}"'/##; s#:[0-9]+(:[0-9]+)?:#:#' | sort -u
}

log "bisect: the base tree in $SRC"
# The W=1 directory of walks before every build had W=1.
rm -rf "$CACHE/prefix-w"
unpacked_from=$(stat -c '%n %s %Y' "$TARBALL")
if [ "$(cat "$SRC/.grtrace-unpacked" 2> /dev/null)" != "$unpacked_from" ]; then
	# A new tree: the objects of another one are not its own.
	rm -rf "$SRC" "$CACHE"/prefix-[ymnw] && mkdir -p "$SRC" &&
		tar -C "$SRC" --strip-components=1 -xf "$TARBALL" > "$OUT/err" 2>&1 &&
		echo "$unpacked_from" > "$SRC/.grtrace-unpacked" || { result 1 "unpacking $TARBALL"; finish; }
elif [ -s "$SRC/.pc/applied-patches" ]; then
	# The files an earlier walk's patches touched, whatever its series
	# (.pc/PATCH/FILE, PATCH as the series names it: kernel/0001-...).
	old=$(cd "$SRC/.pc" && while read -r p; do
		(cd "$p" 2> /dev/null && find . -type f ! -name .timestamp | cut -c3-)
	done < applied-patches | sort -u)
	(cd "$SRC" && quilt pop -a -f -q > "$OUT/err" 2>&1) || { result 1 "quilt pop -a"; finish; }
	# quilt restores the old files with their old times: make must see
	# them, and the configurations be made again (vendor_configure).
	(cd "$SRC" && for f in $old $all_touched; do [ -e "$f" ] && touch "$f"; done)
	rm -f "$CACHE"/prefix-[ymnw]/.config.frag
fi
# quilt takes the patches directory from .pc/.quilt_patches once a tree has
# one, before QUILT_PATCHES: a tree first walked from another checkout
# would push that checkout's series.  A new tree has no .pc: quilt makes
# it whole at the first push (a .pc without .version it refuses as made
# by an older quilt).
[ -f "$SRC/.pc/.version" ] && echo "$QUILT_PATCHES" > "$SRC/.pc/.quilt_patches"
# The Makefiles whose change, or a changed symbol they name, makes every
# target stale (walk-stale.py): the top ones, the architecture's and
# Kbuild's own.  Those of a target's directories walk-stale.py finds.
globals="--global $SRC/Makefile --global $SRC/Kbuild --global $SRC/arch/x86/Makefile"
for f in "$SRC"/scripts/Makefile.*; do globals+=" --global $f"; done

build 0 y C=1
# The base's warnings, which every later build is compared with: without
# them no later build can be judged, and the walk ends (a count short of
# its plan).
report y && cp "$OUT/warn-y" "$OUT/base-warnings" || finish

for ((k = 1; k <= N; k++)); do
	p=${patches[$((k - 1))]}
	files=$(touched_by "$p")
	if [ "$k" -lt "$N" ]; then
		if grep -qvE '^(Documentation/|tools/|MAINTAINERS$)' <<<"$files"; then
			# shellcheck disable=SC2046
			builds "$k" $(modes_at "$k")
		else
			echo "# $(printf '%02d' "$k") ($p): no kernel source; its kernel is that of prefix $((k - 1))"
		fi
		if grep -q '^tools/grtrace/' <<<"$files"; then
			rm -rf "$CACHE/prefix-tool"
			tool_check "$k" tools/grtrace "($p)" -x "$CACHE/prefix-tool/grtrace" \
				-C "$SRC/tools/grtrace" O="$CACHE/prefix-tool" CC="ccache gcc"
		fi
		if grep -q '^tools/tracing/grtrace-plugin/' <<<"$files"; then
			rm -rf "$CACHE/prefix-plugin" && mkdir -p "$CACHE/prefix-plugin"
			tool_check "$k" tools/tracing/grtrace-plugin "($p)" \
				-f "$CACHE/prefix-plugin/plugin_grtrace.so" \
				-C "$SRC/tools/tracing/grtrace-plugin" OUTPUT="$CACHE/prefix-plugin/" CC="ccache gcc"
		fi
		continue
	fi
	# Every target compiled again (ccache has most from the prefix before),
	# for the series' whole set of warnings; nohooks and nobridge after it
	# in the same directory.
	tree_for "$k" y-on:C=1 m n
	seed m
	seed n
	build "$k" y-on C=1 &
	build "$k" m &
	build "$k" n &
	wait
	if report y-on; then
		cp "$OUT/warn-y-on" "$OUT/warnings"
		comm -13 "$OUT/base-warnings" "$OUT/warnings" > "$OUT/err"
		result "$([ ! -s "$OUT/err" ]; echo $?)" "C=1 W=1: no warning the tree without the series lacks ($(wc -l < "$OUT/warnings") distinct, $(wc -l < "$OUT/base-warnings") in the base)"
	else
		result 1 "C=1 W=1: no warning the tree without the series lacks (the build failed)"
	fi
	# The kernel runs sparse only if scripts/checker-valid.sh accepts it
	# (7.3 needs __typeof_unqual__, which Debian 12's sparse 0.6.4 does
	# not parse), else C=1 is W=1 alone: say which, as a skip.
	sparse=$(sparse --version 2> /dev/null | head -1)
	if [ ! -f "$OUT/sparse-y-on" ]; then
		ktap_test_skip "$CHECK: sparse: no verdict of the C=1 build (a result cached before it was kept)"
	elif [ "$(cat "$OUT/sparse-y-on")" = refused ]; then
		ktap_test_skip "$CHECK: sparse did not run: the kernel refused sparse ${sparse:-(none)} as its checker (scripts/checker-valid.sh)"
	else
		result 0 "sparse ${sparse:-(none)} ran as the kernel's checker"
	fi
	report m n
	builds "$k" nohooks
	builds "$k" nobridge
done
finish
