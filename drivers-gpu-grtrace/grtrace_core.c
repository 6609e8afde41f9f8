// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace core: the session (its probe on the grtrace tracepoints), the
 * injected events and the settings of the relay stream.  Asks the
 * governance for a verdict on each event and writes through the stream
 * layer; knows nothing of the debugfs layer above it.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/ctype.h>
#include <linux/grtrace.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <linux/tracepoint.h>
#include <kunit/visibility.h>

#include <trace/events/grtrace.h>

#include "grtrace_core.h"
#include "grtrace_events.h"

const char * const grtrace_level_names[GRTRACE_LEVEL_NR] = {
	[GRTRACE_LEVEL_OFF]	= "off",
	[GRTRACE_LEVEL_NORMAL]	= "normal",
	[GRTRACE_LEVEL_VERBOSE]	= "verbose",
};

const char * const grtrace_type_names[GRTRACE_EV_NR] = {
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

/*
 * grtrace_session_lock serialises the session (start, stop) and the
 * changes of the settings.  It is taken before the lock of the stream layer.
 */
static DEFINE_MUTEX(grtrace_session_lock);

/*
 * Set under grtrace_session_lock once the probe is on every tracepoint,
 * cleared before it comes off any: the probe records nothing while a
 * session is only partly attached, so that no event type starts or stops
 * before the others (registering a probe takes milliseconds under QEMU).
 */
static bool grtrace_running;

/* Written under grtrace_session_lock, read locklessly by the probe. */
static struct grtrace_settings grtrace_settings = {
	.level		= GRTRACE_LEVEL_NORMAL,
	.type_mask	= GRTRACE_ALL_TYPES,
	.engine_mask	= GRTRACE_ALL_ENGINES,
	.ring_id	= -1,
};

/* Events dropped by filter_type_mask, per CPU (the probe's, IRQs off) */
static DEFINE_PER_CPU(u64, grtrace_type_filtered);

static int grtrace_verdict(const struct grtrace_event *ev)
{
	u32 level = READ_ONCE(grtrace_settings.level);
	s32 ring_id = READ_ONCE(grtrace_settings.ring_id);

	if (level == GRTRACE_LEVEL_OFF ||
	    (level == GRTRACE_LEVEL_NORMAL && ev->type == GRTRACE_EV_IRQ))
		return GRTRACE_DROP_FILTERED;
	if (!(READ_ONCE(grtrace_settings.engine_mask) & BIT(ev->job.engine)) ||
	    (ring_id >= 0 && ring_id != ev->job.ring_id))
		return GRTRACE_DROP_FILTERED;
	/* Counted apart, of the rings the filters above keep: filtered_type */
	if (!(READ_ONCE(grtrace_settings.type_mask) & BIT(ev->type))) {
		this_cpu_inc(grtrace_type_filtered);
		return GRTRACE_DROP_FILTERED;
	}
	return -1;
}

/*
 * The relay probe, attached to every grtrace tracepoint while a session
 * runs.  Runs in any context the tracepoints fire in, hard IRQ included.
 */
static void grtrace_probe(void *data, const struct grtrace_event *ev)
{
	unsigned long flags;
	bool written;
	int drop;
	u64 ts;

	/* Pairs with grtrace_session_start(): the stream set up before */
	if (!smp_load_acquire(&grtrace_running))
		return;
	if (WARN_ON_ONCE(ev->type >= GRTRACE_EV_NR ||
			 ev->job.engine >= GRTRACE_ENGINE_NR))
		return;

	local_irq_save(flags);
	ts = grtrace_stream_offer();

	drop = grtrace_verdict(ev);
	if (!static_branch_unlikely(&grtrace_governed)) {
		grtrace_govern_default(ev, ts, drop);
	} else {
		drop = grtrace_govern(ev, ts, drop);
		if (drop < 0) {
			written = grtrace_stream_write(ev->type, ts, &ev->job,
						       ev->ring, NULL);
			grtrace_govern_written(ev->type, ts, &ev->job, written);
		} else if (drop != GRTRACE_HELD) {
			grtrace_stream_drop(drop, ts, 1);
		}
	}
	local_irq_restore(flags);
}

/*
 * The relay probe of grtrace_ring_remove: process context.  Registered
 * before the stream starts, it writes nothing until the stream's header
 * is out.
 */
static void grtrace_probe_ring_remove(void *data,
				      const struct grtrace_ring *ring, u32 id)
{
	if (grtrace_stream_live())
		grtrace_stream_ring_removed(ring, id);
}

typedef void (*grtrace_probe_t)(void *data, const struct grtrace_event *ev);

static const struct {
	int (*reg)(grtrace_probe_t probe, void *data);
	int (*unreg)(grtrace_probe_t probe, void *data);
} grtrace_tps[] = {
	{ register_trace_grtrace_submit, unregister_trace_grtrace_submit },
	{ register_trace_grtrace_commit, unregister_trace_grtrace_commit },
	{ register_trace_grtrace_start, unregister_trace_grtrace_start },
	{ register_trace_grtrace_end, unregister_trace_grtrace_end },
	{ register_trace_grtrace_complete, unregister_trace_grtrace_complete },
	{ register_trace_grtrace_ctx_switch, unregister_trace_grtrace_ctx_switch },
	{ register_trace_grtrace_irq, unregister_trace_grtrace_irq },
	{ register_trace_grtrace_sync_wait_enter,
	  unregister_trace_grtrace_sync_wait_enter },
	{ register_trace_grtrace_sync_wait_exit,
	  unregister_trace_grtrace_sync_wait_exit },
	{ register_trace_grtrace_error, unregister_trace_grtrace_error },
};

/* Detach the relay probe from the first @n job tracepoints, and all else. */
static void grtrace_unregister_probes(int n)
{
	while (n--)
		grtrace_tps[n].unreg(grtrace_probe, NULL);
	unregister_trace_grtrace_ring_remove(grtrace_probe_ring_remove, NULL);
	/* No probe runs on any CPU after this. */
	tracepoint_synchronize_unregister();
}

static int grtrace_register_probes(void)
{
	int i, ret;

	ret = register_trace_grtrace_ring_remove(grtrace_probe_ring_remove,
						 NULL);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(grtrace_tps); i++) {
		ret = grtrace_tps[i].reg(grtrace_probe, NULL);
		if (ret) {
			grtrace_unregister_probes(i);
			return ret;
		}
	}
	return 0;
}

/**
 * grtrace_session_start - start recording the relay stream
 *
 * Registers the probe on every tracepoint, starts the stream (which writes
 * its header) and the governance, and then lets the probe record.
 *
 * The probe is registered first: a consumer of the events holds the ring
 * ids of its epoch, so the ids the header names stay those of the
 * session's rings even if every other consumer goes meanwhile.
 *
 * Context: process context, takes grtrace_session_lock.
 * Returns: 0, -EINVAL if a session already runs, -ENOMEM.
 */
int grtrace_session_start(void)
{
	int ret;

	guard(mutex)(&grtrace_session_lock);
	if (grtrace_running)
		return -EINVAL;

	ret = grtrace_register_probes();
	if (ret)
		return ret;
	ret = grtrace_stream_start(grtrace_settings.flight_recorder);
	if (ret) {
		grtrace_unregister_probes(ARRAY_SIZE(grtrace_tps));
		grtrace_sources_sync();
		return ret;
	}
	grtrace_govern_start();
	/*
	 * The sources' jobs from their first one in the session on, not from
	 * whenever the work item gets to them.
	 */
	ret = grtrace_sources_sync();
	if (ret) {
		grtrace_unregister_probes(ARRAY_SIZE(grtrace_tps));
		grtrace_sources_sync();
		grtrace_govern_stop();
		grtrace_stream_stop();
		return ret;
	}

	/* Pairs with grtrace_probe(): the stream and its state set up */
	smp_store_release(&grtrace_running, true);
	pr_debug("session %016llx started\n", grtrace_stream_session_id());
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_session_start);

/**
 * grtrace_session_stop - stop recording; the buffers stay readable
 *
 * Stops the probe recording, unregisters it and waits until it runs
 * nowhere, lets the governance write or drop the events it still holds,
 * and stops the stream.
 *
 * Context: process context, takes grtrace_session_lock.
 * Returns: 0, or -EINVAL if no session runs.
 */
int grtrace_session_stop(void)
{
	guard(mutex)(&grtrace_session_lock);
	if (!grtrace_running)
		return -EINVAL;

	WRITE_ONCE(grtrace_running, false);
	grtrace_unregister_probes(ARRAY_SIZE(grtrace_tps));
	/* Detached now, unless another consumer still has the events. */
	grtrace_sources_sync();
	/* Decide on the events still held back, now that none can come. */
	grtrace_govern_stop();
	grtrace_stream_stop();
	pr_debug("session %016llx stopped\n", grtrace_stream_session_id());
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_session_stop);

/**
 * grtrace_session_freeze - freeze the running flight recorder
 *
 * Context: process context, takes grtrace_session_lock.
 * Returns: 0, or -EINVAL if no session runs or it is not a flight recorder.
 */
int grtrace_session_freeze(void)
{
	guard(mutex)(&grtrace_session_lock);
	if (!grtrace_running)
		return -EINVAL;
	return grtrace_stream_freeze();
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_session_freeze);

/**
 * grtrace_session_running - whether a session runs
 *
 * Context: any.
 * Returns: true between a successful start and the following stop.
 */
bool grtrace_session_running(void)
{
	return READ_ONCE(grtrace_running);
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_session_running);

/**
 * grtrace_reset_stats - zero all counters
 *
 * Context: process context.
 */
void grtrace_reset_stats(void)
{
	int cpu;

	grtrace_stream_reset_stats();
	grtrace_govern_reset();
	for_each_possible_cpu(cpu)
		WRITE_ONCE(*per_cpu_ptr(&grtrace_type_filtered, cpu), 0);
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_reset_stats);

/**
 * grtrace_type_filtered_count - events dropped by ``filter_type_mask``
 *
 * Context: any; a snapshot.
 * Returns: their number since the last reset of the counters.
 */
u64 grtrace_type_filtered_count(void)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(*per_cpu_ptr(&grtrace_type_filtered, cpu));
	return n;
}

/* ---- settings ---- */

/**
 * grtrace_parse_level - parse a value of ``level``
 * @val: "off", "normal", "verbose", or 0-3 (2 and 3 are verbose)
 * @level: set to an enum grtrace_level
 *
 * Context: any.
 * Returns: 0, or -EINVAL (@level unchanged).
 */
int grtrace_parse_level(const char *val, u32 *level)
{
	unsigned int n;
	int i;

	i = sysfs_match_string(grtrace_level_names, val);
	if (i >= 0) {
		*level = i;
		return 0;
	}
	/* The numeric levels 0-3 of the original design; 2 and 3 are verbose. */
	if (kstrtouint(val, 0, &n) || n > 3)
		return -EINVAL;
	*level = min_t(u32, n, GRTRACE_LEVEL_VERBOSE);
	return 0;
}

/**
 * grtrace_parse_mask - parse a bit mask
 * @val: a number; U32_MAX means all bits of @all
 * @all: the bits allowed
 * @mask: set to the mask
 *
 * Context: any.
 * Returns: 0, or -EINVAL for bits outside @all (@mask unchanged).
 */
int grtrace_parse_mask(const char *val, u32 all, u32 *mask)
{
	u32 m;

	if (kstrtou32(val, 0, &m) || (m & ~all && m != U32_MAX))
		return -EINVAL;
	*mask = m & all;
	return 0;
}

/**
 * grtrace_parse_ring - parse a ring id filter
 * @val: the id of a ring of fixed id (emit's), or "any", "all" or -1 for
 *	every ring
 * @ring_id: set to the id, or -1
 *
 * A driver's ring, whose id lasts only until tracing stops, is selected by
 * name in the watchlist instead: ids of %GRTRACE_FIRST_RING_ID and above
 * are refused.
 *
 * Context: any.
 * Returns: 0, or -EINVAL (@ring_id unchanged).
 */
int grtrace_parse_ring(const char *val, s32 *ring_id)
{
	s32 id;

	if (!strcmp(val, "any") || !strcmp(val, "all")) {
		*ring_id = -1;
		return 0;
	}
	if (kstrtos32(val, 0, &id) || id < -1 || id >= GRTRACE_FIRST_RING_ID)
		return -EINVAL;
	*ring_id = id;
	return 0;
}

/**
 * grtrace_parse_u32 - parse a number within bounds
 * @val: the number
 * @min: its least value
 * @max: its greatest value
 * @out: set to it
 *
 * Context: any.
 * Returns: 0, or -EINVAL (@out unchanged).
 */
int grtrace_parse_u32(const char *val, u32 min, u32 max, u32 *out)
{
	u32 v;

	if (kstrtou32(val, 0, &v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/**
 * grtrace_parse_bool - parse exactly "0" or "1"
 * @val: the value; kstrtobool() would take "yesno" for yes
 * @out: set to it
 *
 * Context: any.
 * Returns: 0, or -EINVAL (@out unchanged).
 */
int grtrace_parse_bool(const char *val, bool *out)
{
	if (strcmp(val, "0") && strcmp(val, "1"))
		return -EINVAL;
	*out = *val == '1';
	return 0;
}

/* A ring of the watchlist by name: "DEV/RING" into @w */
static int grtrace_parse_ring_name(const char *tok, struct grtrace_ring_name *w)
{
	const char *slash = strchr(tok, '/');
	size_t dev = slash ? slash - tok : 0;

	/* A device's name has no '/' (a kobject's cannot); a ring's may */
	if (!dev || dev >= sizeof(w->dev) || !slash[1] ||
	    strlen(slash + 1) >= sizeof(w->name))
		return -EINVAL;
	memcpy(w->dev, tok, dev);
	w->dev[dev] = '\0';
	strscpy(w->name, slash + 1);
	return 0;
}

/**
 * grtrace_parse_ring_list - parse a ring watchlist
 * @val: "DEV/RING,1" keeps only the ring of that device and name and the
 *	ring of fixed id 1 (emit's); "!DEV/RING" all but it; "" or "all" all
 * @g: its watch_rings, watch_names and ring_deny set
 *
 * A driver's ring is named, not numbered: its id lasts only until tracing
 * stops, and would name another ring after, so ids of
 * %GRTRACE_FIRST_RING_ID and above are refused.
 *
 * Context: process context.
 * Returns: 0, -EINVAL (also for more than %GRTRACE_WATCH_RINGS ids or
 * %GRTRACE_WATCH_NAMES distinct names) or -ENOMEM (nothing set).
 */
int grtrace_parse_ring_list(const char *val, struct grtrace_govern_settings *g)
{
	struct grtrace_ring_list {
		u32 ids[GRTRACE_WATCH_RINGS];
		struct grtrace_ring_name names[GRTRACE_WATCH_NAMES];
		struct grtrace_ring_name name;
	} *l;
	bool except = *val == '!';
	char *copy = NULL, *cur, *tok;
	u32 id, n = 0, nn = 0, i;
	int ret = 0;

	if (except)
		val++;
	l = kzalloc_obj(*l);
	if (!l)
		return -ENOMEM;
	if (!*val || (!except && !strcmp(val, "all")))
		goto out;
	copy = kstrdup(val, GFP_KERNEL);
	if (!copy) {
		ret = -ENOMEM;
		goto out;
	}
	cur = copy;
	while ((tok = strsep(&cur, ","))) {
		tok = strim(tok);
		if (strchr(tok, '/')) {
			ret = grtrace_parse_ring_name(tok, &l->name);
			if (ret)
				break;
			for (i = 0; i < nn; i++)
				if (!strcmp(l->names[i].dev, l->name.dev) &&
				    !strcmp(l->names[i].name, l->name.name))
					break;
			if (i < nn)
				continue;
			if (nn == GRTRACE_WATCH_NAMES) {
				ret = -EINVAL;
				break;
			}
			l->names[nn++] = l->name;
			continue;
		}
		if (kstrtou32(tok, 0, &id) || id >= GRTRACE_FIRST_RING_ID) {
			ret = -EINVAL;
			break;
		}
		for (i = 0; i < n && l->ids[i] != id; i++)
			;
		if (i < n)
			continue;
		if (n == GRTRACE_WATCH_RINGS) {
			ret = -EINVAL;
			break;
		}
		l->ids[n++] = id;
	}
out:
	if (!ret && except && !n && !nn)
		ret = -EINVAL;
	if (!ret) {
		memcpy(g->watch_rings, l->ids, n * sizeof(*l->ids));
		g->nr_watch_rings = n;
		memcpy(g->watch_names, l->names, nn * sizeof(*l->names));
		g->nr_watch_names = nn;
		g->ring_deny = except;
	}
	kfree(copy);
	kfree(l);
	return ret;
}

/**
 * grtrace_parse_pid_list - parse a list of pids
 * @val: "1234,5678", or "" or "none" for no pid
 * @pids: an array of %GRTRACE_FILTER_PIDS, set to the pids
 * @nr_pids: set to their number
 *
 * Context: process context.
 * Returns: 0, -EINVAL or -ENOMEM (nothing set).
 */
int grtrace_parse_pid_list(const char *val, u32 *pids, u32 *nr_pids)
{
	u32 listed[GRTRACE_FILTER_PIDS];
	char *copy, *cur, *tok;
	int ret = 0;
	u32 n = 0;

	if (*val && strcmp(val, "none")) {
		copy = kstrdup(val, GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
		cur = copy;
		while ((tok = strsep(&cur, ","))) {
			tok = strim(tok);
			if (n == GRTRACE_FILTER_PIDS ||
			    kstrtou32(tok, 0, &listed[n]) || !listed[n] ||
			    listed[n] > PID_MAX_LIMIT) {
				ret = -EINVAL;
				break;
			}
			n++;
		}
		kfree(copy);
		if (ret)
			return ret;
	}
	memcpy(pids, listed, n * sizeof(listed[0]));
	*nr_pids = n;
	return 0;
}

/**
 * grtrace_parse_uid - parse a uid filter
 * @val: a uid, or "-1" or "any" for no uid filter
 * @uid: set to the uid, or -1
 *
 * Context: any.
 * Returns: 0, or -EINVAL (@uid unchanged).
 */
int grtrace_parse_uid(const char *val, s64 *uid)
{
	u32 id;

	if (!strcmp(val, "-1") || !strcmp(val, "any")) {
		*uid = -1;
		return 0;
	}
	if (kstrtou32(val, 0, &id) || id == (u32)-1)
		return -EINVAL;
	*uid = id;
	return 0;
}

/**
 * grtrace_config_get - read every setting
 * @config: filled in
 *
 * Context: process context, takes grtrace_session_lock.
 */
void grtrace_config_get(struct grtrace_config *config)
{
	guard(mutex)(&grtrace_session_lock);
	config->core = grtrace_settings;
	grtrace_govern_settings_get(&config->governance);
}

/**
 * grtrace_config_set - apply every setting at once
 * @config: from grtrace_config_get(), changed
 *
 * The probe sees each field of the core's settings either old or new, and
 * the governance's settings all old or all new.
 *
 * Context: process context, takes grtrace_session_lock, then the
 * governance's lock.
 * Returns: 0, or -ENOMEM or -EBUSY (flight_recorder while a session
 * runs): nothing changed.
 */
int grtrace_config_set(const struct grtrace_config *config)
{
	const struct grtrace_settings *s = &config->core;
	int ret;

	guard(mutex)(&grtrace_session_lock);
	/* A session is a flight recorder or not from start to stop. */
	if (grtrace_running &&
	    s->flight_recorder != grtrace_settings.flight_recorder)
		return -EBUSY;
	ret = grtrace_govern_commit(&config->governance);
	if (ret)
		return ret;
	grtrace_settings.flight_recorder = s->flight_recorder;
	WRITE_ONCE(grtrace_settings.level, s->level);
	WRITE_ONCE(grtrace_settings.type_mask, s->type_mask);
	WRITE_ONCE(grtrace_settings.engine_mask, s->engine_mask);
	WRITE_ONCE(grtrace_settings.ring_id, s->ring_id);
	return 0;
}

/* ---- emit ---- */

#if IS_ENABLED(CONFIG_GRTRACE_EMIT)

struct grtrace_emit {
	u16 type;
	u16 engine;
	u32 ring;
	u64 ctx;
	u64 seqno;
	struct grtrace_ring tmp;
	char name[16];
};

static void grtrace_emit_fire(struct grtrace_emit *e)
{
	struct grtrace_job job = {
		.ring		= &e->tmp,
		.ctx_id		= e->ctx,
		.fence_context	= e->ctx,
		.fence_seqno	= e->seqno,
	};

	switch (e->type) {
	case GRTRACE_EV_SUBMIT:
		job.depth = 1;
		grtrace_submit(&job);
		break;
	case GRTRACE_EV_COMMIT:
		grtrace_commit(&job);
		break;
	case GRTRACE_EV_START:
		grtrace_start(&job);
		break;
	case GRTRACE_EV_END:
		grtrace_end(&job);
		break;
	case GRTRACE_EV_COMPLETE:
		grtrace_complete(&job);
		break;
	case GRTRACE_EV_CTX_SWITCH:
		job.aux_context = e->seqno;
		grtrace_ctx_switch(&job);
		break;
	case GRTRACE_EV_IRQ:
		grtrace_irq(&job);
		break;
	case GRTRACE_EV_SYNC_WAIT_ENTER:
		job.waiter = true;
		grtrace_sync_wait_enter(&job);
		break;
	case GRTRACE_EV_SYNC_WAIT_EXIT:
		job.waiter = true;
		grtrace_sync_wait_exit(&job);
		break;
	case GRTRACE_EV_ERROR:
		job.status = GRTRACE_ERROR_OTHER;
		grtrace_error(&job);
		break;
	}
}

static int grtrace_emit_parse(char *line, struct grtrace_emit *e)
{
	char *arg[6];
	int n = 0, i;

	while (n < ARRAY_SIZE(arg) && (arg[n] = strsep(&line, " \t"))) {
		if (*arg[n])
			n++;
	}
	if (n && !strcmp(arg[0], "emit")) {
		for (i = 1; i < n; i++)
			arg[i - 1] = arg[i];
		n--;
	}
	if (n != 5 || (line && *skip_spaces(line)))
		return -EINVAL;

	i = match_string(grtrace_type_names, GRTRACE_EV_NR, arg[0]);
	if (i < 0)
		return -EINVAL;
	e->type = i;
	if (kstrtou64(arg[1], 0, &e->ctx) || kstrtou16(arg[2], 0, &e->engine) ||
	    kstrtou32(arg[3], 0, &e->ring) || kstrtou64(arg[4], 0, &e->seqno) ||
	    e->engine >= GRTRACE_ENGINE_NR || !e->ring ||
	    e->ring >= GRTRACE_FIRST_RING_ID)
		return -EINVAL;

	snprintf(e->name, sizeof(e->name), "emit%u", e->ring);
	e->tmp = (struct grtrace_ring) {
		.dev = "emit", .name = e->name, .engine = e->engine,
	};
	grtrace_ring_init_fixed(&e->tmp, e->ring);
	return 0;
}

/**
 * grtrace_emit_line - inject events, as a driver would report them
 * @buf: lines of "[emit] <type> <ctx> <engine> <ring> <seqno>"
 *
 * The events take exactly the path of driver events: the exported
 * grtrace_<type>() functions, the tracepoints, and the relay probe with all
 * its governance.  Ring <ring>, from 1 to %GRTRACE_FIRST_RING_ID - 1, is
 * the test ring "emit<ring>" of device "emit", with that id: never a
 * driver's ring.  All lines are checked before any event is fired.
 *
 * Context: process context.
 * Returns: number of events, or -EINVAL for a malformed line (nothing
 * fired), or -ENOMEM.
 */
int grtrace_emit_line(const char *buf)
{
	struct grtrace_emit *ev;
	char *copy, *cur, *line;
	int n = 0, i, ret = 0;
	bool text = false;

	copy = kstrdup(buf, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	/* Only the lines that are not blank take an entry. */
	for (cur = copy; ; cur++) {
		if (!*cur || *cur == '\n') {
			n += text;
			text = false;
			if (!*cur)
				break;
		} else if (!isspace(*cur)) {
			text = true;
		}
	}
	ev = kvcalloc(n + 1, sizeof(*ev), GFP_KERNEL);
	if (!ev) {
		kfree(copy);
		return -ENOMEM;
	}

	n = 0;
	cur = copy;
	while ((line = strsep(&cur, "\n"))) {
		line = strim(line);
		if (!*line)
			continue;
		ret = grtrace_emit_parse(line, &ev[n]);
		if (ret)
			goto out;
		n++;
	}

	for (i = 0; i < n; i++)
		grtrace_emit_fire(&ev[i]);
	ret = n ? n : -EINVAL;
out:
	kvfree(ev);
	kfree(copy);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_emit_line);
#endif

/**
 * grtrace_core_exit - stop a session still running
 *
 * Context: module exit.
 */
void grtrace_core_exit(void)
{
	if (grtrace_session_running())
		grtrace_session_stop();
}
