# SPDX-License-Identifier: GPL-2.0
# Common settings of the grtrace scripts; sourced, not run.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${GRTRACE_CACHE:-$HOME/.cache/grtrace}
# The kernel series, for mainline (Debian's linux-source-7.3); the
# backport to 6.12 LTS is patches-6.12/ on linux-source-6.12
# (scripts/backport.sh sets these three).
TARBALL=${GRTRACE_TARBALL:-/usr/src/linux-source-7.3.tar.xz}
PATCHES=${GRTRACE_PATCHES:-$ROOT/patches}
SRC=${KERNEL_SRC:-$CACHE/$(basename "$TARBALL" .tar.xz)}
BUILD=${GRTRACE_BUILD:-$CACHE/build-x86}
# The guest's initramfs (step initramfs), for the kernel in $BUILD.
INITRAMFS=${INITRAMFS:-$CACHE/initramfs.cpio.gz}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Paths relative to the build directory: hits across build directories.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$CACHE}
export CCACHE_NOHASHDIR=1
JOBS=${JOBS:-$(nproc)}
# GRTRACE_IDLE=1 (make check's background lanes: the prefix walk, the 6.12
# base): $IDLE before a make runs it with the idle scheduling policy, on the
# CPU the other steps leave; the rest of such a step (quilt, git am, the
# result cache's keys) runs as any step's, so that one with nothing to build
# does not wait for the guests.
IDLE=${GRTRACE_IDLE:+chrt --idle 0}
# Debian's python3, for which make deps installs the modules, before any
# other on the PATH: pyenv's shim, a bash script, takes a second and more
# to start python3 on a loaded machine, which the timed checks of the
# tool's tests (a feeder that runs beside the program) cannot afford.
if [ "$(command -v python3)" != /usr/bin/python3 ] && [ -x /usr/bin/python3 ] &&
	[ "$(command -v python3)" != "$CACHE/python/python3" ]; then
	mkdir -p "$CACHE/python"
	[ -L "$CACHE/python/python3" ] || ln -s /usr/bin/python3 "$CACHE/python/python3" 2> /dev/null
	[ -L "$CACHE/python/python3" ] && export PATH=$CACHE/python:$PATH
fi
# The guest kernels' debug info is there for BTF (bpftrace, the probe
# profiles' fetch arguments), which pahole makes from DWARF's types.  Their
# objects are compiled without variable tracking (the locations of
# variables, for a debugger), as DEBUG_INFO_REDUCED's are: it costs a
# tenth of a debug object's compile (14 objects of the guest kernel at
# random: 16.8 s of CPU, 15.0 without), and nothing here reads it.  Every
# kernel make of the scripts has it: a build directory seeded from
# another (step configs) compiles only what its configuration changes.
export KCFLAGS=-fno-var-tracking
# scripts/config options that drop the guest kernel's debug info (there for
# BTF, which bpftrace reads) from the prefix builds, which only compile.
NO_DEBUG_INFO="-e DEBUG_INFO_NONE -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -d DEBUG_INFO_BTF"
# xe's objects that use the DRM scheduler, built with the vendor drivers'
# objects (xe has no hooks of its own; the ones that exist at a prefix).
XE_SCHED_OBJS="drivers/gpu/drm/xe/xe_gpu_scheduler.o drivers/gpu/drm/xe/xe_execlist.o
	drivers/gpu/drm/xe/xe_guc_submit.o drivers/gpu/drm/xe/xe_sched_job.o
	drivers/gpu/drm/xe/xe_dep_scheduler.o"
# The patches of the series, in order.
series_patches() { grep -v '^#' "$PATCHES/series" | sed '/^$/d'; }
# Kernel paths of the files the series touches.
series_touched() {
	series_patches | sed "s#^#$PATCHES/#" | xargs cat |
		sed -n 's#^diff --git a/\([^ ]*\) b/.*#\1#p' | sort -u
}
# The vendor objects the series' builds compile: the amdgpu, i915 and
# nouveau C files it touches, and xe's users of the DRM scheduler when the
# series changes the scheduler's header (an exec queue is a
# drm_gpu_scheduler: the 6.12 backport's scheduler patch changes the
# structs they embed and the calls they make; the mainline series leaves
# every file they include as it is, and they would compile the same at
# every prefix).
series_vendor_objects() {
	local touched

	touched=$(series_touched)
	grep -E '^drivers/gpu/drm/(amd|i915|nouveau)/.*\.c$' <<<"$touched" | sed 's/\.c$/.o/'
	grep -qx 'include/drm/gpu_scheduler.h' <<<"$touched" && echo "$XE_SCHED_OBJS"
	return 0
}
# The directories of grtrace and of the hooks every configuration builds
# (the vendor drivers' are the objects above).
HOOKED_DIRS="drivers/gpu/grtrace/ drivers/gpu/drm/scheduler/ drivers/gpu/drm/virtio/"
# grtrace_opts MODE: the scripts/config options of a build configuration:
# CONFIG_GRTRACE=y, =m, =n, or =y with every hook and the scheduler's
# probes off (nohooks) or with the scheduler's probes off (nobridge; on
# the 6.12 backport the same option turns its scheduler hooks off).  =m
# leaves out the emit file, as a distribution's module would (=y builds
# it: the guests' tests use it).
grtrace_opts() {
	case $1 in
	y)        echo "-e GRTRACE" ;;
	m)        echo "-m GRTRACE -m GRTRACE_KUNIT_TEST -m GRTRACE_SCHED_KUNIT_TEST -d GRTRACE_EMIT" ;;
	n)        echo "-d GRTRACE" ;;
	nohooks)  echo "-e GRTRACE -d GRTRACE_DRM_SCHED -d GRTRACE_VIRTIO_GPU -d GRTRACE_AMDGPU -d GRTRACE_I915 -d GRTRACE_NOUVEAU" ;;
	nobridge) echo "-e GRTRACE -d GRTRACE_DRM_SCHED" ;;
	nodebugfs) echo "-e GRTRACE -d DEBUG_FS -d BLK_DEV_IO_TRACE" ;;	# blktrace selects DEBUG_FS
	esac
}
# grtrace_mode_stuck DIR MODE: DIR/.config has CONFIG_GRTRACE as MODE says.
grtrace_mode_stuck() {
	case $2 in
	m) grep -qx 'CONFIG_GRTRACE=m' "$1/.config" ;;
	n) grep -qx '# CONFIG_GRTRACE is not set' "$1/.config" ;;
	*) grep -qx 'CONFIG_GRTRACE=y' "$1/.config" ;;
	esac
}
# am_matches_quilt DIR: every file the git am tree DIR (series.sh apply)
# touches equals the quilt-applied $SRC; the differing ones named in
# $OUT/err.
am_matches_quilt() {
	local f bad=0

	while read -r f; do
		cmp -s "$1/git/$f" "$SRC/$f" || { echo "git am and quilt differ on $f" >> "$OUT/err"; bad=1; }
	done < <(git -C "$1/git" diff --name-only base HEAD 2>/dev/null)
	return $bad
}
# Kernel paths of the files the series creates.
series_created() {
	series_patches | sed "s#^#$PATCHES/#" | xargs cat |
		awk '/^diff --git/ {f=$3; sub("^a/", "", f)} /^new file mode/ {print f}' | sort -u
}
log() { printf '%s\n' "grtrace: $*" >&2; }
die() { log "$*"; exit 1; }

# The result protocol of every test step: KTAP, written with the kernel's
# tools/testing/selftests/kselftest/ktap_helpers.sh (from the tree the
# series is applied to).  A step calls ktap_begin with its plan, the number
# of results it will print (a checker it runs is one result: ktap_merge),
# then one result per check, then finish; scripts/test.sh reads every
# step's KTAP with the kernel's KTAP parser (scripts/ktap.py), which fails
# a step without a plan before its results or with a count other than it.
ktap_begin() {
	local helpers=$SRC/tools/testing/selftests/kselftest/ktap_helpers.sh
	[ -f "$helpers" ] || die "$helpers missing: unpack the tree first (scripts/tree.sh)"
	# shellcheck source=/dev/null
	. "$helpers"
	ktap_print_header
	[ $# = 0 ] || ktap_set_plan "$1"
}
# For the host test scripts, which set CHECK (the name their lines carry)
# and OUT (their work directory).  result RC NAME: one KTAP result
# "ok N $CHECK: NAME", or "not ok ..." followed by the start of $OUT/err
# as diagnostic lines; $OUT/err is emptied for the next check.
result() {
	if [ "$1" = 0 ]; then
		ktap_test_pass "$CHECK: $2"
	else
		ktap_test_fail "$CHECK: $2"
		[ -s "${OUT:-/nonexistent}/err" ] && sed 's/^/#   /' "$OUT/err" | head -"${ERR_LINES:-5}"
	fi
	[ -z "${OUT:-}" ] || : > "$OUT/err"
	[ "$1" = 0 ]
}
# tools_present CMD...: one result, that every command is on the PATH.  A
# missing one fails the step and ends it: make deps installs them, and a
# check skipped for want of a tool would hide what it checks.
tools_present() {
	local c missing=
	for c in "$@"; do
		command -v "$c" > /dev/null || missing+=" $c"
	done
	[ -z "$missing" ] || echo "missing:$missing (make deps installs them)" > "$OUT/err"
	[ -z "$missing" ]
	result $? "tools present ($*)" || finish
}
# skip NAME REASON: a check that cannot run here.
skip() { ktap_test_skip "$CHECK: $1 ($2)"; }
# build_check NAME -x|-f FILE MAKE-ARGS...: "make V=1 MAKE-ARGS" succeeds
# with no warning or error in its output, and leaves FILE, an executable
# (-x) or a regular file (-f).
build_check() {
	local name=$1 test=$2 file=$3 rc

	shift 3
	nice make -j"$JOBS" V=1 "$@" > "$OUT/build.log" 2>&1
	rc=$?
	grep -E "warning|error" "$OUT/build.log" > "$OUT/err"
	[ $rc = 0 ] && [ ! -s "$OUT/err" ] && [ "$test" "$file" ]
	result $? "$name"
}
# finish: the KTAP totals line; exit non-zero if a check failed or the
# step printed a count of results other than its plan.
finish() {
	ktap_print_totals
	[ "$KTAP_CNT_FAIL" = 0 ] && [ "$((KTAP_TESTNO - 1))" = "$KSFT_NUM_TESTS" ]
	exit
}
# The recordings of this run's guest test (scripts/guest/test.sh), which
# the host steps after it read: $RUN/guest/share.
RUN=${GRTRACE_RUN:-$ROOT/results/test}
GUEST_SHARE=$RUN/guest/share
# guest_recordings: copy the trace.dat files this run's guest test
# recorded to $OUT/real, listed in the array dats; one check that they are
# there.
guest_recordings() {
	local src dat

	dats=()
	for src in "$GUEST_SHARE/e2e/e2e.dat"; do
		[ -s "$src" ] || continue
		mkdir -p "$OUT/real"
		dat=$OUT/real/$(basename "$(dirname "$src")").dat
		cp "$src" "$dat" && dats+=("$dat")
	done
	[ ${#dats[@]} -gt 0 ]
	result $? "guest recordings present ($GUEST_SHARE/e2e/e2e.dat)"
}
# readme_cmd WORD: the README's command for users that starts with WORD
# ("QUILT_PATCHES=", "git am"), with /path/to/grtrace made this checkout:
# the steps run the README's own commands.
readme_cmd() {
	local cmd
	cmd=$(sed -n "s#^    \($1[^\#]*\).*#\1#p" "$ROOT/README.md" |
		grep -E "/path/to/grtrace/${PATCHES##*/}[/ ]" | head -1)
	[ -n "$cmd" ] || die "README.md has no command starting with '$1' for ${PATCHES##*/}/"
	echo "${cmd//\/path\/to\/grtrace/$ROOT}" | sed 's/ *$//'
}
# series_stamp: changes whenever patches/ does.
series_stamp() {
	(cd "$PATCHES" && cat series $(series_patches)) | sha1sum | cut -d' ' -f1
}
# Results of builds, by what they were built from: a build check whose
# inputs (patches, configuration fragments, scripts, compiler, base tree)
# are those of a build that passed already is not built again, like an
# object ccache has.  A failure is never kept.  GRTRACE_REBUILD=1 builds
# everything anyway.
RESULT_CACHE=$CACHE/results
# inputs_key [FILE...]: a key of the named files' contents, of stdin (what
# a caller adds: the mode, the patches of a prefix), of the build tools'
# versions and the base tarball, and of the scripts every build check shares.
inputs_key() {
	{
		cat - "$@" "$ROOT/scripts/lib.sh" "$ROOT/scripts/config/guest.config" \
			${GRTRACE_GUEST_CONFIG_EXTRA:+"$GRTRACE_GUEST_CONFIG_EXTRA"}
		echo "$GRTRACE_TOOL_VERSIONS"
		stat -c '%n %s %Y' "$TARBALL"
	} | sha256sum | cut -c1-32
}
# The tools a build's verdict depends on: the compiler, the linker
# (modpost, vmlinux), make, sparse (C=1), pahole (BTF).  Asked once, by the
# first script that sources this file; the scripts it runs inherit them
# (the walk works out about 200 keys), unless the tools found, or their
# files' times, differ from those the versions were asked of.
tool_files=$(stat -Lc '%n %Y' $(type -P gcc ld make sparse pahole) 2> /dev/null) || :
if [ -z "${GRTRACE_TOOL_VERSIONS:-}" ] || [ "${GRTRACE_TOOL_FILES:-}" != "$tool_files" ]; then
	export GRTRACE_TOOL_FILES=$tool_files
	GRTRACE_TOOL_VERSIONS=$(
		gcc --version | head -1
		ld --version | head -1
		make --version | head -1
		sparse --version 2> /dev/null || :
		pahole --version 2> /dev/null || :
	)
	export GRTRACE_TOOL_VERSIONS
fi
# patch_diffs PATCH...: the changes of the patches (names as in the series
# file), in order, without their messages: a reworded message builds
# nothing again.
patch_diffs() {
	local p
	for p in "$@"; do sed -n '/^diff --git /,$p' "$PATCHES/$p"; done
}
# series_diffs: patch_diffs of the whole series.
series_diffs() {
	# shellcheck disable=SC2046
	patch_diffs $(series_patches)
}
# result_cached KEY: print what the passing build of KEY recorded, and that
# it is an earlier result.
result_cached() {
	[ -z "${GRTRACE_REBUILD:-}" ] && [ -f "$RESULT_CACHE/$1" ] &&
		echo "$(cat "$RESULT_CACHE/$1") (cached: passed before with identical inputs)"
}
# ktap_cached: a passing step's KTAP log (stdin) again, each result and
# each subtest's header marked as taken from the cache, as ktap.py sum
# counts them (the kernel's parser wants a subtest's header and result
# line to name it alike; it strips trailing white space).
ktap_cached() {
	sed -E -e 's/[[:space:]]+$//' \
		-e 's/^( *ok [0-9]+ [^#]*[^# ])( +#.*)?$/\1 (cached: passed before with identical inputs)\2/' \
		-e 's/^( *# Subtest: .*[^ ])$/\1 (cached: passed before with identical inputs)/'
}
# result_keep KEY TEXT: record that the build of KEY passed.
result_keep() {
	mkdir -p "$RESULT_CACHE" && echo "$2" > "$RESULT_CACHE/$1"
}
# ktap_merge NAME RC FILE [ERRFILE [PLAN]]: the KTAP document FILE that a
# checker (a program the step ran, which exited with RC) printed, as one
# subtest of this step's, "$CHECK: NAME": its plan and results beneath,
# then one result of its own.  That result fails if the checker exited
# non-zero, printed no plan before its first result, printed another
# count than its plan, or failed a check; the last lines of ERRFILE (its
# stderr) follow a failure.  PLAN: the count the caller expects of a
# program that prints its plan last (the tool's test suites, as a
# kselftest script may): any plan it prints must be PLAN too.  A checker
# is one result of the step's plan.
ktap_merge() {
	local name=$1 rc=$2 file=$3 errf=${4:-} want=${5:-} line plan= n=0 bad=0 why= late=

	echo "    KTAP version 1"
	echo "    # Subtest: $CHECK: $name"
	[ -z "$want" ] || { plan=$want; echo "    1..$plan"; }
	while IFS= read -r line; do
		case $line in
		"1.."*)
			line=${line#1..}
			line=${line%% *}
			if [ -n "$want" ]; then
				[ "$line" = "$want" ] || late=$line
			elif [ -z "$plan" ] && [ "$n" = 0 ]; then
				plan=$line
				echo "    1..$plan"
			fi ;;
		"ok "*|"not ok "*)
			n=$((n + 1))
			[ "${line#not ok }" = "$line" ] || bad=$((bad + 1))
			echo "    $line" ;;
		"# "*) echo "    $line" ;;
		esac
	done < "$file"
	[ "$rc" = 0 ] || why="exited with status $rc"
	[ -n "$plan" ] || why="${why:+$why, }printed no plan before its results"
	[ -z "$plan" ] || [ "$plan" = "$n" ] || why="${why:+$why, }printed $n results of a plan of $plan"
	[ -z "$late" ] || why="${why:+$why, }its own plan says $late"
	[ "$bad" = 0 ] || why="${why:+$why, }$bad failed"
	if [ -z "$why" ]; then
		ktap_test_pass "$CHECK: $name"
		return 0
	fi
	ktap_test_fail "$CHECK: $name"
	echo "#   $name: $why"
	[ -n "$errf" ] && [ -s "$errf" ] && tail -n "${ERR_LINES:-5}" "$errf" | sed 's/^/#   /'
	return 1
}
# checker [-n PLAN] NAME CMD...: run CMD, a program that prints KTAP, and
# merge its results (ktap_merge, PLAN as there); its output in
# $OUT/NAME.ktap.
checker() {
	local want= name f

	[ "$1" != -n ] || { want=$2; shift 2; }
	name=$1
	shift
	f=$OUT/${name//[^A-Za-z0-9_.-]/_}
	"$@" > "$f.ktap" 2> "$f.err"
	ktap_merge "$name" $? "$f.ktap" "$f.err" "$want"
}
# seed_build_dir DIR: a build directory that does not exist yet starts as a
# copy of the guest kernel's ($BUILD, without its installed modules and
# headers), so that only what its configuration changes is rebuilt.
seed_build_dir() {
	[ -f "$1/Makefile" ] && return 0
	log "seeding $1 from $BUILD"
	mkdir -p "$1"
	(cd "$BUILD" && tar --exclude=./modroot --exclude=./hdr -cf - .) | (cd "$1" && tar -xf -)
	rm -f "$1/.config.in"
}
# scripts/config options that drop KASAN and UBSAN from the builds that are
# only compiled (the prefix walk's): a sanitizer finds its bugs when the
# code runs, which the guest kernels do, and its instrumentation makes the
# walk's targets of the last prefix build in 76 s instead of 54 s (cold,
# 2 cores).
NO_SANITIZERS="-d KASAN -d KASAN_GENERIC -d UBSAN"
# kconfig_newer FILE: a Kconfig file the series touches is newer than FILE.
kconfig_newer() {
	local f

	for f in $(series_touched | grep 'Kconfig'); do
		[ "$SRC/$f" -nt "$1" ] && return 0
	done
	return 1
}
# vendor_configure DIR MODE [lean]: DIR configured as the guest kernel plus
# scripts/config/vendor.config, without debug info, with CONFIG_GRTRACE=MODE
# and MODE's hook options (grtrace_opts).  DIR starts as a copy of $BUILD
# (its objects are those of the same flags); "lean" also drops the
# sanitizers (NO_SANITIZERS), and DIR starts empty.  Needs $OUT.
vendor_configure() {
	local dir=$1 mode=$2 lean=${3:-} tmp=$OUT/config-${1##*/}
	if [ -n "$lean" ]; then
		mkdir -p "$dir"
	else
		seed_build_dir "$dir"
	fi
	mkdir -p "$tmp"
	cp "$BUILD/.config" "$tmp/config"
	"$SRC/scripts/kconfig/merge_config.sh" -m -O "$tmp" "$tmp/config" \
		"$ROOT/scripts/config/vendor.config" > /dev/null 2>&1
	mv "$tmp/.config" "$tmp/config" 2> /dev/null
	# shellcheck disable=SC2046,SC2086
	"$SRC/scripts/config" --file "$tmp/config" $(grtrace_opts "$mode") $NO_DEBUG_INFO \
		${lean:+$NO_SANITIZERS}
	# Always from the fragment: a symbol that an earlier prefix lacked
	# (Kconfig dropped it) must come back.  Kconfig rewrites only what
	# changed, so an unchanged configuration rebuilds nothing.  But a new
	# .config costs a Kconfig run, its compiler probes included: a build
	# that compiles nothing took 13 s instead of 4 s.  So it is skipped
	# when the fragment is the last one's and no Kconfig file the series
	# touches is newer than the configuration (quilt gives a file it
	# changes the time of the change).  One syncconfig, each new symbol
	# answered with its default at the end of stdin as olddefconfig
	# would, instead of olddefconfig and then syncconfig: the same
	# .config and autoconf.h, for one Kconfig run of the two (7 s of CPU
	# less per directory).  Each answer an empty line, not the end of
	# stdin, which Kconfig reports as an error on stderr for each new
	# symbol (a step that reads its log for errors failed on them: the
	# 6.12 backport, whose tree has many symbols the guest's lacks); the
	# prompts on stdout dropped.
	if [ ! -f "$dir/.config" ] || ! cmp -s "$tmp/config" "$dir/.config.frag" ||
		kconfig_newer "$dir/.config"; then
		rm -f "$dir/.config.frag"
		cp "$tmp/config" "$dir/.config"
		$IDLE make -C "$SRC" O="$dir" -s syncconfig < <(yes '') > /dev/null || return 1
		cp "$tmp/config" "$dir/.config.frag"
	fi
	# Once drivers/gpu/grtrace exists, CONFIG_GRTRACE must be what MODE says.
	[ -f "$SRC/drivers/gpu/grtrace/Kconfig" ] || return 0
	grtrace_mode_stuck "$dir" "$mode" ||
		{ echo "CONFIG_GRTRACE of $mode did not stick"; return 1; }
}

