# SPDX-License-Identifier: GPL-2.0
# What a boot of the guest kernel must have run: sourced by guest/test.sh
# (the 6.12 backport's guest) and test-kunit.sh (mainline's), after lib.sh.

# kunit_suites [MOCK]: the KUnit suites, comma separated (with MOCK: those
# of upstream's mock scheduler, from 6.15, too).  A suite lost (by the
# configuration, a filter, a patch) fails, however many of the others
# passed.
kunit_suites() {
	echo -n relay,grtrace,grtrace_drm_sched
	[ -z "${1:-}" ] || echo -n ,drm_sched_basic_tests,drm_sched_basic_timeout_tests,drm_sched_basic_cancel_tests,drm_sched_basic_priority_tests,drm_sched_basic_modify_sched_tests,drm_sched_trace_tests,drm_sched_grtrace_tests,drm_sched_grtrace_scale
	echo
}
# kselftests: the verdict names of every grtrace kselftest its Makefile
# names (tests/20-kselftest.sh runs those the initramfs holds), comma
# separated: each must have a result that passed.
kselftests() {
	local k

	k=$(sed -n 's/^TEST_\(GEN_\)\{0,1\}PROGS *:= *//p' "$SRC/tools/testing/selftests/grtrace/Makefile" |
		tr ' ' '\n' | grep . | sed 's/^/kselftest.grtrace./' | paste -sd,)
	echo "${k:-kselftest.grtrace.none-in-its-Makefile}"
}
