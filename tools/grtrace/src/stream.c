// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: reading the binary stream.
 *
 * An input is one file, a directory of per-CPU files (events<N> or
 * events<N>.bin), or the live relay files in debugfs.  Every file is cut
 * into records by their size field; records of all files are merged by
 * gseq.  Unknown record types and payload bytes beyond the known fields are
 * skipped, as the format allows.  Anything that cannot be a valid stream
 * stops the load with a message naming the file, the byte offset and the
 * problem.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stream.h"
#include "trace.h"
#include "utils.h"

#define GR_READ_BUF	(256 * 1024)

static const char * const type_names[GRTRACE_EV_NR] = {
	[GRTRACE_EV_SUBMIT]		= "submit",
	[GRTRACE_EV_COMMIT]		= "commit",
	[GRTRACE_EV_START]		= "start",
	[GRTRACE_EV_END]		= "end",
	[GRTRACE_EV_COMPLETE]		= "complete",
	[GRTRACE_EV_CTX_SWITCH]		= "ctx_switch",
	[GRTRACE_EV_IRQ]		= "irq",
	[GRTRACE_EV_SYNC_WAIT_ENTER]	= "sync_wait_enter",
	[GRTRACE_EV_SYNC_WAIT_EXIT]	= "sync_wait_exit",
	[GRTRACE_EV_ERROR]		= "error",
};

static const char * const engine_names[GRTRACE_ENGINE_NR] = {
	[GRTRACE_ENGINE_GRAPHICS]	= "graphics",
	[GRTRACE_ENGINE_COMPUTE]	= "compute",
	[GRTRACE_ENGINE_COPY]		= "copy",
	[GRTRACE_ENGINE_VIDEO_DECODE]	= "video_decode",
	[GRTRACE_ENGINE_VIDEO_ENCODE]	= "video_encode",
	[GRTRACE_ENGINE_OTHER]		= "other",
};

const char *gr_type_name(unsigned int type)
{
	if (type < GRTRACE_EV_NR)
		return type_names[type];
	if (type == GRTRACE_EV_STREAM_INFO)
		return "stream_info";
	if (type == GRTRACE_EV_METADATA)
		return "metadata";
	if (type == GR_TOOL_STATS)
		return "tool_stats";
	return "unknown";
}

const char *gr_engine_name(unsigned int engine)
{
	return engine < GRTRACE_ENGINE_NR ? engine_names[engine] : "unknown";
}

/* Returns: the engine class named @s, or -1. */
int gr_engine_parse(const char *s)
{
	unsigned int i;

	for (i = 0; i < GRTRACE_ENGINE_NR; i++)
		if (!strcmp(s, engine_names[i]))
			return i;
	return -1;
}

/* ---- cutting a file into records ---- */

int gr_reader_open(struct gr_reader *r, const char *path, bool nonblock)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->fd = open(path, O_RDONLY | (nonblock ? O_NONBLOCK : 0));
	if (r->fd < 0) {
		if (errno == EACCES || errno == EPERM)
			err_msg("%s: permission denied%s\n", path,
				nonblock ? ": the relay files are only readable by root" : "");
		else
			err_msg("%s: %s\n", path, strerror(errno));
		return -1;
	}
	r->buf = xzalloc(GR_READ_BUF);
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
		err_msg("%s: offset %llu: read error: %s\n", r->path,
			(unsigned long long)(r->off + r->tail), strerror(errno));
		return -1;
	}
	r->tail += n;
	return n;
}

static int bad_size(const struct gr_reader *r, const struct grtrace_record *h)
{
	err_msg("%s: offset %llu: bad record size %u, type 0x%x (not a multiple of 8 >= %u)\n",
		r->path, (unsigned long long)r->off, h->size, h->type, GR_REC_MIN);
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
			if (h->size < GR_REC_MIN || h->size % 8)
				return bad_size(r, h);
			if (avail >= h->size) {
				*rec = h;
				*off = r->off;
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
		err_msg("%s: offset %llu: truncated record header: %zu of %u bytes\n",
			r->path, (unsigned long long)r->off, left, GR_REC_MIN);
	else
		err_msg("%s: offset %llu: truncated record: %zu of %u bytes (type 0x%x)\n",
			r->path, (unsigned long long)r->off, left, h->size,
			h->type);
	return -1;
}

/* ---- finding the files ---- */

static int events_nr(const char *name)
{
	const char *p = name + 6;
	int n = 0;

	if (strncmp(name, "events", 6) || *p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9' && n < 1000000; p++)
		n = n * 10 + *p - '0';
	if (*p && strcmp(p, ".bin"))
		return -1;
	return n;
}

static int cmp_events_path(const void *a, const void *b)
{
	const char *x = strrchr(*(char * const *)a, '/') + 1;
	const char *y = strrchr(*(char * const *)b, '/') + 1;

	return events_nr(x) - events_nr(y);
}

/*
 * gr_list_events - the events<N> and events<N>.bin files of @dir, by N
 *
 * Returns: a NULL terminated list (maybe empty), or NULL if @dir cannot be
 * read (errno set).
 */
char **gr_list_events(const char *dir)
{
	struct dirent *de;
	char **list = NULL;
	size_t n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return NULL;
	list = xzalloc(sizeof(*list));
	while ((de = readdir(d))) {
		if (events_nr(de->d_name) < 0)
			continue;
		list = xrealloc(list, n + 2, sizeof(*list));
		list[n] = xzalloc(strlen(dir) + strlen(de->d_name) + 2);
		sprintf(list[n], "%s/%s", dir, de->d_name);
		list[++n] = NULL;
	}
	closedir(d);
	qsort(list, n, sizeof(*list), cmp_events_path);
	return list;
}

void gr_free_list(char **list)
{
	int i;

	for (i = 0; list && list[i]; i++)
		free(list[i]);
	free(list);
}

/* ---- decoding ---- */

/* Copy a payload into a known struct: zero fill or cut, count both. */
static void take_payload(struct gr_trace *t, void *dst, size_t known,
			 const void *src, size_t len)
{
	memset(dst, 0, known);
	memcpy(dst, src, len < known ? len : known);
	if (len > known)
		t->longer++;
	else if (len < known)
		t->shorter++;
}

struct gr_ring *gr_ring_slot(struct gr_trace *t, __u32 id)
{
	__u32 n = t->nr_rings;

	if (id >= n) {
		t->nr_rings = id + 1;
		t->rings = xrealloc(t->rings, t->nr_rings, sizeof(*t->rings));
		memset(t->rings + n, 0, (t->nr_rings - n) * sizeof(*t->rings));
	}
	return &t->rings[id];
}

static const char *where(const struct gr_trace *t, const struct gr_event *ev)
{
	static char buf[2][4200];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s: offset %llu", t->files[ev->file],
		 (unsigned long long)ev->off);
	return buf[i];
}

static int take_info(struct gr_trace *t, const struct gr_event *ev,
		     const void *p, size_t len)
{
	struct grtrace_stream_info si;

	take_payload(t, &si, sizeof(si), p, len);
	if (si.magic != GRTRACE_MAGIC) {
		err_msg("%s: STREAM_INFO has bad magic 0x%08x (expected 0x%08x)\n",
			where(t, ev), si.magic, GRTRACE_MAGIC);
		return -1;
	}
	if (si.record_size != GR_REC_MIN) {
		err_msg("%s: STREAM_INFO gives a %u-byte record header; only %u is supported\n",
			where(t, ev), si.record_size, GR_REC_MIN);
		return -1;
	}
	if (t->have_info && si.session_id != t->info.session_id) {
		err_msg("%s: a second session %016llx, after session %016llx: one at a time\n",
			where(t, ev), (unsigned long long)si.session_id,
			(unsigned long long)t->info.session_id);
		return -1;
	}
	t->info = si;
	t->have_info = true;
	return 0;
}

static int take_ring(struct gr_trace *t, const struct gr_event *ev,
		     const void *p, size_t len)
{
	struct grtrace_ring_info ri;
	struct gr_ring *r;

	take_payload(t, &ri, sizeof(ri), p, len);
	if (ri.ring_id >= GR_MAX_RINGS) {
		err_msg("%s: METADATA for ring id %u, beyond %u\n", where(t, ev),
			ri.ring_id, GR_MAX_RINGS - 1);
		return -1;
	}
	r = gr_ring_slot(t, ri.ring_id);
	r->known = true;
	r->engine = ri.engine;
	memcpy(r->dev, ri.dev, sizeof(ri.dev));
	memcpy(r->name, ri.name, sizeof(ri.name));
	return 0;
}

static int take_job(struct gr_trace *t, struct gr_event *ev,
		    const void *p, size_t len)
{
	struct gr_ring *r;

	take_payload(t, &ev->job, sizeof(ev->job), p, len);
	if (ev->job.ring_id >= GR_MAX_RINGS) {
		err_msg("%s: %s event on ring id %u, beyond %u\n", where(t, ev),
			gr_type_name(ev->type), ev->job.ring_id, GR_MAX_RINGS - 1);
		return -1;
	}
	r = gr_ring_slot(t, ev->job.ring_id);
	r->used = true;
	r->by_type[ev->type]++;
	if (!r->known)
		r->engine = ev->job.engine;
	t->by_type[ev->type]++;
	return 0;
}

static void take_stats(struct gr_trace *t, const void *p, size_t len)
{
	free(t->stats);
	t->stats = xzalloc(len + 1);
	memcpy(t->stats, p, len);
}

/* Returns: a new zeroed event at the end of @t->ev. */
struct gr_event *gr_trace_add(struct gr_trace *t)
{
	struct gr_event *ev;

	if (t->nr_ev == t->cap_ev) {
		t->cap_ev = t->cap_ev ? 2 * t->cap_ev : 4096;
		t->ev = xrealloc(t->ev, t->cap_ev, sizeof(*t->ev));
	}
	ev = &t->ev[t->nr_ev++];
	memset(ev, 0, sizeof(*ev));
	return ev;
}

static int add_record(struct gr_trace *t, int file,
		      const struct grtrace_record *rec, __u64 off)
{
	size_t len = rec->size - GR_REC_MIN;
	const void *p = rec + 1;
	struct gr_event *ev;

	if (rec->type == GR_TOOL_STATS && rec->cpu == GR_TOOL_CPU) {
		take_stats(t, p, len);
		return 0;
	}
	ev = gr_trace_add(t);
	ev->ts = rec->ts;
	ev->gseq = rec->gseq;
	ev->cseq = rec->cseq;
	ev->cpu = rec->cpu;
	ev->type = rec->type;
	ev->size = rec->size;
	ev->file = file;
	ev->off = off;

	if (!ev->gseq) {
		err_msg("%s: record with gseq 0 (the kernel starts at 1)\n",
			where(t, ev));
		return -1;
	}
	if (rec->type < GRTRACE_EV_NR)
		return take_job(t, ev, p, len);
	if (rec->type == GRTRACE_EV_STREAM_INFO)
		return take_info(t, ev, p, len);
	if (rec->type == GRTRACE_EV_METADATA)
		return take_ring(t, ev, p, len);
	t->unknown++;
	return 0;
}

static int load_file(struct gr_trace *t, int i, bool live)
{
	const struct grtrace_record *rec;
	struct gr_reader r;
	__u64 off;
	int ret;

	debug_msg("reading %s\n", t->files[i]);
	if (gr_reader_open(&r, t->files[i], live))
		return -1;
	while ((ret = gr_reader_next(&r, &rec, &off)) > 0) {
		ret = add_record(t, i, rec, off);
		if (ret)
			break;
	}
	if (!ret)
		ret = gr_reader_finish(&r);
	gr_reader_close(&r);
	return ret;
}

static int cmp_gseq(const void *a, const void *b)
{
	const struct gr_event *x = a, *y = b;

	return x->gseq < y->gseq ? -1 : x->gseq > y->gseq;
}

/* Sort by gseq, reject duplicates, count the gaps. */
static int merge(struct gr_trace *t)
{
	size_t i;

	qsort(t->ev, t->nr_ev, sizeof(*t->ev), cmp_gseq);
	for (i = 1; i < t->nr_ev; i++) {
		const struct gr_event *a = &t->ev[i - 1], *b = &t->ev[i];

		if (a->gseq == b->gseq) {
			err_msg("%s: gseq %llu also at %s: the input holds duplicate records\n",
				where(t, b), (unsigned long long)b->gseq,
				where(t, a));
			return -1;
		}
		t->lost += b->gseq - a->gseq - 1;
	}
	t->first_gseq = t->ev[0].gseq;
	t->first_ts = t->ev[0].ts;
	t->last_ts = t->ev[0].ts;
	for (i = 0; i < t->nr_ev; i++) {
		if (t->ev[i].ts < t->first_ts)
			t->first_ts = t->ev[i].ts;
		if (t->ev[i].ts > t->last_ts)
			t->last_ts = t->ev[i].ts;
	}
	t->start_ts = t->have_info ? t->info.start_ts : t->first_ts;
	return 0;
}

/* Live: name the rings that lost their METADATA from the "rings" file. */
static void live_rings(struct gr_trace *t)
{
	char *s = grtrace_read("rings"), *line, *save = NULL;
	char engine[32], dev[33], name[33];
	unsigned int id;
	struct gr_ring *r;

	for (line = s ? strtok_r(s, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%u %31s %32s %32s", &id, engine, dev, name) != 4 ||
		    id >= GR_MAX_RINGS)
			continue;
		r = gr_ring_slot(t, id);
		if (r->known)
			continue;
		r->known = true;
		r->engine = gr_engine_parse(engine) < 0 ? GRTRACE_ENGINE_OTHER :
			    gr_engine_parse(engine);
		snprintf(r->dev, sizeof(r->dev), "%s", dev);
		snprintf(r->name, sizeof(r->name), "%s", name);
	}
	free(s);
}

static int find_files(struct gr_trace *t, const char *path)
{
	bool live = !path;
	struct stat st;
	int n;

	if (!path) {
		if (grtrace_dir_check())
			return -1;
		path = grtrace_dir();
	}
	if (stat(path, &st)) {
		err_msg("%s: %s\n", path, strerror(errno));
		return -1;
	}
	t->input = path;
	t->is_dir = S_ISDIR(st.st_mode);
	if (t->is_dir) {
		t->files = gr_list_events(path);
		if (!t->files) {
			err_msg("%s: %s\n", path, strerror(errno));
			return -1;
		}
	} else {
		t->files = xzalloc(2 * sizeof(*t->files));
		t->files[0] = xstrdup(path);
	}
	for (n = 0; t->files[n]; n++)
		;
	t->nr_files = n;
	if (!n && !live)
		err_msg("%s: no events<N> or events<N>.bin files in this directory\n",
			path);
	else if (!n)
		err_msg("%s: no relay files: no session was started since grtrace was loaded\n",
			path);
	return n ? 0 : -1;
}

/* The kernel counters saved next to the relay files of a directory */
static void dir_stats(struct gr_trace *t, const char *dir)
{
	static const char * const names[] = {
		"stats", "stats.txt", "grtrace-stats.txt",
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names) && !t->stats; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		t->stats = read_text(path);
		if (t->stats)
			debug_msg("kernel stats from %s\n", path);
	}
}

/*
 * gr_trace_load - read and merge an input
 * @path: a file, a directory of per-CPU files, or NULL for the live relay
 *        files (whose data is consumed by reading them)
 *
 * Returns: 0, or -1 with the problem printed.
 */
int gr_trace_load(struct gr_trace *t, const char *path)
{
	bool live = !path;
	int i;

	memset(t, 0, sizeof(*t));
	if (find_files(t, path))
		return -1;
	if (!t->is_dir && !live && gr_is_tracedat(path)) {
		t->is_tracedat = true;
		if (gr_trace_load_dat(t, path))
			return -1;
		return merge(t);
	}
	t->clock = "mono";
	for (i = 0; i < t->nr_files; i++)
		if (load_file(t, i, live))
			return -1;
	if (!t->nr_ev) {
		if (t->nr_files == 1)
			err_msg("%s: offset 0: no grtrace records in this file\n",
				t->files[0]);
		else
			err_msg("%s: no grtrace records in any of its %d files%s\n",
				t->input, t->nr_files,
				live ? " (nothing recorded, or already read)" : "");
		return -1;
	}
	if (live) {
		live_rings(t);
		if (!t->stats)
			t->stats = grtrace_read("stats");
	} else if (t->is_dir) {
		dir_stats(t, path);
	}
	return merge(t);
}

void gr_trace_free(struct gr_trace *t)
{
	gr_free_list(t->files);
	free(t->ev);
	free(t->rings);
	free(t->stats);
	memset(t, 0, sizeof(*t));
}

const struct gr_ring *gr_ring(const struct gr_trace *t, __u32 id)
{
	static const struct gr_ring none = { .engine = GRTRACE_ENGINE_OTHER };

	return id < t->nr_rings ? &t->rings[id] : &none;
}

/* "dev/ring" of a described ring, "ring<N>" otherwise. */
void gr_ring_label(const struct gr_trace *t, __u32 id, char *buf, size_t len)
{
	const struct gr_ring *r = gr_ring(t, id);

	if (r->known)
		snprintf(buf, len, "%s/%s", r->dev, r->name);
	else
		snprintf(buf, len, "ring%u", id);
}
