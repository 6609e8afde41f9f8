// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace - record virtio-gpu commands from virtio-gpu's own tracepoints.
 */

#include <linux/device.h>
#include <linux/dma-fence.h>
#include <linux/grtrace.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/panic.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/virtio.h>
#include <linux/virtio_gpu.h>

#include "../drm/virtio/virtgpu_trace.h"

/**
 * DOC: virtio-gpu
 *
 * With CONFIG_GRTRACE_VIRTIO_GPU, the module grtrace_virtio_gpu records
 * every command of virtio-gpu's control and cursor virtqueues from the
 * driver's own ``virtio_gpu`` tracepoints, while something consumes
 * grtrace events (DOC: Sources).  virtio-gpu has no grtrace code; the
 * module needs virtio-gpu, grtrace's own module does not.
 *
 * A ring is a virtqueue: the device (the virtio device's parent, the PCI
 * function, as the DRM device names it) and the queue's name, ``control``
 * or ``cursor``.  A job is a command, identified by a fence context of its
 * ring, given when the ring first reports, and the queue's command
 * sequence number, the ``seqno`` the tracepoints print.  Every event
 * carries the command's virtio-gpu context: the device echoes it only in
 * the responses of fenced commands, so it is kept from the command.
 *
 * ========================= ============================= =================
 * tracepoint                events                        context
 * ========================= ============================= =================
 * virtio_gpu_cmd_queue      SUBMIT, then COMMIT: the      the submitting
 *                           command goes into the         task, the queue's
 *                           available ring, where the     lock held
 *                           device may take it at once;
 *                           depth counts the commands
 *                           not taken back, this one
 *                           included
 * virtio_gpu_cmd_response   END, then COMPLETE with       the dequeue
 *                           status -EIO for an error      worker, the
 *                           response                      queue's lock held
 * virtio_gpu_in_fence_wait  SYNC_WAIT_ENTER and _EXIT on  the submitting
 * _start, _end              the control ring: EXECBUFFER  task
 *                           waits for an in-fence of
 *                           another context
 * ========================= ============================= =================
 *
 * The device executes a command between COMMIT and END; no START or IRQ is
 * reported.  COMPLETE is the response taken back: the fence it signals,
 * if any, signals right after.  The waiting command has no seqno yet, so
 * its waits carry the context and the waiting task; readers bind them to
 * the task's next command in that context, EXECBUFFER's own SUBMIT_3D.
 *
 * A depth counts the descriptors in use, plus one: with indirect
 * descriptors, which QEMU offers, a command takes one.  A seqno that goes
 * back (the device was probed again, or it wrapped) gets a new fence
 * context, kept with each command for its response: no job is named
 * twice.  Nothing is recorded during a panic (drm_panic queues commands
 * then, without the queue's lock); a panic that CONFIG_DRM_PANIC_DEBUG's
 * debugfs file triggers is recorded, racing the queue's commands.
 */

#define GRTRACE_VGPU_RINGS	16
#define GRTRACE_VGPU_SLOTS	1024

/* What a response needs to know of its command. */
struct grtrace_vgpu_slot {
	u64 fence_context;
	u32 seqno;
	u32 ctx_id;
};

/*
 * A virtqueue, its names copied; immutable once @ready is set but for
 * @fence_context, @last_seqno and @slots, which change under the queue's
 * lock.
 */
struct grtrace_vgpu_ring {
	struct grtrace_ring ring;
	int ready;
	char dev[64];
	char name[16];
	u64 fence_context;
	u32 last_seqno;
	struct grtrace_vgpu_slot slots[GRTRACE_VGPU_SLOTS];
};

struct grtrace_vgpu_tables {
	struct grtrace_vgpu_ring rings[GRTRACE_VGPU_RINGS];
	unsigned int nr_rings;	/* lock */
	raw_spinlock_t lock;
};

/*
 * The tables of the probes attached last: made before they are attached,
 * kept after they are detached for the ids their rings had, and freed
 * when they are attached again or the module goes.
 */
static struct grtrace_vgpu_tables *grtrace_vgpu_tables;

/* Never registered: its events are dropped and counted as events_no_ring. */
static struct grtrace_ring grtrace_vgpu_no_ring = {
	.dev = "virtio_gpu", .name = "full",
};

static const char *grtrace_vgpu_dev(struct virtio_device *vdev)
{
	/* The DRM device's parent, as virtio-gpu gives it to drm_dev_alloc(). */
	return dev_name(vdev->dev.parent ? vdev->dev.parent : &vdev->dev);
}

/*
 * The ring of queue @name of @vdev, made when it first reports.  Lookups
 * take no lock: an entry is published by the release of @ready.  A miss
 * takes the table's lock, a leaf lock.
 */
static struct grtrace_vgpu_ring *
grtrace_vgpu_ring_of(struct grtrace_vgpu_tables *t, struct virtio_device *vdev,
		     const char *name)
{
	const char *dev = grtrace_vgpu_dev(vdev);
	struct grtrace_vgpu_ring *r;
	unsigned long flags;
	unsigned int i;

	for (i = 0; i < GRTRACE_VGPU_RINGS; i++) {
		r = &t->rings[i];
		/* Pairs with the release below: the entry is whole. */
		if (!smp_load_acquire(&r->ready))
			break;
		if (!strncmp(r->dev, dev, sizeof(r->dev) - 1) &&
		    !strncmp(r->name, name, sizeof(r->name) - 1))
			return r;
	}

	raw_spin_lock_irqsave(&t->lock, flags);
	for (i = 0; i < t->nr_rings; i++) {
		r = &t->rings[i];
		if (!strncmp(r->dev, dev, sizeof(r->dev) - 1) &&
		    !strncmp(r->name, name, sizeof(r->name) - 1))
			goto out;
	}
	if (t->nr_rings == GRTRACE_VGPU_RINGS) {
		r = NULL;
		goto out;
	}
	r = &t->rings[t->nr_rings++];
	strscpy(r->dev, dev);
	strscpy(r->name, name);
	r->ring.dev = r->dev;
	r->ring.name = r->name;
	r->ring.engine = strcmp(name, "control") ? GRTRACE_ENGINE_OTHER :
						   GRTRACE_ENGINE_GRAPHICS;
	r->fence_context = dma_fence_context_alloc(1);
	grtrace_ring_register(&r->ring);
	/* Pairs with the lockless lookup's acquire: publish it whole. */
	smp_store_release(&r->ready, 1);
out:
	raw_spin_unlock_irqrestore(&t->lock, flags);
	if (!r)
		pr_warn_once("more than %u virtio-gpu queues, their events are dropped\n",
			     GRTRACE_VGPU_RINGS);
	return r;
}

static struct grtrace_job grtrace_vgpu_job(struct grtrace_vgpu_ring *r,
					   u32 seqno, u32 ctx_id)
{
	if (!r)
		return (struct grtrace_job) { .ring = &grtrace_vgpu_no_ring };
	return (struct grtrace_job) {
		.ring = &r->ring,
		.ctx_id = ctx_id,
		.fence_context = r->fence_context,
		.fence_seqno = seqno,
	};
}

/* Before the command is added to @vq, under the queue's lock. */
static void grtrace_vgpu_cmd_queue(void *data, struct virtqueue *vq,
				   struct virtio_gpu_ctrl_hdr *hdr, u32 seqno)
{
	u32 ctx_id = le32_to_cpu(hdr->ctx_id);
	struct grtrace_vgpu_ring *r;
	struct grtrace_job gj;

	if (!grtrace_enabled() || panic_in_progress())
		return;
	r = grtrace_vgpu_ring_of(grtrace_vgpu_tables, vq->vdev, vq->name);
	if (r) {
		/* A device probed again starts at 1; a u32 wraps. */
		if (seqno <= r->last_seqno)
			r->fence_context = dma_fence_context_alloc(1);
		r->last_seqno = seqno;
		r->slots[seqno % GRTRACE_VGPU_SLOTS] = (struct grtrace_vgpu_slot) {
			.fence_context = r->fence_context,
			.seqno = seqno,
			.ctx_id = ctx_id,
		};
	}
	gj = grtrace_vgpu_job(r, seqno, ctx_id);
	gj.depth = virtqueue_get_vring_size(vq) - vq->num_free + 1;
	grtrace_submit(&gj);
	gj.depth = 0;
	grtrace_commit(&gj);
}

/* As the response is taken off @vq, under the queue's lock. */
static void grtrace_vgpu_cmd_response(void *data, struct virtqueue *vq,
				      struct virtio_gpu_ctrl_hdr *resp, u32 seqno)
{
	const struct grtrace_vgpu_slot *slot;
	struct grtrace_vgpu_ring *r;
	struct grtrace_job gj;

	if (!grtrace_enabled())
		return;
	r = grtrace_vgpu_ring_of(grtrace_vgpu_tables, vq->vdev, vq->name);
	gj = grtrace_vgpu_job(r, seqno, 0);
	/*
	 * The command's context and fence context as it was queued; context
	 * 0 for one queued before the probes were attached.
	 */
	slot = r ? &r->slots[seqno % GRTRACE_VGPU_SLOTS] : NULL;
	if (slot && slot->seqno == seqno) {
		gj.ctx_id = slot->ctx_id;
		gj.fence_context = slot->fence_context;
	}
	grtrace_end(&gj);
	gj.status = le32_to_cpu(resp->type) >= VIRTIO_GPU_RESP_ERR_UNSPEC ?
		    -EIO : 0;
	grtrace_complete(&gj);
}

/* A wait of the command a task has not queued yet: no fence of its own. */
static struct grtrace_job grtrace_vgpu_wait_job(struct virtio_device *vdev,
						u32 ctx_id,
						struct dma_fence *fence)
{
	struct grtrace_vgpu_ring *r;

	r = grtrace_vgpu_ring_of(grtrace_vgpu_tables, vdev, "control");
	return (struct grtrace_job) {
		.ring = r ? &r->ring : &grtrace_vgpu_no_ring,
		.ctx_id = ctx_id,
		.aux_context = fence->context,
		.aux_seqno = fence->seqno,
		.waiter = true,
	};
}

static void grtrace_vgpu_wait_start(void *data, struct virtio_device *vdev,
				    u32 ctx_id, u32 ring_idx,
				    struct dma_fence *fence)
{
	struct grtrace_job gj;

	if (!grtrace_enabled())
		return;
	gj = grtrace_vgpu_wait_job(vdev, ctx_id, fence);
	grtrace_sync_wait_enter(&gj);
}

static void grtrace_vgpu_wait_end(void *data, struct virtio_device *vdev,
				  u32 ctx_id, u32 ring_idx,
				  struct dma_fence *fence, int ret)
{
	struct grtrace_job gj;

	if (!grtrace_enabled())
		return;
	gj = grtrace_vgpu_wait_job(vdev, ctx_id, fence);
	gj.status = ret;
	grtrace_sync_wait_exit(&gj);
}

/* Forget the rings of tables no probe uses any more, and free them. */
static void grtrace_vgpu_free(struct grtrace_vgpu_tables *t)
{
	unsigned int i;

	if (!t)
		return;
	for (i = 0; i < t->nr_rings; i++)
		grtrace_ring_unregister(&t->rings[i].ring);
	kvfree(t);
}

static int grtrace_vgpu_get(void)
{
	struct grtrace_vgpu_tables *t;
	int ret;

	grtrace_vgpu_free(grtrace_vgpu_tables);
	WRITE_ONCE(grtrace_vgpu_tables, NULL);
	t = kvzalloc_obj(*t);
	if (!t)
		return -ENOMEM;
	raw_spin_lock_init(&t->lock);
	WRITE_ONCE(grtrace_vgpu_tables, t);

	ret = register_trace_virtio_gpu_cmd_queue(grtrace_vgpu_cmd_queue, NULL);
	if (ret)
		goto err;
	ret = register_trace_virtio_gpu_cmd_response(grtrace_vgpu_cmd_response,
						     NULL);
	if (ret)
		goto err_queue;
	ret = register_trace_virtio_gpu_in_fence_wait_start(grtrace_vgpu_wait_start,
							    NULL);
	if (ret)
		goto err_response;
	ret = register_trace_virtio_gpu_in_fence_wait_end(grtrace_vgpu_wait_end,
							  NULL);
	if (ret)
		goto err_wait_start;
	return 0;

err_wait_start:
	unregister_trace_virtio_gpu_in_fence_wait_start(grtrace_vgpu_wait_start,
							NULL);
err_response:
	unregister_trace_virtio_gpu_cmd_response(grtrace_vgpu_cmd_response, NULL);
err_queue:
	unregister_trace_virtio_gpu_cmd_queue(grtrace_vgpu_cmd_queue, NULL);
err:
	tracepoint_synchronize_unregister();
	WRITE_ONCE(grtrace_vgpu_tables, NULL);
	grtrace_vgpu_free(t);
	return ret;
}

static void grtrace_vgpu_put(void)
{
	unregister_trace_virtio_gpu_in_fence_wait_end(grtrace_vgpu_wait_end, NULL);
	unregister_trace_virtio_gpu_in_fence_wait_start(grtrace_vgpu_wait_start,
							NULL);
	unregister_trace_virtio_gpu_cmd_response(grtrace_vgpu_cmd_response, NULL);
	unregister_trace_virtio_gpu_cmd_queue(grtrace_vgpu_cmd_queue, NULL);
	/* No probe runs on any CPU after this. */
	tracepoint_synchronize_unregister();
}

static struct grtrace_source grtrace_vgpu_source = {
	.get = grtrace_vgpu_get,
	.put = grtrace_vgpu_put,
};

static int __init grtrace_vgpu_init(void)
{
	grtrace_source_add(&grtrace_vgpu_source);
	return 0;
}

static void __exit grtrace_vgpu_exit(void)
{
	grtrace_source_remove(&grtrace_vgpu_source);
	grtrace_vgpu_free(grtrace_vgpu_tables);
}

module_init(grtrace_vgpu_init);
module_exit(grtrace_vgpu_exit);

MODULE_DESCRIPTION("grtrace: virtio-gpu commands from virtio-gpu's tracepoints");
MODULE_LICENSE("GPL");
