#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series and its round trip through git.
#
# patches/ is what the series is: two series as they would be posted,
# patches/kernel/ and patches/tools/ (git format-patch output, each with
# its cover letter), the user-space one on top of the kernel one, and the
# quilt file patches/series that applies both.  On the edit branch the
# user-space series starts at the first commit whose subject starts with
# "tools/"; export checks that no commit before it touches the tools'
# directories and none from it on touches anything but tools/,
# Documentation/ and MAINTAINERS.  The folders of this repository (drivers-gpu-grtrace/,
# drivers-gpu-drm/, include-*/, Documentation/, tools/) hold every file the
# series creates, as it is after the last patch: a view to read, exported
# from the series and checked against it.
#
#   series.sh edit     a git work tree of the kernel ($EDIT) with the base
#                      tree as tag grtrace-base and the series as commits on
#                      branch grtrace; fixup commits, rebase -i --autosquash,
#                      rebase -x for per-commit builds work as usual
#   series.sh export   write patches/, patches/series (with its # banners),
#                      the cover letter (from the branch description) and
#                      the folders from the edit tree; with
#                      GRTRACE_PATCHES=patches-6.12 GRTRACE_EDIT=...
#                      GRTRACE_BASE_TAG=grtrace-base-6.12
#                      GRTRACE_BRANCH=grtrace-6.12, the backport, whose
#                      edit tree is made by rebasing the mainline branch
#                      onto the 6.12 base (README, "Changing a patch")
#   series.sh fold     turn edits of folder files into fixup commits of the
#                      last patch that touches each file, autosquash, export
#   series.sh check    apply patches/ with git am to the files it touches;
#                      the created files must equal the folders, one for one;
#                      no patch removes lines an earlier patch of its series
#                      added but those scripts/rework-justified.txt names
#   series.sh apply D  the same git am into directory D (kept, for the
#                      maintainers check: MAINTAINERS after each commit)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

EDIT=${GRTRACE_EDIT:-$CACHE/edit/linux}
BASE_TAG=${GRTRACE_BASE_TAG:-grtrace-base}
BRANCH=${GRTRACE_BRANCH:-grtrace}
# Reproducible commits: the same tree gives the same base-commit anywhere.
export GIT_COMMITTER_NAME=grtrace GIT_COMMITTER_EMAIL=grtrace@localhost
git_edit() { git -C "$EDIT" -c core.abbrev=12 -c diff.noprefix=false \
	-c diff.mnemonicPrefix=false -c diff.renames=false "$@"; }

# Repository folder of a kernel path; empty when the series may not create
# a file there.
folder_of() {
	case $1 in
	drivers/gpu/grtrace/*)	echo "drivers-gpu-grtrace/${1#drivers/gpu/grtrace/}" ;;
	drivers/gpu/drm/*)	echo "drivers-gpu-drm/${1#drivers/gpu/drm/}" ;;
	include/trace/events/*)	echo "include-trace-events/${1#include/trace/events/}" ;;
	include/uapi/linux/*)	echo "include-uapi-linux/${1#include/uapi/linux/}" ;;
	include/linux/*)	echo "include-linux/${1#include/linux/}" ;;
	Documentation/* | tools/* | kernel/*) echo "$1" ;;
	esac
}
FOLDERS="drivers-gpu-grtrace drivers-gpu-drm include-trace-events include-uapi-linux include-linux Documentation tools kernel"
kernel_of() {
	case $1 in
	drivers-gpu-grtrace/*)	echo "drivers/gpu/grtrace/${1#drivers-gpu-grtrace/}" ;;
	drivers-gpu-drm/*)	echo "drivers/gpu/drm/${1#drivers-gpu-drm/}" ;;
	include-trace-events/*)	echo "include/trace/events/${1#include-trace-events/}" ;;
	include-uapi-linux/*)	echo "include/uapi/linux/${1#include-uapi-linux/}" ;;
	include-linux/*)	echo "include/linux/${1#include-linux/}" ;;
	*)			echo "$1" ;;
	esac
}
# Every file in the folders, as kernel paths.
folder_files() {
	local d
	for d in $FOLDERS; do
		[ -d "$ROOT/$d" ] && (cd "$ROOT" && find "$d" -type f)
	done | while read -r f; do kernel_of "$f"; done | sort
}
patch_files() { series_patches | sed "s#^#$PATCHES/#"; }

# stamp: what patches/ was when the edit tree last matched it.
stamp_now() { cat "$PATCHES/series" $(patch_files) | sha1sum | cut -d' ' -f1; }

# import: (re)build the branch from the base tag and patches/.
import() {
	local cover desc part
	git_edit checkout -q -B "$BRANCH" "$BASE_TAG"
	# shellcheck disable=SC2046
	git_edit am -q --committer-date-is-author-date $(patch_files) ||
		die "git am of patches/ failed in $EDIT (git am --abort there)"
	# The cover letters' subjects and texts up to their shortlogs, as
	# the descriptions of branches $BRANCH-kernel and $BRANCH-tools
	# (export moves them to the series' last commits).
	for part in kernel tools; do
		cover=$PATCHES/$part/0000-cover-letter.patch
		[ -f "$cover" ] || continue
		desc=$(awk '/^Subject: / {sub(/^Subject: \[PATCH[^]]*\] /, ""); print; print ""; next}
			    body && /^[^ ].* \([0-9]+\):$/ {exit}
			    /^$/ && !body {body = 1; next}
			    body' "$cover")
		git_edit config "branch.$(part_branch $part).description" "$desc"
	done
	record_stamp
}
record_stamp() {
	echo "$(stamp_now) $(git_edit rev-parse HEAD)" > "$(git_edit rev-parse --absolute-git-dir)/grtrace-stamp"
}

edit() {
	local top name stamp head
	if [ ! -d "$EDIT/.git" ]; then
		top=$(basename "$TARBALL" .tar.xz)
		log "edit: unpacking $TARBALL into $(dirname "$EDIT")"
		mkdir -p "$(dirname "$EDIT")"
		rm -rf "$(dirname "$EDIT")/$top.tmp"
		mkdir "$(dirname "$EDIT")/$top.tmp"
		tar -C "$(dirname "$EDIT")/$top.tmp" -xf "$TARBALL"
		mv "$(dirname "$EDIT")/$top.tmp/$top" "$EDIT"
		rmdir "$(dirname "$EDIT")/$top.tmp"
		log "edit: committing the base tree (about a minute)"
		git -C "$EDIT" init -q -b "$BRANCH"
		git -C "$EDIT" add -A -f .
		name=$(tar -xOf "$TARBALL" "$top/Makefile" |
			awk '/^VERSION/ {v=$3} /^PATCHLEVEL/ {p=$3} /^SUBLEVEL/ {s=$3} END {print v "." p "." s}')
		GIT_AUTHOR_NAME=grtrace GIT_AUTHOR_EMAIL=grtrace@localhost \
		GIT_AUTHOR_DATE="@0 +0000" GIT_COMMITTER_DATE="@0 +0000" \
			git -C "$EDIT" commit -q -m "$top $name ($(basename "$TARBALL"))"
		git -C "$EDIT" tag "$BASE_TAG"
		# Debian's .gitignore ignores the top level ("/*"): let git see
		# new files in the work tree without changing the base commit.
		sed -i '\#^/\*$#d' "$EDIT/.gitignore"
		git -C "$EDIT" update-index --skip-worktree .gitignore
		import
		log "edit: $EDIT, branch $BRANCH: $(git_edit rev-list --count "$BASE_TAG..") commits"
		return
	fi
	read -r stamp head < "$(git_edit rev-parse --absolute-git-dir)/grtrace-stamp" || stamp=
	[ "$stamp" = "$(stamp_now)" ] && { log "edit: $EDIT is up to date"; return; }
	if [ "$(git_edit rev-parse HEAD)" != "$head" ] || [ -n "$(git_edit status --porcelain -uno)" ]; then
		die "edit: patches/ changed and $EDIT has work not exported; export it or reset it (git -C $EDIT reset --hard $head)"
	fi
	log "edit: patches/ changed: importing it again"
	import
}

part_branch() { echo "$BRANCH-$1"; }

# The first commit of the user-space series on the branch, or nothing.
tools_start() {
	# awk reads to the end: git log killed by SIGPIPE fails under pipefail
	git_edit log --reverse --format='%H %s' "$BASE_TAG..HEAD" |
		awk '!found && $2 ~ /^tools\// {print $1; found = 1}'
}

# check_split START: each commit stays in its half of the tree.
check_split() {
	local c in_tools=0 bad
	for c in $(git_edit rev-list --reverse "$BASE_TAG..HEAD"); do
		[ "$c" = "${1:-none}" ] && in_tools=1
		if [ "$in_tools" = 0 ]; then
			bad=$(git_edit diff-tree --no-commit-id --name-only -r "$c" |
				grep -E '^tools/(grtrace|tracing/grtrace-plugin)/' | head -1) || true
		else
			bad=$(git_edit diff-tree --no-commit-id --name-only -r "$c" |
				grep -vE '^(tools/|Documentation/|MAINTAINERS$)' | head -1) || true
		fi
		[ -z "$bad" ] || die "export: $(git_edit log -1 --format=%s "$c") touches $bad, which is the other series'"
	done
}

# format_part PART BASE TIP DIR: git format-patch of BASE..TIP into
# DIR/PART, through branch $BRANCH-PART (whose description is the cover
# letter's text), the cover letter dated as its newest patch.
# base-commit is the tree's; a part on top of another lists that one's
# patches as prerequisite-patch-id.
format_part() {
	local part=$1 base=$2 tip=$3 dir=$4/$1 br date
	br=$(part_branch "$part")
	git_edit branch -f "$br" "$tip"
	git_edit format-patch -q --zero-commit --no-signature --numbered --filename-max-length=100 \
		--base="$BASE_TAG" --cover-letter --cover-from-description=subject \
		-o "$dir" "$base..$br"
	date=$(git_edit log -1 --format=%aD "$br")
	sed -i "0,/^Date: /s/^Date: .*/Date: $date/" "$dir/0000-cover-letter.patch"
}

# The files the series creates, as kernel paths.
created_in() { git -C "$1" diff --name-only --diff-filter=A "$2" "$3" | sort; }

export_series() {
	local tmp n i f dst start
	[ -e "$EDIT/.git" ] || die "no edit tree: make edit"
	[ -z "$(git_edit status --porcelain -uno)" ] || die "export: $EDIT has uncommitted changes"
	[ -z "$(git_edit rev-parse -q --verify REBASE_HEAD 2>/dev/null)" ] || die "export: a rebase is in progress in $EDIT"
	n=$(git_edit rev-list --count "$BASE_TAG..HEAD")
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"; trap - RETURN' RETURN
	start=$(tools_start)
	check_split "$start"
	if [ -n "$start" ]; then
		format_part kernel "$BASE_TAG" "$start~1" "$tmp"
		format_part tools "$start~1" HEAD "$tmp"
	else
		format_part kernel "$BASE_TAG" HEAD "$tmp"
	fi
	rm -rf "$PATCHES"/kernel "$PATCHES"/tools
	mkdir -p "$PATCHES"
	cp -r "$tmp"/kernel "$PATCHES/"
	[ -z "$start" ] || cp -r "$tmp"/tools "$PATCHES/"
	# patches/series, with headings that say what is under them
	python3 "$ROOT/scripts/series-headings.py" "$PATCHES"
	# A cover letter per posting (patches/postings.txt), with its To:
	if [ -f "$PATCHES/postings.txt" ]; then
		python3 "$ROOT/scripts/postings.py" write "$PATCHES" "$EDIT" ||
			die "export: patches/postings.txt does not cut the series"
	fi
	# A backport (patches-6.12/) has no folders: they are the mainline's.
	if [ "$PATCHES" != "$ROOT/patches" ]; then
		record_stamp
		log "export: $n patches in ${PATCHES##*/}/"
		return
	fi
	# The folders: every created file as after the last patch, nothing else.
	created_in "$EDIT" "$BASE_TAG" HEAD > "$tmp/created"
	while read -r f; do
		dst=$(folder_of "$f")
		[ -n "$dst" ] || die "export: the series creates $f, which no folder holds"
		mkdir -p "$ROOT/$(dirname "$dst")"
		git_edit show "HEAD:$f" > "$ROOT/$dst"
		if [ "$(git_edit ls-tree HEAD -- "$f" | cut -c1-6)" = 100755 ]; then
			chmod 755 "$ROOT/$dst"
		else
			chmod 644 "$ROOT/$dst"
		fi
	done < "$tmp/created"
	folder_files | comm -23 - "$tmp/created" | while read -r f; do
		log "export: removing $(folder_of "$f") (no longer created by the series)"
		rm -f "$ROOT/$(folder_of "$f")"
	done
	for i in $FOLDERS; do
		[ -d "$ROOT/$i" ] && find "$ROOT/$i" -type d -empty -delete
	done
	record_stamp
	log "export: $n patches, $(wc -l < "$tmp/created") files in the folders"
}

fold() {
	local f dst subj changed=0
	edit
	[ -z "$(git_edit status --porcelain -uno)" ] || die "fold: $EDIT has uncommitted changes"
	declare -A by_subject=()
	while read -r f; do
		dst=$(folder_of "$f")
		if [ ! -f "$ROOT/$dst" ]; then
			git_edit rm -q -- "$f"
		elif git_edit show "HEAD:$f" 2>/dev/null | cmp -s - "$ROOT/$dst"; then
			continue
		else
			cp "$ROOT/$dst" "$EDIT/$f"
		fi
		subj=$(git_edit log -1 --format=%s "$BASE_TAG..HEAD" -- "$f")
		by_subject[$subj]+=" $f"
		changed=1
	done < <(created_in "$EDIT" "$BASE_TAG" HEAD)
	f=$(folder_files | comm -13 <(created_in "$EDIT" "$BASE_TAG" HEAD) - | head -1)
	[ -z "$f" ] || die "fold: $(folder_of "$f") is new: add it in the patch it belongs to (make edit)"
	[ "$changed" = 1 ] || { log "fold: the folders equal the series"; export_series; return; }
	for subj in "${!by_subject[@]}"; do
		# shellcheck disable=SC2086
		git_edit add -- ${by_subject[$subj]}
		git_edit commit -q -m "fixup! $subj"
		log "fold:${by_subject[$subj]} -> $subj"
	done
	if ! GIT_SEQUENCE_EDITOR=: git_edit rebase -q -i --autosquash \
		--committer-date-is-author-date "$BASE_TAG"; then
		git_edit rebase --abort
		die "fold: the fixups do not apply to the series; $EDIT is as before them plus fixup commits"
	fi
	export_series
}

# apply DIR: the files the series touches, from the tarball, as one base
# commit (tag base), and the series on it with the README's git am command.
apply() {
	local dir=$1 top touched created existing cmd
	top=$(basename "$TARBALL" .tar.xz)
	touched=$(series_touched)
	created=$(series_created)
	existing=$(comm -23 <(echo "$touched") <(echo "$created"))
	rm -rf "$dir"
	mkdir -p "$dir/tar" "$dir/git"
	# shellcheck disable=SC2046
	[ -z "$existing" ] || tar -C "$dir/tar" -xf "$TARBALL" $(sed "s#^#$top/#" <<<"$existing")
	# shellcheck disable=SC2086
	[ -z "$existing" ] || (cd "$dir/tar/$top" && cp --parents $existing "$dir/git/")
	rm -rf "$dir/tar"
	cd "$dir/git" || return 1
	git init -q
	git add -A -f .
	GIT_AUTHOR_NAME=grtrace GIT_AUTHOR_EMAIL=grtrace@localhost \
		git commit -q --allow-empty -m base
	git tag base
	cmd=$(readme_cmd "git am")
	log "$cmd"
	bash -c "$cmd"
}

# check: KTAP.  The series in patches/series is complete; the README's git
# am command applies it; the files it creates equal the folders, one for
# one; every file it touches equals the quilt-applied tree ($SRC, step
# tree); no patch reworks another's lines unless justified; every kernel
# patch is in one posting, whose cover letter lists it; the original
# design's names come in grtrace's optional last patch, on both bases.
# Leaves the git am tree in $CACHE/series-am for the maintainers step.
check() {
	local am=$CACHE/series-am f dst bad missing=0 extra
	ktap_begin 7
	CHECK=series
	OUT=$(mktemp -d)
	trap 'rm -rf "$OUT"' RETURN
	# Into a file: "series_patches | grep -q" fails under pipefail
	# whenever grep exits before series_patches has written everything.
	series_patches > "$OUT/listed"
	while read -r f; do
		[ -f "$PATCHES/$f" ] || { echo "${PATCHES##*/}/$f missing" >> "$OUT/err"; missing=1; }
	done < "$OUT/listed"
	for f in "$PATCHES"/*/*.patch; do
		f=${f#"$PATCHES"/}
		[ "${f#*/}" = 0000-cover-letter.patch ] || grep -qxF "$f" "$OUT/listed" ||
			{ echo "patches/$f is not in patches/series" >> "$OUT/err"; missing=1; }
	done
	result "$missing" "patches/series lists every patch of patches/"
	(apply "$am") > "$OUT/err" 2>&1
	result $? "README's git am command applies patches/ ($(series_patches | wc -l) patches)"
	[ -d "$am/git/.git" ] && git -C "$am/git" rev-parse -q --verify HEAD~1 > /dev/null || finish
	created_in "$am/git" base HEAD > "$OUT/created"
	bad=0
	while read -r f; do
		dst=$(folder_of "$f")
		if [ -z "$dst" ]; then
			echo "creates $f, which no folder holds" >> "$OUT/err"; bad=1
		elif ! cmp -s "$am/git/$f" "$ROOT/$dst"; then
			echo "$dst differs from $f after the series" >> "$OUT/err"; bad=1
		fi
	done < "$OUT/created"
	extra=$(folder_files | comm -13 "$OUT/created" -)
	for f in $extra; do
		echo "$(folder_of "$f") is not created by the series" >> "$OUT/err"; bad=1
	done
	[ "$bad" = 0 ] || echo "after editing folder files run 'make series', after editing the edit tree 'make export'" >> "$OUT/err"
	result "$bad" "the $(wc -l < "$OUT/created") files the series creates equal the folders, and no other file is there"
	bad=0
	if [ -f "$SRC/.grtrace-stamp" ] && [ "$(cat "$SRC/.grtrace-stamp")" = "$(series_stamp)" ]; then
		am_matches_quilt "$am" || bad=1
	else
		echo "$SRC does not hold this series (step tree)" >> "$OUT/err"; bad=1
	fi
	result "$bad" "git am and quilt give identical files ($(git -C "$am/git" diff --name-only base HEAD | wc -l) touched)"
	# No patch reworks what an earlier patch of its series added, but
	# for the entries of the justified list.
	python3 "$ROOT/scripts/rework.py" "$PATCHES" --check "$ROOT/scripts/rework-justified.txt" > "$OUT/rework" 2>&1
	bad=$?
	grep -v '^[a-z0-9.-]*: [0-9]* rework lines' "$OUT/rework" | sed 's/^# //' > "$OUT/err"
	result "$bad" "rework: $(grep '^[a-z0-9.-]*: [0-9]* rework lines' "$OUT/rework" | paste -sd';' | sed 's/;/; /g'), none other (scripts/rework-justified.txt)"
	# The postings: a cover letter per tree (patches/postings.txt).
	python3 "$ROOT/scripts/postings.py" check "$PATCHES" > "$OUT/postings" 2> "$OUT/err"
	ERR_LINES=20 result $? "postings: each kernel patch in one, their cover letters (${PATCHES##*/}/postings/) as postings.py writes them: $(cat "$OUT/postings" 2>/dev/null || true)"
	# grtrace needs none of the original design's names: they come in
	# one optional patch, the last of grtrace's, on both bases.
	bad=0
	for f in "$PATCHES" "$ROOT/patches-6.12"; do
		python3 "$ROOT/scripts/shims-check.py" "$f" >> "$OUT/err" 2>&1 || bad=1
	done
	ERR_LINES=20 result "$bad" "the original design's names (second names, numeric values, /proc/grtrace_stats, module aliases, stats names, README replay) only in its optional patch, on both bases (scripts/shims-check.py)"
	finish
}

case ${1:-} in
edit)	set -e; edit ;;
export)	set -e; export_series ;;
fold)	set -e; fold ;;
check)	check ;;
apply)	apply "${2:?usage: series.sh apply DIR}" ;;
*)	die "usage: series.sh edit|export|fold|check|apply DIR" ;;
esac
