// SPDX-License-Identifier: MIT
/*
 * Report nouveau channel work to grtrace.
 */

#include <linux/grtrace.h>
#include <nvif/cl0080.h>

#include "nouveau_drv.h"
#include "nouveau_chan.h"
#include "nouveau_fence.h"
#include "nouveau_grtrace.h"

/**
 * DOC: grtrace
 *
 * With CONFIG_GRTRACE_NOUVEAU, every channel with a fence context is a
 * grtrace ring named ``chan<runlist>.<channel id>``.  A job is identified by
 * its nouveau fence, context:seqno; its context is the channel's fence
 * context.
 *
 * Jobs of the EXEC ioctl go through the DRM scheduler, which reports their
 * SUBMIT, COMMIT, END and COMPLETE on its own ring, named by the scheduler's
 * finished fence: their nouveau fences are marked in
 * nouveau_exec_job_submit() and not reported again.  Everything else that
 * carries a nouveau fence is reported here: jobs of the legacy PUSHBUF
 * ioctl, and the kernel's own work such as buffer moves on the copy engine
 * channel.
 *
 * ============= =============================== ===========================
 * event         where                           why there
 * ============= =============================== ===========================
 * SUBMIT        nouveau_fence_emit()            a PUSHBUF job's pushes are
 *                                               written and its fence got
 *                                               its seqno, in the
 *                                               submitting task, before the
 *                                               fence is written
 * COMMIT        nouveau_fence_emit()            the fence is written behind
 *                                               the job and the ring is
 *                                               kicked
 * IRQ           nouveau_fence_wait_uevent_      the channel's non-stall
 *               handler()                       interrupt (all its jobs,
 *                                               scheduler ones included)
 * END           nouveau_fence_update()          the channel's fence value
 *                                               passed the job's seqno
 * COMPLETE      nouveau_fence_signal()          the fence signalled, with
 *                                               its error (-ENODEV when the
 *                                               channel was killed)
 * COMPLETE      nouveau_fence_emit()            a PUSHBUF job's fence could
 *                                               not be written, or its
 *                                               channel was killed first:
 *                                               it never signals, and its
 *                                               seqno is not used again
 * ERROR(other)  nouveau_channel_killed()        the channel was killed, as
 *                                               after a fault
 * ============= =============================== ===========================
 *
 * The hardware reports no start of a job.  The engine class of a channel
 * is COPY for the kernel's copy engine channel, GRAPHICS for its other
 * channels, and that of the engine a user channel was allocated for.
 */

/**
 * nouveau_grtrace_chan_init - make a channel a grtrace ring
 * @chan: the channel
 * @fctx: its fence context, being initialized
 */
void nouveau_grtrace_chan_init(struct nouveau_channel *chan,
			       struct nouveau_fence_chan *fctx)
{
	struct nouveau_drm *drm = chan->cli->drm;
	struct grtrace_ring *ring = &fctx->grtrace_ring;

	snprintf(fctx->grtrace_name, sizeof(fctx->grtrace_name), "chan%d.%d",
		 chan->runlist, chan->chid);
	ring->name = fctx->grtrace_name;
	ring->engine = chan == drm->cechan ? GRTRACE_ENGINE_COPY :
					     GRTRACE_ENGINE_GRAPHICS;
	ring->dev = dev_name(drm->dev->dev);
	grtrace_ring_register(ring);
}

/**
 * nouveau_grtrace_chan_fini - forget the ring of a channel
 * @fctx: its fence context, with no fence pending
 */
void nouveau_grtrace_chan_fini(struct nouveau_fence_chan *fctx)
{
	if (!fctx->grtrace_ring.dev)
		return;
	grtrace_ring_unregister(&fctx->grtrace_ring);
	fctx->grtrace_ring.dev = NULL;
}

/**
 * nouveau_grtrace_chan_engine - set the engine class of a user channel
 * @chan: the channel, just allocated, before any job
 * @engines: the NV_DEVICE_HOST_RUNLIST_ENGINES_* it was allocated for
 */
void nouveau_grtrace_chan_engine(struct nouveau_channel *chan, u64 engines)
{
	struct nouveau_fence_chan *fctx = chan->fence;
	u16 engine = GRTRACE_ENGINE_OTHER;

	if (!fctx || !fctx->grtrace_ring.dev)
		return;
	if (engines & NV_DEVICE_HOST_RUNLIST_ENGINES_GR)
		engine = GRTRACE_ENGINE_GRAPHICS;
	else if (engines & NV_DEVICE_HOST_RUNLIST_ENGINES_CE)
		engine = GRTRACE_ENGINE_COPY;
	else if (engines & (NV_DEVICE_HOST_RUNLIST_ENGINES_MSPDEC |
			    NV_DEVICE_HOST_RUNLIST_ENGINES_MSVLD))
		engine = GRTRACE_ENGINE_VIDEO_DECODE;
	WRITE_ONCE(fctx->grtrace_ring.engine, engine);
}

/**
 * nouveau_grtrace_sched_fence - mark the fence of a DRM scheduler job
 * @fence: the fence, created and not emitted
 *
 * The scheduler reports the job; its fence is not reported again.
 */
void nouveau_grtrace_sched_fence(struct nouveau_fence *fence)
{
	fence->grtrace_sched = true;
}

/**
 * nouveau_grtrace_pushbuf_fence - mark the fence of a PUSHBUF job
 * @fence: the fence, created and not emitted
 *
 * nouveau_fence_emit() reports the job's SUBMIT once the fence has its
 * seqno: a PUSHBUF that fails before reports nothing.
 */
void nouveau_grtrace_pushbuf_fence(struct nouveau_fence *fence)
{
	fence->grtrace_submit = true;
}

/* A job named by its nouveau fence, on its channel's ring. */
static struct grtrace_job nouveau_grtrace_job(struct nouveau_fence_chan *fctx,
					      const struct nouveau_fence *fence)
{
	return (struct grtrace_job) {
		.ring = &fctx->grtrace_ring,
		.ctx_id = fence->base.context,
		.fence_context = fence->base.context,
		.fence_seqno = fence->base.seqno,
	};
}

/**
 * nouveau_grtrace_fence - report an event of a fenced job
 * @fctx: the fence context of the job's channel
 * @fence: the job's fence, with its seqno
 * @type: GRTRACE_EV_SUBMIT (PUSHBUF jobs only, by the submitting task),
 *        _COMMIT, _END or _COMPLETE; COMPLETE carries the fence error
 */
void nouveau_grtrace_fence(struct nouveau_fence_chan *fctx,
			   struct nouveau_fence *fence, u16 type)
{
	struct grtrace_job gj = nouveau_grtrace_job(fctx, fence);

	if (fence->grtrace_sched || !gj.ring->dev)
		return;
	switch (type) {
	case GRTRACE_EV_SUBMIT:
		if (fence->grtrace_submit)
			grtrace_submit(&gj);
		break;
	case GRTRACE_EV_COMMIT:
		grtrace_commit(&gj);
		break;
	case GRTRACE_EV_END:
		grtrace_end(&gj);
		break;
	case GRTRACE_EV_COMPLETE:
		gj.status = fence->base.error;
		grtrace_complete(&gj);
		break;
	}
}

/**
 * nouveau_grtrace_fence_lost - close a PUSHBUF job whose fence never signals
 * @fctx: the fence context of the job's channel
 * @fence: the job's fence, SUBMIT reported, not emitted
 * @err: why: the error of writing the fence, or -ENODEV
 */
void nouveau_grtrace_fence_lost(struct nouveau_fence_chan *fctx,
				struct nouveau_fence *fence, int err)
{
	struct grtrace_job gj = nouveau_grtrace_job(fctx, fence);

	gj.status = err;
	if (fence->grtrace_submit && gj.ring->dev)
		grtrace_complete(&gj);
}

/**
 * nouveau_grtrace_irq - report the non-stall interrupt of a channel
 * @fctx: the channel's fence context
 */
void nouveau_grtrace_irq(struct nouveau_fence_chan *fctx)
{
	struct grtrace_job gj = { .ring = &fctx->grtrace_ring };

	if (gj.ring->dev)
		grtrace_irq(&gj);
}

/**
 * nouveau_grtrace_chan_error - report that a channel was killed
 * @chan: the channel
 */
void nouveau_grtrace_chan_error(struct nouveau_channel *chan)
{
	struct nouveau_fence_chan *fctx = chan->fence;
	struct grtrace_job gj = { .status = GRTRACE_ERROR_OTHER };

	if (!fctx || !fctx->grtrace_ring.dev)
		return;
	gj.ring = &fctx->grtrace_ring;
	gj.ctx_id = fctx->context;
	grtrace_error(&gj);
}
