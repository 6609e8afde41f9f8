/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: kprobe profiles, the kernel functions of a driver without
 * grtrace hooks and the grtrace events their calls stand for.
 */
#ifndef __GRTRACE_PROFILE_H
#define __GRTRACE_PROFILE_H

#include <stdbool.h>
#include <linux/types.h>

#define GR_PROF_NAME	32	/* names of rings, probes, fields, attributes */
#define GR_PROF_RINGS	16
#define GR_PROF_PROBES	32
#define GR_PROF_FIELDS	12
#define GR_PROF_ACTIONS	4
#define GR_PROF_ATTRS	6

/* The field a job or context action takes a value from, or GR_PROF_NONE. */
#define GR_PROF_NONE	(-1)

enum gr_prof_kind {
	GR_PROF_JOB,		/* job events */
	GR_PROF_CTX,		/* a context's create, schedule or destroy */
};

struct gr_prof_ring {
	char name[GR_PROF_NAME];
	char dev[GR_PROF_NAME];
	__u16 engine;
};

struct gr_prof_field {
	char name[GR_PROF_NAME];
	char *fetch;		/* the kprobe fetch argument */
};

struct gr_prof_action {
	enum gr_prof_kind kind;
	int line;
	__u32 types;		/* JOB: a mask of event types */
	int what;		/* CTX: GR_CTX_* */
	int ring;		/* index in gr_profile.rings */
	int ringno;		/* field whose value is appended to the ring's name */
	int key;
	int seqno;
	int ctx;
	int status;
	int nr_attrs;		/* CTX: the attributes recorded */
	char attr[GR_PROF_ATTRS][GR_PROF_NAME];
	int attr_field[GR_PROF_ATTRS];
};

struct gr_prof_probe {
	char name[GR_PROF_NAME];
	char *func;
	bool ret;		/* on return (kretprobe) */
	int line;
	int nr_fields;
	struct gr_prof_field field[GR_PROF_FIELDS];
	char *filter;		/* ftrace filter of its event, or NULL */
	int nr_actions;
	struct gr_prof_action action[GR_PROF_ACTIONS];
};

struct gr_profile {
	char *path;
	int nr_rings;
	struct gr_prof_ring ring[GR_PROF_RINGS];
	int nr_probes;
	struct gr_prof_probe probe[GR_PROF_PROBES];
};

int gr_profile_load(struct gr_profile *p, const char *path);
void gr_profile_free(struct gr_profile *p);
char *gr_profile_args(const struct gr_prof_probe *pr);

#endif /* __GRTRACE_PROFILE_H */
