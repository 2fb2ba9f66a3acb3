// SPDX-License-Identifier: GPL-2.0
/*
 * A tracee for the tracing benchmarks: N system calls in a row, either
 * getppid() (the cheapest there is, so the tracing cost is all that
 * shows) or read()s of 64 bytes from /dev/zero (one with a buffer and a
 * file descriptor, as a tracer decodes them).  Prints the seconds the
 * loop took as "elapsed_s=".
 *
 * usage: syscall_loop getppid|read N
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "bench.h"

int main(int argc, char **argv)
{
	char buf[64];
	double start;
	long i, calls;
	int fd = -1;

	if (argc != 3 || (strcmp(argv[1], "getppid") && strcmp(argv[1], "read"))) {
		fprintf(stderr, "usage: syscall_loop getppid|read N\n");
		return 2;
	}
	calls = atol(argv[2]);
	if (!strcmp(argv[1], "read")) {
		fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror("/dev/zero");
			return 1;
		}
	}

	start = now();
	for (i = 0; i < calls; i++) {
		/* syscall(): glibc must not answer from a cache. */
		if (fd < 0)
			syscall(SYS_getppid);
		else if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			return 1;
	}
	printf("elapsed_s=%.3f\n", now() - start);
	return 0;
}
