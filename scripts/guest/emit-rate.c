// SPDX-License-Identifier: GPL-2.0
/*
 * emit-rate: inject grtrace events at a steady rate, for the sustained
 * throughput benchmark.  Writes batches of "submit"/"complete" lines to
 * the emit file every millisecond for the given duration, and prints the
 * rate it achieved (the emit path itself may be the limit).  SIGTERM ends
 * it early, with the same summary.
 *
 * usage: emit-rate EVENTS_PER_SEC SECONDS [RING]
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	unsigned long long rate, secs, t0, t, sent = 0, seq = 0, due;
	struct timespec next;
	int fd, ring = argc > 3 ? atoi(argv[3]) : 250;

	if (argc < 3 || !(rate = strtoull(argv[1], NULL, 0)) ||
	    !(secs = strtoull(argv[2], NULL, 0))) {
		fprintf(stderr, "usage: emit-rate EVENTS_PER_SEC SECONDS [RING]\n");
		return 2;
	}
	fd = open("/sys/kernel/debug/grtrace/emit", O_WRONLY);
	if (fd < 0) {
		perror("emit");
		return 1;
	}
	signal(SIGTERM, on_term);
	clock_gettime(CLOCK_MONOTONIC, &next);
	t0 = now_ns();
	while (!stop) {
		size_t len = 0;

		t = now_ns();
		if (t - t0 >= secs * 1000000000ULL)
			break;
		/* Catch up to the events due by now, in writes of < 64 KiB. */
		due = rate * (t - t0) / 1000000000ULL;
		while (sent < due && len < sizeof(buf) - 64) {
			if (sent % 2 == 0)
				seq++;
			len += snprintf(buf + len, sizeof(buf) - len,
					"%s 9 2 %d %llu\n",
					sent % 2 ? "complete" : "submit", ring, seq);
			sent++;
		}
		if (len && write(fd, buf, len) != (ssize_t)len && !stop) {
			perror("emit write");
			return 1;
		}
		if (sent >= due) {
			next.tv_nsec += 1000000;
			if (next.tv_nsec >= 1000000000) {
				next.tv_sec++;
				next.tv_nsec -= 1000000000;
			}
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		}
	}
	t = now_ns() - t0;
	printf("emit-rate: asked %llu/s, sent %llu in %.3f s = %.0f/s\n", rate,
	       sent, t / 1e9, sent * 1e9 / t);
	return 0;
}
