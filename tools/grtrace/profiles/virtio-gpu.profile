# SPDX-License-Identifier: GPL-2.0-only
#
# virtio-gpu's control virtqueue through kprobes: the jobs that its grtrace
# hooks (CONFIG_GRTRACE_VIRTIO_GPU) report on ring "control", for a kernel
# built without them.  Written against Linux 6.12, where
# virtio_gpu_queue_ctrl_sgs() is inlined into its two callers.
#
# A command is numbered (vbuf->seqno) after virtqueue_add_sgs() returns,
# inside virtio_gpu_queue_ctrl_sgs(), so no function entry sees the seqno
# on the way in: the events name the command by its buffer (key=, used by
# grtrace probe only) until free_vbuf() gives the seqno and the command's
# context.  The device runs the command between COMMIT and END; the
# status of a response is not read (COMPLETE carries 0).

ring control graphics dev=virtio-gpu

# The task hands a command to the driver (it may wait for room first);
# virtio_gpu_queue_ctrl_buffer() goes through here too.
probe queue_fenced virtio_gpu_queue_fenced_ctrl_buffer key=vbuf:x64
job queue_fenced submit ring=control key=key

# The command enters the available ring of the control virtqueue.  Other
# virtqueues' buffers begin no job: they are ignored.
probe add virtqueue_add_sgs key=data:x64 vq=_vq->name:string
filter add vq == "control"
job add commit key=key

# The device's response is taken off a virtqueue (any: unknown keys are
# ignored).
probe got virtqueue_get_buf%return key=$retval:x64
filter got key != 0
job got end key=key

# The response was processed and the buffer is freed: the seqno and the
# context of the command (struct virtio_gpu_ctrl_hdr.ctx_id at offset 16).
probe free free_vbuf key=vbuf:x64 seqno=vbuf->seqno:u32 ctx=+16(vbuf->buf):u32
job free complete key=key seqno=seqno ctx=ctx
