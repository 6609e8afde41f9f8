// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace-dat-check FILE: libtracecmd alone on a trace.dat, for grtrace-fuzz.
 *
 * Opens FILE and reads every event of it with libtracecmd, nothing of
 * grtrace.  grtrace-fuzz runs it on each input that starts like a trace.dat
 * and skips the inputs it does not survive (a crash, a sanitizer report, an
 * allocation of more than 256 MiB, more than 1 s):
 * those are bugs of libtracecmd, which the fuzzer cannot get past and
 * grtrace cannot fix.  Built with the address sanitizer, so that it fails
 * on what the fuzzer's interceptors would report.
 *
 * The handle is not closed: tracecmd_close() crashes on a handle whose
 * tracecmd_init_data() failed (libtracecmd 1.3), a crash that grtrace can
 * avoid and the fuzzer must still find.  grtrace leaves such a handle
 * unclosed, and what it holds: the fuzzer, in one process, would pile up
 * what the reads of such inputs left (once four buffers of 512 MiB, out
 * of memory after 1333 runs).  Such an input is skipped too: grtrace's
 * part of it is one error message.
 *
 * An input is at most 1 MiB: an allocation of more than 256 MiB is a size
 * libtracecmd took from the file, and it may not free it (once 1.6 GiB a
 * read, 6.6 GiB after the three reads of grtrace-fuzz and the inputs
 * before).  Such an input is skipped: ASan fails on the allocation.
 */
#include <stdlib.h>
#include <unistd.h>
#include <trace-cmd.h>

const char *__asan_default_options(void);

/* The address sanitizer fails on an allocation above max_allocation_size_mb */
const char *__asan_default_options(void)
{
	return "detect_leaks=0:max_allocation_size_mb=256";
}

static int noop(struct tracecmd_input *handle, struct tep_record *rec, int cpu, void *data)
{
	(void)handle;
	(void)rec;
	(void)cpu;
	(void)data;
	return 0;
}

int main(int argc, char *argv[])
{
	struct tracecmd_input *handle;

	if (argc != 2)
		return 2;
	alarm(1);	/* grtrace-fuzz reads it twice more in its 10 s */
	handle = tracecmd_open_head(argv[1], TRACECMD_FL_LOAD_NO_PLUGINS);
	if (handle && tracecmd_init_data(handle))
		return 1;
	if (handle)
		tracecmd_iterate_events(handle, NULL, 0, noop, NULL);
	return 0;
}
