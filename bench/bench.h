/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmark programs share: the clock they time with and the
 * /dev/utrace session they open.
 */
#ifndef FROGGY_BENCH_H
#define FROGGY_BENCH_H

#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/utrace.h>

/* CLOCK_MONOTONIC in seconds: the clock of the records' time_ns, too. */
static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * A /dev/utrace session past its handshake, opened with @oflags besides
 * O_RDWR | O_CLOEXEC and asking for @features; -1 after saying why.
 */
static inline int utrace_session(int oflags, __u64 features)
{
	struct utrace_api api = {
		.size = sizeof(api), .api = UTRACE_API, .features = features,
	};
	int fd = open("/dev/utrace", O_RDWR | O_CLOEXEC | oflags);

	if (fd < 0 || ioctl(fd, UTRACE_IOC_API, &api)) {
		perror("/dev/utrace");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

#endif /* FROGGY_BENCH_H */
