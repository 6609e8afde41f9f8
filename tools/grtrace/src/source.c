// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: the records of an input, one at a time, in gseq order.
 *
 * The kernel writes the records of each CPU in gseq order, and "grtrace
 * record" writes one file in gseq order; a file made by concatenating
 * per-CPU files is a few such runs end to end.  A file is first scanned
 * record header by record header: the sizes are checked (a bad one stops
 * the input with its offset before anything is printed) and the file is
 * cut where gseq does not increase.  The runs of all files are then merged
 * with a heap by the gseq of their next record, each read with pread()
 * into a window of its own, and each record is decoded where it lies.
 * Memory is a window per run, whatever the length of the input.  A window
 * is read rather than mapped: a quarter of a megabyte is scanned or decoded
 * while the copy is still in the CPU's cache, where a mapping of the file
 * costs page-table work for every window and a cache miss for every
 * record, in each of the two passes.
 *
 * The live relay files are consumed by reading: they are merged once into
 * an unlinked temporary file (the spool), which is then read like a
 * recorded file, as often as the command needs.  Pipes ("-" is standard
 * input) are copied to the spool as they come and cut into runs there, as
 * a recorded file is.
 * A trace.dat is decoded by libtracecmd into an array (tracedat.c) and
 * served from it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <byteswap.h>

#include "input.h"
#include "source.h"
#include "tracedat.h"
#include "stream.h"
#include "utils.h"

#define RUN_MAX		4096		/* sorted runs per input at most */
#define WIN_ALL		(32 << 20)	/* bytes of window for all runs (to 2048) */
#define WIN_MAX		(256 << 10)	/* per run */
#define WIN_MIN		(16 << 10)
#define SPOOL_BUF	(1024 * 1024)

struct gr_run {
	int file;
	int session;		/* its session in the file, from 1 */
	__u64 start;		/* first byte of the run */
	__u64 end;		/* first byte after it */
	__u64 off;		/* the next record */
	unsigned char *win;	/* a window of the file */
	size_t win_size;	/* allocated */
	__u64 win_off;		/* its first byte's offset in the file */
	size_t win_len;		/* bytes read into it */
	struct gr_reader *rd;	/* a live relay file: read() as it comes */
	const struct grtrace_record *rec;	/* head record, NULL: none left */
	__u64 rec_off;
};

/* ---- windows ---- */

static void win_free(struct gr_run *r)
{
	free(r->win);
	r->win = NULL;
	r->win_size = 0;
	r->win_len = 0;
}

/*
 * Read [@off, @off + @len) of the run's file into its window, with as much
 * of what follows as the window holds.  Returns: a pointer to byte @off, or
 * NULL with the error printed.
 */
static const void *win_read(struct gr_src *s, struct gr_run *r, __u64 off, size_t len)
{
	__u64 size = s->size[r->file];
	size_t want = s->win > len ? s->win : len, got = 0;
	ssize_t n;

	if (len > size - off) {
		gr_err_msg("%s: offset %llu: a record of %zu bytes past the end of the file\n",
			   s->t->files[r->file], (unsigned long long)off, len);
		return NULL;
	}
	if (want > size - off)
		want = size - off;
	if (want > r->win_size) {
		free(r->win);
		r->win = gr_zalloc(want);
		r->win_size = want;
	}
	r->win_len = 0;
	while (got < want) {
		n = pread(s->fd[r->file], r->win + got, want - got, off + got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			gr_err_msg("%s: offset %llu: cannot read: %s\n", s->t->files[r->file],
				   (unsigned long long)(off + got),
				   n ? strerror(errno) : "the file got shorter");
			return NULL;
		}
		got += n;
	}
	r->win_off = off;
	r->win_len = want;
	return r->win;
}

/* [@off, @off + @len) of the run's file, which the caller knows is there */
static inline const void *win_at(struct gr_src *s, struct gr_run *r, __u64 off, size_t len)
{
	if (off >= r->win_off && off + len <= r->win_off + r->win_len)
		return r->win + (off - r->win_off);
	return win_read(s, r, off, len);
}

/* ---- cutting a file into sorted runs ---- */

static struct gr_run *add_run(struct gr_src *s, int file, __u64 start)
{
	struct gr_run *r;

	s->run = gr_realloc(s->run, s->nr_run + 1, sizeof(*s->run));
	r = &s->run[s->nr_run++];
	memset(r, 0, sizeof(*r));
	r->file = file;
	r->start = start;
	r->off = start;
	r->end = start;
	return r;
}

static int cut_short(const char *path, __u64 off, __u64 left, const struct grtrace_record *h)
{
	if (left < GR_REC_MIN)
		gr_err_msg("%s: offset %llu: truncated record header: %llu of %u bytes\n",
			   path, (unsigned long long)off, (unsigned long long)left, GR_REC_MIN);
	else
		gr_err_msg("%s: offset %llu: truncated record: %llu of %u bytes (type 0x%x)\n",
			   path, (unsigned long long)off, (unsigned long long)left, h->size,
			   h->type);
	return -1;
}

/**
 * gr_session_number - the number of session @id, from 1, in the order met
 * @sids: the session ids met so far, by number - 1 (grown with a new one)
 * @nr_sids: their count
 * @id: a STREAM_INFO's session id
 *
 * Every reader numbers the sessions of its input this way (--session N).
 *
 * Returns: the number of @id.
 */
int gr_session_number(__u64 **sids, int *nr_sids, __u64 id)
{
	int k;

	for (k = 0; k < *nr_sids; k++)
		if ((*sids)[k] == id)
			return k + 1;
	*sids = gr_realloc(*sids, *nr_sids + 1, sizeof(**sids));
	(*sids)[(*nr_sids)++] = id;
	return *nr_sids;
}

/*
 * Check every record header of file @i and cut it into runs of
 * increasing gseq, and of one session each: a STREAM_INFO starts the runs
 * of its session id, numbered across the files (two recordings end to end,
 * or a directory of two sessions' files); records before a file's first
 * STREAM_INFO are of the first session.  Returns: 0, or -1 with the
 * problem printed.
 */
static int scan_file(struct gr_src *s, int i)
{
	const char *path = s->t->files[i];
	__u64 size = s->size[i], off = 0, prev = 0, prev_off = 0;
	struct gr_run cur = { .file = i }, *r = NULL;
	const struct grtrace_record *h;
	const struct grtrace_stream_info *si;
	int ret = 0, session = 1, k;
	unsigned int prev_size = 0;

	while (off < size) {
		if (size - off < GR_REC_MIN) {
			ret = cut_short(path, off, size - off, NULL);
			break;
		}
		h = win_at(s, &cur, off, GR_REC_MIN);
		if (!h) {
			ret = -1;
			break;
		}
		if (!off && h->type != GRTRACE_EV_STREAM_INFO &&
		    bswap_16(h->type) == GRTRACE_EV_STREAM_INFO) {
			gr_err_msg("%s: offset 0: %s\n", path,
				   "written by a host of the other byte order; not supported");
			ret = -1;
			break;
		}
		if (h->size < GR_REC_MIN || h->size % 8) {
			ret = gr_bad_size(path, off, h, prev_off, prev_size);
			break;
		}
		if (size - off < h->size) {
			ret = cut_short(path, off, size - off, h);
			break;
		}
		if (h->type == GRTRACE_EV_STREAM_INFO &&
		    h->size >= GR_REC_MIN + offsetof(struct grtrace_stream_info, features)) {
			si = win_at(s, &cur, off + GR_REC_MIN,
				    offsetof(struct grtrace_stream_info, features));
			if (!si) {
				ret = -1;
				break;
			}
			k = gr_session_number(&s->sids, &s->nr_sids, si->session_id);
			h = win_at(s, &cur, off, GR_REC_MIN);	/* the window may move */
			if (!h) {
				ret = -1;
				break;
			}
			if (k != session)
				r = NULL;
			session = k;
		}
		if (!r || h->gseq <= prev) {
			if (s->nr_run == RUN_MAX) {
				gr_err_msg("%s: offset %llu: gseq %llu after %llu: %s %d %s\n",
					   path, (unsigned long long)off,
					   (unsigned long long)h->gseq, (unsigned long long)prev,
					   "more than", RUN_MAX, "runs of records in gseq order");
				ret = -1;
				break;
			}
			r = add_run(s, i, off);
			r->session = session;
		}
		prev = h->gseq;
		prev_off = off;
		prev_size = h->size;
		off += h->size;
		r->end = off;
	}
	win_free(&cur);
	if (s->nr_sids > s->t->nr_sessions)
		s->t->nr_sessions = s->nr_sids;
	if (!s->t->nr_sessions)
		s->t->nr_sessions = 1;
	return ret;
}

/*
 * Keep the runs of session t->session (from 1) only; with 0, all, and a
 * second session is refused when its STREAM_INFO is read.
 */
static int pick_session(struct gr_src *s)
{
	struct gr_trace *t = s->t;
	int k, n = 0;

	if (!t->session)
		return 0;
	if (t->session > t->nr_sessions) {
		gr_err_msg("%s: no session %d: the input holds %d\n", t->input, t->session,
			   t->nr_sessions);
		return -1;
	}
	for (k = 0; k < s->nr_run; k++)
		if (s->run[k].session == t->session)
			s->run[n++] = s->run[k];
	s->nr_run = n;
	return 0;
}

/* ---- the head record of a run ---- */

/* Returns: 1 with r->rec set, 0 at the end of the run, -1. */
static int run_fetch(struct gr_src *s, struct gr_run *r)
{
	const struct grtrace_record *h;
	__u64 prev = r->rec ? r->rec->gseq : 0;
	int ret;

	if (r->rd) {
		ret = gr_reader_next(r->rd, &r->rec, &r->rec_off);
		if (ret <= 0) {
			r->rec = NULL;
			return ret < 0 ? -1 : gr_reader_finish(r->rd);
		}
		if (prev && r->rec->gseq <= prev) {
			gr_err_msg("%s: offset %llu: gseq %llu after %llu: %s\n",
				   s->t->files[r->file], (unsigned long long)r->rec_off,
				   (unsigned long long)r->rec->gseq, (unsigned long long)prev,
				   "records out of gseq order");
			return -1;
		}
		return 1;
	}
	r->rec = NULL;
	if (r->off >= r->end) {
		win_free(r);
		return 0;
	}
	h = win_at(s, r, r->off, GR_REC_MIN);
	if (h && (h->size < GR_REC_MIN || h->size > r->end - r->off)) {
		gr_err_msg("%s: offset %llu: record size %u, not the scan's: %s\n",
			   s->t->files[r->file], (unsigned long long)r->off, h->size,
			   "the file changed while it was read");
		return -1;
	}
	if (h && h->size > GR_REC_MIN)
		h = win_at(s, r, r->off, h->size);
	if (!h)
		return -1;
	r->rec = h;
	r->rec_off = r->off;
	r->off += h->size;
	return 1;
}

/* ---- the heap of runs, by the gseq of their head record ---- */

static bool run_before(const struct gr_src *s, int a, int b)
{
	const struct gr_run *x = &s->run[a], *y = &s->run[b];

	if (x->rec->gseq != y->rec->gseq)
		return x->rec->gseq < y->rec->gseq;
	return a < b;
}

static void sift_down(struct gr_src *s, int i)
{
	int c, tmp;

	for (;;) {
		c = 2 * i + 1;
		if (c >= s->nr_heap)
			return;
		if (c + 1 < s->nr_heap && run_before(s, s->heap[c + 1], s->heap[c]))
			c++;
		if (!run_before(s, s->heap[c], s->heap[i]))
			return;
		tmp = s->heap[c];
		s->heap[c] = s->heap[i];
		s->heap[i] = tmp;
		i = c;
	}
}

/* Fetch the first record of every run and order them. */
static int heap_build(struct gr_src *s)
{
	int i, ret;

	s->heap = gr_realloc(s->heap, s->nr_run + 1, sizeof(*s->heap));
	s->nr_heap = 0;
	for (i = 0; i < s->nr_run; i++) {
		s->run[i].rec = NULL;
		ret = run_fetch(s, &s->run[i]);
		if (ret < 0)
			return -1;
		if (ret)
			s->heap[s->nr_heap++] = i;
	}
	for (i = s->nr_heap / 2 - 1; i >= 0; i--)
		sift_down(s, i);
	return 0;
}

/*
 * The next record of the input in gseq order, valid until advance().
 * Returns: 1, or 0 at the end.
 */
static int next_record(struct gr_src *s, const struct grtrace_record **rec, __u64 *off,
		       int *file)
{
	struct gr_run *r;

	if (!s->nr_heap)
		return 0;
	r = &s->run[s->heap[0]];
	*rec = r->rec;
	*off = r->rec_off;
	*file = r->file;
	return 1;
}

/* Move past the record next_record() returned. */
static int advance(struct gr_src *s)
{
	int ret = run_fetch(s, &s->run[s->heap[0]]);

	if (ret < 0)
		return -1;
	if (!ret)
		s->heap[0] = s->heap[--s->nr_heap];
	sift_down(s, 0);
	return 0;
}

/* ---- the spool of the live relay files and of pipes ---- */

static int spool_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* @rec after the @*len bytes of @buf, which go to the spool first if full */
static int spool_add(int fd, unsigned char *buf, size_t *len,
		     const struct grtrace_record *rec)
{
	if (*len + rec->size > SPOOL_BUF) {
		if (spool_write(fd, buf, *len))
			return -1;
		*len = 0;
	}
	memcpy(buf + *len, rec, rec->size);
	*len += rec->size;
	return 0;
}

/*
 * Copy the records of each file (a pipe: several CPUs' files one after the
 * other, say) to the spool in the order they come, for scan_file() to cut
 * into runs as it cuts a recorded file.  Returns: 0, -1 with errno set for
 * a write error, or -2 (printed).
 */
static int spool_copy(struct gr_src *s, unsigned char *buf)
{
	const struct grtrace_record *rec;
	struct gr_reader rd;
	size_t len = 0;
	int i, ret = 0;
	__u64 off;

	for (i = 0; !ret && i < s->t->nr_files; i++) {
		if (gr_reader_open(&rd, s->t->files[i], false))
			return -2;
		while ((ret = gr_reader_next(&rd, &rec, &off)) > 0)
			if (spool_add(s->spool, buf, &len, rec))
				break;
		if (ret > 0)
			ret = -1;
		else if (ret < 0 || gr_reader_finish(&rd))
			ret = -2;
		gr_reader_close(&rd);
	}
	if (!ret && spool_write(s->spool, buf, len))
		ret = -1;
	return ret;
}

/*
 * Read the files into an unlinked temporary file: the live relay files
 * (@live), to their current end, merged; others (pipes) as they come.
 * Read that from now on, as file 0.
 * Returns: 0, or -1 (printed).
 */
static int spool(struct gr_src *s, bool live)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	const struct grtrace_record *rec;
	unsigned char *buf = gr_zalloc(SPOOL_BUF);
	size_t len = 0;
	char path[4096];
	struct stat st;
	int i, file, ret = -1;
	__u64 off;

	snprintf(path, sizeof(path), "%s/grtrace-live.XXXXXX", tmp);
	s->spool = mkstemp(path);
	if (s->spool < 0) {
		gr_err_msg("%s: %s\n", path, strerror(errno));
		goto out;
	}
	unlink(path);
	if (!live) {
		i = spool_copy(s, buf);
		if (i == -1)
			goto write_error;
		if (i)
			goto out;
		goto spooled;
	}
	for (i = 0; i < s->t->nr_files; i++) {
		struct gr_run *r = add_run(s, i, 0);

		r->rd = gr_zalloc(sizeof(*r->rd));
		if (gr_reader_open(r->rd, s->t->files[i], live)) {
			free(r->rd);
			r->rd = NULL;
			goto out;
		}
	}
	if (heap_build(s))
		goto out;
	while (next_record(s, &rec, &off, &file)) {
		if (spool_add(s->spool, buf, &len, rec))
			goto write_error;
		if (advance(s))
			goto out;
	}
	if (spool_write(s->spool, buf, len))
		goto write_error;
	for (i = 0; i < s->nr_run; i++) {
		gr_reader_close(s->run[i].rd);
		free(s->run[i].rd);
	}
	s->nr_run = 0;
spooled:
	/* From now on: the spool, as file 0 */
	if (fstat(s->spool, &st))
		goto write_error;
	if (s->fd[0] >= 0)
		close(s->fd[0]);
	s->fd[0] = s->spool;
	s->size[0] = st.st_size;
	if (live)
		gr_input_live_info(s->t);
	ret = scan_file(s, 0);
	if (!ret)
		ret = pick_session(s);
	goto out;
write_error:
	gr_err_msg("%s: %s\n", path, strerror(errno));
out:
	free(buf);
	return ret;
}

/* ---- the source ---- */

/*
 * gr_src_open - open an input for reading its records in gseq order
 * @path: a file, a directory of per-CPU files, or NULL for the live relay
 *        files (consumed: copied once into a temporary file, as a pipe is)
 *
 * Returns: 0, or -1 with the problem printed.
 */
int gr_src_open(struct gr_src *s, struct gr_trace *t, const char *path)
{
	bool streamed = !path;
	struct stat st;
	int i;

	memset(s, 0, sizeof(*s));
	s->t = t;
	s->spool = -1;
	if (gr_input_find(t, path))
		return -1;
	if (t->is_tracedat && !t->whole && !t->instance) {
		s->dat = gr_dat_open(t, t->input);
		return s->dat ? gr_src_rewind(s) : -1;
	}
	if (t->is_tracedat) {
		s->array = true;
		return 0;
	}
	s->nr_fd = t->nr_files;
	s->fd = gr_zalloc(t->nr_files * sizeof(*s->fd));
	s->size = gr_zalloc(t->nr_files * sizeof(*s->size));
	for (i = 0; i < t->nr_files; i++)
		s->fd[i] = -1;
	s->win = WIN_MAX;
	for (i = 0; path && i < t->nr_files; i++) {
		s->fd[i] = open(t->files[i], O_RDONLY);
		if (s->fd[i] < 0 || fstat(s->fd[i], &st)) {
			gr_err_msg("%s: %s\n", t->files[i], strerror(errno));
			return -1;
		}
		s->size[i] = st.st_size;
		if (!S_ISREG(st.st_mode))	/* a pipe */
			streamed = true;
	}
	if (streamed)
		return spool(s, !path) || gr_src_rewind(s) ? -1 : 0;
	for (i = 0; i < t->nr_files; i++)
		if (scan_file(s, i))
			return -1;
	return pick_session(s) || gr_src_rewind(s) ? -1 : 0;
}

/*
 * gr_src_rewind - read the input again from its first record
 *
 * Resets the counters of the input (gr_trace); the rings stay described.
 * An input read with read() (a pipe) cannot be read again.
 * Returns: 0, or -1 with the problem printed.
 */
int gr_src_rewind(struct gr_src *s)
{
	struct gr_trace *t = s->t;
	__u32 i;
	int k;

	s->have_prev = false;
	s->next = 0;
	if (s->array)
		return 0;
	for (k = 0; !s->dat && k < s->nr_run; k++) {
		if (s->run[k].rd && s->run[k].rd->off) {
			gr_err_msg("%s: cannot be read twice\n", t->files[s->run[k].file]);
			return -1;
		}
		s->run[k].off = s->run[k].start;
	}
	s->win = s->nr_run ? WIN_ALL / s->nr_run : WIN_MAX;
	s->win = s->win > WIN_MAX ? WIN_MAX : s->win < WIN_MIN ? WIN_MIN : s->win;
	memset(t->by_type, 0, sizeof(t->by_type));
	for (i = 0; i < t->nr_rings; i++) {
		memset(t->rings[i].by_type, 0, sizeof(t->rings[i].by_type));
		t->rings[i].used = false;
		memset(&t->rings[i].sum, 0, sizeof(t->rings[i].sum));
		t->rings[i].windows = 0;
	}
	t->records = 0;
	t->unknown = 0;
	t->longer = 0;
	t->shorter = 0;
	t->lost = 0;
	t->jumps = 0;
	if (t->nr_cseq)
		memset(t->cseq, 0, t->nr_cseq * sizeof(*t->cseq));
	t->cpus = 0;
	t->first_gseq = 0;
	t->first_ts = 0;
	t->last_ts = 0;
	if (s->dat) {
		gr_dat_rewind(s->dat);
		return 0;
	}
	return heap_build(s);
}

static void count(struct gr_trace *t, const struct gr_event *ev, __u64 prev_gseq)
{
	if (!t->records++) {
		t->first_gseq = ev->gseq;
		t->first_ts = ev->ts;
		t->last_ts = ev->ts;
	}
	gr_count_gap(t, ev, t->records > 1 ? prev_gseq : 0);
	if (ev->cpu < 64)
		t->cpus |= 1ULL << ev->cpu;
	if (ev->ts < t->first_ts)
		t->first_ts = ev->ts;
	if (ev->ts > t->last_ts)
		t->last_ts = ev->ts;
}

/*
 * gr_src_no_records - say that an input holds no record, as every reader
 * says it
 * @input: the input, as named
 * @file: its first file, named when it is the only one
 * @nr_files: its files
 * @live: whether it was read as it is written (nothing recorded yet, or
 *        already consumed)
 */
void gr_src_no_records(const char *input, const char *file, int nr_files, bool live)
{
	if (nr_files == 1)
		gr_err_msg("%s: offset 0: no grtrace records in this file\n", file);
	else
		gr_err_msg("%s: no grtrace records in any of its %d files%s\n", input,
			   nr_files, live ? " (nothing recorded, or already read)" : "");
}

/*
 * gr_input_cpus_read - the CPUs of @t's session whose records the input
 * holds, when that looks like part of a recording: gseq gaps, and fewer
 * per-CPU files with records than the session had CPUs, without the
 * kernel's counters that grtrace record saves (which would count the
 * gaps as drops).  Returns: that number, or -1 when the input looks whole.
 */
int gr_input_cpus_read(const struct gr_trace *t)
{
	int read = __builtin_popcountll(t->cpus);

	if (t->lost && t->have_info && !t->stats && t->info.nr_cpus <= 64 &&
	    t->nr_files < (int)t->info.nr_cpus && read < (int)t->info.nr_cpus)
		return read;
	return -1;
}

/* gr_input_partial_warn - say so when @t is part of a recording */
void gr_input_partial_warn(const struct gr_trace *t)
{
	int read = gr_input_cpus_read(t);

	if (read >= 0)
		gr_err_msg("%s: records of %d of %u CPUs, %llu gseq gaps: files missing?\n",
			   t->input, read, t->info.nr_cpus, (unsigned long long)t->lost);
	else if (!t->have_info && !t->is_tracedat && !t->instance && t->records)
		gr_err_msg("%s: no STREAM_INFO (the session's start): one CPU's file alone?\n",
			   t->input);
}

/* At the end of the input: its time origin, or why it is empty. */
static int at_end(struct gr_src *s)
{
	struct gr_trace *t = s->t;

	if (!t->records) {
		gr_src_no_records(t->input, t->files[0], t->nr_files, s->spool >= 0);
		return -1;
	}
	t->start_ts = t->have_info ? t->info.start_ts : t->first_ts;
	return 0;
}

/*
 * gr_src_next - the next event of the input, in gseq order
 *
 * Returns: 1 with @ev set, 0 at the end (the counters of the input are
 * complete then), -1 with the problem printed.
 */
int gr_src_next(struct gr_src *s, struct gr_event *ev)
{
	const struct grtrace_record *rec;
	struct gr_event prev;
	int file, ret;
	__u64 off;

	if (s->array) {
		if (s->next == s->t->nr_ev)
			return 0;
		*ev = s->t->ev[s->next++];
		return 1;
	}
	if (s->dat) {
		if (!gr_dat_next(s->dat, ev))
			return at_end(s) ? -1 : 0;
		count(s->t, ev, s->prev_gseq);
		s->have_prev = true;
		s->prev_gseq = ev->gseq;
		return 1;
	}
	for (;;) {
		ret = next_record(s, &rec, &off, &file);
		if (ret <= 0)
			return ret < 0 ? -1 : at_end(s) ? -1 : 0;
		ret = gr_stream_decode(s->t, file, rec, off, ev);
		if (ret >= 0 && advance(s))
			ret = -1;
		if (ret < 0)
			return -1;
		if (ret)
			break;
	}
	if (s->have_prev && ev->gseq == s->prev_gseq) {
		prev.file = s->prev_file;
		prev.off = s->prev_off;
		gr_err_msg("%s: gseq %llu also at %s: the input holds duplicate records\n",
			   gr_where(s->t, ev), (unsigned long long)ev->gseq,
			   gr_where(s->t, &prev));
		return -1;
	}
	count(s->t, ev, s->prev_gseq);
	s->have_prev = true;
	s->prev_gseq = ev->gseq;
	s->prev_file = ev->file;
	s->prev_off = ev->off;
	return 1;
}

void gr_src_close(struct gr_src *s)
{
	int i;

	gr_dat_close(s->dat);
	for (i = 0; i < s->nr_run; i++) {
		win_free(&s->run[i]);
		if (s->run[i].rd) {
			gr_reader_close(s->run[i].rd);
			free(s->run[i].rd);
		}
	}
	for (i = 0; i < s->nr_fd; i++)
		if (s->fd[i] >= 0 && s->fd[i] != s->spool)
			close(s->fd[i]);
	if (s->spool >= 0)
		close(s->spool);
	free(s->fd);
	free(s->size);
	free(s->run);
	free(s->heap);
	free(s->sids);
	memset(s, 0, sizeof(*s));
	s->spool = -1;
}

/*
 * gr_input_load - read a whole input into @t->ev, in gseq order
 * @path: as for gr_input_find()
 *
 * For the commands that need every event at once; report reads its input
 * as a stream.  Declared in input.h.
 * Returns: 0, or -1 with the problem printed.
 */
int gr_input_load(struct gr_trace *t, const char *path)
{
	struct gr_event ev;
	struct gr_src s;
	int ret;

	t->whole = true;
	if (gr_src_open(&s, t, path)) {
		gr_src_close(&s);
		return -1;
	}
	if (!s.array)
		while ((ret = gr_src_next(&s, &ev)) > 0)
			*gr_trace_add(t) = ev;
	else
		ret = 0;
	gr_src_close(&s);
	if (!ret)
		gr_input_partial_warn(t);
	return ret;
}
