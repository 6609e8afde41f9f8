// SPDX-License-Identifier: GPL-2.0
/* Two threads bounce a byte through two pipes: a context switch (and the
 * sched tracepoints) per hop, for the given seconds. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
static int a[2], b[2];
static volatile int stop;
static void *echo(void *p)
{
	char c;
	while (read(a[0], &c, 1) == 1 && !stop)
		if (write(b[1], &c, 1) != 1)
			break;
	return p;
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 60);
	unsigned long n = 0;
	pthread_t t;
	char c = 0;
	if (pipe(a) || pipe(b) || pthread_create(&t, NULL, echo, NULL))
		return 1;
	while (time(NULL) < end) {
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return 1;
		n++;
	}
	stop = 1;
	write(a[1], &c, 1);
	printf("%lu round trips\n", n);
	return 0;
}
