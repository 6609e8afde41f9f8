/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grtrace - GPU ring trace, the interface for GPU drivers.
 *
 * A driver describes each hardware ring once with struct grtrace_ring and
 * reports the life of every job on it with the grtrace_<event>() calls.
 * Every call fires the matching tracepoint of the "grtrace" trace system;
 * the relay stream of the grtrace core is one consumer of those tracepoints,
 * ftrace, perf and BPF are others.
 *
 * Building the job descriptor is left to the caller and should be done only
 * when grtrace_enabled() returns true, which costs one patched-out branch
 * while nothing consumes grtrace events.  With CONFIG_GRTRACE=n all of this
 * compiles to nothing.
 */
#ifndef _LINUX_GRTRACE_H
#define _LINUX_GRTRACE_H

#include <linux/atomic.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/types.h>
#include <uapi/linux/grtrace.h>

/* &grtrace_ring.engine of a ring whose class grtrace guesses from its name */
#define GRTRACE_ENGINE_FROM_NAME	0xffff

/**
 * struct grtrace_ring - a hardware ring (queue, engine) known to grtrace
 * @dev: device name, usually dev_name() of the GPU
 * @name: ring name, unique within @dev
 * @engine: enum grtrace_engine, or %GRTRACE_ENGINE_FROM_NAME to have grtrace
 *	guess it from @name with grtrace_engine_from_name() when the ring
 *	first reports while something consumes events
 * @stamp: grtrace's: the ring's id and when it got it
 * @node: grtrace's: entry in the list of rings that have an id
 *
 * Drivers fill @dev, @name and @engine, then call grtrace_ring_register().
 * The strings must stay valid until grtrace_ring_unregister() returns.
 */
struct grtrace_ring {
	const char *dev;
	const char *name;
	u16 engine;
	atomic64_t stamp;
	struct list_head node;
};

/**
 * struct grtrace_job - what a driver knows about a job at an event
 * @ring: ring the job runs on
 * @ctx_id: submitting context, driver defined (0 if none)
 * @fence_context: fence context identifying the job
 * @fence_seqno: fence seqno identifying the job
 * @aux_context: dependency fence context (sync waits), next context
 *               (context switches)
 * @aux_seqno: dependency fence seqno (sync waits)
 * @status: fence status for COMPLETE, 0 or the error that ended the wait
 *	for SYNC_WAIT_EXIT, enum grtrace_error for ERROR
 * @depth: jobs queued on @ring, for SUBMIT
 * @flags: GRTRACE_JOB_F_*
 * @client_id: &drm_file.client_id of the submitter, for SUBMIT (0 if unknown)
 * @waiter: for SYNC_WAIT_*, the caller is the task that waits and is named
 *	in the event; false when a job waits, not a task (the DRM scheduler
 *	reports the waits of its jobs from its workers and fence callbacks)
 */
struct grtrace_job {
	const struct grtrace_ring *ring;
	u64 ctx_id;
	u64 fence_context;
	u64 fence_seqno;
	u64 aux_context;
	u64 aux_seqno;
	s32 status;
	u32 depth;
	u16 flags;
	u64 client_id;
	bool waiter;
};

/**
 * struct grtrace_event - one event as seen by the tracepoints
 * @type: enum grtrace_event_type
 * @ring: ring of the job, never NULL
 * @job: payload as written to the relay stream
 */
struct grtrace_event {
	u16 type;
	const struct grtrace_ring *ring;
	struct grtrace_job_payload job;
};

/**
 * struct grtrace_source - probes that report grtrace events from another
 *	subsystem's tracepoints
 * @get: attach the probes; process context, may sleep; returns 0 or a
 *	negative errno
 * @put: detach them, and wait until none runs
 * @node: grtrace's: entry in the list of sources
 * @attached: grtrace's: whether @get succeeded last
 *
 * grtrace calls @get while grtrace events have a consumer, @put after the
 * last one went, never both at once, under a mutex of its own: they must
 * not add, remove or sync sources.
 */
struct grtrace_source {
	int (*get)(void);
	void (*put)(void);
	struct list_head node;
	bool attached;
};

#if IS_ENABLED(CONFIG_GRTRACE)

DECLARE_STATIC_KEY_FALSE(grtrace_active_key);

void grtrace_source_add(struct grtrace_source *src);
void grtrace_source_remove(struct grtrace_source *src);

/**
 * grtrace_enabled - whether any consumer wants grtrace events
 *
 * Returns: true while the relay stream runs or any grtrace tracepoint is
 * enabled.  A patched-out branch otherwise.
 */
static __always_inline bool grtrace_enabled(void)
{
	return static_branch_unlikely(&grtrace_active_key);
}

void grtrace_ring_register(struct grtrace_ring *ring);
void grtrace_ring_unregister(struct grtrace_ring *ring);
u16 grtrace_engine_from_name(const char *name);

/**
 * grtrace_submit - report that a process handed a job over
 * @job: the job; @job->depth is the queue depth including this job
 *
 * Records the calling task as the submitter, so call it from the submitting
 * process.  Any context.
 */
void grtrace_submit(const struct grtrace_job *job);

/**
 * grtrace_commit - report that a job was written to the hardware ring
 * @job: the job
 *
 * Any context.
 */
void grtrace_commit(const struct grtrace_job *job);

/**
 * grtrace_start - report that the hardware started executing a job
 * @job: the job
 *
 * Any context.
 */
void grtrace_start(const struct grtrace_job *job);

/**
 * grtrace_end - report that the hardware finished executing a job
 * @job: the job
 *
 * Any context, typically the interrupt handler.
 */
void grtrace_end(const struct grtrace_job *job);

/**
 * grtrace_complete - report that a job's fence signalled
 * @job: the job; @job->status is the fence status (0 or a negative errno)
 *
 * Any context, typically the fence signalling path.
 */
void grtrace_complete(const struct grtrace_job *job);

/**
 * grtrace_ctx_switch - report a hardware context switch on a ring
 * @job: @job->ctx_id is the outgoing context, @job->aux_context the incoming
 *       one; GRTRACE_JOB_F_PREEMPT in @job->flags for a preemption
 *
 * Any context.
 */
void grtrace_ctx_switch(const struct grtrace_job *job);

/**
 * grtrace_irq - report an interrupt for a ring
 * @job: the ring in @job->ring, and the job if known
 *
 * Any context, typically the interrupt handler.
 */
void grtrace_irq(const struct grtrace_job *job);

/**
 * grtrace_sync_wait_enter - report that a job waits for a dependency
 * @job: the job; the dependency fence in @job->aux_context and
 *       @job->aux_seqno
 *
 * Any context.  The calling task is recorded as the waiter.  A driver that
 * waits before the job has its fence reports the wait without one
 * (@job->fence_context and @job->fence_seqno 0) but with the ring and
 * @job->ctx_id: the job is then the next one that the same task submits
 * to that ring and context.
 */
void grtrace_sync_wait_enter(const struct grtrace_job *job);

/**
 * grtrace_sync_wait_exit - report that a job's dependency signalled
 * @job: as for grtrace_sync_wait_enter()
 *
 * Any context.
 */
void grtrace_sync_wait_exit(const struct grtrace_job *job);

/**
 * grtrace_error - report a ring error
 * @job: the ring, the job if known, and enum grtrace_error in @job->status
 *
 * Any context.
 */
void grtrace_error(const struct grtrace_job *job);

#else /* !CONFIG_GRTRACE */

static inline bool grtrace_enabled(void) { return false; }
static inline void grtrace_source_add(struct grtrace_source *src) { }
static inline void grtrace_source_remove(struct grtrace_source *src) { }
static inline void grtrace_ring_register(struct grtrace_ring *ring) { }
static inline void grtrace_ring_unregister(struct grtrace_ring *ring) { }
static inline u16 grtrace_engine_from_name(const char *name) { return GRTRACE_ENGINE_OTHER; }
static inline void grtrace_submit(const struct grtrace_job *job) { }
static inline void grtrace_commit(const struct grtrace_job *job) { }
static inline void grtrace_start(const struct grtrace_job *job) { }
static inline void grtrace_end(const struct grtrace_job *job) { }
static inline void grtrace_complete(const struct grtrace_job *job) { }
static inline void grtrace_ctx_switch(const struct grtrace_job *job) { }
static inline void grtrace_irq(const struct grtrace_job *job) { }
static inline void grtrace_sync_wait_enter(const struct grtrace_job *job) { }
static inline void grtrace_sync_wait_exit(const struct grtrace_job *job) { }
static inline void grtrace_error(const struct grtrace_job *job) { }

#endif /* CONFIG_GRTRACE */

#endif /* _LINUX_GRTRACE_H */
