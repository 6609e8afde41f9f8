// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace-bpf-annotate: the BPF side.  DRM ioctls (_IOC_TYPE(cmd) == 'd')
 * and those of type 'F' entering and leaving, from the syscall tracepoints,
 * into a ring buffer, each with its file descriptor.
 *
 * 'F' is NVIDIA's NV_IOCTL_MAGIC (nvidia.ko, on /dev/nvidiactl and
 * /dev/nvidia<N>), and fbdev's and a few other drivers' type as well: only
 * the device of the file tells them apart.  That is kernel-internal layout
 * (task->files->fdt->fd[fd]->f_inode->i_rdev), which needs CO-RE and with
 * it the kernel's BTF; so the program hands on the fd and the loader finds
 * the device in /proc (see grtrace_annotate_decode.c).
 *
 * No BTF of the kernel is needed (no CO-RE): the context structs are
 * written from the tracepoints' format files, which are ABI.  Programs for
 * syscalls/sys_{enter,exit}_ioctl and for raw_syscalls/sys_{enter,exit}
 * (filtered on __NR_ioctl) are both here; the loader attaches one pair.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "grtrace_annotate.h"

#define NR_IOCTL_X86_64	16
#define DRM_IOCTL_BASE	'd'
#define NV_IOCTL_MAGIC	'F'

/* events/syscalls/sys_enter_ioctl/format */
struct sys_enter_ioctl_args {
	__u64 common;
	__s32 syscall_nr;
	__u32 pad;
	__u64 fd;
	__u64 cmd;
	__u64 arg;
};

/* events/syscalls/sys_exit_ioctl/format */
struct sys_exit_ioctl_args {
	__u64 common;
	__s32 syscall_nr;
	__u32 pad;
	__s64 ret;
};

/* events/raw_syscalls/sys_enter/format */
struct raw_enter_args {
	__u64 common;
	__s64 id;
	__u64 args[6];
};

/* events/raw_syscalls/sys_exit/format */
struct raw_exit_args {
	__u64 common;
	__s64 id;
	__s64 ret;
};

struct pending {
	__u64 ts;
	__u64 cmd;
	__u32 fd;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

/* Threads inside an ioctl of type 'd' or 'F' */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct pending);
} inflight SEC(".maps");

/* [0]: the process (tgid) to keep, 0 for all */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GA_CNT_NR);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 idx)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &idx);

	if (c)
		__sync_fetch_and_add(c, 1);
}

static __always_inline int emit(__u32 type, __u64 ts, __u32 fd, __u64 cmd,
				__u64 arg, __s64 ret, __u64 duration, __u64 pid_tgid)
{
	struct ga_event *e;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(GA_CNT_LOST);
		return 0;
	}
	e->ts = ts;
	e->cmd = cmd;
	e->arg = arg;
	e->ret = ret;
	e->duration = duration;
	e->tgid = pid_tgid >> 32;
	e->tid = (__u32)pid_tgid;
	e->type = type;
	e->fd = fd;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
	return 0;
}

static __always_inline int ioctl_enter(__u32 fd, __u64 cmd, __u64 arg)
{
	__u32 zero = 0, tid, *want, type = (cmd >> 8) & 0xff;
	__u64 pid_tgid, ts;
	struct pending p;

	pid_tgid = bpf_get_current_pid_tgid();
	tid = (__u32)pid_tgid;
	/*
	 * A thread is in one system call at a time: an ioctl of any type
	 * entered while one is pending means that the pending one's exit
	 * was not seen (the kernel skips a program's run on a CPU where
	 * another task is in it).  It is forgotten here, or the exit of the
	 * next ioctl would be reported as its own.
	 */
	if (bpf_map_lookup_elem(&inflight, &tid)) {
		bpf_map_delete_elem(&inflight, &tid);
		count(GA_CNT_NESTED);
	}
	if (type != DRM_IOCTL_BASE && type != NV_IOCTL_MAGIC)
		return 0;
	want = bpf_map_lookup_elem(&filter, &zero);
	if (want && *want && *want != (__u32)(pid_tgid >> 32))
		return 0;
	ts = bpf_ktime_get_ns();
	p.ts = ts;
	p.cmd = cmd;
	p.fd = fd;
	p.pad = 0;
	if (bpf_map_update_elem(&inflight, &tid, &p, BPF_NOEXIST))
		count(GA_CNT_NO_SLOT);
	count(GA_CNT_ENTER);
	return emit(GA_IOCTL_ENTER, ts, fd, cmd, arg, 0, 0, pid_tgid);
}

static __always_inline int ioctl_exit(__s64 ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)pid_tgid;
	struct pending *p;
	__u64 ts, cmd, start;
	__u32 fd;

	p = bpf_map_lookup_elem(&inflight, &tid);
	if (!p)
		return 0;
	ts = bpf_ktime_get_ns();
	cmd = p->cmd;
	start = p->ts;
	fd = p->fd;
	bpf_map_delete_elem(&inflight, &tid);
	count(GA_CNT_EXIT);
	return emit(GA_IOCTL_EXIT, ts, fd, cmd, 0, ret, ts - start, pid_tgid);
}

SEC("tracepoint/syscalls/sys_enter_ioctl")
int enter_ioctl(struct sys_enter_ioctl_args *ctx)
{
	return ioctl_enter((__u32)ctx->fd, (__u32)ctx->cmd, ctx->arg);
}

SEC("tracepoint/syscalls/sys_exit_ioctl")
int exit_ioctl(struct sys_exit_ioctl_args *ctx)
{
	return ioctl_exit(ctx->ret);
}

SEC("tracepoint/raw_syscalls/sys_enter")
int raw_enter(struct raw_enter_args *ctx)
{
	if (ctx->id != NR_IOCTL_X86_64)
		return 0;
	return ioctl_enter((__u32)ctx->args[0], (__u32)ctx->args[1], ctx->args[2]);
}

SEC("tracepoint/raw_syscalls/sys_exit")
int raw_exit(struct raw_exit_args *ctx)
{
	if (ctx->id != NR_IOCTL_X86_64)
		return 0;
	return ioctl_exit(ctx->ret);
}

char LICENSE[] SEC("license") = "GPL";
