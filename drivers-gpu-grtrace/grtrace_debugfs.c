// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace debugfs: the files of /sys/kernel/debug/grtrace/ and the table of
 * config keys.  The top layer of the grtrace module: it calls the core and
 * the stream layers and nothing calls it but the VFS and the tests.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/grtrace.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "grtrace_internal.h"

static struct dentry *grtrace_dir;

static const char * const grtrace_drop_names[GRTRACE_DROP_NR] = {
	[GRTRACE_DROP_FILTERED]	= "filtered",
	[GRTRACE_DROP_OVERRUN]	= "overrun",
	[GRTRACE_DROP_SAMPLED]	= "sampled",
	[GRTRACE_DROP_BACKPRESSURE] = "backpressure",
	[GRTRACE_DROP_RATE_LIMITED] = "rate_limited",
	[GRTRACE_DROP_UNTRACKED] = "untracked",
	[GRTRACE_DROP_AGGREGATED] = "aggregated",
	[GRTRACE_DROP_FROZEN]	= "frozen",
};

static const char * const grtrace_freeze_names[] = {
	[GRTRACE_FROZEN_NONE]		= "none",
	[GRTRACE_FROZEN_ERROR]		= "error",
	[GRTRACE_FROZEN_CONTROL]	= "control",
};

static const char * const grtrace_engine_names[GRTRACE_ENGINE_NR] = {
	[GRTRACE_ENGINE_GRAPHICS]	= "graphics",
	[GRTRACE_ENGINE_COMPUTE]	= "compute",
	[GRTRACE_ENGINE_COPY]		= "copy",
	[GRTRACE_ENGINE_VIDEO_DECODE]	= "video_decode",
	[GRTRACE_ENGINE_VIDEO_ENCODE]	= "video_encode",
	[GRTRACE_ENGINE_OTHER]		= "other",
};

/* ---- config keys ---- */

/* A config write being parsed: the settings and the one-shot actions. */
struct grtrace_config_edit {
	struct grtrace_config config;
	bool reset_stats;
};

static int set_level(struct grtrace_config_edit *e, const char *val)
{
	return grtrace_parse_level(val, &e->config.core.level);
}

static void show_level(struct seq_file *m, const struct grtrace_config *c)
{
	seq_puts(m, grtrace_level_names[c->core.level]);
}

static int set_flight_recorder(struct grtrace_config_edit *e, const char *val)
{
	return grtrace_parse_bool(val, &e->config.core.flight_recorder);
}

static void show_flight_recorder(struct seq_file *m,
				 const struct grtrace_config *c)
{
	seq_printf(m, "%d", c->core.flight_recorder);
}

static int set_type_mask(struct grtrace_config_edit *e, const char *val)
{
	return grtrace_parse_mask(val, GRTRACE_ALL_TYPES,
				  &e->config.core.type_mask);
}

static void show_type_mask(struct seq_file *m, const struct grtrace_config *c)
{
	seq_printf(m, "0x%x", c->core.type_mask);
}

static int set_engine_mask(struct grtrace_config_edit *e, const char *val)
{
	return grtrace_parse_mask(val, GRTRACE_ALL_ENGINES,
				  &e->config.core.engine_mask);
}

static void show_engine_mask(struct seq_file *m, const struct grtrace_config *c)
{
	seq_printf(m, "0x%x", c->core.engine_mask);
}

static int set_ring_id(struct grtrace_config_edit *e, const char *val)
{
	return grtrace_parse_ring(val, &e->config.core.ring_id);
}

static void show_ring_id(struct seq_file *m, const struct grtrace_config *c)
{
	seq_printf(m, "%d", c->core.ring_id);
}

static int set_reset_stats(struct grtrace_config_edit *e, const char *val)
{
	bool b;

	if (kstrtobool(val, &b) || !b)
		return -EINVAL;
	e->reset_stats = true;
	return 0;
}

static void show_zero(struct seq_file *m, const struct grtrace_config *c)
{
	seq_putc(m, '0');
}

/* The governance's keys. */

static int set_sampling_rate(struct grtrace_config_edit *e, const char *val)
{
	return grtrace_parse_u32(val, 0, 100,
				 &e->config.governance.sampling_rate);
}

static void show_sampling_rate(struct seq_file *m,
			       const struct grtrace_config *c)
{
	seq_printf(m, "%u", c->governance.sampling_rate);
}

static int set_sampling_mode(struct grtrace_config_edit *e, const char *val)
{
	int i = sysfs_match_string(grtrace_sampling_mode_names, val);

	if (i < 0)
		return -EINVAL;
	e->config.governance.sampling_mode = i;
	return 0;
}

static void show_sampling_mode(struct seq_file *m,
			       const struct grtrace_config *c)
{
	seq_puts(m, grtrace_sampling_mode_names[c->governance.sampling_mode]);
}

static int set_adaptive(struct grtrace_config_edit *e, const char *val)
{
	struct grtrace_govern_settings *g = &e->config.governance;
	bool on;

	if (grtrace_parse_bool(val, &on))
		return -EINVAL;
	if (on)
		g->sampling_mode = GRTRACE_SAMPLING_ADAPTIVE;
	else if (g->sampling_mode == GRTRACE_SAMPLING_ADAPTIVE)
		g->sampling_mode = GRTRACE_SAMPLING_STATIC;
	return 0;
}

static void show_adaptive(struct seq_file *m, const struct grtrace_config *c)
{
	seq_printf(m, "%d",
		   c->governance.sampling_mode == GRTRACE_SAMPLING_ADAPTIVE);
}

static int set_sampling_threshold(struct grtrace_config_edit *e,
				  const char *val)
{
	return kstrtou64(val, 0, &e->config.governance.sampling_threshold) ?
	       -EINVAL : 0;
}

static void show_sampling_threshold(struct seq_file *m,
				    const struct grtrace_config *c)
{
	seq_printf(m, "%llu", c->governance.sampling_threshold);
}

static int set_backpressure(struct grtrace_config_edit *e, const char *val)
{
	return grtrace_parse_u32(val, 0, 100,
				 &e->config.governance.backpressure_threshold);
}

static void show_backpressure(struct seq_file *m,
			      const struct grtrace_config *c)
{
	seq_printf(m, "%u", c->governance.backpressure_threshold);
}

static int set_max_events_per_sec(struct grtrace_config_edit *e,
				  const char *val)
{
	return grtrace_parse_u32(val, 0, 100000000,
				 &e->config.governance.max_events_per_sec);
}

static void show_max_events_per_sec(struct seq_file *m,
				    const struct grtrace_config *c)
{
	seq_printf(m, "%u", c->governance.max_events_per_sec);
}

/*
 * The mode by name, or by its number in the original design (0 window,
 * 1 token bucket), which its README and scripts write.
 */
static int set_rate_limit_mode(struct grtrace_config_edit *e, const char *val)
{
	int i = sysfs_match_string(grtrace_rate_limit_mode_names, val);
	unsigned int n;

	if (i < 0 && !kstrtouint(val, 10, &n) && n < GRTRACE_RATE_LIMIT_NR)
		i = n;
	if (i < 0)
		return -EINVAL;
	e->config.governance.rate_limit_mode = i;
	return 0;
}

static void show_rate_limit_mode(struct seq_file *m,
				 const struct grtrace_config *c)
{
	seq_puts(m, grtrace_rate_limit_mode_names[c->governance.rate_limit_mode]);
}

static int set_rate_limit_burst(struct grtrace_config_edit *e, const char *val)
{
	return grtrace_parse_u32(val, 0, 1000000000,
				 &e->config.governance.rate_limit_burst);
}

static void show_rate_limit_burst(struct seq_file *m,
				  const struct grtrace_config *c)
{
	seq_printf(m, "%u", c->governance.rate_limit_burst);
}

static int set_watchlist(struct grtrace_config_edit *e, const char *val)
{
	struct grtrace_govern_settings *g = &e->config.governance;

	return grtrace_parse_ring_list(val, g);
}

static void show_watchlist(struct seq_file *m, const struct grtrace_config *c)
{
	const struct grtrace_govern_settings *g = &c->governance;
	u32 i;

	if (!g->nr_watch_rings && !g->nr_watch_names) {
		seq_puts(m, "all");
		return;
	}
	seq_puts(m, g->ring_deny ? "!" : "");
	for (i = 0; i < g->nr_watch_names; i++)
		seq_printf(m, "%s%s/%s", i ? "," : "", g->watch_names[i].dev,
			   g->watch_names[i].name);
	for (i = 0; i < g->nr_watch_rings; i++)
		seq_printf(m, "%s%u", i || g->nr_watch_names ? "," : "", g->watch_rings[i]);
}

static int set_watch_allow(struct grtrace_config_edit *e, const char *val)
{
	return grtrace_parse_bool(val, &e->config.governance.watch_allow);
}

static void show_watch_allow(struct seq_file *m,
			     const struct grtrace_config *c)
{
	seq_printf(m, "%d", c->governance.watch_allow);
}

static int set_watch_ctx_add(struct grtrace_config_edit *e, const char *val)
{
	struct grtrace_govern_settings *g = &e->config.governance;
	u64 ctx;

	if (kstrtou64(val, 0, &ctx))
		return -EINVAL;
	if (grtrace_govern_ctx_listed(g, ctx))
		return 0;
	if (g->nr_watch_ctx == GRTRACE_WATCH_CTX)
		return -ENOSPC;
	g->watch_ctx[g->nr_watch_ctx++] = ctx;
	return 0;
}

static int set_watch_ctx_clear(struct grtrace_config_edit *e, const char *val)
{
	bool b;

	if (grtrace_parse_bool(val, &b) || !b)
		return -EINVAL;
	e->config.governance.nr_watch_ctx = 0;
	return 0;
}

static void show_watch_count(struct seq_file *m,
			     const struct grtrace_config *c)
{
	seq_printf(m, "%u", c->governance.nr_watch_ctx);
}

static void show_watch_ring_count(struct seq_file *m,
				  const struct grtrace_config *c)
{
	seq_printf(m, "%u", c->governance.nr_watch_rings + c->governance.nr_watch_names);
}

static int set_filter_enabled(struct grtrace_config_edit *e, const char *val)
{
	return grtrace_parse_bool(val, &e->config.governance.filter_enabled);
}

static void show_filter_enabled(struct seq_file *m,
				const struct grtrace_config *c)
{
	seq_printf(m, "%d", c->governance.filter_enabled);
}

static int set_filter_pid(struct grtrace_config_edit *e, const char *val)
{
	struct grtrace_govern_settings *g = &e->config.governance;

	return grtrace_parse_pid_list(val, g->pids, &g->nr_pids);
}

static void show_filter_pid(struct seq_file *m, const struct grtrace_config *c)
{
	const struct grtrace_govern_settings *g = &c->governance;
	u32 i;

	for (i = 0; i < g->nr_pids; i++)
		seq_printf(m, "%s%u", i ? "," : "", g->pids[i]);
	if (!g->nr_pids)
		seq_puts(m, "none");
}

static int set_filter_uid(struct grtrace_config_edit *e, const char *val)
{
	return grtrace_parse_uid(val, &e->config.governance.uid);
}

static void show_filter_uid(struct seq_file *m, const struct grtrace_config *c)
{
	seq_printf(m, "%lld", c->governance.uid);
}

/* In us; kept in ns. */
static int set_filter_latency(struct grtrace_config_edit *e, const char *val)
{
	u64 us;

	if (kstrtou64(val, 0, &us) || us > U64_MAX / NSEC_PER_USEC)
		return -EINVAL;
	e->config.governance.min_latency = us * NSEC_PER_USEC;
	return 0;
}

static void show_filter_latency(struct seq_file *m,
				const struct grtrace_config *c)
{
	seq_printf(m, "%llu", div_u64(c->governance.min_latency, NSEC_PER_USEC));
}

static int set_filter_events(struct grtrace_config_edit *e, const char *val)
{
	return grtrace_parse_mask(val, GRTRACE_ALL_TYPES,
				  &e->config.governance.filter_events);
}

static void show_filter_events(struct seq_file *m,
			       const struct grtrace_config *c)
{
	seq_printf(m, "0x%x", c->governance.filter_events);
}

static int set_aggregator_enabled(struct grtrace_config_edit *e,
				  const char *val)
{
	return grtrace_parse_bool(val, &e->config.governance.aggregator_enabled);
}

static void show_aggregator_enabled(struct seq_file *m,
				    const struct grtrace_config *c)
{
	seq_printf(m, "%d", c->governance.aggregator_enabled);
}

static int set_aggregate_only(struct grtrace_config_edit *e, const char *val)
{
	return grtrace_parse_bool(val, &e->config.governance.aggregate_only);
}

static void show_aggregate_only(struct seq_file *m,
				const struct grtrace_config *c)
{
	seq_printf(m, "%d", c->governance.aggregate_only);
}

static int set_aggregator_window(struct grtrace_config_edit *e,
				 const char *val)
{
	return grtrace_parse_u32(val, 100, 60000,
				 &e->config.governance.aggregator_window);
}

static void show_aggregator_window(struct seq_file *m,
				   const struct grtrace_config *c)
{
	seq_printf(m, "%u", c->governance.aggregator_window);
}

/* The Kconfig option a key belongs to: GRTRACE_PART_* */
enum {
	GRTRACE_PART_CORE,
	GRTRACE_PART_SAMPLING,
	GRTRACE_PART_FILTER,
	GRTRACE_PART_AGGREGATOR,
};

/* GRTRACE_KEY_* flags of struct grtrace_config_key */
#define GRTRACE_KEY_FILE	BIT(0)	/* also a debugfs file of its name */
#define GRTRACE_KEY_ALIAS	BIT(1)	/* another name; not shown in config */

/**
 * struct grtrace_config_key - a config key
 * @name: its name in config
 * @set: parse a value into the field(s) it sets of a config being edited;
 *	NULL if read-only
 * @show: print the value of its field(s)
 * @part: GRTRACE_PART_*: the Kconfig option it belongs to
 * @flags: GRTRACE_KEY_*
 */
struct grtrace_config_key {
	const char *name;
	int (*set)(struct grtrace_config_edit *e, const char *val);
	void (*show)(struct seq_file *m, const struct grtrace_config *c);
	u8 part;
	u8 flags;
};

#define KEY(n, s, p, f)	{ #n, set_##s, show_##s, GRTRACE_PART_##p, f }
/* In the order config shows them. */
static const struct grtrace_config_key grtrace_config_keys[] = {
	KEY(level, level, CORE, 0),
	KEY(filter_type_mask, type_mask, CORE, 0),
	KEY(filter_engine_mask, engine_mask, CORE, 0),
	KEY(filter_ring_id, ring_id, CORE, 0),
	KEY(sample, sampling_rate, SAMPLING, 0),
	KEY(sampling, sampling_rate, SAMPLING,
	    GRTRACE_KEY_FILE | GRTRACE_KEY_ALIAS),
	KEY(sampling_rate, sampling_rate, SAMPLING,
	    GRTRACE_KEY_FILE | GRTRACE_KEY_ALIAS),
	KEY(sampling_mode, sampling_mode, SAMPLING, GRTRACE_KEY_FILE),
	KEY(sampling_threshold, sampling_threshold, SAMPLING, GRTRACE_KEY_FILE),
	KEY(adaptive_sampling, adaptive, SAMPLING, 0),
	KEY(backpressure_threshold, backpressure, SAMPLING, 0),
	KEY(max_events_per_sec, max_events_per_sec, CORE, 0),
	KEY(rate_limit, max_events_per_sec, CORE,
	    GRTRACE_KEY_FILE | GRTRACE_KEY_ALIAS),
	KEY(rate_limiter_mode, rate_limit_mode, CORE, 0),
	KEY(rate_limit_mode, rate_limit_mode, CORE,
	    GRTRACE_KEY_FILE | GRTRACE_KEY_ALIAS),
	KEY(rate_limit_burst, rate_limit_burst, CORE, GRTRACE_KEY_FILE),
	KEY(watchlist, watchlist, CORE, GRTRACE_KEY_FILE),
	KEY(watch_allow_mode, watch_allow, CORE, 0),
	{ "watch_ctx_add", set_watch_ctx_add, show_zero, GRTRACE_PART_CORE },
	{ "watch_ctx_clear", set_watch_ctx_clear, show_zero, GRTRACE_PART_CORE },
	{ "watch_count", NULL, show_watch_count, GRTRACE_PART_CORE },
	{ "watch_ring_count", NULL, show_watch_ring_count, GRTRACE_PART_CORE },
	KEY(filter_enabled, filter_enabled, FILTER, GRTRACE_KEY_FILE),
	KEY(filter_pid, filter_pid, FILTER, GRTRACE_KEY_FILE),
	KEY(filter_uid, filter_uid, FILTER, GRTRACE_KEY_FILE),
	KEY(filter_latency, filter_latency, FILTER, GRTRACE_KEY_FILE),
	KEY(filter_events, filter_events, FILTER, GRTRACE_KEY_FILE),
	KEY(aggregator_enable, aggregator_enabled, AGGREGATOR, GRTRACE_KEY_FILE),
	KEY(aggregator_window, aggregator_window, AGGREGATOR, GRTRACE_KEY_FILE),
	KEY(aggregate_only, aggregate_only, AGGREGATOR, 0),
	KEY(flight_recorder, flight_recorder, CORE, 0),
	{ "reset_stats", set_reset_stats, show_zero, GRTRACE_PART_CORE },
};

#undef KEY

/* Compiled out, a part's keys are rejected and not shown. */
static bool grtrace_config_key_built(const struct grtrace_config_key *k)
{
	switch (k->part) {
	case GRTRACE_PART_SAMPLING:
		return IS_ENABLED(CONFIG_GRTRACE_SAMPLING);
	case GRTRACE_PART_FILTER:
		return IS_ENABLED(CONFIG_GRTRACE_FILTER);
	case GRTRACE_PART_AGGREGATOR:
		return IS_ENABLED(CONFIG_GRTRACE_AGGREGATOR);
	}
	return true;
}

/* Apply one "key=value" to @e. */
static int grtrace_config_key(struct grtrace_config_edit *e, char *line)
{
	char *val = strchr(line, '=');
	int i;

	if (!val)
		return -EINVAL;
	*val++ = '\0';
	line = strim(line);
	val = strim(val);

	for (i = 0; i < ARRAY_SIZE(grtrace_config_keys); i++) {
		const struct grtrace_config_key *k = &grtrace_config_keys[i];

		if (strcmp(k->name, line) || !grtrace_config_key_built(k))
			continue;
		return k->set ? k->set(e, val) : -EINVAL;
	}
	return -EINVAL;
}

/*
 * Serialises the config writes, each a read, change and write of all
 * settings, so none is lost to another.
 */
static DEFINE_MUTEX(grtrace_config_lock);

/**
 * grtrace_config_write - apply "key=value" lines
 * @buf: NUL terminated lines; blank lines are ignored
 *
 * All lines are checked before any is applied.
 *
 * Context: process context, takes grtrace_config_lock and, to read and
 * apply the settings, the locks of the layers below.
 * Returns: 0, or -EINVAL if any line has an unknown key or a bad value,
 * -ENOSPC if a list is full, -ENOMEM; in every case of error nothing
 * changed.
 */
int grtrace_config_write(const char *buf)
{
	struct grtrace_config_edit *e;
	char *copy, *cur, *line;
	int ret = 0;

	copy = kstrdup(buf, GFP_KERNEL);
	e = kzalloc_obj(*e);
	if (!copy || !e) {
		ret = -ENOMEM;
		goto out;
	}

	mutex_lock(&grtrace_config_lock);
	grtrace_config_get(&e->config);
	cur = copy;
	while ((line = strsep(&cur, "\n"))) {
		line = strim(line);
		if (!*line)
			continue;
		ret = grtrace_config_key(e, line);
		if (ret)
			break;
	}
	if (!ret)
		ret = grtrace_config_set(&e->config);
	mutex_unlock(&grtrace_config_lock);

	if (!ret && e->reset_stats)
		grtrace_reset_stats();
out:
	kfree(e);
	kfree(copy);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(grtrace_config_write);

/* ---- debugfs ---- */

static char *grtrace_user_line(const char __user *ubuf, size_t count)
{
	if (!count || count > SZ_64K)
		return ERR_PTR(-EINVAL);
	return memdup_user_nul(ubuf, count);
}

/* A write of "<value>" to the file of a key: config gets "<name>=<value>". */
static ssize_t grtrace_write_key(const char *name, const char __user *ubuf,
				 size_t count, size_t max)
{
	char *buf, *line;
	int ret;

	if (!count || count > max)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	line = kasprintf(GFP_KERNEL, "%s=%s", name, strim(buf));
	kfree(buf);
	if (!line)
		return -ENOMEM;
	ret = strchr(line, '\n') ? -EINVAL : grtrace_config_write(line);
	kfree(line);
	return ret ? ret : count;
}

static ssize_t grtrace_control_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	char *buf = grtrace_user_line(ubuf, count);
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (sysfs_streq(buf, "start"))
		ret = grtrace_session_start();
	else if (sysfs_streq(buf, "stop"))
		ret = grtrace_session_stop();
	else if (sysfs_streq(buf, "freeze"))
		ret = grtrace_session_freeze();
	else
		ret = -EINVAL;
	kfree(buf);
	return ret ? ret : count;
}

static int grtrace_control_show(struct seq_file *m, void *v)
{
	seq_puts(m, grtrace_session_running() ? "running\n" : "stopped\n");
	return 0;
}

DEFINE_SHOW_STORE_ATTRIBUTE(grtrace_control);

static ssize_t grtrace_enabled_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	bool on;
	int ret;

	ret = kstrtobool_from_user(ubuf, count, &on);
	if (ret)
		return ret;
	if (on == grtrace_session_running())
		return count;
	ret = on ? grtrace_session_start() : grtrace_session_stop();
	return ret ? ret : count;
}

static int grtrace_enabled_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", grtrace_session_running());
	return 0;
}

DEFINE_SHOW_STORE_ATTRIBUTE(grtrace_enabled);

static int grtrace_version_show(struct seq_file *m, void *v)
{
	seq_printf(m, "format_version=%d\n", GRTRACE_FORMAT_VERSION);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(grtrace_version);

static ssize_t grtrace_config_file_write(struct file *file,
					 const char __user *ubuf,
					 size_t count, loff_t *ppos)
{
	char *buf = grtrace_user_line(ubuf, count);
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = grtrace_config_write(buf);
	kfree(buf);
	return ret ? ret : count;
}

static int grtrace_config_file_show(struct seq_file *m, void *v)
{
	struct grtrace_config *c;
	int i;

	c = kmalloc_obj(*c);
	if (!c)
		return -ENOMEM;
	grtrace_config_get(c);
	for (i = 0; i < ARRAY_SIZE(grtrace_config_keys); i++) {
		const struct grtrace_config_key *k = &grtrace_config_keys[i];

		if ((k->flags & GRTRACE_KEY_ALIAS) ||
		    !grtrace_config_key_built(k))
			continue;
		seq_printf(m, "%s=", k->name);
		k->show(m, c);
		seq_putc(m, '\n');
	}
	kfree(c);
	return 0;
}

DEFINE_SHOW_STORE_ATTRIBUTE(grtrace_config_file);

static ssize_t grtrace_level_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	return grtrace_write_key("level", ubuf, count, SZ_64K);
}

static int grtrace_level_show(struct seq_file *m, void *v)
{
	struct grtrace_config *c;

	c = kmalloc_obj(*c);
	if (!c)
		return -ENOMEM;
	grtrace_config_get(c);
	seq_printf(m, "%s\n", grtrace_level_names[c->core.level]);
	kfree(c);
	return 0;
}

DEFINE_SHOW_STORE_ATTRIBUTE(grtrace_level);

static ssize_t grtrace_buffer_size_write(struct file *file,
					 const char __user *ubuf,
					 size_t count, loff_t *ppos)
{
	unsigned long size;
	int ret;

	ret = kstrtoul_from_user(ubuf, count, 0, &size);
	if (ret)
		return ret;
	ret = grtrace_set_buffer_size(size);
	return ret ? ret : count;
}

static int grtrace_buffer_size_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%zu\n", grtrace_get_buffer_size());
	return 0;
}

DEFINE_SHOW_STORE_ATTRIBUTE(grtrace_buffer_size);

#if IS_ENABLED(CONFIG_GRTRACE_EMIT)
static ssize_t grtrace_emit_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char *buf = grtrace_user_line(ubuf, count);
	int ret;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = grtrace_emit_line(buf);
	kfree(buf);
	return ret < 0 ? ret : count;
}

/*
 * emit is write-only: DEFINE_SHOW_STORE_ATTRIBUTE() would make it readable
 * through a seq_file, so it keeps a fops of its own.
 */
static const struct file_operations grtrace_emit_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= grtrace_emit_write,
	.llseek	= noop_llseek,
};
#endif

/*
 * The counters under the names of the original design's stats, which its
 * troubleshooting steps grep for (Documentation/ABI/testing/debugfs-grtrace).
 * A record that does not fit its CPU's relay buffer is not written in part:
 * a short write and an overrun are the same drop.
 */
static void grtrace_stats_show_seed_names(struct seq_file *m,
					  const struct grtrace_totals *t)
{
	u64 events, watch;

	grtrace_govern_filtered(&events, &watch);
	seq_printf(m, "writes_ok=%llu\n", t->written);
	seq_printf(m, "writes_short=%llu\n", t->dropped[GRTRACE_DROP_OVERRUN]);
	seq_printf(m, "overruns=%llu\n", t->dropped[GRTRACE_DROP_OVERRUN]);
	seq_printf(m, "lost_events=%llu\n", t->dropped[GRTRACE_DROP_OVERRUN] +
		   t->dropped[GRTRACE_DROP_UNTRACKED]);
	seq_printf(m, "rate_limited_drops=%llu\n", t->dropped[GRTRACE_DROP_RATE_LIMITED]);
	seq_printf(m, "backpressure_drops=%llu\n", t->dropped[GRTRACE_DROP_BACKPRESSURE]);
	seq_printf(m, "filtered_type=%llu\n", grtrace_type_filtered_count() + events);
	seq_printf(m, "filtered_watch=%llu\n", watch);
}

static int grtrace_stats_show(struct seq_file *m, void *v)
{
	struct grtrace_flight f;
	u64 bytes_read;
	struct grtrace_totals t;
	int i;

	grtrace_get_totals(&t);
	bytes_read = grtrace_stream_bytes_read();

	seq_printf(m, "enabled=%d\n", grtrace_session_running());
	seq_printf(m, "session_id=%016llx\n", grtrace_stream_session_id());
	seq_printf(m, "offered=%llu\n", t.offered);
	seq_printf(m, "written=%llu\n", t.written);
	seq_printf(m, "dropped=%llu\n", grtrace_totals_dropped(&t));
	seq_printf(m, "held=%llu\n", grtrace_govern_held());
	for (i = 0; i < GRTRACE_DROP_NR; i++)
		seq_printf(m, "dropped_%s=%llu\n", grtrace_drop_names[i],
			   t.dropped[i]);
	seq_printf(m, "bytes_written=%llu\n", t.bytes_written);
	seq_printf(m, "bytes_dropped=%llu\n", t.bytes_dropped);
	seq_printf(m, "bytes_read=%llu\n", bytes_read);
	seq_printf(m, "summaries=%llu\n", t.summaries);
	seq_printf(m, "summaries_lost=%llu\n", t.summaries_lost);
	grtrace_stream_flight(&f);
	seq_printf(m, "flight_recorder=%d\n", f.on);
	seq_printf(m, "frozen=%d\n", f.frozen);
	seq_printf(m, "frozen_by=%s\n", grtrace_freeze_names[f.by]);
	seq_printf(m, "frozen_gseq=%llu\n", f.gseq);
	/* Since boot, and never offered: these rings have no id. */
	seq_printf(m, "events_no_ring=%llu\n", grtrace_no_ring_events());
	if (IS_ENABLED(CONFIG_GRTRACE_DRM_SCHED))
		seq_printf(m, "sched_waits_untracked=%llu\n",
			   grtrace_sched_waits_untracked());
	grtrace_stats_show_seed_names(m, &t);
	grtrace_govern_show_stats(m);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(grtrace_stats);

static int grtrace_events_by_type_show(struct seq_file *m, void *v)
{
	struct grtrace_totals t;
	int i;

	grtrace_get_totals(&t);
	for (i = 0; i < GRTRACE_EV_NR; i++)
		seq_printf(m, "%s=%llu\n", grtrace_type_names[i], t.by_type[i]);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(grtrace_events_by_type);

static int grtrace_show_ring(const struct grtrace_ring *ring, u32 id,
			     void *data)
{
	seq_printf(data, "%u %s %s %s\n", id,
		   grtrace_engine_names[ring->engine], ring->dev, ring->name);
	return 0;
}

static int grtrace_rings_show(struct seq_file *m, void *v)
{
	seq_puts(m, "# id engine dev ring\n");
	return grtrace_walk_rings(grtrace_show_ring, m);
}

DEFINE_SHOW_ATTRIBUTE(grtrace_rings);

static int grtrace_sec_stats_show(struct seq_file *m, void *v)
{
	u64 now = div_u64(ktime_get_mono_fast_ns(), NSEC_PER_SEC);
	u64 s, w, d;

	seq_puts(m, "# second written dropped\n");
	for (s = now - min_t(u64, now, GRTRACE_SEC_SLOTS - 1); s <= now; s++) {
		grtrace_stream_sec_counts(s, &w, &d);
		seq_printf(m, "%llu %llu %llu\n", s, w, d);
	}
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(grtrace_sec_stats);

static int grtrace_latency_hist_show(struct seq_file *m, void *v)
{
	u64 hist[GRTRACE_HIST_BUCKETS];
	int i;

	grtrace_stream_latency_hist(hist);
	seq_puts(m, "# write cost, ns: [from, to) count\n");
	for (i = 0; i < GRTRACE_HIST_BUCKETS; i++)
		seq_printf(m, "%llu %llu %llu\n", i ? 1ULL << i : 0,
			   2ULL << i, hist[i]);
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(grtrace_latency_hist);

/* The file of a key with GRTRACE_KEY_FILE; the key is its i_private. */
static int grtrace_key_show(struct seq_file *m, void *v)
{
	const struct grtrace_config_key *k = m->private;
	struct grtrace_config *c;

	c = kmalloc_obj(*c);
	if (!c)
		return -ENOMEM;
	grtrace_config_get(c);
	k->show(m, c);
	seq_putc(m, '\n');
	kfree(c);
	return 0;
}

static ssize_t grtrace_key_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	const struct grtrace_config_key *k =
		((struct seq_file *)file->private_data)->private;

	return grtrace_write_key(k->name, ubuf, count, PAGE_SIZE);
}

DEFINE_SHOW_STORE_ATTRIBUTE(grtrace_key);

static int grtrace_sampling_stats_show(struct seq_file *m, void *v)
{
	return grtrace_govern_show_sampling(m);
}

DEFINE_SHOW_ATTRIBUTE(grtrace_sampling_stats);

static int grtrace_filter_stats_show(struct seq_file *m, void *v)
{
	return grtrace_govern_show_filter(m);
}

DEFINE_SHOW_ATTRIBUTE(grtrace_filter_stats);

static int grtrace_aggregator_stats_show(struct seq_file *m, void *v)
{
	return grtrace_govern_show_aggregator(m);
}

DEFINE_SHOW_ATTRIBUTE(grtrace_aggregator_stats);

static int __maybe_unused grtrace_proc_stats_show(struct seq_file *m, void *v)
{
	return grtrace_govern_show_rings(m);
}

static const struct {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
} grtrace_files[] = {
	{ "control",		0600, &grtrace_control_fops },
	{ "enabled",		0600, &grtrace_enabled_fops },
	{ "enable",		0600, &grtrace_enabled_fops },
	{ "version",		0400, &grtrace_version_fops },
	{ "config",		0600, &grtrace_config_file_fops },
	{ "level",		0600, &grtrace_level_fops },
	{ "buffer_size",	0600, &grtrace_buffer_size_fops },
#if IS_ENABLED(CONFIG_GRTRACE_EMIT)
	{ "emit",		0200, &grtrace_emit_fops },
#endif
	{ "stats",		0400, &grtrace_stats_fops },
	{ "events_by_type",	0400, &grtrace_events_by_type_fops },
	{ "rings",		0400, &grtrace_rings_fops },
	{ "sec_stats",		0400, &grtrace_sec_stats_fops },
	{ "latency_hist",	0400, &grtrace_latency_hist_fops },
	{ "events",		0400, &grtrace_stream_pipe_fops },
	{ "trace_pipe",		0400, &grtrace_stream_pipe_fops },
};

static int __init grtrace_init(void)
{
	int i, ret;

	/*
	 * Every file reads the governance: it exists before the first file
	 * does, as a module's files can be opened as soon as they appear.
	 */
	ret = grtrace_govern_init();
	if (ret)
		return ret;
	grtrace_dir = debugfs_create_dir("grtrace", NULL);
	if (IS_ERR(grtrace_dir)) {
		ret = PTR_ERR(grtrace_dir);
		goto err;
	}
	ret = grtrace_stream_init(grtrace_dir);
	if (ret)
		goto err_dir;
	if (IS_ENABLED(CONFIG_GRTRACE_PERF_MON) &&
	    !proc_create_single("grtrace_stats", 0400, NULL,
				grtrace_proc_stats_show)) {
		ret = -ENOMEM;
		goto err_stream;
	}
	for (i = 0; i < ARRAY_SIZE(grtrace_files); i++)
		debugfs_create_file(grtrace_files[i].name, grtrace_files[i].mode,
				    grtrace_dir, NULL, grtrace_files[i].fops);
	for (i = 0; i < ARRAY_SIZE(grtrace_config_keys); i++) {
		const struct grtrace_config_key *k = &grtrace_config_keys[i];

		if ((k->flags & GRTRACE_KEY_FILE) && grtrace_config_key_built(k))
			debugfs_create_file(k->name, 0600, grtrace_dir, (void *)k,
					    &grtrace_key_fops);
	}
	if (IS_ENABLED(CONFIG_GRTRACE_SAMPLING))
		debugfs_create_file("sampling_stats", 0400, grtrace_dir, NULL,
				    &grtrace_sampling_stats_fops);
	if (IS_ENABLED(CONFIG_GRTRACE_FILTER))
		debugfs_create_file("filter_stats", 0400, grtrace_dir, NULL,
				    &grtrace_filter_stats_fops);
	if (IS_ENABLED(CONFIG_GRTRACE_AGGREGATOR))
		debugfs_create_file("aggregator_stats", 0400, grtrace_dir, NULL,
				    &grtrace_aggregator_stats_fops);
	grtrace_sched_init();
	return 0;

err_stream:
	grtrace_stream_exit();
err_dir:
	debugfs_remove_recursive(grtrace_dir);
err:
	grtrace_govern_exit();
	return ret;
}

static void __exit grtrace_exit(void)
{
	grtrace_core_exit();
	grtrace_sched_exit();
	/* Removes the events<N> files: before their directory. */
	grtrace_stream_exit();
	debugfs_remove_recursive(grtrace_dir);
	if (IS_ENABLED(CONFIG_GRTRACE_PERF_MON))
		remove_proc_entry("grtrace_stats", NULL);
	grtrace_govern_exit();
}

module_init(grtrace_init);
module_exit(grtrace_exit);

MODULE_DESCRIPTION("GPU ring trace: relay stream and control of GPU job events");
MODULE_LICENSE("GPL");
