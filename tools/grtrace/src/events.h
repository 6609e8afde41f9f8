/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: the events of an input (include/uapi/linux/grtrace.h), as the
 * readers of its formats decode them.
 */
#ifndef __GRTRACE_EVENTS_H
#define __GRTRACE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/grtrace.h>

/*
 * Record type written by "grtrace record", never by the kernel: the text of
 * the kernel's "stats" file at the end of the recording, NUL padded.  It
 * follows the last kernel record, with gseq one above it and cpu
 * GR_TOOL_CPU; other readers skip it as a record of unknown type.
 */
#define GR_TOOL_STATS		GRTRACE_EV_USER
#define GR_TOOL_CPU		0xffffffffU

/*
 * Record type written by "grtrace probe", never by the kernel: the create,
 * schedule or destroy of a context (a driver's channel group, say) that a
 * kprobe profile saw.  Payload struct gr_tool_ctx; cpu and ts are those of
 * the probe's hit.
 */
#define GR_TOOL_CTX		(GRTRACE_EV_USER + 1)

/*
 * Record type written by "grtrace record", never by the kernel: what the
 * recording was made under, as text, NUL padded: the kernel's "config" when
 * it began (sampling, filters, rate limits: which events may be missing by
 * design), "config_changed=1" if it differed at the end, and a line
 * "device:NAME=DRIVER VENDOR:DEVICE" per device of the kernel's rings file
 * (from sysfs; "-" for what sysfs does not say).  It follows GR_TOOL_STATS,
 * with cpu GR_TOOL_CPU.
 */
#define GR_TOOL_CONFIG		(GRTRACE_EV_USER + 2)

enum gr_ctx_what {
	GR_CTX_CREATE,
	GR_CTX_SCHEDULE,
	GR_CTX_DESTROY,
	GR_CTX_NR,
};

#define GR_CTX_ATTRS		64

/**
 * struct gr_tool_ctx - payload of GR_TOOL_CTX
 * @ctx_id: the context, as the job events of its jobs name it
 * @ring_id: its ring, described by a METADATA record, or 0
 * @what: enum gr_ctx_what
 * @reserved: zero
 * @pid: the thread that the probe hit in
 * @tgid: its process, or 0 when it was gone when the record was read
 * @comm: its name, NUL padded
 * @attrs: the profile's attributes, "name=value" separated by spaces,
 *	NUL padded
 */
struct gr_tool_ctx {
	__u64 ctx_id;
	__u32 ring_id;
	__u16 what;
	__u16 reserved;
	__u32 pid;
	__u32 tgid;
	char comm[16];
	char attrs[GR_CTX_ATTRS];
};

#define GR_REC_MIN		((unsigned int)sizeof(struct grtrace_record))
#define GR_REC_MAX		0xfff8U		/* largest size a u16 allows */
/* More CPUs than any architecture's NR_CPUS allows (8192 on x86-64) */
#define GR_CPUS_MAX		65536U

/* A gseq gap of 2^32 records or more (128 GiB of the shortest) */
#define GR_GSEQ_JUMP		0x100000000ULL

/* Where a record comes from */
enum gr_origin {
	GR_ORIGIN_GRTRACE,	/* grtrace's relay stream or events */
	GR_ORIGIN_UPSTREAM,	/* the kernel's own tracepoints (upstream.c) */
};

/* The kernel's own events that upstream.c reads, in gr_upstream_names[] */
enum gr_up_event {
	GR_UP_QUEUE,		/* gpu_scheduler:drm_sched_job_queue */
	GR_UP_RUN,		/* gpu_scheduler:drm_sched_job_run */
	GR_UP_DONE,		/* gpu_scheduler:drm_sched_job_done */
	GR_UP_UNSCHEDULABLE,	/* gpu_scheduler:drm_sched_job_unschedulable */
	GR_UP_ERROR,		/* gpu_scheduler:drm_sched_job_error */
	GR_UP_TIMEDOUT,		/* gpu_scheduler:drm_sched_job_timedout */
	GR_UP_OLD_QUEUE,	/* gpu_scheduler:drm_sched_job (6.12, older) */
	GR_UP_OLD_RUN,		/* gpu_scheduler:drm_run_job */
	GR_UP_OLD_DONE,		/* gpu_scheduler:drm_sched_process_job */
	GR_UP_OLD_WAIT,		/* gpu_scheduler:drm_sched_job_wait_dep */
	GR_UP_SIGNALED,		/* dma_fence:dma_fence_signaled */
	GR_UP_VCMD_QUEUE,	/* virtio_gpu:virtio_gpu_cmd_queue */
	GR_UP_VCMD_RESPONSE,	/* virtio_gpu:virtio_gpu_cmd_response */
	GR_UP_I915_ADD,		/* i915:i915_request_add */
	GR_UP_I915_EXECUTE,	/* i915:i915_request_execute (low-level) */
	GR_UP_I915_IN,		/* i915:i915_request_in (low-level) */
	GR_UP_I915_OUT,		/* i915:i915_request_out (low-level) */
	GR_UP_I915_RETIRE,	/* i915:i915_request_retire */
	GR_UP_NR,
};

/* Which events a trace.dat's jobs are made of (gr_trace.use) */
enum gr_use {
	GR_USE_AUTO,		/* grtrace's if it has any, else the kernel's own */
	GR_USE_GRTRACE,
	GR_USE_UPSTREAM,
};

/* One record of a known or unknown type, header decoded. */
struct gr_event {
	__u64 ts;
	__u64 gseq;
	__u64 cseq;
	__u64 off;		/* byte offset in its file */
	__u32 cpu;
	__u16 type;
	__u16 size;
	__u32 file;		/* index in gr_trace.files */
	__u8 origin;		/* enum gr_origin */
	__u8 cannot;		/* stages (BIT(type)) its job's events cannot tell */
	struct grtrace_job_payload job;	/* types below GRTRACE_EV_NR */
};

/*
 * A ring, at its local index: the readers number the rings as they meet
 * them (gr_ring_local()), whatever the kernel's ids, and the events name
 * their ring by that index.
 */
struct gr_ring {
	__u32 id;		/* the kernel's */
	bool known;		/* described by METADATA or the rings file */
	bool used;		/* named by an event */
	__u16 engine;
	char dev[33];
	char name[33];
	__u64 by_type[GRTRACE_EV_NR];
	__u64 windows;		/* SUMMARY records, summed into @sum */
	struct grtrace_summary sum;
};

/*
 * A context of the GR_TOOL_CTX records: from its create to its destroy.
 * Drivers reuse the ids of destroyed contexts: a create, or a record after
 * the destroy, begins another context of the same id.
 */
struct gr_ctx {
	__u64 ctx_id;
	__u32 ring_id;		/* the first non-zero one of its records, or 0 */
	bool created;		/* its create was read */
	bool destroyed;		/* its destroy was read */
	__u64 created_ts;
	__u64 destroyed_ts;
	__u64 first_ts;		/* its first record */
	__u64 schedules;
	__u32 pid;		/* of its first record */
	__u32 tgid;
	char comm[17];
	char attrs[GR_CTX_ATTRS + 1];	/* of its create, or of the first record with any */
	size_t prev;		/* the context of the same id before it: index + 1 */
};

/*
 * A command the virtio-gpu driver queued, from the virtio_gpu_cmd_queue
 * event of a trace.dat: what ties a job of a virtio-gpu ring (its seqno)
 * to the fence id the device, QEMU, reports (host.c).
 */
struct gr_vcmd {
	__u64 ts;
	__u64 fence_id;
	__u32 seqno;
	__u32 type;
	__u32 flags;
	__u32 ctx_id;
	__u32 vq;		/* 0: the control queue */
	__s32 dev;		/* the driver's device index */
};

/* A whole input: every record of every file, merged by gseq. */
struct gr_trace {
	char **files;
	int nr_files;
	const char *input;	/* as given, or the debugfs directory */
	bool is_dir;
	bool is_tracedat;	/* a trace-cmd recording (trace.dat) */
	bool whole;		/* ...read whole into ev (else as a stream: gr_src) */
	int session;		/* the session to read, from 1; 0: the input's only one */
	int nr_sessions;	/* sessions in a file (STREAM_INFO of a new id), at most */
	const char *instance;	/* ...or the ftrace instance of that name */
	int dat_cpus;		/* its CPUs: the highest with a record, plus 1 */
	const char *clock;	/* ftrace clock name of the times, if known */
	char clock_name[16];	/* ...of a trace.dat or an instance: clock */
	__u64 records;		/* records read (events, not the tool's stats) */
	struct gr_event *ev;	/* every event (gr_input_load()) */
	size_t nr_ev;
	size_t cap_ev;
	bool have_info;
	struct grtrace_stream_info info;
	struct gr_ring *rings;	/* by local index; 0 is the kernel's id 0 */
	__u32 nr_rings;
	__u32 rings_cap;
	__u32 *ring_hash;	/* by kernel id: local index + 1 */
	__u32 ring_hash_size;
	__u64 by_type[GRTRACE_EV_NR];
	__u64 unknown;		/* records of unknown type, skipped */
	__u64 longer;		/* payloads longer than known (newer format) */
	__u64 shorter;		/* payloads shorter than known (older format) */
	__u64 lost;		/* gseq gaps between the records */
	__u64 jumps;		/* damaged gseqs: gaps not in lost */
	__u64 *cseq;		/* by CPU: the cseq of its last record, 0: none */
	__u32 nr_cseq;
	__u64 cpus;		/* bit N: a record of CPU N (N < 64) was read */
	__u64 first_gseq;
	__u64 first_ts;
	__u64 last_ts;
	__u64 start_ts;		/* session start, origin of relative times */
	char *stats;		/* kernel stats text, if known */
	char *config;		/* GR_TOOL_CONFIG text, if recorded */
	struct grtrace_summary summary;	/* the last SUMMARY record read */
	struct gr_ctx *ctx;	/* the contexts, in the order of their first record */
	size_t nr_ctx;
	size_t *ctx_hash;	/* by id: the last context, index + 1 */
	size_t ctx_hash_size;
	__u64 ctx_records;	/* GR_TOOL_CTX records taken */
	__u64 ctx_gseq;		/* the last one: a second pass takes none again */
	enum gr_use use;	/* trace.dat: the events to make jobs of */
	__u64 upstream[GR_UP_NR];	/* trace.dat: the kernel's own events read */
	__u64 upstream_recs;	/* records made of them */
	__u64 grtrace_recs;	/* records of grtrace's events */
	__u64 unused_recs;	/* records of the events not used (gr_trace.use) */
	__u64 vcmd_unpaired;	/* events of virtio-gpu commands nothing pairs (upstream.c) */
	__u64 old_shared_ids;	/* older scheduler events: a (name, id) open twice */
	bool i915_low;		/* i915's low-level request events are in the recording */
	struct gr_vcmd *vcmd;	/* trace.dat: the virtio-gpu commands queued */
	size_t nr_vcmd;
	size_t cap_vcmd;
};

struct gr_event *gr_trace_add(struct gr_trace *t);
__u32 gr_ring_local(struct gr_trace *t, __u32 id);
__u32 *gr_rings_by_id(const struct gr_trace *t);
void gr_rings_rehash(struct gr_trace *t);
const char *gr_where(const struct gr_trace *t, const struct gr_event *ev);
int gr_trace_merge(struct gr_trace *t);
void gr_trace_free(struct gr_trace *t);
void gr_count_gap(struct gr_trace *t, const struct gr_event *ev, __u64 prev_gseq);

void gr_ctx_take(struct gr_trace *t, const struct gr_event *ev, const struct gr_tool_ctx *c);
const struct gr_ctx *gr_ctx_at(const struct gr_trace *t, __u64 ctx_id, __u64 ts);

const char *gr_type_name(unsigned int type);
void gr_name_clean(char *s, size_t len);
const char *gr_engine_name(unsigned int engine);
const char *gr_ctx_what_name(unsigned int what);
int gr_engine_parse(const char *s);
int gr_use_parse(const char *s, enum gr_use *use);
const struct gr_ring *gr_ring(const struct gr_trace *t, __u32 id);
void gr_ring_label(const struct gr_trace *t, __u32 id, char *buf, size_t len);
void gr_ring_info(const struct gr_trace *t, __u32 id, struct grtrace_ring_info *ri);

#endif /* __GRTRACE_EVENTS_H */
