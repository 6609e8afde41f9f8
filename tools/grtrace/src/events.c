// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: the events of an input, decoded by the readers of the relay
 * stream (stream.c) and of other recordings, merged by gseq.  The names of
 * the record types and engine classes.
 */
#define _GNU_SOURCE		/* qsort_r() */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "utils.h"

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

/**
 * gr_name_clean - a task's or a ring's name, as every output shows it
 * @s: the name, at most @len bytes
 * @len: its size
 *
 * A task names itself (prctl(PR_SET_NAME)), with any byte but NUL: a
 * control character, an escape sequence, reaches the terminal of whoever
 * reads a report.  Each becomes '?', as ps(1) shows it.
 */
void gr_name_clean(char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && s[i]; i++)
		if ((unsigned char)s[i] < ' ' || s[i] == 0x7f)
			s[i] = '?';
}

const char *gr_type_name(unsigned int type)
{
	if (type < GRTRACE_EV_NR)
		return type_names[type];
	if (type == GRTRACE_EV_STREAM_INFO)
		return "stream_info";
	if (type == GRTRACE_EV_METADATA)
		return "metadata";
	if (type == GRTRACE_EV_RING_REMOVED)
		return "ring_removed";
	if (type == GRTRACE_EV_SUMMARY)
		return "summary";
	if (type == GR_TOOL_STATS)
		return "tool_stats";
	if (type == GR_TOOL_CTX)
		return "context";
	if (type == GR_TOOL_CONFIG)
		return "tool_config";
	return "unknown";
}

/* The name of an enum gr_ctx_what. */
const char *gr_ctx_what_name(unsigned int what)
{
	static const char * const names[GR_CTX_NR] = {
		[GR_CTX_CREATE]		= "create",
		[GR_CTX_SCHEDULE]	= "schedule",
		[GR_CTX_DESTROY]	= "destroy",
	};

	return what < GR_CTX_NR ? names[what] : "unknown";
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

/* ---- the events of an input ---- */

static __u32 ring_hash(__u32 id, __u32 size)
{
	return (id * 2654435761U) & (size - 1);
}

static void ring_hash_put(struct gr_trace *t, __u32 local)
{
	__u32 h = ring_hash(t->rings[local].id, t->ring_hash_size);

	while (t->ring_hash[h])
		h = (h + 1) & (t->ring_hash_size - 1);
	t->ring_hash[h] = local + 1;
}

/* Returns: the index of a new ring of kernel id @id, zeroed. */
static __u32 ring_add(struct gr_trace *t, __u32 id)
{
	__u32 n = t->nr_rings;

	if (n == t->rings_cap) {
		t->rings_cap = n ? 2 * n : 16;
		t->rings = gr_realloc(t->rings, t->rings_cap, sizeof(*t->rings));
	}
	memset(&t->rings[n], 0, sizeof(t->rings[n]));
	t->rings[n].id = id;
	t->nr_rings = n + 1;
	return n;
}

/*
 * gr_ring_local - the local index of the kernel's ring @id
 *
 * A ring met for the first time is added, zeroed: its index is the number
 * of rings met before it, and 0 stays the kernel's ring 0.  Any id is
 * taken, as the kernel numbers rings without a cap; what a ring costs is
 * bounded by the records naming it.
 * Returns: the index in @t->rings.
 */
__u32 gr_ring_local(struct gr_trace *t, __u32 id)
{
	__u32 h, k, n;

	if (!t->nr_rings)
		ring_add(t, 0);
	if (!id)
		return 0;
	if (t->ring_hash_size) {
		for (h = ring_hash(id, t->ring_hash_size); t->ring_hash[h];
		     h = (h + 1) & (t->ring_hash_size - 1))
			if (t->rings[t->ring_hash[h] - 1].id == id)
				return t->ring_hash[h] - 1;
	}
	n = ring_add(t, id);
	/* At most half full: the probes above stay short. */
	if (2 * t->nr_rings > t->ring_hash_size) {
		free(t->ring_hash);
		t->ring_hash_size = t->ring_hash_size ? 2 * t->ring_hash_size : 64;
		t->ring_hash = gr_zalloc(t->ring_hash_size * sizeof(*t->ring_hash));
		for (k = 1; k < t->nr_rings; k++)
			ring_hash_put(t, k);
	} else {
		ring_hash_put(t, n);
	}
	return n;
}

/* gr_rings_rehash - after the rings' ids changed: find them by the new ones */
void gr_rings_rehash(struct gr_trace *t)
{
	__u32 k;

	if (!t->ring_hash_size)
		return;
	memset(t->ring_hash, 0, t->ring_hash_size * sizeof(*t->ring_hash));
	for (k = 1; k < t->nr_rings; k++)
		ring_hash_put(t, k);
}

static int cmp_ring_id(const void *a, const void *b, void *trace)
{
	const struct gr_trace *t = trace;
	__u32 x = t->rings[*(const __u32 *)a].id;
	__u32 y = t->rings[*(const __u32 *)b].id;

	return x < y ? -1 : x > y;
}

/* Returns: the local indexes of the rings in the order of their ids (free it). */
__u32 *gr_rings_by_id(const struct gr_trace *t)
{
	__u32 *idx = gr_zalloc((t->nr_rings + 1) * sizeof(*idx));
	__u32 i;

	for (i = 0; i < t->nr_rings; i++)
		idx[i] = i;
	qsort_r(idx, t->nr_rings, sizeof(*idx), cmp_ring_id, (void *)t);
	return idx;
}

/* Returns: "file: offset N" of @ev, valid until the next call but one. */
const char *gr_where(const struct gr_trace *t, const struct gr_event *ev)
{
	static char buf[2][4200];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s: offset %llu", t->files[ev->file],
		 (unsigned long long)ev->off);
	return buf[i];
}

/* Returns: a new zeroed event at the end of @t->ev. */
struct gr_event *gr_trace_add(struct gr_trace *t)
{
	struct gr_event *ev;

	if (t->nr_ev == t->cap_ev) {
		t->cap_ev = t->cap_ev ? 2 * t->cap_ev : 4096;
		t->ev = gr_realloc(t->ev, t->cap_ev, sizeof(*t->ev));
	}
	ev = &t->ev[t->nr_ev++];
	memset(ev, 0, sizeof(*ev));
	return ev;
}

static int cmp_gseq(const void *a, const void *b)
{
	const struct gr_event *x = a, *y = b;

	return x->gseq < y->gseq ? -1 : x->gseq > y->gseq;
}

/*
 * gr_trace_merge - sort the events by gseq, reject duplicates, count the gaps
 *
 * Returns: 0, or -1 with the problem printed.
 */
int gr_trace_merge(struct gr_trace *t)
{
	size_t i;

	qsort(t->ev, t->nr_ev, sizeof(*t->ev), cmp_gseq);
	if (t->nr_ev)
		gr_count_gap(t, &t->ev[0], 0);
	for (i = 1; i < t->nr_ev; i++) {
		const struct gr_event *a = &t->ev[i - 1], *b = &t->ev[i];

		if (a->gseq == b->gseq) {
			gr_err_msg("%s: gseq %llu also at %s: the input holds duplicate records\n",
				   gr_where(t, b), (unsigned long long)b->gseq,
				   gr_where(t, a));
			return -1;
		}
		gr_count_gap(t, b, a->gseq);
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

/* ---- the contexts of the GR_TOOL_CTX records ---- */

/* The slot of the hash that holds, or would hold, the last context @ctx_id. */
static size_t *ctx_slot(const struct gr_trace *t, __u64 ctx_id)
{
	size_t mask = t->ctx_hash_size - 1;
	size_t h = ((ctx_id * 0x9e3779b97f4a7c15ULL) >> 32) & mask;

	while (t->ctx_hash[h] && t->ctx[t->ctx_hash[h] - 1].ctx_id != ctx_id)
		h = (h + 1) & mask;
	return &t->ctx_hash[h];
}

/* Returns: a new context @ctx_id, the last of its id. */
static struct gr_ctx *ctx_new(struct gr_trace *t, __u64 ctx_id, size_t *slot)
{
	struct gr_ctx *c;
	size_t i, old = t->ctx_hash_size;
	size_t *h = t->ctx_hash;

	t->ctx = gr_realloc(t->ctx, t->nr_ctx + 1, sizeof(*t->ctx));
	c = &t->ctx[t->nr_ctx++];
	memset(c, 0, sizeof(*c));
	c->ctx_id = ctx_id;
	c->prev = *slot;
	*slot = t->nr_ctx;
	if (t->nr_ctx <= old / 2)
		return c;
	/* Half full: rehash the last context of each id into a table twice as big */
	t->ctx_hash_size = 2 * old;
	t->ctx_hash = gr_zalloc(t->ctx_hash_size * sizeof(*t->ctx_hash));
	for (i = 0; i < old; i++)
		if (h[i])
			*ctx_slot(t, t->ctx[h[i] - 1].ctx_id) = h[i];
	free(h);
	return c;
}

/*
 * gr_ctx_take - account a GR_TOOL_CTX record @ev of payload @c
 *
 * Records of a gseq not above the last one taken are those of a second
 * pass over the input, already taken.
 */
void gr_ctx_take(struct gr_trace *t, const struct gr_event *ev, const struct gr_tool_ctx *c)
{
	struct gr_ctx *x = NULL;
	size_t *slot;

	if (t->ctx_records && ev->gseq <= t->ctx_gseq)
		return;
	t->ctx_records++;
	t->ctx_gseq = ev->gseq;
	if (!t->ctx_hash) {
		t->ctx_hash_size = 64;
		t->ctx_hash = gr_zalloc(t->ctx_hash_size * sizeof(*t->ctx_hash));
	}
	slot = ctx_slot(t, c->ctx_id);
	if (*slot && c->what != GR_CTX_CREATE && !t->ctx[*slot - 1].destroyed)
		x = &t->ctx[*slot - 1];
	if (!x) {
		x = ctx_new(t, c->ctx_id, slot);
		x->first_ts = ev->ts;
		x->pid = c->pid;
		x->tgid = c->tgid;
		memcpy(x->comm, c->comm, sizeof(c->comm));
		gr_name_clean(x->comm, sizeof(x->comm));
	}
	if (!x->ring_id)
		x->ring_id = c->ring_id;
	if (c->what == GR_CTX_CREATE) {
		x->created = true;
		x->created_ts = ev->ts;
	} else if (c->what == GR_CTX_SCHEDULE) {
		x->schedules++;
	} else {
		x->destroyed = true;
		x->destroyed_ts = ev->ts;
	}
	if (!x->attrs[0]) {
		memcpy(x->attrs, c->attrs, sizeof(c->attrs));
		gr_name_clean(x->attrs, sizeof(x->attrs));
	}
}

/*
 * gr_ctx_at - the context @ctx_id of a job that began at @ts
 *
 * The last context of the id that began at @ts or before: created then,
 * or, not seen created, alive since the input began (the first of its id)
 * or since its first record.  A job that begins after its context's
 * destroy (the driver's own command of the destroy) stays its.
 * Returns: the context, or NULL.
 */
const struct gr_ctx *gr_ctx_at(const struct gr_trace *t, __u64 ctx_id, __u64 ts)
{
	const struct gr_ctx *c;
	size_t i;

	if (!t->nr_ctx)
		return NULL;
	for (i = *ctx_slot(t, ctx_id); i; i = c->prev) {
		c = &t->ctx[i - 1];
		if (c->created ? c->created_ts <= ts : !c->prev || c->first_ts <= ts)
			return c;
	}
	return NULL;
}

/*
 * gr_count_gap - count the records lost before @ev, the record after gseq
 * @prev_gseq (0: the first)
 *
 * Records the kernel wrote and the input does not hold are a gap in gseq.
 * A gap of GR_GSEQ_JUMP or more before a record whose CPU wrote nothing in
 * between (its cseq follows the last of that CPU's records) is no loss but
 * a damaged gseq: counted apart, as a jump.  A flight recorder that kept an
 * idle CPU's old records loses such gaps for real, before the first record
 * of each busy CPU.
 */
void gr_count_gap(struct gr_trace *t, const struct gr_event *ev, __u64 prev_gseq)
{
	__u64 gap = prev_gseq ? ev->gseq - prev_gseq - 1 : 0, *last = NULL;
	__u32 n;

	if (ev->cpu < GR_CPUS_MAX) {
		if (ev->cpu >= t->nr_cseq) {
			n = ev->cpu < 64 ? 64 : 2 * ev->cpu;
			t->cseq = gr_realloc(t->cseq, n, sizeof(*t->cseq));
			memset(t->cseq + t->nr_cseq, 0, (n - t->nr_cseq) * sizeof(*t->cseq));
			t->nr_cseq = n;
		}
		last = &t->cseq[ev->cpu];
	}
	if (gap >= GR_GSEQ_JUMP && last && *last && ev->cseq == *last + 1 &&
	    (t->info.features & GRTRACE_FEAT_CSEQ))
		t->jumps++;
	else
		t->lost += gap;
	if (last)
		*last = ev->cseq;
}

void gr_trace_free(struct gr_trace *t)
{
	gr_free_list(t->files);
	free(t->ev);
	free(t->rings);
	free(t->ring_hash);
	free(t->stats);
	free(t->config);
	free(t->ctx);
	free(t->ctx_hash);
	free(t->vcmd);
	free(t->cseq);
	memset(t, 0, sizeof(*t));
}

const struct gr_ring *gr_ring(const struct gr_trace *t, __u32 id)
{
	static const struct gr_ring none = { .engine = GRTRACE_ENGINE_OTHER };

	return id < t->nr_rings ? &t->rings[id] : &none;
}

/*
 * gr_ring_info - the METADATA payload of ring @id (local), as the kernel
 * writes it: its own id, names NUL padded and cut to 31 bytes
 */
void gr_ring_info(const struct gr_trace *t, __u32 id, struct grtrace_ring_info *ri)
{
	const struct gr_ring *r = gr_ring(t, id);

	memset(ri, 0, sizeof(*ri));
	ri->ring_id = r->id;
	ri->engine = r->engine;
	memcpy(ri->dev, r->dev, sizeof(ri->dev) - 1);
	memcpy(ri->name, r->name, sizeof(ri->name) - 1);
}

/* "dev/ring" of a described ring, "ring<N>" otherwise. */
void gr_ring_label(const struct gr_trace *t, __u32 id, char *buf, size_t len)
{
	const struct gr_ring *r = gr_ring(t, id);

	if (r->known)
		snprintf(buf, len, "%s/%s", r->dev, r->name);
	else
		snprintf(buf, len, "ring%u", r->id);
}

/* Returns: 0 with *@use set to the value @s names, or -1 */
int gr_use_parse(const char *s, enum gr_use *use)
{
	static const char * const names[] = {
		[GR_USE_AUTO] = "auto", [GR_USE_GRTRACE] = "grtrace", [GR_USE_UPSTREAM] = "kernel",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(s, names[i])) {
			*use = i;
			return 0;
		}
	return -1;
}
