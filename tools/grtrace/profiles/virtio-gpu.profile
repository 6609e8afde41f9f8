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
#
# With a 3D renderer (virgl), each DRM file that needs one gets a context
# of the device, which the profile reports as grtrace contexts (below).

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

# A 3D context is created on the first ioctl of a DRM file that needs one
# (virtio_gpu_create_context()) and destroyed when the file is closed
# (virtio_gpu_driver_postclose()).  Its id is the ctx_id of the header of
# every command of the file, that of the jobs above; the ids of destroyed
# contexts are reused.  The debug name is the one the client set (context
# init's DEBUG_NAME), else the comm of the process; context_init holds the
# capset id and flags of context init (0: a virgl context of old).
probe ctx_create virtio_gpu_cmd_context_create id=id:u32 init=context_init:u32 dbgname=name:string
context ctx_create create ctx=id ring=control name=dbgname context_init=init
probe ctx_destroy virtio_gpu_cmd_context_destroy id=id:u32
context ctx_destroy destroy ctx=id ring=control
