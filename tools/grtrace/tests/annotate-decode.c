// SPDX-License-Identifier: GPL-2.0-only
/*
 * annotate-decode: the user-space side of grtrace-bpf-annotate on
 * synthetic events, without BPF nor the devices they were made on.
 *
 *   annotate-decode [-p PROC] EVENTS
 *
 * EVENTS has a line per event of the BPF program (blank lines and lines
 * starting with # aside):
 *
 *   ENTER|EXIT ts=NS pid=P tid=T fd=F cmd=C [arg=A] [ret=R]
 *              [duration_ns=D] [comm=C] [dev=MAJOR:MINOR|file|gone]
 *
 * Each becomes a struct ga_event, as the ring buffer hands it over, and
 * goes through ga_decode(), the lines of the annotator on stdout, then a
 * last line with the decoder's counts.  The file behind the fd is what dev=
 * says (a character device, another file, or an fd no longer there); with
 * -p, it is found by ga_resolve_proc() in PROC, a stand-in for /proc.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grtrace_annotate_decode.h"

/* dev= of the event being decoded */
static struct ga_fd_dev now;

static void resolve_given(void *priv, __u32 tgid, __u32 tid, __u32 fd,
			  struct ga_fd_dev *dev)
{
	(void)priv;
	(void)tgid;
	(void)tid;
	(void)fd;
	*dev = now;
}

static int parse_dev(const char *s, struct ga_fd_dev *dev)
{
	memset(dev, 0, sizeof(*dev));
	if (!strcmp(s, "gone")) {
		dev->kind = GA_FD_GONE;
		return 0;
	}
	if (!strcmp(s, "file")) {
		dev->kind = GA_FD_OTHER;
		return 0;
	}
	dev->kind = GA_FD_CHR;
	return sscanf(s, "%u:%u", &dev->major, &dev->minor) == 2 ? 0 : -1;
}

static int parse_event(char *line, struct ga_event *e, struct ga_fd_dev *dev)
{
	char *tok, *save = NULL, *val;

	memset(e, 0, sizeof(*e));
	dev->kind = GA_FD_GONE;
	tok = strtok_r(line, " \t\n", &save);
	if (!tok || *tok == '#')
		return 0;
	if (!strcmp(tok, "ENTER"))
		e->type = GA_IOCTL_ENTER;
	else if (!strcmp(tok, "EXIT"))
		e->type = GA_IOCTL_EXIT;
	else
		return -1;
	while ((tok = strtok_r(NULL, " \t\n", &save))) {
		val = strchr(tok, '=');
		if (!val)
			return -1;
		*val++ = '\0';
		if (!strcmp(tok, "ts"))
			e->ts = strtoull(val, NULL, 0);
		else if (!strcmp(tok, "pid"))
			e->tgid = strtoul(val, NULL, 0);
		else if (!strcmp(tok, "tid"))
			e->tid = strtoul(val, NULL, 0);
		else if (!strcmp(tok, "fd"))
			e->fd = strtoul(val, NULL, 0);
		else if (!strcmp(tok, "cmd"))
			e->cmd = strtoull(val, NULL, 0);
		else if (!strcmp(tok, "arg"))
			e->arg = strtoull(val, NULL, 0);
		else if (!strcmp(tok, "ret"))
			e->ret = strtoll(val, NULL, 0);
		else if (!strcmp(tok, "duration_ns"))
			e->duration = strtoull(val, NULL, 0);
		else if (!strcmp(tok, "comm"))
			snprintf(e->comm, sizeof(e->comm), "%s", val);
		else if (strcmp(tok, "dev") || parse_dev(val, dev))
			return -1;
	}
	return 1;
}

int main(int argc, char *argv[])
{
	static struct ga_decoder d;
	char *line = NULL, *proc = NULL;
	unsigned int lineno = 0;
	struct ga_event e;
	size_t len = 0;
	FILE *f;
	int c, ret;

	while ((c = getopt(argc, argv, "p:")) != -1) {
		if (c != 'p')
			return 2;
		proc = optarg;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: annotate-decode [-p PROC] EVENTS\n");
		return 2;
	}
	f = fopen(argv[optind], "r");
	if (!f) {
		perror(argv[optind]);
		return 2;
	}
	if (proc)
		ga_decoder_init(&d, ga_resolve_proc, proc);
	else
		ga_decoder_init(&d, resolve_given, NULL);
	while (getline(&line, &len, f) >= 0) {
		lineno++;
		ret = parse_event(line, &e, &now);
		if (ret < 0) {
			fprintf(stderr, "%s:%u: bad event\n", argv[optind], lineno);
			return 2;
		}
		if (ret)
			ga_decode(&d, &e, stdout);
	}
	printf("# lines=%llu nvidia=%llu remembered=%llu other_dev=%llu gone=%llu\n",
	       d.lines, d.nvidia, d.remembered, d.other_dev, d.gone);
	free(line);
	fclose(f);
	return 0;
}
