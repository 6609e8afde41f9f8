// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace probe: the jobs and contexts of a driver without grtrace hooks,
 * from kprobes that a profile (profile.c) places on its functions.
 *
 * The kprobes are dynamic events of a group of this process, enabled in a
 * tracefs instance of its own whose clock is "mono", the clock of the relay
 * stream.  Their records are read every READ_MS and turned into grtrace
 * records as the profile says; at the end the records are sorted by time
 * and written as a grtrace stream: STREAM_INFO, a METADATA per ring, the
 * job events and the GR_TOOL_CTX records of the contexts.  Every reader of
 * the tool reads it as it reads a recording of the relay stream.
 *
 * Jobs by key.  A function may see a job before it has its sequence number
 * (a driver numbers a command when it is queued, inside a function that
 * cannot be probed).  Then the events name the job by a key, a value all
 * its functions see (the address of the driver's command buffer), that is
 * used here and written nowhere: a submit event with a key begins a job;
 * the events of a job are held until one of them gives the seqno; a
 * complete event ends it.  Each read takes what every CPU's buffer holds
 * at that moment, so one CPU's events can be read a read later than the
 * other's newer ones.  An ended job is kept until the next job of its key
 * ends: an event of its key stamped between its submit and its complete,
 * read after that complete, is its own.  So is a job whose buffer the next
 * submit of its key reuses before its end was read, its end taken as that
 * submit: its END and COMPLETE, stamped before it on another CPU, can be
 * read after it (seen: 17 ms before, read after).  An event whose key
 * begins no job is not one of the driver's (another device's buffer) and
 * is ignored, unless a submit with that key follows: the end of a job on
 * one CPU can be read one read before its submit on another.  Such events
 * wait (EARLY_MAX of them) for the submit of their key, are taken by it
 * unless they are stamped before it, and are ignored at the end if none
 * came.  The instance's clock is mono, one clock for every CPU, so an
 * event stamped before a submit is not its job's: the buffer at that
 * address was another one, freed before the driver's was allocated
 * (virtqueue_get_buf() returns the buffers of every virtio device).
 *
 * The kprobes and the instance are removed on every exit path, SIGINT and
 * SIGTERM included.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <tracefs.h>

#include "commands.h"
#include "events.h"
#include "input.h"
#include "profile.h"
#include "utils.h"

#define READ_MS		100
#define BUFFER_KB	8192		/* per CPU */
#define KEY_HASH	4096
#define HELD_MAX	8		/* events of a job held for its seqno */
#define EARLY_MAX	64		/* keyed events read before their submit */
#define PID_CACHE	256
#define SYS_PREFIX	"grtrace_probe_"

struct probe_params {
	const char *profile;
	const char *output;
	__u64 duration;	/* ns, 0 for none */
	unsigned int buffer_kb;
	bool dry_run;
};

/* A probe of the profile, at run time. */
struct live_probe {
	const struct gr_prof_probe *pr;
	struct tracefs_dynevent *dyn;
	bool created;
	struct tep_event *event;
	struct tep_format_field *field[GR_PROF_FIELDS];
	struct tep_format_field *comm;
	__u64 hits;
};

/* A ring of the profile, with the value of its ringno= field if it has one. */
struct live_ring {
	int decl;
	bool numbered;
	__u64 no;
	__u64 next_seqno;	/* of the jobs that have no seqno= */
	struct grtrace_ring_info info;
};

struct held_event {
	__u64 ts;
	__u64 order;
	__u32 cpu;
	__u16 type;
	__s32 status;
};

/*
 * A job known by its key, until its complete event, or the next submit of
 * its key (@replaced); then, as done, until the next job of its key
 * completes or is replaced, for its events read late.
 */
struct key_job {
	struct key_job *next;
	__u64 key;
	__u64 submit_ts;
	bool done;
	bool replaced;		/* done at the next submit, not its complete */
	__u64 done_ts;
	__u32 ring_id;
	__u64 ctx;
	bool has_seqno;
	__u64 seqno;
	__u32 pid;
	__u32 tgid;
	char comm[16];
	int nr_held;
	struct held_event held[HELD_MAX];
};

struct out_rec {
	__u64 order;
	struct grtrace_record h;
	union {
		struct grtrace_job_payload job;
		struct gr_tool_ctx ctx;
	} u;
};

/* The values of one hit of a probe. */
struct hit {
	const struct live_probe *lp;
	struct tep_record *rec;
	__u64 val[GR_PROF_FIELDS];
	__u64 ts;
	__u64 order;
	__u32 cpu;
	__u32 pid;
	__u32 tgid;
	char comm[16];
};

struct prober {
	struct probe_params *p;
	struct gr_profile prof;
	struct live_probe lp[GR_PROF_PROBES];
	char system[64];
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct live_ring *rings;
	int nr_rings;
	struct key_job *keys[KEY_HASH];
	/* keyed events of no job yet, oldest first: see the top */
	struct early {
		const struct gr_prof_action *a;
		struct hit h;
	} early[EARLY_MAX];
	int nr_early;
	struct out_rec *out;
	size_t nr_out;
	size_t cap_out;
	__u32 pid_cache[PID_CACHE][2];
	__u64 order;
	__u64 start_ts;
	__u64 start_rt;
	__u32 max_cpu;
	/* what happened, told at the end */
	__u64 hits;
	__u64 jobs;
	__u64 contexts;
	__u64 foreign;		/* keyed events of no job: not the driver's */
	__u64 late;		/* keyed events read after their job completed */
	__u64 unresolved;	/* keyed jobs that ended without a seqno */
	__u64 overflow;		/* events of a job beyond HELD_MAX */
	__u64 bad_hits;		/* records whose fields could not be read */
};

static atomic_int probe_stop;

static void probe_usage(const char *err)
{
	static const char * const msg[] = {
		"",
		"  usage: grtrace probe [-h] [-D] -p PROFILE (-o FILE | --dry-run) [-d DURATION]",
		"",
		"  Place the kprobes of PROFILE, a driver's functions and the grtrace",
		"  events and contexts their calls stand for, and record them until",
		"  Ctrl-C, SIGTERM or the duration, as a grtrace stream in FILE that",
		"  report, export, dump and merge read.  A function missing from the",
		"  running kernel, or a probe the kernel refuses: nothing is traced.",
		"",
		"    -p/--profile PROFILE: a profile file, or the name of an installed one",
		"    -o/--output FILE: the output file",
		"       --dry-run: check PROFILE and print its kprobes; trace nothing",
		"    -d/--duration DURATION: stop after DURATION seconds (1.5, 250ms, 10m, 1h)",
		"       --buffer-kb KB: ftrace buffer per CPU, in KiB (default 8192)",
		"    -D/--debug: print debug messages",
		"    -h/--help: print this help",
		NULL,
	};

	gr_print_usage(msg, err);
}

static void probe_parse_args(int argc, char *argv[], struct probe_params *p)
{
	static const struct option opts[] = {
		{ "profile",	required_argument,	NULL, 'p' },
		{ "output",	required_argument,	NULL, 'o' },
		{ "dry-run",	no_argument,		NULL, 'n' },
		{ "duration",	required_argument,	NULL, 'd' },
		{ "buffer-kb",	required_argument,	NULL, 'b' },
		{ "debug",	no_argument,		NULL, 'D' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	__u64 v;
	int c;

	memset(p, 0, sizeof(*p));
	p->buffer_kb = BUFFER_KB;
	while ((c = getopt_long(argc, argv, "p:o:d:Dh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			p->profile = optarg;
			break;
		case 'o':
			p->output = optarg;
			break;
		case 'n':
			p->dry_run = true;
			break;
		case 'd':
			if (gr_parse_duration(optarg, &p->duration))
				probe_usage("invalid --duration: 1.5, 250ms, 10m; up to a year");
			break;
		case 'b':
			if (gr_parse_u64(optarg, &v) || v < 64 || v > (1U << 22))
				probe_usage("invalid --buffer-kb: 64 to 4194304");
			p->buffer_kb = v;
			break;
		case 'D':
			gr_debug = 1;
			break;
		case 'h':
			probe_usage(NULL);
			break;
		default:
			probe_usage(gr_invalid_option(argv));
		}
	}
	if (optind < argc)
		probe_usage(gr_unexpected(argv[optind]));
	if (!p->profile)
		probe_usage("-p/--profile PROFILE is required");
	if (!p->output && !p->dry_run)
		probe_usage("-o/--output FILE or --dry-run is required");
}

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add(&probe_stop, 1);
}

/*
 * A profile by path, or by name: first beside the grtrace that runs, in
 * the profiles/ its build leaves there (a tool not installed), then among
 * the installed ones.  Returns: its path, or NULL with both places named.
 */
static char *profile_path(const char *name)
{
	char exe[PATH_MAX] = "", *path, *slash;
	ssize_t n;

	if (strchr(name, '/') || !access(name, F_OK))
		return gr_strdup(name);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	slash = strrchr(exe, '/');
	if (slash) {
		*slash = '\0';
		path = gr_zalloc(strlen(exe) + strlen(name) + 20);
		sprintf(path, "%s/profiles/%s.profile", exe, name);
		if (!access(path, F_OK))
			return path;
		free(path);
	}
	path = gr_zalloc(strlen(PROFILE_DIR) + strlen(name) + 10);
	sprintf(path, "%s/%s.profile", PROFILE_DIR, name);
	if (!access(path, F_OK))
		return path;
	gr_err_msg("no profile %s: neither %s/profiles/%s.profile nor %s exists\n", name,
		   slash ? exe : "(the directory of grtrace)", name, path);
	free(path);
	return NULL;
}

/* ---- the kprobes ---- */

/*
 * The functions of the profile missing from /proc/kallsyms, told in one
 * sentence.  Returns: 0 if none is missing or kallsyms cannot be read.
 */
static int check_symbols(struct prober *pb)
{
	bool found[GR_PROF_PROBES] = { false };
	char *line = NULL, *missing = NULL, name[256], type;
	size_t cap = 0, len = 0;
	FILE *f = fopen("/proc/kallsyms", "r");
	int i, n = 0;

	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%*s %c %255s", &type, name) != 2 ||
		    (type != 't' && type != 'T' && type != 'w' && type != 'W'))
			continue;
		for (i = 0; i < pb->prof.nr_probes; i++)
			found[i] |= !strcmp(name, pb->prof.probe[i].func);
	}
	free(line);
	fclose(f);
	for (i = 0; i < pb->prof.nr_probes; i++) {
		if (found[i])
			continue;
		len += strlen(pb->prof.probe[i].func) + 2;
		missing = gr_realloc(missing, len + 1, 1);
		if (!n++)
			*missing = '\0';
		else
			strcat(missing, ", ");
		strcat(missing, pb->prof.probe[i].func);
	}
	if (!n)
		return 0;
	gr_err_msg("%s: the running kernel has no function %s (%s): nothing was traced\n",
		   pb->prof.path, missing, "is the driver loaded, and is this its version?");
	free(missing);
	return -1;
}

/* The last message of tracefs' error_log, for a refused write. */
static void print_kernel_error(void)
{
	char *err = tracefs_error_last(NULL);
	char *line, *save = NULL;

	for (line = err ? strtok_r(err, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		fprintf(stderr, "grtrace:   %s\n", line);
	free(err);
}

static int create_probes(struct prober *pb)
{
	const struct gr_prof_probe *pr;
	struct live_probe *lp;
	char *args;
	int i;

	tracefs_error_clear(NULL);
	for (i = 0; i < pb->prof.nr_probes && !probe_stop; i++) {
		pr = &pb->prof.probe[i];
		lp = &pb->lp[i];
		lp->pr = pr;
		args = gr_profile_args(pr);
		if (pr->ret)
			lp->dyn = tracefs_kretprobe_alloc(pb->system, pr->name, pr->func, args, 0);
		else
			lp->dyn = tracefs_kprobe_alloc(pb->system, pr->name, pr->func, args);
		free(args);
		if (!lp->dyn || tracefs_dynevent_create(lp->dyn)) {
			gr_err_msg("%s:%d: kernel refused kprobe '%s' on %s: nothing traced\n",
				   pb->prof.path, pr->line, pr->name, pr->func);
			print_kernel_error();
			return -1;
		}
		lp->created = true;
	}
	return probe_stop ? -1 : 0;
}

static void remove_probes(struct prober *pb)
{
	struct live_probe *lp;
	int i;

	for (i = 0; i < pb->prof.nr_probes; i++) {
		lp = &pb->lp[i];
		if (lp->created && tracefs_dynevent_destroy(lp->dyn, true))
			gr_err_msg("cannot remove the kprobe %s/%s: %s\n", pb->system,
				   lp->pr->name, strerror(errno));
		tracefs_dynevent_free(lp->dyn);
		lp->dyn = NULL;
		lp->created = false;
	}
}

/* The instance: clock, buffer, filters; the parser of the probes' events. */
static int setup_instance(struct prober *pb)
{
	const char *systems[2];
	const struct gr_prof_probe *pr;
	struct live_probe *lp;
	char buf[32];
	int i, j;

	pb->inst = tracefs_instance_create(pb->system);
	if (!pb->inst) {
		gr_err_msg("cannot create the tracefs instance %s: %s\n", pb->system,
			   strerror(errno));
		return -1;
	}
	snprintf(buf, sizeof(buf), "%u", pb->p->buffer_kb);
	if (tracefs_instance_file_write(pb->inst, "trace_clock", "mono") < 0 ||
	    tracefs_instance_file_write(pb->inst, "buffer_size_kb", buf) < 0) {
		gr_err_msg("cannot set the clock (mono) and buffer of instance %s\n",
			   pb->system);
		return -1;
	}
	for (i = 0; i < pb->prof.nr_probes; i++) {
		pr = &pb->prof.probe[i];
		if (pr->filter && tracefs_event_file_write(pb->inst, pb->system, pr->name,
							   "filter", pr->filter) < 0) {
			gr_err_msg("%s: kernel refused filter '%s' of '%s': nothing traced\n",
				   pb->prof.path, pr->filter, pr->name);
			return -1;
		}
	}
	systems[0] = pb->system;
	systems[1] = NULL;
	pb->tep = tracefs_local_events_system(NULL, systems);
	if (!pb->tep) {
		gr_err_msg("cannot read the formats of the events of %s\n", pb->system);
		return -1;
	}
	for (i = 0; i < pb->prof.nr_probes; i++) {
		lp = &pb->lp[i];
		lp->event = tep_find_event_by_name(pb->tep, pb->system, lp->pr->name);
		lp->comm = lp->event ? tep_find_field(lp->event, "gr_comm") : NULL;
		if (!lp->comm) {
			gr_err_msg("no format for the kprobe %s/%s\n", pb->system, lp->pr->name);
			return -1;
		}
		for (j = 0; j < lp->pr->nr_fields; j++) {
			lp->field[j] = tep_find_field(lp->event, lp->pr->field[j].name);
			if (!lp->field[j]) {
				gr_err_msg("the kprobe %s/%s has no field %s\n", pb->system,
					   lp->pr->name, lp->pr->field[j].name);
				return -1;
			}
		}
	}
	return 0;
}

static void remove_instance(struct prober *pb)
{
	if (!pb->inst)
		return;
	tracefs_event_disable(pb->inst, pb->system, NULL);
	if (tracefs_instance_destroy(pb->inst))
		gr_err_msg("cannot remove the tracefs instance %s\n", pb->system);
	tracefs_instance_free(pb->inst);
	pb->inst = NULL;
}

/* ---- the records ---- */

static struct out_rec *out_add(struct prober *pb, __u16 type, __u64 ts, __u64 order,
			       __u32 cpu)
{
	struct out_rec *o;

	if (pb->nr_out == pb->cap_out) {
		pb->cap_out = pb->cap_out ? 2 * pb->cap_out : 4096;
		pb->out = gr_realloc(pb->out, pb->cap_out, sizeof(*pb->out));
	}
	o = &pb->out[pb->nr_out++];
	memset(o, 0, sizeof(*o));
	o->order = order;
	o->h.type = type;
	o->h.ts = ts;
	o->h.cpu = cpu;
	if (cpu > pb->max_cpu)
		pb->max_cpu = cpu;
	return o;
}

/* The process of thread @pid, from /proc; 0 if it is gone. */
static __u32 tgid_of(struct prober *pb, __u32 pid)
{
	__u32 *slot = pb->pid_cache[pid % PID_CACHE];
	char path[64], *s, *t;
	__u32 tgid = 0;

	if (slot[0] == pid && slot[1])
		return slot[1];
	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	s = gr_read_text(path);
	t = s ? strstr(s, "\nTgid:") : NULL;
	if (t)
		tgid = strtoul(t + 6, NULL, 10);
	free(s);
	slot[0] = pid;
	slot[1] = tgid;
	return tgid;
}

/* The ring of action @a at @h, added on first use.  Returns: its id. */
static __u32 ring_of(struct prober *pb, const struct gr_prof_action *a,
		     const struct hit *h)
{
	const struct gr_prof_ring *decl;
	struct live_ring *r;
	bool numbered = a->ringno != GR_PROF_NONE;
	__u64 no = numbered ? h->val[a->ringno] : 0;
	int i;

	if (a->ring == GR_PROF_NONE)
		return 0;
	for (i = 0; i < pb->nr_rings; i++) {
		r = &pb->rings[i];
		if (r->decl == a->ring && r->numbered == numbered && r->no == no)
			return r->info.ring_id;
	}
	pb->rings = gr_realloc(pb->rings, pb->nr_rings + 1, sizeof(*pb->rings));
	r = &pb->rings[pb->nr_rings++];
	memset(r, 0, sizeof(*r));
	decl = &pb->prof.ring[a->ring];
	r->decl = a->ring;
	r->numbered = numbered;
	r->no = no;
	r->info.ring_id = pb->nr_rings;
	r->info.engine = decl->engine;
	memcpy(r->info.dev, decl->dev, sizeof(decl->dev));
	if (numbered)
		snprintf(r->info.name, sizeof(r->info.name), "%s%llu", decl->name,
			 (unsigned long long)no);
	else
		memcpy(r->info.name, decl->name, sizeof(decl->name));
	return r->info.ring_id;
}

static void put_job(struct prober *pb, __u16 type, __u64 ts, __u64 order, __u32 cpu,
		    const struct key_job *j, __s32 status)
{
	struct out_rec *o = out_add(pb, type, ts, order, cpu);
	struct grtrace_job_payload *p = &o->u.job;

	o->h.size = sizeof(o->h) + sizeof(*p);
	p->ctx_id = j->ctx;
	p->fence_context = j->ring_id;
	p->fence_seqno = j->seqno;
	p->ring_id = j->ring_id;
	p->engine = j->ring_id ? pb->rings[j->ring_id - 1].info.engine : GRTRACE_ENGINE_OTHER;
	p->status = status;
	if (type == GRTRACE_EV_SUBMIT || type == GRTRACE_EV_SYNC_WAIT_ENTER ||
	    type == GRTRACE_EV_SYNC_WAIT_EXIT) {
		p->pid = j->pid;
		p->tgid = j->tgid;
		memcpy(p->comm, j->comm, sizeof(p->comm));
	}
	if (type == GRTRACE_EV_SUBMIT)
		pb->jobs++;
}

/* The job of @key that runs (@done false) or that completed last. */
static struct key_job **key_slot(struct prober *pb, __u64 key, bool done)
{
	struct key_job **pp = &pb->keys[(key ^ (key >> 12)) % KEY_HASH];

	while (*pp && ((*pp)->key != key || (*pp)->done != done))
		pp = &(*pp)->next;
	return pp;
}

static void key_drop(struct key_job **pp)
{
	struct key_job *j = *pp;

	*pp = j->next;
	free(j);
}

static void job_from_hit(struct key_job *j, const struct hit *h)
{
	j->pid = h->pid;
	j->tgid = h->tgid;
	memcpy(j->comm, h->comm, sizeof(j->comm));
}

/* A job action of a hit, without a key: the event of a known job. */
static void job_direct(struct prober *pb, const struct gr_prof_action *a,
		       const struct hit *h)
{
	struct key_job j = { .ring_id = ring_of(pb, a, h) };
	__s32 status = a->status != GR_PROF_NONE ? (__s32)h->val[a->status] : 0;
	unsigned int t;

	job_from_hit(&j, h);
	j.ctx = a->ctx != GR_PROF_NONE ? h->val[a->ctx] : 0;
	if (a->seqno != GR_PROF_NONE)
		j.seqno = h->val[a->seqno];
	else if (j.ring_id)
		j.seqno = ++pb->rings[j.ring_id - 1].next_seqno;
	for (t = 0; t < GRTRACE_EV_NR; t++)
		if (a->types & BIT(t))
			put_job(pb, t, h->ts, h->order, h->cpu, &j, status);
}

static void job_keyed(struct prober *pb, const struct gr_prof_action *a,
		      const struct hit *h);

/*
 * The events of @key read before its submit at @ts: given to the job, in
 * the order they were read; ones stamped before it belonged to an earlier
 * buffer at that address, whose submit was never seen.
 */
static void take_early(struct prober *pb, __u64 key, __u64 ts)
{
	struct early e;
	int i = 0, n = pb->nr_early;

	/*
	 * Only the events that waited: job_keyed() puts one back at the end
	 * when the job ended before it (there is room: it was taken off).
	 */
	while (i < n) {
		e = pb->early[i];
		if (e.h.val[e.a->key] != key) {
			i++;
			continue;
		}
		memmove(pb->early + i, pb->early + i + 1,
			(--pb->nr_early - i) * sizeof(pb->early[0]));
		n--;
		if (e.h.ts < ts) {
			pb->foreign++;
			continue;
		}
		job_keyed(pb, e.a, &e.h);
	}
}

/*
 * The key's last job, dropped for a newer one.  A replaced job still
 * without its seqno is lost with the events it holds: unresolved (and its
 * END and COMPLETE, should they come later still, foreign).
 */
static void key_done_drop(struct prober *pb, struct key_job **dp)
{
	pb->unresolved += (*dp)->replaced && !(*dp)->has_seqno;
	key_drop(dp);
}

/* Event @h of job @j: its ctx, its seqno, written, or held until the seqno */
static void job_event(struct prober *pb, const struct gr_prof_action *a,
		      const struct hit *h, struct key_job *j, __s32 status)
{
	struct held_event *e;
	unsigned int t;
	int i;

	if (a->ctx != GR_PROF_NONE)
		j->ctx = h->val[a->ctx];
	if (a->seqno != GR_PROF_NONE && !j->has_seqno) {
		j->seqno = h->val[a->seqno];
		j->has_seqno = true;
		for (i = 0; i < j->nr_held; i++) {
			e = &j->held[i];
			put_job(pb, e->type, e->ts, e->order, e->cpu, j, e->status);
		}
		j->nr_held = 0;
	}
	for (t = 0; t < GRTRACE_EV_NR; t++) {
		if (!(a->types & BIT(t)))
			continue;
		if (j->has_seqno) {
			put_job(pb, t, h->ts, h->order, h->cpu, j, status);
			continue;
		}
		if (j->nr_held == HELD_MAX) {
			pb->overflow++;
			continue;
		}
		j->held[j->nr_held++] = (struct held_event) {
			.ts = h->ts, .order = h->order, .cpu = h->cpu,
			.type = t, .status = status,
		};
	}
}

/* A job action of a hit with a key (see the comment at the top). */
static void job_keyed(struct prober *pb, const struct gr_prof_action *a,
		      const struct hit *h)
{
	__s32 status = a->status != GR_PROF_NONE ? (__s32)h->val[a->status] : 0;
	__u64 key = h->val[a->key];
	struct key_job **pp = key_slot(pb, key, false), **dp;
	struct key_job *j;
	unsigned int t;

	dp = key_slot(pb, key, true);
	if (a->types & BIT(GRTRACE_EV_SUBMIT)) {
		/*
		 * A buffer reused before the end of its job was read: that
		 * job's END and COMPLETE, stamped before the later submit,
		 * can still come, read a read behind on another CPU.  The
		 * earlier of the two jobs waits for them as its key's last
		 * job, until the later one's submit (read first, it can be
		 * the job running here).
		 */
		struct key_job *run = *pp;
		bool older = run && h->ts < run->submit_ts;

		if (run && !older) {
			if (*dp)
				key_done_drop(pb, dp);
			run->done = true;
			run->replaced = true;
			run->done_ts = h->ts;
			pp = key_slot(pb, key, false);
		} else if (older && *dp) {
			key_done_drop(pb, dp);
			pp = key_slot(pb, key, false);
		}
		j = gr_zalloc(sizeof(*j));
		j->key = key;
		j->submit_ts = h->ts;
		j->ring_id = ring_of(pb, a, h);
		job_from_hit(j, h);
		if (older) {
			j->done = true;
			j->replaced = true;
			j->done_ts = run->submit_ts;
		}
		j->next = *pp;
		*pp = j;
		pp = key_slot(pb, key, false);
		dp = key_slot(pb, key, true);
		if (older) {
			job_event(pb, a, h, j, status);
			take_early(pb, key, h->ts);
			return;
		}
	}
	j = *pp;
	/*
	 * An event of the job of this key before, stamped between its submit
	 * and its complete (or before the next submit): read after that,
	 * because its CPU's buffer was read one read later than the other
	 * CPU's (a read merges the CPUs by time only as far as each had events
	 * when it was read).  A job's events follow its submit on one clock:
	 * the buffer's next job begins after it.
	 */
	if (!(a->types & BIT(GRTRACE_EV_SUBMIT)) && *dp && h->ts >= (*dp)->submit_ts &&
	    ((*dp)->replaced ? h->ts < (*dp)->done_ts : h->ts <= (*dp)->done_ts)) {
		if ((*dp)->replaced) {
			j = *dp;
			job_event(pb, a, h, j, status);
			pb->late += j->has_seqno;
			if (a->types & BIT(GRTRACE_EV_COMPLETE)) {
				/* completed: a done job as any other */
				pb->unresolved += !j->has_seqno;
				j->replaced = false;
				j->done_ts = h->ts;
			}
			return;
		}
		for (t = 0; t < GRTRACE_EV_NR; t++)
			if (a->types & BIT(t) && (*dp)->has_seqno)
				put_job(pb, t, h->ts, h->order, h->cpu, *dp, status);
		pb->late += (*dp)->has_seqno;
		pb->foreign += !(*dp)->has_seqno;
		return;
	}
	if (!j) {
		if (pb->nr_early == EARLY_MAX) {	/* the oldest is foreign */
			pb->foreign++;
			memmove(pb->early, pb->early + 1,
				--pb->nr_early * sizeof(pb->early[0]));
		}
		pb->early[pb->nr_early].a = a;
		pb->early[pb->nr_early].h = *h;
		pb->early[pb->nr_early].h.lp = NULL;
		pb->early[pb->nr_early].h.rec = NULL;
		pb->nr_early++;
		return;
	}
	/* Stamped before this job's submit, and no job of its key before */
	if (!(a->types & BIT(GRTRACE_EV_SUBMIT)) && h->ts < j->submit_ts) {
		pb->foreign++;
		return;
	}
	job_event(pb, a, h, j, status);
	if (a->types & BIT(GRTRACE_EV_COMPLETE)) {
		pb->unresolved += !j->has_seqno;
		if (*dp)
			key_done_drop(pb, dp);
		j->done = true;
		j->done_ts = h->ts;
	} else if (a->types & BIT(GRTRACE_EV_SUBMIT)) {
		take_early(pb, h->val[a->key], h->ts);
	}
}

/* "name=value ..." of a context action's attributes. */
static void ctx_attrs(const struct gr_prof_action *a, const struct hit *h, char *buf,
		      size_t len)
{
	struct tep_format_field *f;
	size_t n = 0;
	int i, w;

	*buf = '\0';
	for (i = 0; i < a->nr_attrs && n < len; i++) {
		f = h->lp->field[a->attr_field[i]];
		if (f->flags & TEP_FIELD_IS_STRING) {
			int slen = 0;
			const char *s = tep_get_field_raw(NULL, h->lp->event, f->name, h->rec,
							  &slen, 0);

			w = snprintf(buf + n, len - n, "%s%s=%.*s", i ? " " : "", a->attr[i],
				     s ? (int)strnlen(s, slen) : 0, s ? s : "");
		} else {
			w = snprintf(buf + n, len - n, "%s%s=%llu", i ? " " : "", a->attr[i],
				     (unsigned long long)h->val[a->attr_field[i]]);
		}
		n += w > 0 ? (size_t)w : 0;
	}
}

static void ctx_event(struct prober *pb, const struct gr_prof_action *a,
		      const struct hit *h)
{
	struct out_rec *o = out_add(pb, GR_TOOL_CTX, h->ts, h->order, h->cpu);
	struct gr_tool_ctx *c = &o->u.ctx;

	o->h.size = sizeof(o->h) + sizeof(*c);
	c->ctx_id = h->val[a->ctx];
	c->ring_id = ring_of(pb, a, h);
	c->what = a->what;
	c->pid = h->pid;
	c->tgid = h->tgid;
	memcpy(c->comm, h->comm, sizeof(c->comm));
	ctx_attrs(a, h, c->attrs, sizeof(c->attrs));
	pb->contexts++;
}

static int on_record(struct tep_event *event, struct tep_record *rec, int cpu, void *data)
{
	struct prober *pb = data;
	struct live_probe *lp = NULL;
	const struct gr_prof_action *a;
	unsigned long long v;
	struct hit h;
	const char *comm;
	int i, len = 0;

	for (i = 0; i < pb->prof.nr_probes && !lp; i++)
		if (pb->lp[i].event && pb->lp[i].event->id == event->id)
			lp = &pb->lp[i];
	if (!lp)
		return 0;
	memset(&h, 0, sizeof(h));
	h.lp = lp;
	h.rec = rec;
	h.ts = rec->ts;
	h.cpu = cpu;
	h.order = ++pb->order;
	h.pid = tep_data_pid(pb->tep, rec);
	for (i = 0; i < lp->pr->nr_fields; i++) {
		if (lp->field[i]->flags & TEP_FIELD_IS_STRING)
			continue;	/* for attributes and filters only */
		if (tep_read_number_field(lp->field[i], rec->data, &v)) {
			pb->bad_hits++;
			return 0;
		}
		h.val[i] = v;
	}
	comm = tep_get_field_raw(NULL, event, "gr_comm", rec, &len, 0);
	if (comm && len > 0)
		memcpy(h.comm, comm, strnlen(comm, len < 15 ? len : 15));
	h.tgid = tgid_of(pb, h.pid);
	lp->hits++;
	pb->hits++;
	for (i = 0; i < lp->pr->nr_actions; i++) {
		a = &lp->pr->action[i];
		if (a->kind == GR_PROF_CTX)
			ctx_event(pb, a, &h);
		else if (a->key != GR_PROF_NONE)
			job_keyed(pb, a, &h);
		else
			job_direct(pb, a, &h);
	}
	return 0;
}

static int read_events(struct prober *pb)
{
	return tracefs_iterate_raw_events(pb->tep, pb->inst, NULL, 0, on_record, pb);
}

/* ---- the output ---- */

static int cmp_out(const void *a, const void *b)
{
	const struct out_rec *x = a, *y = b;

	if (x->h.ts != y->h.ts)
		return x->h.ts < y->h.ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int put(FILE *f, struct grtrace_record *h, const void *payload, size_t len,
	       __u64 *gseq)
{
	h->size = sizeof(*h) + len;
	h->gseq = ++*gseq;
	return fwrite(h, sizeof(*h), 1, f) != 1 || fwrite(payload, len, 1, f) != 1;
}

static int write_stream(struct prober *pb)
{
	struct grtrace_stream_info si = {
		.magic = GRTRACE_MAGIC,
		.version = GRTRACE_FORMAT_VERSION,
		.record_size = sizeof(struct grtrace_record),
		.features = GRTRACE_FEAT_CSEQ | GRTRACE_FEAT_SUBMITTER,
		.start_ts = pb->start_ts,
		.start_realtime = pb->start_rt,
		.clock_id = GRTRACE_CLOCK_MONOTONIC,
		.nr_cpus = pb->max_cpu + 1,
		.nr_rings = pb->nr_rings,
	};
	struct grtrace_record h = { .ts = pb->start_ts };
	__u64 gseq = 0, *cseq;
	size_t i;
	FILE *f;
	int ret = 0;

	si.session_id = pb->start_rt ^ ((__u64)getpid() << 32) ^ pb->start_ts;
	if (si.nr_cpus < (__u32)sysconf(_SC_NPROCESSORS_CONF))
		si.nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	f = fopen(pb->p->output, "w");
	if (!f) {
		gr_err_msg("%s: %s\n", pb->p->output, strerror(errno));
		return -1;
	}
	cseq = gr_zalloc((pb->max_cpu + 1) * sizeof(*cseq));
	h.type = GRTRACE_EV_STREAM_INFO;
	h.cseq = ++cseq[0];
	ret |= put(f, &h, &si, sizeof(si), &gseq);
	for (i = 0; i < (size_t)pb->nr_rings; i++) {
		h.type = GRTRACE_EV_METADATA;
		h.cseq = ++cseq[0];
		ret |= put(f, &h, &pb->rings[i].info, sizeof(pb->rings[i].info), &gseq);
	}
	qsort(pb->out, pb->nr_out, sizeof(*pb->out), cmp_out);
	for (i = 0; i < pb->nr_out; i++) {
		pb->out[i].h.cseq = ++cseq[pb->out[i].h.cpu];
		ret |= put(f, &pb->out[i].h, &pb->out[i].u,
			   pb->out[i].h.size - sizeof(pb->out[i].h), &gseq);
	}
	free(cseq);
	if (fclose(f) || ret) {
		gr_err_msg("%s: write error\n", pb->p->output);
		return -1;
	}
	return 0;
}

/* Records the kernel overwrote in the instance's buffers. */
static __u64 overruns(struct prober *pb)
{
	return gr_instance_cpu_sum(pb->inst, "overrun:");
}

static void print_totals(struct prober *pb, __u64 lost)
{
	__u64 pending = 0;
	struct key_job *j;
	int i;

	for (i = 0; i < KEY_HASH; i++)
		for (j = pb->keys[i]; j; j = j->next) {
			pending += !j->done;
			pb->unresolved += j->replaced && !j->has_seqno;
		}
	pb->foreign += pb->nr_early;
	pb->nr_early = 0;
	printf("grtrace probe: %llu hits, %llu jobs, %llu context events, %zu records in %s\n",
	       (unsigned long long)pb->hits, (unsigned long long)pb->jobs,
	       (unsigned long long)pb->contexts, pb->nr_out + 1 + pb->nr_rings,
	       pb->p->output);
	for (i = 0; i < pb->prof.nr_probes; i++)
		printf("  %-20s %s%s: %llu hits\n", pb->lp[i].pr->name, pb->lp[i].pr->func,
		       pb->lp[i].pr->ret ? "%return" : "", (unsigned long long)pb->lp[i].hits);
	printf("  ignored: %llu keyed events of no job, %llu jobs without a seqno, %llu open\n",
	       (unsigned long long)pb->foreign, (unsigned long long)pb->unresolved,
	       (unsigned long long)pending);
	if (pb->late)
		printf("  %llu events read after their job completed, given to it\n",
		       (unsigned long long)pb->late);
	if (lost || pb->overflow || pb->bad_hits)
		printf("  lost: %llu overwritten (-b), %llu beyond %d held per job, %llu bad\n",
		       (unsigned long long)lost, (unsigned long long)pb->overflow, HELD_MAX,
		       (unsigned long long)pb->bad_hits);
}

static void dry_run(struct prober *pb)
{
	const struct gr_prof_probe *pr;
	char *args;
	int i;

	for (i = 0; i < pb->prof.nr_rings; i++)
		printf("ring %s engine=%s dev=%s\n", pb->prof.ring[i].name,
		       gr_engine_name(pb->prof.ring[i].engine), pb->prof.ring[i].dev);
	for (i = 0; i < pb->prof.nr_probes; i++) {
		pr = &pb->prof.probe[i];
		args = gr_profile_args(pr);
		printf("%c:%s/%s %s %s\n", pr->ret ? 'r' : 'p', pb->system, pr->name,
		       pr->func, args);
		if (pr->filter)
			printf("  filter: %s\n", pr->filter);
		free(args);
	}
}

static void free_prober(struct prober *pb)
{
	struct key_job **pp;
	int i;

	for (i = 0; i < KEY_HASH; i++)
		for (pp = &pb->keys[i]; *pp;)
			key_drop(pp);
	tep_free(pb->tep);
	free(pb->rings);
	free(pb->out);
	gr_profile_free(&pb->prof);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);	/* a signal ends it early: fine */
}

static int probe_loop(struct prober *pb)
{
	__u64 end = pb->p->duration ? gr_now_ns() + pb->p->duration : 0;

	while (!probe_stop && (!end || gr_now_ns() < end)) {
		sleep_ms(READ_MS);
		if (read_events(pb) < 0) {
			gr_err_msg("cannot read the events of instance %s\n", pb->system);
			return -1;
		}
	}
	return 0;
}

int gr_probe_main(int argc, char *argv[])
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct probe_params params;
	struct prober *pb;
	struct timespec rt;
	char *path;
	int ret = EXIT_FAILURE;
	__u64 lost = 0;

	probe_parse_args(argc, argv, &params);
	pb = gr_zalloc(sizeof(*pb));
	pb->p = &params;
	snprintf(pb->system, sizeof(pb->system), SYS_PREFIX "%d", (int)getpid());
	path = profile_path(params.profile);
	if (!path || gr_profile_load(&pb->prof, path))
		goto out;
	if (params.dry_run) {
		dry_run(pb);
		ret = EXIT_SUCCESS;
		goto out;
	}
	if (!tracefs_tracing_dir()) {
		gr_err_msg("tracefs is not mounted and could not be mounted\n");
		goto out;
	}
	if (check_symbols(pb))
		goto out;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (create_probes(pb) || setup_instance(pb))
		goto cleanup;
	clock_gettime(CLOCK_REALTIME, &rt);
	pb->start_ts = gr_now_ns();
	pb->start_rt = rt.tv_sec * NSEC_PER_SEC + rt.tv_nsec;
	if (tracefs_event_enable(pb->inst, pb->system, NULL)) {
		gr_err_msg("cannot enable the events of %s\n", pb->system);
		goto cleanup;
	}
	if (probe_loop(pb))
		goto cleanup;
	tracefs_event_disable(pb->inst, pb->system, NULL);
	if (read_events(pb) < 0)
		goto cleanup;
	lost = overruns(pb);
	if (!write_stream(pb)) {
		print_totals(pb, lost);
		ret = EXIT_SUCCESS;
	}
cleanup:
	remove_instance(pb);
	remove_probes(pb);
out:
	free_prober(pb);
	free(pb);
	free(path);
	return ret;
}
