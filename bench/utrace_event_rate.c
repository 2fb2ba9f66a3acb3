// SPDX-License-Identifier: GPL-2.0
/*
 * How many non-stopping syscall events per second a tracer reads from
 * /dev/utrace: a child makes N getppid() calls, the tracer streams their
 * entry and exit records, and the rate, the loss and the slowdown against
 * the same loop untraced are printed, one "key=value" per line.
 *
 * usage: utrace_event_rate [CALLS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/utrace.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void loop(long calls)
{
	long i;

	for (i = 0; i < calls; i++)
		syscall(SYS_getppid);
}

/* A child that runs the loop once it reads a byte from @go. */
static pid_t spawn(long calls, int *go)
{
	int fds[2];
	char c;
	pid_t pid;

	if (pipe(fds))
		exit(1);
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(1);
		loop(calls);
		_exit(0);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 200000;
	static char buf[1 << 20] __attribute__((aligned(8)));
	struct utrace_api api = { .size = sizeof(api), .api = UTRACE_API };
	__u64 events = UTRACE_EVMASK(UTRACE_EV_SYSCALL_ENTRY) |
		       UTRACE_EVMASK(UTRACE_EV_SYSCALL_EXIT) |
		       UTRACE_EVMASK(UTRACE_EV_DEATH);
	struct utrace_attach at = {
		.size = sizeof(at), .events = events, .nonstop = events,
	};
	unsigned long long records = 0, lost = 0;
	double start, untraced, traced;
	int fd, go, done = 0;
	pid_t pid;

	/* Untraced. */
	start = now();
	loop(calls);
	untraced = now() - start;

	fd = open("/dev/utrace", O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, UTRACE_IOC_API, &api)) {
		perror("/dev/utrace");
		return 1;
	}
	pid = spawn(calls, &go);
	usleep(100000);
	at.tid = pid;
	if (ioctl(fd, UTRACE_IOC_ATTACH, &at)) {
		perror("attach");
		return 1;
	}

	start = now();
	if (write(go, "g", 1) != 1)
		return 1;
	while (!done) {
		ssize_t n = read(fd, buf, sizeof(buf)), off;

		if (n <= 0)
			break;
		for (off = 0; off < n; ) {
			struct utrace_event_header *hdr = (void *)(buf + off);

			if (hdr->type == UTRACE_EV_LOST)
				lost += ((struct utrace_event_lost *)(hdr + 1))->count;
			else
				records++;
			done |= hdr->type == UTRACE_EV_DEATH;
			off += hdr->size;
		}
	}
	traced = now() - start;
	waitpid(pid, NULL, 0);

	printf("calls=%ld\n", calls);
	printf("untraced_s=%.3f\n", untraced);
	printf("traced_s=%.3f\n", traced);
	printf("slowdown=%.2f\n", traced / untraced);
	printf("records=%llu\n", records);
	printf("lost=%llu\n", lost);
	printf("events_per_s=%.0f\n", (records + lost) / traced);
	printf("records_read_per_s=%.0f\n", records / traced);
	return 0;
}
