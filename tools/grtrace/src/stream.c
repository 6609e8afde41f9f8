// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: reading the binary stream.
 *
 * A stream file (a relay file of one CPU or a recording) is cut into
 * records by their size field.  Unknown record types and payload bytes
 * beyond the known fields are skipped, as the format allows.  Anything that
 * cannot be a valid stream stops the load with a message naming the file,
 * the byte offset and the problem.
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream.h"
#include "utils.h"

#define GR_READ_BUF	(256 * 1024)

/* ---- cutting a file into records ---- */

int gr_reader_open(struct gr_reader *r, const char *path, bool nonblock)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->fd = open(path, O_RDONLY | (nonblock ? O_NONBLOCK : 0));
	if (r->fd < 0) {
		if (errno == EACCES || errno == EPERM)
			gr_err_msg("%s: permission denied%s\n", path,
				   nonblock ? ": the relay files are only readable by root" : "");
		else if (errno == EBUSY && nonblock)
			gr_err_msg("%s: busy: trace_pipe is open, or read this session\n", path);
		else
			gr_err_msg("%s: %s\n", path, strerror(errno));
		return -1;
	}
	r->buf = gr_zalloc(GR_READ_BUF);
	return 0;
}

void gr_reader_close(struct gr_reader *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->buf);
	r->buf = NULL;
}

/* Read once more.  Returns: bytes read, 0 if none now or at EOF, -1. */
static ssize_t gr_reader_fill(struct gr_reader *r)
{
	ssize_t n;

	if (r->head) {
		memmove(r->buf, r->buf + r->head, r->tail - r->head);
		r->tail -= r->head;
		r->head = 0;
	}
	do {
		n = read(r->fd, r->buf + r->tail, GR_READ_BUF - r->tail);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		if (errno == EAGAIN)
			return 0;
		gr_err_msg("%s: offset %llu: read error: %s\n", r->path,
			   (unsigned long long)(r->off + r->tail), strerror(errno));
		return -1;
	}
	r->tail += n;
	return n;
}

/*
 * gr_bad_size - say that the record at @off of @path, after one of
 * @prev_size bytes at @prev_off, has a size no record can have.  At offset
 * 0 the file is not a stream (a text file, say).  Further on, the record
 * before is named: a size damaged into another valid one (any multiple of
 * 8 up to 65528: a longer payload is a newer format's) moves the reader
 * past the damage, to where the stream stops making sense.  Returns: -1.
 */
int gr_bad_size(const char *path, __u64 off, const struct grtrace_record *h,
		__u64 prev_off, unsigned int prev_size)
{
	if (!off) {
		gr_err_msg("%s: offset 0: %s %u bytes (not a multiple of 8 >= %u)\n", path,
			   "not a grtrace stream: its first record would be", h->size,
			   GR_REC_MIN);
		return -1;
	}
	gr_err_msg("%s: offset %llu: bad record size %u, type 0x%x %s %u), %s %u %s %llu\n",
		   path, (unsigned long long)off, h->size, h->type,
		   "(not a multiple of 8 >=", GR_REC_MIN, "after a record of", prev_size,
		   "bytes at offset", (unsigned long long)prev_off);
	return -1;
}

/*
 * Records are in the byte order of the host that wrote them.  A stream
 * from a host of the other order starts with a STREAM_INFO whose type
 * reads swapped: say so rather than report a bad size further on.
 */
static int other_byte_order(const struct gr_reader *r,
			    const struct grtrace_record *h)
{
	if (r->off || h->type == GRTRACE_EV_STREAM_INFO ||
	    bswap_16(h->type) != GRTRACE_EV_STREAM_INFO)
		return 0;
	gr_err_msg("%s: offset 0: written by a host of the other byte order; not supported\n",
		   r->path);
	return -1;
}

/*
 * gr_reader_next - the next whole record of a file
 * @rec: set to the record, valid until the next call
 * @off: set to its byte offset in the file
 *
 * Returns: 1 with a record, 0 when no whole record is there (end of file,
 * or nothing more yet in a relay file), -1 on a bad size (printed).
 */
int gr_reader_next(struct gr_reader *r, const struct grtrace_record **rec, __u64 *off)
{
	const struct grtrace_record *h;
	size_t avail;
	ssize_t n;

	for (;;) {
		avail = r->tail - r->head;
		if (avail >= GR_REC_MIN) {
			h = (const void *)(r->buf + r->head);
			if (other_byte_order(r, h))
				return -1;
			if (h->size < GR_REC_MIN || h->size % 8)
				return gr_bad_size(r->path, r->off, h, r->prev_off, r->prev_size);
			if (avail >= h->size) {
				*rec = h;
				*off = r->off;
				r->prev_off = r->off;
				r->prev_size = h->size;
				r->head += h->size;
				r->off += h->size;
				return 1;
			}
		}
		n = gr_reader_fill(r);
		if (n <= 0)
			return n;
	}
}

/* At the real end of a file: bytes left over are a truncated record. */
int gr_reader_finish(struct gr_reader *r)
{
	size_t left = r->tail - r->head;
	const struct grtrace_record *h = (const void *)(r->buf + r->head);

	if (!left)
		return 0;
	if (left < GR_REC_MIN)
		gr_err_msg("%s: offset %llu: truncated record header: %zu of %u bytes\n",
			   r->path, (unsigned long long)r->off, left, GR_REC_MIN);
	else
		gr_err_msg("%s: offset %llu: truncated record: %zu of %u bytes (type 0x%x)\n",
			   r->path, (unsigned long long)r->off, left, h->size,
			   h->type);
	return -1;
}

/* ---- decoding ---- */

/* Copy a payload into a known struct: zero fill or cut, count both. */
static void take_payload(struct gr_trace *t, void *dst, size_t known,
			 const void *src, size_t len)
{
	if (len == known) {
		memcpy(dst, src, known);
		return;
	}
	memset(dst, 0, known);
	memcpy(dst, src, len < known ? len : known);
	if (len > known)
		t->longer++;
	else if (len < known)
		t->shorter++;
}

/*
 * gr_info_check - whether STREAM_INFO @si, at @where, describes a stream
 * this tool reads: its magic, its header size, a CPU count a kernel can
 * have (NR_CPUS is at most 8192 on x86-64, 4096 on arm64).  Returns: 0, or
 * -1 with the problem printed.
 */
int gr_info_check(const struct grtrace_stream_info *si, const char *where)
{
	if (si->magic != GRTRACE_MAGIC) {
		gr_err_msg("%s: STREAM_INFO has bad magic 0x%08x (expected 0x%08x)\n",
			   where, si->magic, GRTRACE_MAGIC);
		return -1;
	}
	if (si->record_size != GR_REC_MIN) {
		gr_err_msg("%s: STREAM_INFO gives a %u-byte record header; only %u is supported\n",
			   where, si->record_size, GR_REC_MIN);
		return -1;
	}
	if (!si->nr_cpus || si->nr_cpus > GR_CPUS_MAX) {
		gr_err_msg("%s: STREAM_INFO gives %u CPUs (1 to %u)\n", where, si->nr_cpus,
			   GR_CPUS_MAX);
		return -1;
	}
	return 0;
}

static int take_info(struct gr_trace *t, const struct gr_event *ev,
		     const void *p, size_t len)
{
	struct grtrace_stream_info si;

	take_payload(t, &si, sizeof(si), p, len);
	if (gr_info_check(&si, gr_where(t, ev)))
		return -1;
	if (t->have_info && si.session_id != t->info.session_id) {
		gr_err_msg("%s: a second session %016llx, after session %016llx: %s\n",
			   gr_where(t, ev), (unsigned long long)si.session_id,
			   (unsigned long long)t->info.session_id,
			   "one at a time (--session N reads the Nth)");
		return -1;
	}
	t->info = si;
	t->have_info = true;
	/* A relay stream is in CLOCK_MONOTONIC; a saved instance's is not */
	if (si.clock_id != GRTRACE_CLOCK_MONOTONIC)
		t->clock = NULL;
	return 0;
}

static void take_ring(struct gr_trace *t, const void *p, size_t len)
{
	struct grtrace_ring_info ri;
	struct gr_ring *r;

	take_payload(t, &ri, sizeof(ri), p, len);
	ri.ring_id = gr_ring_local(t, ri.ring_id);
	r = &t->rings[ri.ring_id];
	r->known = true;
	r->engine = ri.engine;
	memcpy(r->dev, ri.dev, sizeof(ri.dev));
	memcpy(r->name, ri.name, sizeof(ri.name));
	gr_name_clean(r->dev, sizeof(r->dev));
	gr_name_clean(r->name, sizeof(r->name));
}

/* aggregate_only: a ring's window, summed over the windows */
static void take_summary(struct gr_trace *t, const void *p, size_t len)
{
	struct grtrace_summary s;
	struct grtrace_summary *a;
	struct gr_ring *r;
	int i;

	take_payload(t, &s, sizeof(s), p, len);
	s.ring_id = gr_ring_local(t, s.ring_id);
	r = &t->rings[s.ring_id];
	t->summary = s;
	a = &r->sum;
	r->used = true;
	if (s.jobs && (!a->jobs || s.lat_min < a->lat_min))
		a->lat_min = s.lat_min;
	if (s.dev_jobs && (!a->dev_jobs || s.dev_min < a->dev_min))
		a->dev_min = s.dev_min;
	if (!r->windows || s.window_start < a->window_start)
		a->window_start = s.window_start;
	r->windows++;
	a->window_ns += s.window_ns;
	a->events += s.events;
	a->jobs += s.jobs;
	a->lat_sum += s.lat_sum;
	a->lat_max = s.lat_max > a->lat_max ? s.lat_max : a->lat_max;
	a->dev_jobs += s.dev_jobs;
	a->dev_sum += s.dev_sum;
	a->dev_max = s.dev_max > a->dev_max ? s.dev_max : a->dev_max;
	a->depth_sum += s.depth_sum;
	a->depth_n += s.depth_n;
	a->depth_peak = s.depth_peak > a->depth_peak ? s.depth_peak : a->depth_peak;
	a->errors += s.errors;
	for (i = 0; i < GRTRACE_SUMMARY_DROPS; i++)
		a->dropped[i] += s.dropped[i];
	for (i = 0; i < GRTRACE_SUMMARY_HIST; i++)
		a->lat_hist[i] += s.lat_hist[i];
}

static void take_job(struct gr_trace *t, struct gr_event *ev,
		     const void *p, size_t len)
{
	struct gr_ring *r;

	take_payload(t, &ev->job, sizeof(ev->job), p, len);
	gr_name_clean(ev->job.comm, sizeof(ev->job.comm));
	ev->job.ring_id = gr_ring_local(t, ev->job.ring_id);
	r = &t->rings[ev->job.ring_id];
	r->used = true;
	r->by_type[ev->type]++;
	if (!r->known)
		r->engine = ev->job.engine;
	t->by_type[ev->type]++;
}

/* A text record of grtrace record into @text */
static void take_text(char **text, const void *p, size_t len)
{
	free(*text);
	*text = gr_zalloc(len + 1);
	memcpy(*text, p, len);
}

/* A context's create, schedule or destroy, seen by grtrace probe */
static void take_ctx(struct gr_trace *t, const struct gr_event *ev, const void *p, size_t len)
{
	struct gr_tool_ctx c;

	take_payload(t, &c, sizeof(c), p, len);
	c.ring_id = gr_ring_local(t, c.ring_id);
	if (c.what >= GR_CTX_NR)
		t->unknown++;
	else
		gr_ctx_take(t, ev, &c);
}

/*
 * gr_stream_decode - decode one record of file @file at byte @off into @ev
 *
 * Updates the counters, rings, contexts and session of @t.  The stats
 * and config records of "grtrace record" only set @t->stats and @t->config.
 *
 * Returns: 1 with @ev set, 0 for a record that is not an event (stats),
 * -1 with the problem printed.
 */
int gr_stream_decode(struct gr_trace *t, int file, const struct grtrace_record *rec,
		     __u64 off, struct gr_event *ev)
{
	size_t len = rec->size - GR_REC_MIN;
	const void *p = rec + 1;

	if (rec->type == GR_TOOL_STATS && rec->cpu == GR_TOOL_CPU) {
		take_text(&t->stats, p, len);
		return 0;
	}
	if (rec->type == GR_TOOL_CONFIG && rec->cpu == GR_TOOL_CPU) {
		take_text(&t->config, p, len);
		return 0;
	}
	ev->ts = rec->ts;
	ev->gseq = rec->gseq;
	ev->cseq = rec->cseq;
	ev->cpu = rec->cpu;
	ev->type = rec->type;
	ev->size = rec->size;
	ev->file = file;
	ev->off = off;
	ev->origin = GR_ORIGIN_GRTRACE;
	ev->cannot = 0;

	if (!ev->gseq) {
		gr_err_msg("%s: record with gseq 0 (the kernel starts at 1)\n",
			   gr_where(t, ev));
		return -1;
	}
	/* CLOCK_MONOTONIC reaches 2^63 ns after 292 years: a damaged time */
	if (ev->ts >> 63) {
		gr_err_msg("%s: record at %llu ns, no CLOCK_MONOTONIC time: a damaged record\n",
			   gr_where(t, ev), (unsigned long long)ev->ts);
		return -1;
	}
	if (rec->type < GRTRACE_EV_NR) {
		take_job(t, ev, p, len);
		return 1;
	}
	memset(&ev->job, 0, sizeof(ev->job));
	if (rec->type == GRTRACE_EV_STREAM_INFO)
		return take_info(t, ev, p, len) ? -1 : 1;
	if (rec->type == GRTRACE_EV_METADATA) {
		take_ring(t, p, len);
		return 1;
	}
	if (rec->type == GRTRACE_EV_SUMMARY) {
		take_summary(t, p, len);
		return 1;
	}
	if (rec->type == GR_TOOL_CTX) {
		take_ctx(t, ev, p, len);
		return 1;
	}
	/* Ids are not reused within a session: nothing to undo. */
	if (rec->type != GRTRACE_EV_RING_REMOVED)
		t->unknown++;
	return 1;
}
