// SPDX-License-Identifier: MIT
/*
 * Report virtio-gpu commands to grtrace.
 */

#include <linux/dma-fence.h>
#include <linux/grtrace.h>

#include "virtgpu_drv.h"
#include "virtgpu_grtrace.h"

/**
 * DOC: grtrace
 *
 * With CONFIG_GRTRACE_VIRTIO_GPU, the control and cursor virtqueues of each
 * device are grtrace rings named ``control`` and ``cursor``.  Every command
 * is a job, identified by a fence context of its queue and the queue's
 * command sequence number (the ``seqno`` of the virtio_gpu_cmd_queue and
 * virtio_gpu_cmd_response tracepoints); ``ctx_id`` is the command's
 * virtio-gpu context, taken from the command for every event: the device
 * echoes it in the response of fenced commands only.
 *
 * ========= ============================== ===============================
 * event     where                          why there
 * ========= ============================== ===============================
 * SUBMIT    virtio_gpu_queue_ctrl_sgs(),   the submitting task adds the
 *           virtio_gpu_queue_cursor()      command to the virtqueue;
 *                                          depth: the commands on the
 *                                          virtqueue not taken back yet
 * COMMIT    virtio_gpu_queue_ctrl_sgs(),   the command goes into the
 *           virtio_gpu_queue_cursor()      available ring, where the device
 *                                          may take it even before the next
 *                                          notify (the doorbell); on the
 *                                          control queue reported just
 *                                          before, so that no device takes
 *                                          a command before its COMMIT
 * IRQ       virtio_gpu_ctrl_ack(),         the virtqueue interrupt
 *           virtio_gpu_cursor_ack()
 * END       virtio_gpu_dequeue_*_func(),   the driver took the device's
 *           holding the queue's lock       response off the virtqueue, as
 *                                          a SUBMIT's depth is read: the
 *                                          depth counts the commands whose
 *                                          END comes after the SUBMIT
 * COMPLETE  virtio_gpu_dequeue_ctrl_func() the response was processed and
 *                                          the command's fence, if any,
 *                                          signalled; status -EIO for an
 *                                          error response
 * SYNC_WAIT virtio_gpu_execbuffer_ioctl()  an in-fence of another context
 * _ENTER,   (virtio_gpu_do_fence_wait())   is waited for, by the
 * _EXIT                                    submitting task; exit status 0
 *                                          or the error of the wait
 * ========= ============================== ===============================
 *
 * The device executes a command between COMMIT and END; it reports no
 * START.  virtio-gpu does not use the DRM scheduler, so no event is seen
 * twice.
 *
 * EXECBUFFER waits for its in-fences before its command is queued, so the
 * waiting job has no seqno yet: the SYNC_WAIT events carry no fence but
 * the control ring, the file's context and the waiting task.  The job is
 * the next command that task queues in that context: the ioctl's own
 * SUBMIT_3D, as the ioctl queues nothing else after the wait.  A fence
 * that has already signalled is not waited for and not reported.
 */

static void virtio_gpu_grtrace_ring(struct virtio_gpu_device *vgdev,
				    struct virtio_gpu_queue *q,
				    const char *name, u16 engine)
{
	q->grtrace_ring.dev = dev_name(vgdev->ddev->dev);
	q->grtrace_ring.name = name;
	q->grtrace_ring.engine = engine;
	q->grtrace_context = dma_fence_context_alloc(1);
	grtrace_ring_register(&q->grtrace_ring);
}

/**
 * virtio_gpu_grtrace_init - register the virtqueues as grtrace rings
 * @vgdev: the device, before any command is queued
 */
void virtio_gpu_grtrace_init(struct virtio_gpu_device *vgdev)
{
	virtio_gpu_grtrace_ring(vgdev, &vgdev->ctrlq, "control",
				GRTRACE_ENGINE_GRAPHICS);
	virtio_gpu_grtrace_ring(vgdev, &vgdev->cursorq, "cursor",
				GRTRACE_ENGINE_OTHER);
}

/**
 * virtio_gpu_grtrace_fini - unregister the rings of a device
 * @vgdev: the device, with no command in flight
 */
void virtio_gpu_grtrace_fini(struct virtio_gpu_device *vgdev)
{
	grtrace_ring_unregister(&vgdev->ctrlq.grtrace_ring);
	grtrace_ring_unregister(&vgdev->cursorq.grtrace_ring);
}

/**
 * virtio_gpu_grtrace_cmd - report an event of one command
 * @q: the virtqueue
 * @type: GRTRACE_EV_SUBMIT, _COMMIT, _END or _COMPLETE
 * @seqno: the command's sequence number in @q
 * @ctx_id: the command's virtio-gpu context
 * @arg: queue depth for SUBMIT, status for COMPLETE
 */
void virtio_gpu_grtrace_cmd(struct virtio_gpu_queue *q, u16 type, u32 seqno,
			    u32 ctx_id, s32 arg)
{
	struct grtrace_job gj = {
		.ring = &q->grtrace_ring,
		.ctx_id = ctx_id,
		.fence_context = q->grtrace_context,
		.fence_seqno = seqno,
	};

	switch (type) {
	case GRTRACE_EV_SUBMIT:
		gj.depth = arg;
		grtrace_submit(&gj);
		break;
	case GRTRACE_EV_COMMIT:
		grtrace_commit(&gj);
		break;
	case GRTRACE_EV_END:
		grtrace_end(&gj);
		break;
	case GRTRACE_EV_COMPLETE:
		gj.status = arg;
		grtrace_complete(&gj);
		break;
	}
}

/**
 * virtio_gpu_grtrace_taken - report the commands taken off a virtqueue
 * @q: the virtqueue, its lock held
 * @list: the commands taken back, as reclaim_vbufs() lists them
 *
 * Reports their END under the lock that virtio_gpu_grtrace_depth() is read
 * under, so that a SUBMIT's depth counts exactly the commands whose END
 * follows it.
 */
void virtio_gpu_grtrace_taken(struct virtio_gpu_queue *q,
			      struct list_head *list)
{
	const struct virtio_gpu_ctrl_hdr *hdr;
	struct virtio_gpu_vbuffer *vbuf;

	lockdep_assert_held(&q->qlock);
	list_for_each_entry(vbuf, list, list) {
		/* Both queues' commands start with the header. */
		hdr = (const struct virtio_gpu_ctrl_hdr *)vbuf->buf;
		virtio_gpu_grtrace_cmd(q, GRTRACE_EV_END, vbuf->seqno,
				       le32_to_cpu(hdr->ctx_id), 0);
	}
}

/**
 * virtio_gpu_grtrace_irq - report a virtqueue interrupt
 * @q: the virtqueue
 */
void virtio_gpu_grtrace_irq(struct virtio_gpu_queue *q)
{
	struct grtrace_job gj = { .ring = &q->grtrace_ring };

	grtrace_irq(&gj);
}

/* The wait of @vgdev's file context @ctx_id for @fence, which it holds. */
static struct grtrace_job virtio_gpu_grtrace_wait_job(struct virtio_gpu_device *vgdev,
						      u32 ctx_id,
						      const struct dma_fence *fence)
{
	return (struct grtrace_job) {
		.ring = &vgdev->ctrlq.grtrace_ring,
		.ctx_id = ctx_id,
		.aux_context = fence->context,
		.aux_seqno = fence->seqno,
		.waiter = true,
	};
}

/**
 * virtio_gpu_grtrace_wait_enter - report that EXECBUFFER waits for an in-fence
 * @vgdev: the device
 * @ctx_id: the virtio-gpu context of the waiting file
 * @fence: the in-fence, held by the caller
 *
 * Called by the submitting task, in process context, holding no lock.
 *
 * Return: whether the wait was reported (@fence had not signalled); the
 * caller reports its end with virtio_gpu_grtrace_wait_exit() only then.
 */
bool virtio_gpu_grtrace_wait_enter(struct virtio_gpu_device *vgdev, u32 ctx_id,
				   struct dma_fence *fence)
{
	struct grtrace_job gj = virtio_gpu_grtrace_wait_job(vgdev, ctx_id, fence);

	if (dma_fence_is_signaled(fence))
		return false;
	grtrace_sync_wait_enter(&gj);
	return true;
}

/**
 * virtio_gpu_grtrace_wait_exit - report the end of an in-fence wait
 * @vgdev: the device
 * @ctx_id: the virtio-gpu context of the waiting file
 * @fence: the in-fence, held by the caller
 * @ret: the result of the wait
 *
 * Called as virtio_gpu_grtrace_wait_enter(), after it returned true.
 */
void virtio_gpu_grtrace_wait_exit(struct virtio_gpu_device *vgdev, u32 ctx_id,
				  struct dma_fence *fence, int ret)
{
	struct grtrace_job gj = virtio_gpu_grtrace_wait_job(vgdev, ctx_id, fence);

	gj.status = ret;
	grtrace_sync_wait_exit(&gj);
}
