// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen-load: a large synthetic grtrace stream for benchmarking the readers.
 *
 *   gen-load JOBS OUT [CPUS]
 *
 * A session of 4 rings (graphics, compute, copy, video_decode) whose jobs
 * each have SUBMIT, COMMIT, START, END and COMPLETE, 8 in flight per ring,
 * submitted by 16 processes in 64 contexts, every 1000th with a SYNC_WAIT
 * pair: 5 records per job plus the 5 of the session's start, 112 bytes
 * each.  With CPUS (>= 1), OUT is a directory of events<N>.bin files, the
 * records dealt to the CPUs in turns; without, one file in gseq order, as
 * "grtrace record" writes.  Times advance by 0.5 to 1.5 us per record
 * (a fixed pseudo-random sequence), so that the jobs' times spread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/grtrace.h>

#define RINGS		4
#define IN_FLIGHT	8

static FILE **out;
static unsigned int nr_out = 1;
static unsigned long long gseq, cseq[256];
static __u64 ts = 1000000, seed = 1;

static __u64 tick(void)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return ts += 500 + (seed >> 33) % 1001;
}

static void put(__u16 type, const void *payload, size_t len, __u64 ts)
{
	struct grtrace_record h = {
		.type = type,
		.size = sizeof(h) + len,
		.ts = ts,
		.gseq = ++gseq,
	};
	unsigned int cpu = (gseq - 1) % nr_out;

	h.cpu = cpu;
	h.cseq = ++cseq[cpu];
	fwrite(&h, sizeof(h), 1, out[cpu]);
	fwrite(payload, len, 1, out[cpu]);
}

static void job_event(__u16 type, unsigned long long job, unsigned int ring, __u64 ts)
{
	struct grtrace_job_payload p = {
		.ctx_id = job % 64,
		.fence_context = 100 + ring,
		.fence_seqno = job / RINGS + 1,
		.ring_id = ring,
		.engine = ring,
		.pid = 1000 + job % 16,
		.tgid = 1000 + job % 16,
	};

	if (type == GRTRACE_EV_SYNC_WAIT_ENTER || type == GRTRACE_EV_SYNC_WAIT_EXIT) {
		p.aux_context = 7;
		p.aux_seqno = job;
	}
	snprintf(p.comm, sizeof(p.comm), "app%llu", job % 16);
	put(type, &p, sizeof(p), ts);
}

int main(int argc, char *argv[])
{
	static const char * const names[RINGS] = { "gfx", "comp", "sdma", "vcn" };
	struct grtrace_stream_info si = {
		.magic = GRTRACE_MAGIC,
		.version = GRTRACE_FORMAT_VERSION,
		.record_size = sizeof(struct grtrace_record),
		.session_id = 0x1234,
		.features = GRTRACE_FEAT_CSEQ,
		.start_ts = 1000000,
		.nr_rings = RINGS,
		.buffer_size = 4 << 20,
	};
	unsigned long long jobs, j, k;
	char path[4096];
	unsigned int i;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: gen-load JOBS OUT [CPUS]\n");
		return 2;
	}
	jobs = strtoull(argv[1], NULL, 10);
	if (argc == 4) {
		nr_out = atoi(argv[3]);
		if (nr_out < 1 || nr_out > 256)
			return 2;
		mkdir(argv[2], 0755);
	}
	si.nr_cpus = nr_out;
	out = calloc(nr_out, sizeof(*out));
	for (i = 0; i < nr_out; i++) {
		if (argc == 4)
			snprintf(path, sizeof(path), "%s/events%u.bin", argv[2], i);
		else
			snprintf(path, sizeof(path), "%s", argv[2]);
		out[i] = fopen(path, "w");
		if (!out[i]) {
			perror(path);
			return 1;
		}
		setvbuf(out[i], NULL, _IOFBF, 1 << 20);
	}
	put(GRTRACE_EV_STREAM_INFO, &si, sizeof(si), ts);
	for (i = 0; i < RINGS; i++) {
		struct grtrace_ring_info ri = { .ring_id = i, .engine = i };

		snprintf(ri.dev, sizeof(ri.dev), "0000:03:00.0");
		snprintf(ri.name, sizeof(ri.name), "%s", names[i]);
		put(GRTRACE_EV_METADATA, &ri, sizeof(ri), ts);
	}
	/*
	 * Job j is submitted at step j; its later stages come 1, 2, 3 and 4
	 * rounds of RINGS * IN_FLIGHT jobs later, so that about IN_FLIGHT
	 * jobs per ring are between SUBMIT and COMPLETE.
	 */
	for (k = 0; k < jobs + 4 * RINGS * IN_FLIGHT; k++) {
		for (i = 0; i < 5; i++) {
			unsigned long long lag = (unsigned long long)i * RINGS * IN_FLIGHT;

			if (k < lag || k - lag >= jobs)
				continue;
			j = k - lag;
			if (i == 1 && j % 1000 == 999) {
				job_event(GRTRACE_EV_SYNC_WAIT_ENTER, j, j % RINGS, tick());
				job_event(GRTRACE_EV_SYNC_WAIT_EXIT, j, j % RINGS, tick());
			}
			job_event(i, j, j % RINGS, tick());
		}
	}
	for (i = 0; i < nr_out; i++)
		if (fclose(out[i])) {
			perror("write");
			return 1;
		}
	return 0;
}
