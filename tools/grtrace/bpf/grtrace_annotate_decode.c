// SPDX-License-Identifier: GPL-2.0-only
/*
 * grtrace-bpf-annotate: an event of the BPF program as a line of text.
 *
 * DRM ioctls (type 'd') are printed as they come.  An ioctl of type 'F'
 * is NVIDIA's only on a character device of NVIDIA's major, 195
 * (Documentation/admin-guide/devices.txt: minor 255 is /dev/nvidiactl,
 * N is /dev/nvidia<N>): fbdev (FBIOGET_VSCREENINFO is 0x4600) and a few
 * framebuffer drivers use 'F' too.  Without the kernel's BTF the BPF
 * program cannot see the device behind an fd, so it is found here:
 * stat() of /proc/TGID/task/TID/fd/FD follows the magic link to the open
 * file itself, and gives its st_rdev whatever the path of the device node
 * and whatever mount namespace it was opened in (a readlink() of the path
 * name would not).
 *
 * This happens when the loader reads the event, normally within a
 * millisecond (the ring buffer wakes it up), but a process may be quicker
 * to close the fd or to exit.  Then the device last found behind that fd
 * of that process stands in for it; if there is none, the ioctl is left out
 * and counted: a short-lived process that makes a single 'F' ioctl may be
 * missed.  If the fd number was given to another file meanwhile, that file
 * decides.  What the ENTER found is kept per thread for the EXIT, so that
 * an ioctl gets both lines or neither.  The pids are those of the initial
 * PID namespace: the loader must see its /proc.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "grtrace_annotate_decode.h"

#define NSEC_PER_SEC	1000000000ULL
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define DRM_IOCTL_BASE	'd'
#define NV_IOCTL_MAGIC	'F'
#define NV_MAJOR	195
#define NV_MINOR_CTL	255	/* /dev/nvidiactl */
#define NV_MINOR_GPU_MAX 247	/* /dev/nvidia0 .. /dev/nvidia247 */

/*
 * The escapes of nvidia.ko: the command number (_IOC_NR) of
 * _IOWR('F', nr, params), as nv.h's __NV_IOWR() makes them and
 * nvidia_ioctl() takes them apart (_IOC_NR, _IOC_SIZE).  From NVIDIA's
 * open GPU kernel modules
 * (github.com/NVIDIA/open-gpu-kernel-modules), tag 595.45.04: those of the
 * resource manager in src/nvidia/arch/nvalloc/unix/include/nv_escape.h,
 * those of the OS layer, NV_IOCTL_BASE (200) + n, in
 * kernel-open/common/inc/nv-ioctl-numbers.h and nv-ioctl-numa.h; named
 * without their NV_ESC_ prefix.  No number has changed since 515.43.04,
 * the first release there; 0x32, 0x33, 0x37 and 0x38 are in the releases
 * up to 590.48.01 only, and 0x5f was RM_NVLOG_CTRL in 535.54.03.
 */
static const struct {
	unsigned char nr;
	const char *name;
} nv_escapes[] = {
	{ 0x27, "RM_ALLOC_MEMORY" }, { 0x28, "RM_ALLOC_OBJECT" },
	{ 0x29, "RM_FREE" }, { 0x2a, "RM_CONTROL" }, { 0x2b, "RM_ALLOC" },
	{ 0x32, "RM_CONFIG_GET" }, { 0x33, "RM_CONFIG_SET" },
	{ 0x34, "RM_DUP_OBJECT" }, { 0x35, "RM_SHARE" },
	{ 0x37, "RM_CONFIG_GET_EX" }, { 0x38, "RM_CONFIG_SET_EX" },
	{ 0x39, "RM_I2C_ACCESS" }, { 0x41, "RM_IDLE_CHANNELS" },
	{ 0x4a, "RM_VID_HEAP_CONTROL" }, { 0x4d, "RM_ACCESS_REGISTRY" },
	{ 0x4e, "RM_MAP_MEMORY" }, { 0x4f, "RM_UNMAP_MEMORY" },
	{ 0x52, "RM_GET_EVENT_DATA" }, { 0x54, "RM_ALLOC_CONTEXT_DMA2" },
	{ 0x56, "RM_ADD_VBLANK_CALLBACK" }, { 0x57, "RM_MAP_MEMORY_DMA" },
	{ 0x58, "RM_UNMAP_MEMORY_DMA" }, { 0x59, "RM_BIND_CONTEXT_DMA" },
	{ 0x5c, "RM_EXPORT_OBJECT_TO_FD" }, { 0x5d, "RM_IMPORT_OBJECT_FROM_FD" },
	{ 0x5e, "RM_UPDATE_DEVICE_MAPPING_INFO" }, { 0x5f, "RM_LOCKLESS_DIAGNOSTIC" },
	{ 200, "CARD_INFO" }, { 201, "REGISTER_FD" },
	{ 206, "ALLOC_OS_EVENT" }, { 207, "FREE_OS_EVENT" },
	{ 209, "STATUS_CODE" }, { 210, "CHECK_VERSION_STR" },
	{ 211, "IOCTL_XFER_CMD" }, { 212, "ATTACH_GPUS_TO_FD" },
	{ 213, "QUERY_DEVICE_INTR" }, { 214, "SYS_PARAMS" },
	{ 215, "NUMA_INFO" }, { 216, "SET_NUMA_STATUS" },
	{ 217, "EXPORT_TO_DMABUF_FD" }, { 218, "WAIT_OPEN_COMPLETE" },
};

/* The name of NVIDIA escape @nr, NULL if it has none here */
const char *ga_nv_escape_name(unsigned int nr)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(nv_escapes); i++)
		if (nv_escapes[i].nr == nr)
			return nv_escapes[i].name;
	return NULL;
}

void ga_resolve_proc(void *priv, __u32 tgid, __u32 tid, __u32 fd,
		     struct ga_fd_dev *dev)
{
	const char *root = priv ? priv : "/proc";
	char path[PATH_MAX];
	struct stat st;

	memset(dev, 0, sizeof(*dev));
	/* The thread's file table; the process's once the thread is gone */
	snprintf(path, sizeof(path), "%s/%u/task/%u/fd/%u", root, tgid, tid, fd);
	if (stat(path, &st)) {
		snprintf(path, sizeof(path), "%s/%u/fd/%u", root, tgid, fd);
		if (stat(path, &st)) {
			dev->kind = GA_FD_GONE;
			return;
		}
	}
	if (!S_ISCHR(st.st_mode)) {
		dev->kind = GA_FD_OTHER;
		return;
	}
	dev->kind = GA_FD_CHR;
	dev->major = major(st.st_rdev);
	dev->minor = minor(st.st_rdev);
}

void ga_decoder_init(struct ga_decoder *d, ga_resolve_t resolve, void *priv)
{
	memset(d, 0, sizeof(*d));
	d->resolve = resolve;
	d->priv = priv;
}

/* Keep a comm on one field: no blanks, nothing unprintable. */
static void clean_comm(char *dst, const char *src)
{
	int i;

	for (i = 0; i < GA_COMM_LEN - 1 && src[i]; i++)
		dst[i] = (src[i] <= ' ' || src[i] >= 0x7f) ? '_' : src[i];
	if (!i)
		dst[i++] = '?';
	dst[i] = '\0';
}

static bool is_nvidia(const struct ga_fd_dev *dev)
{
	return dev->kind == GA_FD_CHR && dev->major == NV_MAJOR;
}

/*
 * Resolve fd @fd of @tgid/@tid; if it is gone, take what it was last time.
 * Returns: whether it was gone and remembered.
 */
static bool resolve(struct ga_decoder *d, __u32 tgid, __u32 tid, __u32 fd,
		    struct ga_fd_dev *dev)
{
	struct ga_seen *s = &d->seen[(tgid * 31 + fd) % GA_SLOTS];

	d->resolve(d->priv, tgid, tid, fd, dev);
	if (dev->kind != GA_FD_GONE) {
		s->tgid = tgid;
		s->fd = fd;
		s->dev = *dev;
		s->used = true;
		return false;
	}
	if (!s->used || s->tgid != tgid || s->fd != fd)
		return false;
	*dev = s->dev;
	return true;
}

/*
 * The device an 'F' ioctl was made on: for an ENTER, resolved now and
 * kept for the thread; for an EXIT, what its ENTER found, or resolved now
 * if the ENTER is not known (lost, or its slot taken by another thread).
 */
static void f_device(struct ga_decoder *d, const struct ga_event *e,
		     struct ga_fd_dev *dev)
{
	struct ga_slot *s = &d->slot[e->tid % GA_SLOTS];
	bool remembered;

	if (e->type == GA_IOCTL_EXIT && s->used && s->tid == e->tid &&
	    s->fd == e->fd && s->cmd == e->cmd) {
		*dev = s->dev;
		s->used = false;
		return;
	}
	remembered = resolve(d, e->tgid, e->tid, e->fd, dev);
	if (e->type != GA_IOCTL_ENTER)
		return;
	s->tid = e->tid;
	s->fd = e->fd;
	s->cmd = e->cmd;
	s->dev = *dev;
	s->used = true;
	if (is_nvidia(dev)) {
		d->nvidia++;
		d->remembered += remembered;
	} else if (dev->kind == GA_FD_GONE) {
		d->gone++;
	} else {
		d->other_dev++;
	}
}

/*
 * ga_decode - print @e as a line on @out
 *
 * A DRM ioctl as it is; an 'F' ioctl on NVIDIA's device with
 * "drv=nvidia dev=DEVICE name=NAME" after the other keys, NAME the escape's
 * or ESC+0xNN; any other ioctl is left out.  Returns: whether a line was
 * printed.
 */
bool ga_decode(struct ga_decoder *d, const struct ga_event *e, FILE *out)
{
	unsigned int type = (e->cmd >> 8) & 0xff, nr = e->cmd & 0xff;
	char comm[GA_COMM_LEN], esc[16], node[24];
	struct ga_fd_dev dev;
	const char *name;

	if (e->type != GA_IOCTL_ENTER && e->type != GA_IOCTL_EXIT)
		return false;
	if (type == NV_IOCTL_MAGIC) {
		f_device(d, e, &dev);
		if (!is_nvidia(&dev))
			return false;
	} else if (type != DRM_IOCTL_BASE) {
		return false;
	}
	clean_comm(comm, e->comm);
	fprintf(out, "[%llu.%09llu] %s pid=%u tid=%u comm=%s cmd=0x%08llx",
		(unsigned long long)(e->ts / NSEC_PER_SEC),
		(unsigned long long)(e->ts % NSEC_PER_SEC),
		e->type == GA_IOCTL_ENTER ? "IOCTL_ENTER" : "IOCTL_EXIT", e->tgid, e->tid,
		comm, (unsigned long long)e->cmd);
	if (e->type == GA_IOCTL_ENTER)
		fprintf(out, " arg=0x%llx", (unsigned long long)e->arg);
	else
		fprintf(out, " ret=%lld duration_ns=%llu", (long long)e->ret,
			(unsigned long long)e->duration);
	if (type == NV_IOCTL_MAGIC) {
		name = ga_nv_escape_name(nr);
		if (!name) {
			snprintf(esc, sizeof(esc), "ESC+0x%02x", nr);
			name = esc;
		}
		if (dev.minor == NV_MINOR_CTL)
			snprintf(node, sizeof(node), "nvidiactl");
		else if (dev.minor <= NV_MINOR_GPU_MAX)
			snprintf(node, sizeof(node), "nvidia%u", dev.minor);
		else
			snprintf(node, sizeof(node), "%u:%u", dev.major, dev.minor);
		fprintf(out, " drv=nvidia dev=%s name=%s", node, name);
	}
	fputc('\n', out);
	d->lines++;
	return true;
}
