#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the grtrace KUnit suites under UML with kunit.py (the fast loop).
# Not part of make test: the guest runs the same suites (KASAN, lockdep).
# KTAP: one result per test case.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

out=$(mktemp)
trap 'rm -f "$out"' EXIT
(cd "$SRC" && python3 tools/testing/kunit/kunit.py run --arch=um \
	--build_dir="$CACHE/build-um" --jobs="$JOBS" --raw_output=kunit \
	--kunitconfig=drivers/gpu/grtrace/.kunitconfig \
	--make_options CC="ccache gcc") > "$out" 2>&1
# The kernel's KTAP, its leaves as this step's results.
SRC=$SRC python3 "$ROOT/scripts/ktap.py" leaves "$out" "uml-kunit: "
