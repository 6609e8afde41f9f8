#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The whole guest kernel (vmlinux and modules) with CONFIG_GRTRACE=m (the
# core and its tests as modules: modpost sees every symbol they use) and
# =n (nothing of grtrace linked: every call site must have its stub).
# Each build directory starts as a copy of the =y one ($BUILD, step
# kernel), so only what the option changes is rebuilt; not at all if a
# build of identical inputs passed before (lib.sh, result_cached).  KTAP:
# one result per configuration.
#
# nodebugfs: CONFIG_GRTRACE=y without DEBUG_FS keeps the tracepoints, the
# driver API and the hooks, without the relay stream (review finding C19);
# only the directories of grtrace and of two hooked drivers are built, as
# turning debugfs off rebuilds most of the kernel.
#
# m and n: the DRM scheduler's and virtio-gpu's objects are the same
# machine code as with =y, and name the same symbols: drivers on which
# grtrace attaches probes cost the same with grtrace loaded and nothing
# traced as without it (issue 52's figure, shown exactly, not timed).
#
# usage: build-config.sh [m] [n] [nodebugfs]
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/same-code.sh"

variants=${*:-m n nodebugfs}
# Three per configuration: it has the option, it builds, and for
# nodebugfs what it keeps, for m and n the drivers' code is =y's.
plan=0
for variant in $variants; do
	plan=$((plan + 3))
done
ktap_begin $plan
CHECK=configs
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
[ -f "$BUILD/vmlinux" ] || { result 1 "the guest kernel is built (step kernel)"; finish; }

for variant in $variants; do
	dir=$CACHE/build-x86-$variant
	start=$SECONDS
	targets="vmlinux modules"
	case $variant in
	m) ;;
	# Never booted: modpost checks the modules' symbols, their final
	# link (and its BTF) is skipped.
	n) targets+=" KBUILD_MODPOST_NOFINAL=1" ;;
	nodebugfs) targets="drivers/gpu/grtrace/ drivers/gpu/drm/scheduler/ drivers/gpu/drm/virtio/" ;;
	*) die "unknown variant $variant" ;;
	esac
	opts=$(grtrace_opts "$variant")
	seed_build_dir "$dir"
	cp "$BUILD/.config" "$OUT/config"
	# shellcheck disable=SC2086
	"$SRC/scripts/config" --file "$OUT/config" $opts
	# Keep .config (and so every timestamp) when nothing changed.
	if ! cmp -s "$OUT/config" "$dir/.config.in"; then
		cp "$OUT/config" "$dir/.config.in"
		cp "$OUT/config" "$dir/.config"
	fi
	make -C "$SRC" O="$dir" -s olddefconfig > "$OUT/err" 2>&1 &&
		grtrace_mode_stuck "$dir" "$variant"
	if ! result $? "CONFIG_GRTRACE=$variant: the configuration has it"; then
		[ "$variant" != nodebugfs ] ||
			result 1 "CONFIG_GRTRACE=nodebugfs: what it keeps (not configured)"
		result 1 "CONFIG_GRTRACE=$variant: $targets (not built)"
		[ "$variant" = nodebugfs ] || result 1 "CONFIG_GRTRACE=$variant: the drivers' code is =y's (not built)"
		continue
	fi
	if [ "$variant" = nodebugfs ]; then
		grep -qx 'CONFIG_GRTRACE_EVENTS=y' "$dir/.config" &&
			grep -qx 'CONFIG_GRTRACE_VIRTIO_GPU=y' "$dir/.config" &&
			! grep -q '^CONFIG_GRTRACE_STREAM=' "$dir/.config" &&
			! grep -q '^CONFIG_GRTRACE_DRM_SCHED=' "$dir/.config"
		result $? "CONFIG_GRTRACE=nodebugfs: tracepoints and hooks on, the stream and the scheduler's probes off" ||
			{ result 1 "CONFIG_GRTRACE=$variant: $targets (not built)"; continue; }
	fi
	same="CONFIG_GRTRACE=$variant: the DRM scheduler's and virtio-gpu's objects are =y's code, naming the same symbols"
	# The kernel series alone: the tools series builds nothing here.
	# shellcheck disable=SC2046
	key=$({ echo "configs $variant"; patch_diffs $(series_patches | grep '^kernel/'); } |
		inputs_key "$0")
	if o=$(result_cached "$key"); then
		result 0 "CONFIG_GRTRACE=$variant: $targets: $o"
		[ "$variant" != nodebugfs ] || continue
		# Compared when it was built: a build directory seeded again
		# since would only hold copies of =y's objects.
		if o=$(result_cached "$key.same"); then
			result 0 "$same: $o"
			continue
		fi
	else
		# shellcheck disable=SC2086
		make -C "$SRC" O="$dir" CC="ccache gcc" -j"$JOBS" -s $targets > "$dir/log" 2>&1
		rc=$?
		grep -E 'error|Error|undefined' "$dir/log" | head -20 > "$OUT/err"
		result $rc "CONFIG_GRTRACE=$variant: $targets ($((SECONDS - start)) s)" &&
			result_keep "$key" "built"
		[ "$variant" != nodebugfs ] || continue
		[ "$rc" = 0 ] || { result 1 "$same (not built)"; continue; }
	fi
	same_code "$BUILD" "$dir" > "$OUT/same" 2>&1
	rc=$?
	cp "$OUT/same" "$OUT/err"
	ERR_LINES=20 result $rc "$same" && result_keep "$key.same" "$(tail -1 "$OUT/same")"
done
finish
