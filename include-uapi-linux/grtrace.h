/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * grtrace (GPU ring trace) binary stream format.
 *
 * The per-CPU relay files /sys/kernel/debug/grtrace/events<N> carry a
 * sequence of records.  Every record starts with a struct grtrace_record
 * header followed by a type specific payload.  Fields are in the byte order
 * of the host that wrote them (the structures below, as the CPU stores
 * them); every structure is explicitly padded and a multiple of 8 bytes
 * long.  A reader on a host of the other byte order sees the type of the
 * first record, STREAM_INFO, and %GRTRACE_MAGIC byte-swapped.
 *
 * Compatibility rules: new record types may be added and new fields are only
 * ever appended to a payload.  A reader skips records whose type it does not
 * know and ignores the bytes of a payload beyond the fields it knows, using
 * grtrace_record.size.  A reader must not reject non-zero reserved fields.
 */
#ifndef _UAPI_LINUX_GRTRACE_H
#define _UAPI_LINUX_GRTRACE_H

#include <linux/types.h>

#define GRTRACE_MAGIC		0x52544752	/* "RGTR" in a little endian dump */
#define GRTRACE_FORMAT_VERSION	1

/**
 * enum grtrace_event_type - record types
 * @GRTRACE_EV_SUBMIT: job handed to the driver or scheduler by a process
 * @GRTRACE_EV_COMMIT: job written to the hardware ring (doorbell)
 * @GRTRACE_EV_START: hardware started executing the job
 * @GRTRACE_EV_END: hardware finished executing the job
 * @GRTRACE_EV_COMPLETE: job's fence signalled, with its status
 * @GRTRACE_EV_CTX_SWITCH: the engine switched hardware contexts
 * @GRTRACE_EV_IRQ: the device raised an interrupt for the ring
 * @GRTRACE_EV_SYNC_WAIT_ENTER: job starts waiting on a dependency fence
 * @GRTRACE_EV_SYNC_WAIT_EXIT: the dependency fence signalled
 * @GRTRACE_EV_ERROR: ring error (timeout, reset, ...)
 * @GRTRACE_EV_NR: number of job event types
 * @GRTRACE_EV_STREAM_INFO: first record of a session
 * @GRTRACE_EV_METADATA: describes one ring, before any event names it
 * @GRTRACE_EV_SUMMARY: what one ring did in an aggregation window, in
 *	place of its job events when aggregate_only is set
 * @GRTRACE_EV_RING_REMOVED: the ring of a METADATA was unregistered; no
 *                           event of the session names its id afterwards
 * @GRTRACE_EV_USER: first of the types the kernel never writes; tools
 *                   saving a stream may add records of their own from here
 *
 * Bit N of every event type mask selects type N.
 */
enum grtrace_event_type {
	GRTRACE_EV_SUBMIT = 0,
	GRTRACE_EV_COMMIT = 1,
	GRTRACE_EV_START = 2,
	GRTRACE_EV_END = 3,
	GRTRACE_EV_COMPLETE = 4,
	GRTRACE_EV_CTX_SWITCH = 5,
	GRTRACE_EV_IRQ = 6,
	GRTRACE_EV_SYNC_WAIT_ENTER = 7,
	GRTRACE_EV_SYNC_WAIT_EXIT = 8,
	GRTRACE_EV_ERROR = 9,
	GRTRACE_EV_NR = 10,

	GRTRACE_EV_STREAM_INFO = 0x100,
	GRTRACE_EV_METADATA = 0x101,
	GRTRACE_EV_RING_REMOVED = 0x102,
	GRTRACE_EV_SUMMARY = 0x103,

	GRTRACE_EV_USER = 0xff00,
};

/**
 * enum grtrace_engine - engine class of a ring
 * @GRTRACE_ENGINE_GRAPHICS: 3D / render
 * @GRTRACE_ENGINE_COMPUTE: compute
 * @GRTRACE_ENGINE_COPY: DMA / blitter / SDMA
 * @GRTRACE_ENGINE_VIDEO_DECODE: video decode
 * @GRTRACE_ENGINE_VIDEO_ENCODE: video encode
 * @GRTRACE_ENGINE_OTHER: anything else, or not known
 * @GRTRACE_ENGINE_NR: number of engine classes
 *
 * Bit N of an engine mask selects class N.
 */
enum grtrace_engine {
	GRTRACE_ENGINE_GRAPHICS = 0,
	GRTRACE_ENGINE_COMPUTE = 1,
	GRTRACE_ENGINE_COPY = 2,
	GRTRACE_ENGINE_VIDEO_DECODE = 3,
	GRTRACE_ENGINE_VIDEO_ENCODE = 4,
	GRTRACE_ENGINE_OTHER = 5,
	GRTRACE_ENGINE_NR = 6,
};

/**
 * enum grtrace_error - codes carried by %GRTRACE_EV_ERROR
 * @GRTRACE_ERROR_OTHER: unspecified error
 * @GRTRACE_ERROR_TIMEOUT: a job exceeded its timeout
 * @GRTRACE_ERROR_RESET: the engine or device was reset
 */
enum grtrace_error {
	GRTRACE_ERROR_OTHER = 0,
	GRTRACE_ERROR_TIMEOUT = 1,
	GRTRACE_ERROR_RESET = 2,
};

/* grtrace_job_payload.flags */
#define GRTRACE_JOB_F_PREEMPT	(1U << 0)	/* CTX_SWITCH: preemption */

/* grtrace_stream_info.features */
#define GRTRACE_FEAT_CSEQ	(1ULL << 0)	/* cseq is valid */
#define GRTRACE_FEAT_SUBMITTER	(1ULL << 1)	/* SUBMIT, a task's waits: pid/comm */

/* grtrace_stream_info.clock_id: same numbering as clock_gettime() */
#define GRTRACE_CLOCK_MONOTONIC	1

/**
 * struct grtrace_record - header of every record
 * @type: enum grtrace_event_type
 * @size: bytes of header plus payload, a multiple of 8
 * @cpu: CPU that wrote the record
 * @ts: CLOCK_MONOTONIC time in ns (ftrace's "mono" clock)
 * @gseq: global sequence number, strictly increasing over all CPUs,
 *        restarting at 1 on every start
 * @cseq: per-CPU sequence number, restarting at 1 on every start
 */
struct grtrace_record {
	__u16 type;
	__u16 size;
	__u32 cpu;
	__u64 ts;
	__u64 gseq;
	__u64 cseq;
};

/**
 * struct grtrace_job_payload - payload of the job event types
 * @ctx_id: submitting context (scheduler entity, driver context id)
 * @fence_context: job identity, fence context
 * @fence_seqno: job identity, fence seqno within @fence_context
 * @aux_context: SYNC_WAIT_*: dependency fence context;
 *               CTX_SWITCH: the context switched to
 * @aux_seqno: SYNC_WAIT_*: dependency fence seqno
 * @ring_id: ring, described by a METADATA record
 * @engine: enum grtrace_engine of the ring
 * @flags: GRTRACE_JOB_F_*
 * @status: COMPLETE: fence status, 0 or a negative errno;
 *          ERROR: enum grtrace_error
 * @depth: SUBMIT: jobs queued on the ring, this one included
 * @pid: SUBMIT: submitting thread id; SYNC_WAIT_*: the waiting thread's,
 *	or 0 when a job waits (the DRM scheduler's dependencies); 0 otherwise
 * @tgid: its process id, 0 when @pid is
 * @comm: its thread name, NUL padded; empty when @pid is 0
 * @client_id: SUBMIT: the DRM client (&drm_file.client_id, as in fdinfo
 *             and the gpu_scheduler events) that submitted the job, 0 if
 *             the driver does not say; 0 otherwise
 */
struct grtrace_job_payload {
	__u64 ctx_id;
	__u64 fence_context;
	__u64 fence_seqno;
	__u64 aux_context;
	__u64 aux_seqno;
	__u32 ring_id;
	__u16 engine;
	__u16 flags;
	__s32 status;
	__u32 depth;
	__u32 pid;
	__u32 tgid;
	char comm[16];
	__u64 client_id;
};

/**
 * struct grtrace_stream_info - payload of %GRTRACE_EV_STREAM_INFO
 * @magic: %GRTRACE_MAGIC
 * @version: %GRTRACE_FORMAT_VERSION
 * @record_size: size of struct grtrace_record written by the kernel
 * @session_id: random id of this start, shared by all CPUs' files
 * @features: GRTRACE_FEAT_*
 * @start_ts: CLOCK_MONOTONIC time of the start, ns
 * @start_realtime: CLOCK_REALTIME time of the start, ns
 * @clock_id: clock of all @ts fields, %GRTRACE_CLOCK_MONOTONIC
 * @nr_cpus: the events<N> files have N below it: the highest possible CPU
 *	id plus one (nr_cpu_ids), as possible CPU ids may have holes
 * @nr_rings: rings with an id when the session started, a hint: as rings
 *	come and go, the METADATA records that follow may be fewer or more
 * @buffer_size: per-CPU relay buffer size in bytes
 */
struct grtrace_stream_info {
	__u32 magic;
	__u16 version;
	__u16 record_size;
	__u64 session_id;
	__u64 features;
	__u64 start_ts;
	__u64 start_realtime;
	__u32 clock_id;
	__u32 nr_cpus;
	__u32 nr_rings;
	__u32 buffer_size;
};

/**
 * struct grtrace_ring_info - payload of %GRTRACE_EV_METADATA and
 *                            %GRTRACE_EV_RING_REMOVED
 * @ring_id: id used by the job events of this ring, never 0; a driver's
 *           ring does not pass its id on to another within a session
 * @engine: enum grtrace_engine
 * @flags: GRTRACE_RING_F_*
 * @dev: device name (dev_name()), NUL padded, cut to 31 bytes
 * @name: ring name, NUL padded, cut to 31 bytes (e.g. "gfx_0.0.0",
 *	"control")
 */
struct grtrace_ring_info {
	__u32 ring_id;
	__u16 engine;
	__u16 flags;
	char dev[32];
	char name[32];
};

/* &grtrace_ring_info.flags: the name was longer than its field, and cut */
#define GRTRACE_RING_F_DEV_CUT		(1 << 0)
#define GRTRACE_RING_F_NAME_CUT		(1 << 1)

#define GRTRACE_SUMMARY_HIST	32	/* log2 buckets of ns, see lat_hist */

/**
 * enum grtrace_summary_drop - the causes of &struct grtrace_summary.dropped
 * @GRTRACE_SUMMARY_DROP_FILTERED: a filter or the watchlist rejected it
 * @GRTRACE_SUMMARY_DROP_OVERRUN: the CPU's buffer was full
 * @GRTRACE_SUMMARY_DROP_SAMPLED: its job was not sampled
 * @GRTRACE_SUMMARY_DROP_BACKPRESSURE: adaptive sampling's lowered rate
 * @GRTRACE_SUMMARY_DROP_RATE_LIMITED: over max_events_per_sec
 * @GRTRACE_SUMMARY_DROP_UNTRACKED: the governance had no room to track it
 * @GRTRACE_SUMMARY_DROP_AGGREGATED: counted in the SUMMARY, not written
 * @GRTRACE_SUMMARY_DROP_FROZEN: the flight recorder was frozen
 *
 * Each is the ``dropped_*`` counter of ``stats`` of the same name.  A cause
 * to come takes the next index: %GRTRACE_SUMMARY_DROPS leaves room for
 * them, and readers skip the indices they do not know.
 */
enum grtrace_summary_drop {
	GRTRACE_SUMMARY_DROP_FILTERED,
	GRTRACE_SUMMARY_DROP_OVERRUN,
	GRTRACE_SUMMARY_DROP_SAMPLED,
	GRTRACE_SUMMARY_DROP_BACKPRESSURE,
	GRTRACE_SUMMARY_DROP_RATE_LIMITED,
	GRTRACE_SUMMARY_DROP_UNTRACKED,
	GRTRACE_SUMMARY_DROP_AGGREGATED,
	GRTRACE_SUMMARY_DROP_FROZEN,
};

#define GRTRACE_SUMMARY_DROPS	16	/* entries of dropped; unused ones 0 */

/**
 * struct grtrace_summary - payload of %GRTRACE_EV_SUMMARY
 * @ring_id: the ring, described by a METADATA record
 * @reserved: zero
 * @window_start: CLOCK_MONOTONIC start of the window, ns
 * @window_ns: its length; shorter for the last window of a session
 * @events: job events of the ring that passed the filters, not written
 * @jobs: jobs completed whose SUBMIT was seen
 * @lat_sum: their latency (SUBMIT to COMPLETE), summed, ns
 * @lat_min: the smallest, ns
 * @lat_max: the largest, ns
 * @dev_jobs: jobs whose device time (COMMIT or START to END) was seen
 * @dev_sum: their device time, summed, ns; the ring's busy time
 * @dev_min: the smallest, ns
 * @dev_max: the largest, ns
 * @depth_sum: the queue depths of the SUBMITs, summed
 * @depth_n: SUBMITs counted in @depth_sum
 * @depth_peak: the largest queue depth
 * @errors: ERROR events (written too, as usual)
 * @dropped: events of the ring not counted above, by drop cause: the
 *	index is an enum grtrace_summary_drop
 * @lat_hist: @jobs by latency: bucket i counts [2^i, 2^(i+1)) ns, the last
 *	one all from 2^31 ns (about 2.1 s) up
 */
struct grtrace_summary {
	__u32 ring_id;
	__u32 reserved;
	__u64 window_start;
	__u64 window_ns;
	__u64 events;
	__u64 jobs;
	__u64 lat_sum;
	__u64 lat_min;
	__u64 lat_max;
	__u64 dev_jobs;
	__u64 dev_sum;
	__u64 dev_min;
	__u64 dev_max;
	__u64 depth_sum;
	__u64 depth_n;
	__u64 depth_peak;
	__u64 errors;
	__u64 dropped[GRTRACE_SUMMARY_DROPS];
	__u32 lat_hist[GRTRACE_SUMMARY_HIST];
};

#endif /* _UAPI_LINUX_GRTRACE_H */
