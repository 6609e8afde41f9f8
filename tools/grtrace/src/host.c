// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: the host's side of a virtio-gpu guest's jobs.
 *
 * For a virtual GPU, a job's DEVICE phase (COMMIT to END) is the host: QEMU
 * takes the command off the virtqueue, hands it to virglrenderer, which
 * runs it on the host's GPU, the fence signals, QEMU answers.  QEMU records
 * that with its own trace events (-trace 'enable=virtio_gpu_*,file=FILE'
 * -msg timestamp=on, the "log" backend), a line each:
 *
 *   TID@SECONDS.MICROSECONDS:virtio_gpu_cmd_ctx_submit ctx 0x2, size 288
 *   TID@SECONDS.MICROSECONDS:virtio_gpu_fence_ctrl fence 0x1a2, type 0x207
 *   TID@SECONDS.MICROSECONDS:virtio_gpu_fence_resp fence 0x1a2
 *
 * in the host's CLOCK_REALTIME.  A command's own event (virtio_gpu_cmd_*)
 * comes when QEMU takes it, fence_ctrl when QEMU has processed it and
 * created its fence in the renderer, fence_resp when the fence signalled
 * and QEMU answers; QEMU processes the commands of its control queue one
 * after the other in one thread, so a command's event is the last one of
 * that thread before its fence_ctrl.
 *
 * The guest side is a trace.dat with the grtrace and virtio_gpu events:
 * virtio_gpu_cmd_queue names the fence id of each command (its seqno), the
 * grtrace job of that seqno on the "control" ring its COMMIT and END.  The
 * two are joined by fence id, checked by the command's type, not by time.
 *
 * The clocks: nothing is shared, but causality bounds their offset from
 * both sides.  QEMU cannot take a command before the guest committed it
 * (host take - guest COMMIT >= offset), nor answer after the guest took the
 * answer (host answer - guest END <= offset).  Without grtrace's events the
 * COMMIT is virtio_gpu_cmd_queue, which Linux fires just after adding the
 * command to the virtqueue, where QEMU may already be taking commands.
 * Such a COMMIT bounds the take all the same, unless the jobs then leave
 * no offset: QEMU took those commands between the add and the stamp
 * (relax_late()).  Nor do the two clocks tick at one rate: a guest's
 * clock is its TSC at the frequency it calibrated at boot, some ppm off
 * the host's, and 10 ppm is 0.4 ms over a 40 s run, more than the bounds
 * may leave.  So the offset is a line, off(g) = off +
 * rate * (g - g0) from the first joined COMMIT g0 (clock_fit()): at each
 * rate the jobs bound off from both sides, and the rate whose interval is
 * the widest is taken, if the jobs pin one; the interval's middle is the
 * offset used, its half width the precision at that rate.  An empty
 * interval means the recordings are not of the same run.
 */
#include <errno.h>
#include <limits.h>
#include <linux/virtio_gpu.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "utils.h"

#define NS_PER_US	1000ULL

static const char qemu_hint[] =
	"qemu -trace 'enable=virtio_gpu_*,file=FILE' -msg timestamp=on";
static const char dat_hint[] =
	"the guest's trace.dat of its virtio_gpu events (fence ids), with grtrace's or not";
#define NS_PER_SEC	1000000000ULL

/*
 * QEMU's event of each command it takes, by command type: the name after
 * "virtio_gpu_cmd_", NULL for none.
 */
#define CMD(type, event)	{ VIRTIO_GPU_CMD_##type, #type, event }
static const struct {
	__u32 type;
	const char *name;	/* the command's name in the reports */
	const char *event;
} cmds[] = {
	CMD(GET_DISPLAY_INFO, "get_display_info"),
	CMD(RESOURCE_CREATE_2D, "res_create_2d"),
	CMD(RESOURCE_UNREF, "res_unref"),
	CMD(SET_SCANOUT, "set_scanout"),
	CMD(RESOURCE_FLUSH, "res_flush"),
	CMD(TRANSFER_TO_HOST_2D, "res_xfer_toh_2d"),
	CMD(RESOURCE_ATTACH_BACKING, "res_back_attach"),
	CMD(RESOURCE_DETACH_BACKING, "res_back_detach"),
	CMD(GET_CAPSET_INFO, NULL),
	CMD(GET_CAPSET, NULL),
	CMD(GET_EDID, "get_edid"),
	CMD(RESOURCE_CREATE_BLOB, "res_create_blob"),
	CMD(SET_SCANOUT_BLOB, "set_scanout_blob"),
	CMD(CTX_CREATE, "ctx_create"),
	CMD(CTX_DESTROY, "ctx_destroy"),
	CMD(CTX_ATTACH_RESOURCE, "ctx_res_attach"),
	CMD(CTX_DETACH_RESOURCE, "ctx_res_detach"),
	CMD(RESOURCE_CREATE_3D, "res_create_3d"),
	CMD(TRANSFER_TO_HOST_3D, "res_xfer_toh_3d"),
	CMD(TRANSFER_FROM_HOST_3D, "res_xfer_fromh_3d"),
	CMD(SUBMIT_3D, "ctx_submit"),
};

const char *gr_host_type_name(__u32 type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (cmds[i].type == type)
			return cmds[i].name;
	return "?";
}

/* The command type whose QEMU event is @event, 0 for none */
static __u32 event_type(const char *event)
{
	static const char prefix[] = "virtio_gpu_cmd_";
	size_t i;

	if (strncmp(event, prefix, sizeof(prefix) - 1))
		return 0;
	event += sizeof(prefix) - 1;
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (cmds[i].event && !strcmp(cmds[i].event, event))
			return cmds[i].type;
	return 0;
}

/* A fence as QEMU saw it, host times in ns */
struct hfence {
	__u64 fence;
	__u32 type;
	__u32 tid;
	__u64 take;
	__u64 ctrl;
	__u64 resp;		/* 0 until fence_resp */
	bool take_known;
};

/* The last command a QEMU thread took, waiting for its fence_ctrl */
struct taken {
	__u32 tid;
	__u32 type;
	__u64 ts;
};

struct hlog {
	struct hfence *f;
	size_t nr;
	size_t cap;
	struct taken th[8];	/* QEMU's threads: the main loop, mostly */
	int nr_th;
	unsigned long lines;	/* QEMU virtio_gpu events read */
	unsigned long untimed;	/* of them without a timestamp */
};

static struct taken *thread_of(struct hlog *l, __u32 tid)
{
	int i;

	for (i = 0; i < l->nr_th; i++)
		if (l->th[i].tid == tid)
			return &l->th[i];
	i = l->nr_th < (int)ARRAY_SIZE(l->th) ? l->nr_th++ : 0;
	l->th[i] = (struct taken){ .tid = tid };
	return &l->th[i];
}

static int cmp_hfence(const void *a, const void *b)
{
	const struct hfence *x = a, *y = b;

	return x->fence < y->fence ? -1 : x->fence > y->fence;
}

static struct hfence *hfence_find(const struct hlog *l, __u64 fence)
{
	struct hfence key = { .fence = fence };

	return l->nr ? bsearch(&key, l->f, l->nr, sizeof(*l->f), cmp_hfence) : NULL;
}

/*
 * One line of QEMU's log: "TID@SEC.USEC:EVENT ARGS".  Lines of other
 * events and QEMU's other messages are skipped.  Returns: 0, or -1 with
 * the problem printed.
 */
static int hlog_line(struct hlog *l, const char *path, unsigned long lineno,
		     const char *line)
{
	unsigned long long sec, usec, fence;
	char event[64], usecs[8];
	unsigned int tid, type;
	struct taken *th;
	struct hfence *f;
	__u64 ts;
	int n = 0, got;

	got = sscanf(line, "%u@%llu.%7[0-9]:%63[a-z0-9_]%n", &tid, &sec, usecs, event, &n);
	if (got != 4) {
		if (strstr(line, "virtio_gpu_") == line)
			l->untimed++;
		return 0;
	}
	if (strncmp(event, "virtio_gpu_", 11))
		return 0;
	if (strlen(usecs) != 6) {
		gr_err_msg("%s:%lu: a timestamp not in microseconds\n", path, lineno);
		return -1;
	}
	usec = strtoull(usecs, NULL, 10);
	ts = sec * NS_PER_SEC + usec * NS_PER_US;
	l->lines++;
	th = thread_of(l, tid);
	line += n;
	if (!strcmp(event, "virtio_gpu_fence_ctrl")) {
		if (sscanf(line, " fence 0x%llx, type 0x%x", &fence, &type) != 2)
			goto bad;
		if (l->nr == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 1024;
			l->f = gr_realloc(l->f, l->cap, sizeof(*l->f));
		}
		f = &l->f[l->nr++];
		*f = (struct hfence){ .fence = fence, .type = type, .tid = tid, .ctrl = ts };
		f->take_known = th->type == type && th->ts;
		f->take = f->take_known ? th->ts : ts;
		th->type = 0;
		th->ts = 0;
	} else if (!strcmp(event, "virtio_gpu_fence_resp")) {
		if (sscanf(line, " fence 0x%llx", &fence) != 1)
			goto bad;
		/* Answered in the order queued: the latest fence of that id */
		for (f = l->f + l->nr; f-- > l->f; )
			if (f->fence == fence)
				break;
		if (f >= l->f && !f->resp)
			f->resp = ts;
	} else {
		th->type = event_type(event);
		th->ts = ts;
	}
	return 0;
bad:
	gr_err_msg("%s:%lu: %s: arguments not as QEMU prints them\n", path, lineno, event);
	return -1;
}

static int hlog_read(struct hlog *l, const char *path)
{
	unsigned long lineno = 0;
	size_t cap = 0, i;
	char *line = NULL;
	int ret = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		gr_err_msg("%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (!ret && getline(&line, &cap, f) > 0)
		ret = hlog_line(l, path, ++lineno, line);
	free(line);
	fclose(f);
	if (ret)
		return -1;
	if (!l->lines) {
		gr_err_msg("%s: no timed QEMU virtio_gpu events%s (%s)\n", path,
			   l->untimed ? ", only untimed ones" : "", qemu_hint);
		return -1;
	}
	qsort(l->f, l->nr, sizeof(*l->f), cmp_hfence);
	for (i = 1; i < l->nr; i++) {
		if (l->f[i].fence == l->f[i - 1].fence) {
			gr_err_msg("%s: fence %llu created twice: two QEMU runs?\n",
				   path, (unsigned long long)l->f[i].fence);
			return -1;
		}
	}
	return 0;
}

/* The guest's side of a job of the control ring, by its seqno */
struct gjob {
	__u64 fctx;
	__u32 seqno;
	__u32 ring_id;
	__u32 pid;
	char comm[17];
	__u64 commit;
	__u64 end;
	bool late;		/* the COMMIT may come after the add (the kernel's) */
	size_t hnext;
};

struct gside {
	struct gjob *j;
	size_t nr;
	size_t cap;
	size_t hash[4096];	/* by seqno: index + 1 */
};

/* The job of @seqno: one ring, one fence context, so the seqno is the key */
static struct gjob *gjob_by_seqno(struct gside *g, __u32 seqno)
{
	size_t i;

	for (i = g->hash[seqno % ARRAY_SIZE(g->hash)]; i; i = g->j[i - 1].hnext)
		if (g->j[i - 1].seqno == seqno)
			return &g->j[i - 1];
	return NULL;
}

/* The job of @ev's seqno, added on its first event */
static struct gjob *gjob_get(struct gside *g, const struct gr_event *ev)
{
	size_t *h = &g->hash[(__u32)ev->job.fence_seqno % ARRAY_SIZE(g->hash)];
	struct gjob *j = gjob_by_seqno(g, ev->job.fence_seqno);

	if (j)
		return j;
	if (g->nr == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 1024;
		g->j = gr_realloc(g->j, g->cap, sizeof(*g->j));
	}
	j = &g->j[g->nr++];
	*j = (struct gjob){ .fctx = ev->job.fence_context, .seqno = ev->job.fence_seqno,
			    .ring_id = ev->job.ring_id, .hnext = *h };
	*h = g->nr;
	return j;
}

/*
 * The jobs of the guest's virtio-gpu control ring.  Returns: 0, or -1 with
 * the problem printed.
 */
static int guest_side(struct gside *g, const struct gr_trace *t, const char *path)
{
	__u32 control = ~0U, id;
	size_t i;

	for (id = 0; id < t->nr_rings; id++) {
		const struct gr_ring *r = &t->rings[id];

		if (!r->used || !r->known || strcmp(r->name, "control"))
			continue;
		if (control != ~0U) {
			gr_err_msg("%s: more than one virtio-gpu device (%s, %s): not supported\n",
				   path, t->rings[control].dev, r->dev);
			return -1;
		}
		control = id;
	}
	if (control == ~0U) {
		gr_err_msg("%s: the guest's recording has no virtio-gpu \"control\" ring\n", path);
		return -1;
	}
	for (i = 0; i < t->nr_ev; i++) {
		const struct gr_event *ev = &t->ev[i];
		struct gjob *j;

		if (ev->type >= GRTRACE_EV_NR || ev->job.ring_id != control ||
		    (ev->type != GRTRACE_EV_SUBMIT && ev->type != GRTRACE_EV_COMMIT &&
		     ev->type != GRTRACE_EV_END))
			continue;
		j = gjob_get(g, ev);
		/* Without a SUBMIT (the kernel's own events), the COMMIT's thread */
		if (ev->type == GRTRACE_EV_SUBMIT ||
		    (ev->type == GRTRACE_EV_COMMIT && !j->pid && ev->job.pid)) {
			j->pid = ev->job.pid;
			memcpy(j->comm, ev->job.comm, sizeof(ev->job.comm));
			j->comm[sizeof(j->comm) - 1] = '\0';
		}
		if (ev->type == GRTRACE_EV_COMMIT) {
			j->commit = ev->ts;
			j->late = ev->cannot & BIT(GRTRACE_EV_SUBMIT);
		} else if (ev->type == GRTRACE_EV_END) {
			j->end = ev->ts;
		}
	}
	return 0;
}

static int cmp_host_job(const void *a, const void *b)
{
	const struct gr_host_job *x = a, *y = b;

	if (x->fctx != y->fctx)
		return x->fctx < y->fctx ? -1 : 1;
	return x->fseq < y->fseq ? -1 : x->fseq > y->fseq;
}

/*
 * The most a guest's clock is taken to run off the host's: 100 ppm, ten
 * times what TSC calibrations under QEMU's TCG were seen to miss by.
 */
#define MAX_RATE	0.0001

/* Bounds on the offset at guest time g0 that @h's jobs give at @rate */
struct clock_bounds {
	long long lo, hi;
	size_t lo_at, hi_at;	/* the jobs that set them */
};

static long long at_rate(double rate, __u64 t, __u64 g0)
{
	return (long long)(rate * (double)(long long)(t - g0));
}

/* The bound on the offset that @j's take gives, at @rate */
static long long up_bound(const struct gr_host_job *j, __u64 g0, double rate)
{
	return (long long)(j->take - j->after) - at_rate(rate, j->after, g0);
}

static struct clock_bounds bounds_at(const struct gr_host *h, __u64 g0, double rate)
{
	struct clock_bounds b = { .lo = LLONG_MIN, .hi = LLONG_MAX };
	size_t i;

	for (i = 0; i < h->nr; i++) {
		const struct gr_host_job *j = &h->job[i];
		long long up = up_bound(j, g0, rate);
		long long down = (long long)(j->resp - j->end) - at_rate(rate, j->end, g0);

		if (j->after && up < b.hi) {
			b.hi = up;
			b.hi_at = i;
		}
		if (down > b.lo) {
			b.lo = down;
			b.lo_at = i;
		}
	}
	return b;
}

/*
 * The rate of the widest interval.  The width is the least of lines minus
 * the greatest of lines, concave in the rate: a ternary search finds its
 * top, to 1e-14 after 60 steps.  A top at the bound of the search is no
 * rate the jobs pin (a few jobs, or jobs that all overlap, whose width
 * grows with the rate without end), nor is a rate without a job whose take
 * is bounded after another ended: the clocks are then taken to tick at one
 * rate.
 */
static double clock_fit(const struct gr_host *h, __u64 g0)
{
	__u64 first_end = ~0ULL, last_after = 0;
	double a = -MAX_RATE, b = MAX_RATE;
	struct clock_bounds x, y;
	size_t i;
	int k;

	for (i = 0; i < h->nr; i++) {
		first_end = h->job[i].end < first_end ? h->job[i].end : first_end;
		last_after = h->job[i].after > last_after ? h->job[i].after : last_after;
	}
	if (last_after <= first_end)
		return 0;
	for (k = 0; k < 60; k++) {
		double m1 = a + (b - a) / 3, m2 = b - (b - a) / 3;

		x = bounds_at(h, g0, m1);
		y = bounds_at(h, g0, m2);
		if (x.hi - x.lo < y.hi - y.lo)
			a = m1;
		else
			b = m2;
	}
	a += (b - a) / 2;
	return a > 0.99 * MAX_RATE || a < -0.99 * MAX_RATE ? 0 : a;
}

/*
 * A recording of the kernel's events alone, whose COMMITs leave no offset:
 * the kernel stamps a command's virtio_gpu_cmd_queue after adding it to the
 * virtqueue, and QEMU, already taking commands, took some in between.
 * Each was added after the command before it was queued (both under the
 * queue's lock), and the COMMIT of that one bounds its take instead: first
 * of the commands whose own COMMIT bound @b's lower bound contradicts, then,
 * if the jobs still leave no offset, of every such command.
 */
static struct clock_bounds relax_late(struct gr_host *h, __u64 g0, struct clock_bounds b)
{
	int pass;

	for (pass = 0; pass < 2 && b.lo > b.hi; pass++) {
		size_t moved = 0, i;

		for (i = 0; i < h->nr; i++) {
			struct gr_host_job *j = &h->job[i];

			if (j->after == j->added_after ||
			    (!pass && up_bound(j, g0, h->rate) >= b.lo))
				continue;
			j->after = j->added_after;
			moved++;
		}
		if (!moved)
			break;
		h->rate = clock_fit(h, g0);
		b = bounds_at(h, g0, h->rate);
	}
	return b;
}

/* Host time @t in the guest's clock */
static __u64 to_guest(const struct gr_host *h, __u64 t)
{
	__u64 g = t - h->off;

	return g - at_rate(h->rate, g, h->off_at);
}

/*
 * A joined job's host times in the guest's clock: its take moved by the
 * offset at that time, the rest kept at their distance from it, so that
 * ON_HOST stays a time of the host's clock alone.
 */
static void job_to_guest(const struct gr_host *h, struct gr_host_job *j)
{
	__u64 take = to_guest(h, j->take);

	j->ctrl = take + (j->ctrl - j->take);
	j->resp = take + (j->resp - j->take);
	j->take = take;
}

/*
 * gr_host_join - join a QEMU trace log with the guest's recording @t
 * @h: the joined jobs, times in @t's clock
 * @path: QEMU's log of the same run
 *
 * Every fenced command of the guest's control ring that has a COMMIT and
 * an END must be in the host's log, as a command of the same type, and the
 * bounds on the clock offset must meet at some rate: else the log is
 * refused (another run's).  Returns: 0, or -1 with the problem printed.
 */
int gr_host_join(struct gr_host *h, const char *path, const struct gr_trace *t)
{
	size_t missing = 0, wrong = 0, i;
	struct clock_bounds b;
	__u64 g0 = ~0ULL;
	const struct gr_vcmd *first_bad = NULL;
	struct hlog l = {};
	struct gside *g;
	int ret = -1;

	memset(h, 0, sizeof(*h));
	h->path = path;
	if (!t->is_tracedat || !t->nr_vcmd) {
		gr_err_msg("--host needs %s\n", dat_hint);
		return -1;
	}
	g = gr_zalloc(sizeof(*g));
	if (hlog_read(&l, path) || guest_side(g, t, t->input))
		goto out;
	h->host_fences = l.nr;
	/* At most one joined job per command the guest queued */
	h->job = gr_realloc(NULL, t->nr_vcmd, sizeof(*h->job));
	for (i = 0; i < t->nr_vcmd; i++) {
		const struct gr_vcmd *v = &t->vcmd[i];
		const struct gjob *j, *prev;
		const struct hfence *f;
		struct gr_host_job *hj;

		if (v->vq || !(v->flags & VIRTIO_GPU_FLAG_FENCE))
			continue;
		j = gjob_by_seqno(g, v->seqno);
		if (!j || !j->commit || !j->end)
			continue;	/* not whole in the guest's recording */
		h->guest_fences++;
		f = hfence_find(&l, v->fence_id);
		if (!f || !f->resp || f->type != v->type) {
			missing += !f || !f->resp;
			wrong += f && f->resp && f->type != v->type;
			first_bad = first_bad ? first_bad : v;
			continue;
		}
		g0 = j->commit < g0 ? j->commit : g0;
		/* Added after the command queued before it (the queue's lock) */
		prev = j->late ? gjob_by_seqno(g, j->seqno - 1) : j;
		hj = &h->job[h->nr++];
		*hj = (struct gr_host_job){
			.fctx = j->fctx, .fseq = j->seqno, .fence_id = v->fence_id,
			.type = v->type, .ctx_id = v->ctx_id, .ring_id = j->ring_id,
			.pid = j->pid, .commit = j->commit, .end = j->end,
			.after = j->commit, .added_after = prev ? prev->commit : 0,
			.take = f->take, .ctrl = f->ctrl, .resp = f->resp,
			.take_known = f->take_known,
		};
		memcpy(hj->comm, j->comm, sizeof(hj->comm));
		h->tid = f->tid;
		h->no_take += !f->take_known;
	}
	if (missing || wrong) {
		const struct hfence *f = hfence_find(&l, first_bad->fence_id);

		gr_err_msg("%s: not the host side of %s (another run's log?):\n",
			   path, t->input);
		gr_err_msg("  of %zu fenced commands, %zu unanswered there, %zu of another type;\n",
			   h->guest_fences, missing, wrong);
		gr_err_msg("  fence %llu is %s in the guest, %s on the host\n",
			   (unsigned long long)first_bad->fence_id,
			   gr_host_type_name(first_bad->type),
			   f ? gr_host_type_name(f->type) : "none");
		goto out;
	}
	if (!h->nr) {
		gr_err_msg("%s: no fenced virtio-gpu command of %s is whole in both recordings\n",
			   path, t->input);
		goto out;
	}
	h->off_at = g0;
	h->rate = clock_fit(h, g0);
	b = bounds_at(h, g0, h->rate);
	if (b.lo > b.hi)
		b = relax_late(h, g0, b);
	if (b.lo > b.hi) {
		gr_err_msg("%s: not the host side of %s (another run's log?):\n",
			   path, t->input);
		gr_err_msg("  no clock offset fits QEMU's answer of fence %llu, take of %llu\n",
			   (unsigned long long)h->job[b.lo_at].fence_id,
			   (unsigned long long)h->job[b.hi_at].fence_id);
		gr_err_msg("  (they miss each other by %lld us at %+.3f ppm, %s)\n",
			   (b.lo - b.hi) / 1000, h->rate * 1e6,
			   h->rate ? "the best rate" : "no rate within 100 ppm pinned by the jobs");
		goto out;
	}
	if (b.hi == LLONG_MAX) {
		gr_err_msg("%s: nothing bounds when QEMU took the commands:\n", path);
		gr_err_msg("  %s holds none queued before a joined one\n", t->input);
		goto out;
	}
	h->off_lo = b.lo;
	h->off_hi = b.hi;
	h->off = b.lo + (b.hi - b.lo) / 2;
	for (i = 0; i < h->nr; i++) {
		job_to_guest(h, &h->job[i]);
		h->early += h->job[i].take < h->job[i].commit;
	}
	qsort(h->job, h->nr, sizeof(*h->job), cmp_host_job);
	ret = 0;
out:
	if (ret)
		gr_host_free(h);
	free(l.f);
	free(g->j);
	free(g);
	return ret;
}

const struct gr_host_job *gr_host_find(const struct gr_host *h, __u64 fctx, __u64 fseq)
{
	struct gr_host_job key = { .fctx = fctx, .fseq = fseq };

	return h && h->nr ? bsearch(&key, h->job, h->nr, sizeof(*h->job), cmp_host_job) : NULL;
}

/*
 * The three parts of a joined job's DEVICE (END - COMMIT): to the host
 * (COMMIT to QEMU's take), on the host (take to QEMU's answer, exact: one
 * clock) and back (the answer to END).  They add up to DEVICE exactly.
 */
void gr_host_split(const struct gr_host_job *hj, __s64 *to, __s64 *on, __s64 *back)
{
	*to = (__s64)(hj->take - hj->commit);
	*on = (__s64)(hj->resp - hj->take);
	*back = (__s64)(hj->end - hj->resp);
}

void gr_host_free(struct gr_host *h)
{
	free(h->job);
	h->job = NULL;
	h->nr = 0;
}
