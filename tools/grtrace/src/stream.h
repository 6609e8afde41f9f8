/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * grtrace: reading the binary stream (include/uapi/linux/grtrace.h): the
 * relay files of the CPUs and the recordings of "grtrace record".
 */
#ifndef __GRTRACE_STREAM_H
#define __GRTRACE_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "events.h"

/* Cuts one file into records, checking their sizes. */
struct gr_reader {
	const char *path;
	int fd;
	unsigned char *buf;
	size_t head;		/* first byte not yet returned */
	size_t tail;		/* end of the bytes read */
	__u64 off;		/* file offset of buf[head] */
	__u64 prev_off;		/* the last record returned: its offset */
	unsigned int prev_size;	/* and size */
};

int gr_reader_open(struct gr_reader *r, const char *path, bool nonblock);
int gr_reader_next(struct gr_reader *r, const struct grtrace_record **rec, __u64 *off);
int gr_reader_finish(struct gr_reader *r);
void gr_reader_close(struct gr_reader *r);
int gr_info_check(const struct grtrace_stream_info *si, const char *where);
int gr_bad_size(const char *path, __u64 off, const struct grtrace_record *h,
		__u64 prev_off, unsigned int prev_size);

int gr_stream_decode(struct gr_trace *t, int file, const struct grtrace_record *rec,
		     __u64 off, struct gr_event *ev);

#endif /* __GRTRACE_STREAM_H */
