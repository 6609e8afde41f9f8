/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: GPU jobs rebuilt from the events of a stream.
 */
#ifndef __GRTRACE_JOBS_H
#define __GRTRACE_JOBS_H

#include "events.h"
#include "utils.h"

/*
 * Derived per-job times, ns.  HOST, DEVICE and COMPLETE split the latency:
 * a missing COMMIT counts as SUBMIT, a missing END as COMPLETE, so that
 * they add up to it exactly.  QUEUE and EXEC split DEVICE when there is a
 * START.  WAIT is not a phase: it overlaps the others, or precedes SUBMIT.
 */
enum gr_metric {
	GR_M_HOST,		/* t_submit_host = COMMIT - SUBMIT */
	GR_M_DEVICE,		/* t_device = END - COMMIT */
	GR_M_COMPLETE,		/* t_complete = COMPLETE - END */
	GR_M_LAT,		/* latency = COMPLETE - SUBMIT */
	GR_M_QUEUE,		/* t_queue = START - COMMIT */
	GR_M_EXEC,		/* t_exec = END - START */
	GR_M_WAIT,		/* t_gpu_wait = sum(SYNC_WAIT_EXIT - ENTER) */
	GR_M_NR,
};

extern const char * const gr_metric_names[GR_M_NR];

/* Labels */
#define GR_L_LONG_QUEUE		BIT(0)
#define GR_L_SLOW_EXEC		BIT(1)
#define GR_L_PREEMPTED		BIT(2)
#define GR_L_ERROR		BIT(3)
#define GR_L_INCOMPLETE		BIT(4)
#define GR_L_NR			5

extern const char * const gr_label_names[GR_L_NR];

#define GR_STAGES		(GRTRACE_EV_COMPLETE + 1)

struct gr_job {
	__u64 fctx;		/* fence context and seqno: the job's identity */
	__u64 fseq;
	__u64 ctx_id;
	__u64 client_id;	/* DRM client of SUBMIT, 0 if unknown */
	__u32 ring_id;
	__u32 seen;		/* bit N: an event of type N was seen */
	__u32 cannot;		/* bit N: its events cannot tell stage N (unknown) */
	__u64 ts[GR_STAGES];	/* SUBMIT .. COMPLETE */
	__u64 first_ts;
	__u64 last_ts;
	__u64 wait_ns;
	__u32 waits;		/* SYNC_WAIT enter/exit pairs */
	__u32 preempts;
	__u32 errors;
	__s32 status;		/* of COMPLETE */
	__s32 error_code;	/* of the last ERROR */
	__u32 pid;
	__u32 tgid;
	__u32 depth;
	char comm[17];
	__u32 labels;
	__u64 serial;		/* jobs created before this one */
	__u64 done_at;		/* events read when COMPLETE came */
	size_t hnext;		/* hash chain: index + 1, 0 ends */
	size_t dep_head;	/* last gr_dep of this job: index + 1 */
};

/* A SYNC_WAIT of one job on a fence */
struct gr_dep {
	size_t waiter;		/* job index */
	long dep;		/* job index of the fence, or -1 */
	__u64 fctx;
	__u64 fseq;
	__u64 enter;		/* 0 if not seen */
	__u64 exit;		/* 0 if not seen */
	size_t next;		/* previous dep of the waiter: index + 1 */
};

/*
 * A SYNC_WAIT of no job yet (fence 0:0): a submitting thread waited in its
 * ioctl before its job got a fence; it goes to the thread's next SUBMIT on
 * the same ring and context.
 */
struct gr_wait {
	__u64 ctx_id;
	__u32 ring_id;
	__u32 pid;
	__u64 fctx;		/* the fence waited for */
	__u64 fseq;
	__u64 enter;		/* 0 if not seen */
	__u64 exit;		/* 0 if not seen */
	bool failed;		/* EXIT with a non-zero status */
};

struct gr_jobs;

/* Called with each job the stream is done with, in the order of creation */
typedef void (*gr_retire_fn)(void *arg, const struct gr_jobs *jobs, struct gr_job *j);

struct gr_jobs {
	struct gr_job *job;	/* all jobs; streaming: the slots */
	size_t nr;
	size_t cap;
	struct gr_dep *dep;
	size_t nr_dep;
	size_t cap_dep;
	struct gr_wait *wait;	/* jobless waits not bound to a SUBMIT yet */
	size_t nr_wait;
	size_t cap_wait;
	size_t *hash;
	size_t hash_size;
	__s64 queue_thresh;	/* fixed thresholds of the labels, 0: auto */
	__s64 exec_thresh;
	/* Streaming (gr_jobs_stream()) */
	gr_retire_fn retire;
	void *arg;
	size_t free_job;	/* free slots, chained by hnext: index + 1 */
	size_t free_dep;	/* free deps, chained by next */
	size_t *fifo;		/* slots of the open jobs, oldest first */
	size_t fifo_head;
	size_t fifo_len;
	size_t fifo_cap;
	__u64 events;		/* events read */
	__u64 serial;		/* jobs created */
};

void gr_jobs_build(struct gr_jobs *jobs, const struct gr_trace *t);
void gr_jobs_stream(struct gr_jobs *jobs, gr_retire_fn retire, void *arg);
void gr_jobs_event(struct gr_jobs *jobs, const struct gr_event *ev);
void gr_jobs_finish(struct gr_jobs *jobs);
bool gr_job_outlier(const struct gr_job *j, __u32 label, __s64 *val);
__s64 gr_label_thresh(__s64 median);
void gr_jobs_free(struct gr_jobs *jobs);
bool gr_job_phase(const struct gr_job *j, int metric, __u64 *from, __u64 *to);
bool gr_job_metric(const struct gr_job *j, int metric, __s64 *val);
bool gr_job_gpu(const struct gr_job *j, __s64 *ns);
bool gr_kernel_worker(const char *comm);
bool gr_job_done(const struct gr_job *j);
const char *gr_job_status(const struct gr_job *j, char *buf, size_t len);
void gr_job_labels(const struct gr_job *j, char *buf, size_t len);

#endif /* __GRTRACE_JOBS_H */
