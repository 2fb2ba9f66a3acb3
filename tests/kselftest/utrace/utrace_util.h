/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the /dev/utrace selftests: a session, its requests, and
 * reading its event records with a timeout.
 */
#ifndef UTRACE_UTIL_H
#define UTRACE_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/utrace.h>

#include "utrace_tracee.h"

#define UTRACE_DEVICE "/dev/utrace"

/* Open a session and make the API handshake; -errno on failure. */
static inline int utrace_open(void)
{
	struct utrace_api api = {
		.size = sizeof(api),
		.api = UTRACE_API,
		.features = UTRACE_FEATURES_ALL,
	};
	int fd = open(UTRACE_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, UTRACE_IOC_API, &api) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* ioctl() that returns -errno, so tests can compare with one value. */
static inline int utrace_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

static inline int utrace_attach(int fd, pid_t tid, __u32 flags,
				__u64 events, __u64 nonstop, __u64 *id)
{
	struct utrace_attach req = {
		.size = sizeof(req),
		.flags = flags,
		.tid = tid,
		.events = events,
		.nonstop = nonstop,
	};
	int ret = utrace_ioctl(fd, UTRACE_IOC_ATTACH, &req);

	if (!ret && id)
		*id = req.id;
	return ret;
}

/* Set the event masks of the thread attached as @id. */
static inline int utrace_events(int fd, __u64 id, __u64 events, __u64 nonstop)
{
	struct utrace_event_mask req = {
		.size = sizeof(req),
		.id = id,
		.events = events,
		.nonstop = nonstop,
	};

	return utrace_ioctl(fd, UTRACE_IOC_SET_EVENTS, &req);
}

static inline int utrace_ctl(int fd, __u64 id, __u32 flags, __u32 action,
			     int signal)
{
	struct utrace_control req = {
		.size = sizeof(req),
		.flags = flags,
		.id = id,
		.action = action,
		.signal = signal,
	};

	return utrace_ioctl(fd, UTRACE_IOC_CONTROL, &req);
}

static inline int utrace_regs(int fd, __u64 id, unsigned long cmd,
			      __u32 note, void *buf, size_t len, size_t *done)
{
	struct utrace_regset req = {
		.size = sizeof(req),
		.id = id,
		.note_type = note,
		.data = (uintptr_t)buf,
		.len = len,
	};
	int ret = utrace_ioctl(fd, cmd, &req);

	if (!ret && done)
		*done = req.len;
	return ret;
}

static inline int utrace_mem(int fd, __u64 id, unsigned long cmd,
			     __u64 addr, void *buf, size_t len, size_t *done)
{
	struct utrace_mem req = {
		.size = sizeof(req),
		.id = id,
		.addr = addr,
		.data = (uintptr_t)buf,
		.len = len,
	};
	int ret = utrace_ioctl(fd, cmd, &req);

	if (!ret && done)
		*done = req.len;
	return ret;
}

/* Read or write the siginfo of the thread attached as @id. */
static inline int utrace_siginfo(int fd, __u64 id, unsigned long cmd,
				 void *buf, size_t len, size_t *done)
{
	struct utrace_siginfo req = {
		.size = sizeof(req),
		.id = id,
		.data = (uintptr_t)buf,
		.len = len,
	};
	int ret = utrace_ioctl(fd, cmd, &req);

	if (!ret && done)
		*done = req.len;
	return ret;
}

/* Insert a breakpoint at @addr in the process of @id; its handle. */
static inline int utrace_insert_breakpoint_orig(int fd, __u64 id,
						const void *addr,
						__u64 *handle, __u8 *orig)
{
	struct utrace_breakpoint req = {
		.size = sizeof(req),
		.id = id,
		.addr = (uintptr_t)addr,
	};
	int ret = utrace_ioctl(fd, UTRACE_IOC_INSERT_BREAKPOINT, &req);

	if (!ret && handle)
		*handle = req.handle;
	if (!ret && orig)
		memcpy(orig, req.orig, sizeof(req.orig));
	return ret;
}

static inline int utrace_insert_breakpoint(int fd, __u64 id, const void *addr,
					   __u64 *handle)
{
	return utrace_insert_breakpoint_orig(fd, id, addr, handle, NULL);
}

static inline int utrace_remove_breakpoint(int fd, __u64 handle)
{
	struct utrace_breakpoint req = {
		.size = sizeof(req),
		.handle = handle,
	};

	return utrace_ioctl(fd, UTRACE_IOC_REMOVE_BREAKPOINT, &req);
}

/* Remove the breakpoint at @addr in the process of thread @id. */
static inline int utrace_remove_breakpoint_at(int fd, __u64 id,
					      const void *addr)
{
	struct utrace_breakpoint req = {
		.size = sizeof(req),
		.id = id,
		.addr = (uintptr_t)addr,
	};

	return utrace_ioctl(fd, UTRACE_IOC_REMOVE_BREAKPOINT, &req);
}

/* CLOCK_MONOTONIC in milliseconds. */
static inline long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* The non-stopping records the device queues before it drops (or waits). */
#define UTRACE_QUEUE_MAX 4096

/* The number after @key ("utrace-queued:") in the session's fdinfo, or -1. */
static inline long utrace_fdinfo(int fd, const char *key)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	return proc_number(path, key);
}

/*
 * A session's records, read in big chunks and handed out one by one.
 */
struct utrace_reader {
	int fd;
	size_t len, pos;
	char buf[65536] __attribute__((aligned(8)));
};

static inline void utrace_reader_init(struct utrace_reader *r, int fd)
{
	r->fd = fd;
	r->len = r->pos = 0;
}

/*
 * The next record, waiting up to @timeout_ms for one.  NULL with errno
 * set (ETIMEDOUT, or 0 at the end of the session's stream).
 */
static inline struct utrace_event_header *
utrace_next(struct utrace_reader *r, int timeout_ms)
{
	struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
	struct utrace_event_header *hdr;
	ssize_t n;
	int ret;

	if (r->pos == r->len) {
		ret = poll(&pfd, 1, timeout_ms);
		if (ret < 0)
			return NULL;
		if (ret == 0) {
			errno = ETIMEDOUT;
			return NULL;
		}
		n = read(r->fd, r->buf, sizeof(r->buf));
		if (n <= 0) {
			errno = n ? errno : 0;
			return NULL;
		}
		r->len = n;
		r->pos = 0;
	}
	hdr = (struct utrace_event_header *)(r->buf + r->pos);
	r->pos += hdr->size;
	return hdr;
}

/* The next record of @type, skipping others; NULL as utrace_next(). */
static inline struct utrace_event_header *
utrace_wait(struct utrace_reader *r, int type, int timeout_ms)
{
	struct utrace_event_header *hdr;

	do {
		hdr = utrace_next(r, timeout_ms);
	} while (hdr && hdr->type != type);
	return hdr;
}

static inline void *utrace_body(struct utrace_event_header *hdr)
{
	return hdr + 1;
}

#endif /* UTRACE_UTIL_H */
