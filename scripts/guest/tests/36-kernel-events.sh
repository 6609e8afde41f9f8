#!/bin/sh
# The same scheduler jobs through both event sets: upstream's mock
# scheduler suites (basic, cancel, timeout), run again through debugfs,
# while "trace-cmd record" takes grtrace's events and the kernel's own
# (gpu_scheduler, dma_fence_signaled) at once.  On the host,
# scripts/kernel-events-check.py rebuilds the jobs from each set and
# compares them, job for job.  This script fails only if a step could not
# run.
K=/sys/kernel/debug/kunit
O=${GRTRACE_OUT:-/tmp}/kevents
mkdir -p "$O"
# Without the mock scheduler (6.12), grtrace's scheduler suite drives
# drm/sched, whose older events (drm_sched_job, drm_run_job,
# drm_sched_process_job) scripts/old-sched-check.py reads.
suites="drm_sched_basic_tests drm_sched_basic_cancel_tests drm_sched_basic_timeout_tests"
[ -d $K/drm_sched_basic_tests ] || suites=grtrace_drm_sched
if [ ! -d $K/${suites%% *} ]; then
	echo "no scheduler suite in this kernel" > "$O/skipped"
	echo "kernel-events: skipped, no scheduler suite in this kernel"
	exit 0
fi
: > "$O/kunit.txt"
cat > /tmp/kevents-suites.sh <<END
for s in $suites; do
	echo 1 > $K/\$s/run
	cat $K/\$s/results >> $O/kunit.txt
done
END
# The suites' results go to their debugfs files, not to the console, where
# the host parses the boot's own KTAP: KUnit prints them at KERN_INFO, so
# the console prints up to KERN_WARNING meanwhile (a kernel report still
# shows).
read -r level rest < /proc/sys/kernel/printk
echo 5 > /proc/sys/kernel/printk
trace-cmd record -q -e grtrace -e gpu_scheduler -e dma_fence:dma_fence_signaled \
	-b 4096 -o /tmp/kevents.dat sh /tmp/kevents-suites.sh > "$O/trace-cmd.out" 2>&1
rc=$?
echo "$level" > /proc/sys/kernel/printk
cp /tmp/kevents.dat "$O/kevents.dat" && rm /tmp/kevents.dat
echo "kernel-events: trace-cmd exit $rc"
[ $rc = 0 ]
