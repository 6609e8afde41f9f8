// SPDX-License-Identifier: GPL-2.0
/*
 * Drive a KMS device the simplest way: create a dumb buffer, show it on the
 * first connected connector, then draw into it and flush it with the
 * DIRTYFB ioctl N times.  A workload with real GPU commands for the grtrace
 * end-to-end tests (on virtio-gpu: RESOURCE_CREATE_2D, ATTACH_BACKING,
 * SET_SCANOUT, TRANSFER_TO_HOST_2D, RESOURCE_FLUSH).
 *
 * usage: grtrace_dirtyfb [DEVICE [COUNT]]
 */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <drm/drm.h>
#include <drm/drm_mode.h>

static int xioctl(int fd, unsigned long req, void *arg, const char *what)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret && (errno == EINTR || errno == EAGAIN));
	if (ret)
		fprintf(stderr, "grtrace_dirtyfb: %s: %s\n", what, strerror(errno));
	return ret;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/dev/dri/card0";
	int count = argc > 2 ? atoi(argv[2]) : 20;
	uint32_t conn_ids[8], crtc_ids[8], enc_id = 0, crtc_id = 0, conn_id = 0;
	struct drm_mode_modeinfo modes[32], mode;
	struct drm_mode_card_res res = { 0 };
	struct drm_mode_create_dumb dumb = { 0 };
	struct drm_mode_map_dumb map = { 0 };
	struct drm_mode_fb_cmd fb = { 0 };
	struct drm_mode_crtc crtc = { 0 };
	uint32_t *pixels;
	int fd, i;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "grtrace_dirtyfb: %s: %s\n", path, strerror(errno));
		return 1;
	}

	res.connector_id_ptr = (uintptr_t)conn_ids;
	res.count_connectors = 8;
	res.crtc_id_ptr = (uintptr_t)crtc_ids;
	res.count_crtcs = 8;
	if (xioctl(fd, DRM_IOCTL_MODE_GETRESOURCES, &res, "GETRESOURCES"))
		return 1;
	for (i = 0; i < (int)res.count_connectors && i < 8 && !conn_id; i++) {
		struct drm_mode_get_connector c = { .connector_id = conn_ids[i] };

		c.modes_ptr = (uintptr_t)modes;
		c.count_modes = 32;
		if (xioctl(fd, DRM_IOCTL_MODE_GETCONNECTOR, &c, "GETCONNECTOR"))
			return 1;
		if (c.connection == 1 && c.count_modes) {
			conn_id = c.connector_id;
			enc_id = c.encoder_id;
			mode = modes[0];
		}
	}
	if (!conn_id || !res.count_crtcs) {
		fprintf(stderr, "grtrace_dirtyfb: no connected connector\n");
		return 1;
	}
	crtc_id = crtc_ids[0];
	if (enc_id) {
		struct drm_mode_get_encoder e = { .encoder_id = enc_id };

		if (!xioctl(fd, DRM_IOCTL_MODE_GETENCODER, &e, "GETENCODER") && e.crtc_id)
			crtc_id = e.crtc_id;
	}

	dumb.width = mode.hdisplay;
	dumb.height = mode.vdisplay;
	dumb.bpp = 32;
	if (xioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &dumb, "CREATE_DUMB"))
		return 1;
	fb.width = dumb.width;
	fb.height = dumb.height;
	fb.pitch = dumb.pitch;
	fb.bpp = 32;
	fb.depth = 24;
	fb.handle = dumb.handle;
	if (xioctl(fd, DRM_IOCTL_MODE_ADDFB, &fb, "ADDFB"))
		return 1;
	map.handle = dumb.handle;
	if (xioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map, "MAP_DUMB"))
		return 1;
	pixels = mmap(NULL, dumb.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      map.offset);
	if (pixels == MAP_FAILED) {
		perror("grtrace_dirtyfb: mmap");
		return 1;
	}

	crtc.crtc_id = crtc_id;
	crtc.fb_id = fb.fb_id;
	crtc.set_connectors_ptr = (uintptr_t)&conn_id;
	crtc.count_connectors = 1;
	crtc.mode = mode;
	crtc.mode_valid = 1;
	if (xioctl(fd, DRM_IOCTL_MODE_SETCRTC, &crtc, "SETCRTC"))
		return 1;

	for (i = 0; i < count; i++) {
		struct drm_clip_rect clip = { 0, 0, 64, 64 };
		struct drm_mode_fb_dirty_cmd dirty = {
			.fb_id = fb.fb_id,
			.num_clips = 1,
			.clips_ptr = (uintptr_t)&clip,
		};
		uint32_t y;

		for (y = 0; y < 64; y++)
			memset(&pixels[y * (dumb.pitch / 4)], i * 13, 64 * 4);
		if (xioctl(fd, DRM_IOCTL_MODE_DIRTYFB, &dirty, "DIRTYFB"))
			return 1;
	}
	printf("grtrace_dirtyfb: pid %d: %dx%d dumb buffer, %d DIRTYFB ioctls\n",
	       getpid(), dumb.width, dumb.height, count);
	munmap(pixels, dumb.size);
	close(fd);
	return 0;
}
