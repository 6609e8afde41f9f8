/* SPDX-License-Identifier: MIT */
#ifndef VIRTIO_GPU_GRTRACE_H
#define VIRTIO_GPU_GRTRACE_H

#include <linux/grtrace.h>
#include <linux/virtio.h>
#include <linux/virtio_gpu.h>

struct dma_fence;
struct virtio_gpu_device;
struct virtio_gpu_queue;

/*
 * The depth of a SUBMIT: the commands on @vq that the driver has not taken
 * back yet, the one submitted included: it is on @vq already, or it is
 * about to be added with @adding descriptors.  A command takes one
 * descriptor with indirect descriptors (QEMU offers them), else one per
 * buffer, which this counts.  Called holding the queue's lock, as
 * virtqueue_add_sgs().
 */
static inline u32 virtio_gpu_grtrace_depth(struct virtqueue *vq, u32 adding)
{
	return virtqueue_get_vring_size(vq) - vq->num_free + adding;
}

/* Status of a command for its COMPLETE event. */
static inline s32 virtio_gpu_grtrace_status(const struct virtio_gpu_ctrl_hdr *resp)
{
	return le32_to_cpu(resp->type) >= VIRTIO_GPU_RESP_ERR_UNSPEC ? -EIO : 0;
}

#if IS_ENABLED(CONFIG_GRTRACE_VIRTIO_GPU)

/* A patched-out branch while nothing consumes grtrace events. */
static inline bool virtio_gpu_grtrace_enabled(void)
{
	return grtrace_enabled();
}

void virtio_gpu_grtrace_init(struct virtio_gpu_device *vgdev);
void virtio_gpu_grtrace_fini(struct virtio_gpu_device *vgdev);
void virtio_gpu_grtrace_cmd(struct virtio_gpu_queue *q, u16 type, u32 seqno,
			    u32 ctx_id, s32 arg);
void virtio_gpu_grtrace_taken(struct virtio_gpu_queue *q,
			      struct list_head *list);
void virtio_gpu_grtrace_irq(struct virtio_gpu_queue *q);
bool virtio_gpu_grtrace_wait_enter(struct virtio_gpu_device *vgdev, u32 ctx_id,
				   struct dma_fence *fence);
void virtio_gpu_grtrace_wait_exit(struct virtio_gpu_device *vgdev, u32 ctx_id,
				  struct dma_fence *fence, int ret);

#else

static inline bool virtio_gpu_grtrace_enabled(void) { return false; }
static inline void virtio_gpu_grtrace_init(struct virtio_gpu_device *vgdev) { }
static inline void virtio_gpu_grtrace_fini(struct virtio_gpu_device *vgdev) { }
static inline void virtio_gpu_grtrace_cmd(struct virtio_gpu_queue *q, u16 type,
					  u32 seqno, u32 ctx_id, s32 arg) { }
static inline void virtio_gpu_grtrace_taken(struct virtio_gpu_queue *q,
					    struct list_head *list) { }
static inline void virtio_gpu_grtrace_irq(struct virtio_gpu_queue *q) { }
static inline bool virtio_gpu_grtrace_wait_enter(struct virtio_gpu_device *vgdev,
						 u32 ctx_id, struct dma_fence *fence)
{
	return false;
}

static inline void virtio_gpu_grtrace_wait_exit(struct virtio_gpu_device *vgdev,
						u32 ctx_id, struct dma_fence *fence,
						int ret) { }

#endif

#endif /* VIRTIO_GPU_GRTRACE_H */
