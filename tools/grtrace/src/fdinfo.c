// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace: the DRM clients' own counts of their GPU time, read from
 * /proc/PID/fdinfo as gputop and nvtop read them
 * (Documentation/gpu/drm-usage-stats.rst).  A client is an open of a DRM
 * device (drm-pdev, drm-client-id), counted once however many fds and
 * processes share it, under the lowest process id that holds it.  Per
 * engine class it gives the ns it kept an engine busy (drm-engine-<e>, of
 * drm-engine-capacity-<e> engines) or its cycles against the engine's
 * (drm-cycles-<e>, drm-total-cycles-<e>, of as many engines); two scans
 * make an interval, and a client's busy share in it is the growth of
 * those counters.  A counter that went back keeps its last value until
 * it is past it again, as drm-usage-stats.rst asks; an engine a known
 * client shows for the first time (amdgpu shows only those it used)
 * starts from 0.  Only the fds that are DRM devices (/dev/dri/) are read,
 * and a process whose fds cannot be read (another user's, without
 * privileges) is passed over.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fdinfo.h"
#include "utils.h"

void gr_fdinfo_init(struct gr_fdinfo *fi)
{
	const char *proc = getenv("GRTRACE_PROC");

	memset(fi, 0, sizeof(*fi));
	fi->proc = proc && *proc ? proc : "/proc";
}

static struct gr_drm_engine *engine(struct gr_drm_client *c, const char *name, size_t len)
{
	unsigned int i;

	if (!len || len >= sizeof(c->eng[0].name))
		return NULL;
	for (i = 0; i < c->nr_eng; i++)
		if (!strncmp(c->eng[i].name, name, len) && !c->eng[i].name[len])
			return &c->eng[i];
	if (c->nr_eng == GR_DRM_ENGINES)
		return NULL;
	memcpy(c->eng[c->nr_eng].name, name, len);
	c->eng[c->nr_eng].capacity = 1;
	return &c->eng[c->nr_eng++];
}

/* @key's value, when @line is "@key<name>:\t<number>", the name in @name */
static bool keyed(const char *line, const char *key, const char **name, size_t *len,
		  __u64 *val)
{
	size_t k = strlen(key);
	const char *colon;
	char *end;

	if (strncmp(line, key, k))
		return false;
	colon = strchr(line + k, ':');
	if (!colon)
		return false;
	*name = line + k;
	*len = colon - *name;
	*val = strtoull(colon + 1, &end, 10);
	return end != colon + 1;
}

/* One fd's fdinfo into @c; false if it is no DRM client */
static bool read_client(FILE *f, struct gr_drm_client *c)
{
	char line[256], driver[24] = "";
	bool have_id = false;
	struct gr_drm_engine *e;
	const char *name;
	size_t len;
	__u64 v;

	memset(c, 0, sizeof(*c));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "drm-driver: %23s", driver) == 1)
			continue;
		if (sscanf(line, "drm-pdev: %31s", c->pdev) == 1)
			continue;
		if (keyed(line, "drm-client-id", &name, &len, &v) && !len) {
			c->id = v;
			have_id = true;
		} else if (keyed(line, "drm-engine-capacity-", &name, &len, &v)) {
			e = engine(c, name, len);
			if (e && v)
				e->capacity = v;
		} else if (keyed(line, "drm-engine-", &name, &len, &v)) {
			e = engine(c, name, len);
			if (e) {
				e->ns = v;
				e->has_ns = true;
			}
		} else if (keyed(line, "drm-cycles-", &name, &len, &v)) {
			e = engine(c, name, len);
			if (e) {
				e->cycles = v;
				e->has_cycles = true;
			}
		} else if (keyed(line, "drm-total-cycles-", &name, &len, &v)) {
			e = engine(c, name, len);
			if (e) {
				e->total = v;
				e->has_total = true;
			}
		}
	}
	if (!have_id || !driver[0])
		return false;
	if (!c->pdev[0])
		snprintf(c->pdev, sizeof(c->pdev), "%s", driver);
	return true;
}

/* Clients by device and id; of one client, the lowest process first */
static int cmp_client(const void *a, const void *b)
{
	const struct gr_drm_client *x = a, *y = b;
	int c = strcmp(x->pdev, y->pdev);

	if (c)
		return c;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

static const struct gr_drm_client *find(const struct gr_drm_client *v, size_t n,
					const struct gr_drm_client *c)
{
	size_t lo = 0, hi = n, mid;
	int r;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		r = strcmp(v[mid].pdev, c->pdev);
		if (!r)
			r = v[mid].id < c->id ? -1 : v[mid].id > c->id;
		if (!r)
			return &v[mid];
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const struct gr_drm_engine *find_engine(const struct gr_drm_client *c, const char *name)
{
	unsigned int j;

	for (j = 0; j < c->nr_eng; j++)
		if (!strcmp(c->eng[j].name, name))
			return &c->eng[j];
	return NULL;
}

/* The DRM clients of process @pid into fi->cur */
static void scan_process(struct gr_fdinfo *fi, unsigned int pid)
{
	char path[4352], target[64], comm[17] = "";
	struct gr_drm_client c;
	struct dirent *d;
	ssize_t n;
	FILE *f;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/%u/fd", fi->proc, pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%u/fd/%s", fi->proc, pid, d->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (strncmp(target, "/dev/dri/", 9))
			continue;
		snprintf(path, sizeof(path), "%s/%u/fdinfo/%s", fi->proc, pid, d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (read_client(f, &c)) {
			if (!comm[0]) {
				FILE *cf;

				snprintf(path, sizeof(path), "%s/%u/comm", fi->proc, pid);
				cf = fopen(path, "r");
				if (!cf || !fgets(comm, sizeof(comm), cf))
					snprintf(comm, sizeof(comm), "?");
				if (cf)
					fclose(cf);
				comm[strcspn(comm, "\n")] = '\0';
			}
			c.tgid = pid;
			memcpy(c.comm, comm, sizeof(c.comm));
			if (fi->nr_cur == fi->cap_cur) {
				fi->cap_cur = fi->cap_cur ? 2 * fi->cap_cur : 16;
				fi->cur = gr_realloc(fi->cur, fi->cap_cur, sizeof(*fi->cur));
			}
			fi->cur[fi->nr_cur++] = c;
		}
		fclose(f);
	}
	closedir(dir);
}

/*
 * The share of @dt (%) an engine class was busy, from its counters @now
 * and at the scan before, @was: its cycles against the engine's, or its
 * busy ns over @dt, over the engines of the class; -1 if they cannot tell.
 */
static double busy(const struct gr_drm_engine *now, const struct gr_drm_engine *was, __u64 dt)
{
	if (now->has_cycles && now->has_total) {
		if (!was->has_total)	/* no total to count from */
			return -1;
		if (now->total == was->total)
			return 0;
		return 100.0 * (now->cycles - was->cycles) / (now->total - was->total) /
		       now->capacity;
	}
	if (now->has_ns)
		return 100.0 * (now->ns - was->ns) / dt / now->capacity;
	return -1;
}

/*
 * Each client once, under its lowest process, sorted for find(); its
 * counters no lower than the scan before had them, and each engine's
 * busy share of the interval: unknown (-1) for a client the scan before
 * did not have, from 0 for an engine it shows for the first time.
 */
static void finish_scan(struct gr_fdinfo *fi)
{
	static const struct gr_drm_engine none;
	__u64 dt = fi->t_cur - fi->t_prev;
	const struct gr_drm_engine *was;
	const struct gr_drm_client *p;
	struct gr_drm_engine *e;
	struct gr_drm_client *c;
	size_t k, n = 0;
	unsigned int j;

	if (!fi->nr_cur)
		return;
	qsort(fi->cur, fi->nr_cur, sizeof(*fi->cur), cmp_client);
	for (k = 0; k < fi->nr_cur; k++)
		if (!n || strcmp(fi->cur[n - 1].pdev, fi->cur[k].pdev) ||
		    fi->cur[n - 1].id != fi->cur[k].id)
			fi->cur[n++] = fi->cur[k];
	fi->nr_cur = n;
	for (k = 0; k < n; k++) {
		c = &fi->cur[k];
		p = find(fi->prev, fi->nr_prev, c);
		for (j = 0; j < c->nr_eng; j++) {
			e = &c->eng[j];
			was = p ? find_engine(p, e->name) : NULL;
			if (was) {
				if (e->ns < was->ns)
					e->ns = was->ns;
				if (e->cycles < was->cycles)
					e->cycles = was->cycles;
				if (e->total < was->total)
					e->total = was->total;
			}
			e->busy = p && fi->t_prev && dt ? busy(e, was ? was : &none, dt) : -1;
		}
	}
}

/*
 * gr_fdinfo_scan - read every DRM client, the last scan's kept for the
 * interval
 */
void gr_fdinfo_scan(struct gr_fdinfo *fi)
{
	struct gr_drm_client *c;
	struct dirent *d;
	unsigned long pid;
	size_t k;
	char *end;
	DIR *dir;

	c = fi->prev;
	fi->prev = fi->cur;
	fi->cur = c;
	k = fi->cap_prev;
	fi->cap_prev = fi->cap_cur;
	fi->cap_cur = k;
	fi->nr_prev = fi->nr_cur;
	fi->nr_cur = 0;
	fi->t_prev = fi->t_cur;
	fi->t_cur = gr_now_ns();

	dir = opendir(fi->proc);
	if (!dir)
		return;
	while ((d = readdir(dir))) {
		pid = strtoul(d->d_name, &end, 10);
		if (isdigit((unsigned char)d->d_name[0]) && !*end && pid <= 0xffffffffUL)
			scan_process(fi, pid);
	}
	closedir(dir);
	finish_scan(fi);
}

void gr_fdinfo_free(struct gr_fdinfo *fi)
{
	free(fi->cur);
	free(fi->prev);
	memset(fi, 0, sizeof(*fi));
}
