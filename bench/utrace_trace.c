// SPDX-License-Identifier: GPL-2.0
/*
 * strace through /dev/utrace: run PROGRAM with its system call entries and
 * exits reported to this tracer, to compare with strace on the same
 * program.  By default the events do not stop the thread (the
 * non-stopping syscall stream); with --stop each one stops it until the
 * tracer has read its record and resumed it, as ptrace does.  With
 * --only, the kernel reports only the calls numbered in LIST (a comma
 * separated list), as a debugger's catchpoint on them has it do (the
 * device's system call set).  With --exits, only the exits are reported:
 * one record a call, the exit's, which carries the arguments as well as
 * the result.  With --lossless, the thread waits for room when the queue is
 * full rather than have its records dropped, so the stream goes at this
 * reader's pace.  Each record is printed on stderr, one line, unless
 * --quiet.  At the end, one "key=value" a line on stdout: the records
 * read, the records the kernel dropped, the seconds from the go to the
 * child's death and the child's exit status, and the reads it took.
 *
 * usage: utrace_trace [--stop] [--exits] [--lossless] [--quiet] [--only LIST]
 *                     -- PROGRAM [ARG...]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "bench.h"

#define SYSCALL_EVENTS	(UTRACE_EVMASK(UTRACE_EV_SYSCALL_ENTRY) | \
			 UTRACE_EVMASK(UTRACE_EV_SYSCALL_EXIT))

struct trace {
	int fd;
	pid_t pid;
	int quiet;
	unsigned long long records, lost, reads;
	double death;		/* when the child died, or zero */
};

static void usage(void)
{
	fprintf(stderr,
		"usage: utrace_trace [--stop] [--exits] [--lossless] [--quiet] [--only LIST]\n"
		"                    -- PROGRAM [ARG...]\n");
	exit(2);
}

/*
 * A child that execs @argv once it reads a byte from the pipe whose write
 * end is returned in @go: the tracer attaches in between.
 */
static pid_t spawn(char **argv, int *go)
{
	int fds[2];
	pid_t pid;
	char c;

	if (pipe2(fds, O_CLOEXEC)) {
		perror("pipe");
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(1);
	}
	if (pid == 0) {
		if (read(fds[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

static void print_record(const struct utrace_event_header *hdr)
{
	const struct utrace_event_syscall *sc = (const void *)(hdr + 1);
	const struct utrace_event_exit *ex = (const void *)(hdr + 1);

	switch (hdr->type) {
	case UTRACE_EV_SYSCALL_ENTRY:
	case UTRACE_EV_SYSCALL_EXIT:
		/* An exit has the arguments too, and its result after them. */
		fprintf(stderr, "%d %lld(%#llx, %#llx, %#llx, %#llx, %#llx, %#llx)",
			hdr->tid, (long long)sc->nr,
			(unsigned long long)sc->args[0],
			(unsigned long long)sc->args[1],
			(unsigned long long)sc->args[2],
			(unsigned long long)sc->args[3],
			(unsigned long long)sc->args[4],
			(unsigned long long)sc->args[5]);
		if (hdr->type == UTRACE_EV_SYSCALL_EXIT)
			fprintf(stderr, " = %lld", (long long)sc->ret);
		fputc('\n', stderr);
		break;
	case UTRACE_EV_DEATH:
		fprintf(stderr, "%d died, wait status %#llx\n", hdr->tid,
			(unsigned long long)ex->code);
		break;
	default:
		fprintf(stderr, "%d event %u\n", hdr->tid, hdr->type);
		break;
	}
}

/* Account for the records in @buf, resuming the threads they stopped. */
static void handle_records(struct trace *t, const char *buf, ssize_t len)
{
	struct utrace_control resume = {
		.size = sizeof(resume), .action = UTRACE_CTL_RESUME,
	};
	ssize_t off;

	for (off = 0; off < len; ) {
		const struct utrace_event_header *hdr = (const void *)(buf + off);

		off += hdr->size;
		if (hdr->type == UTRACE_EV_LOST) {
			t->lost += ((const struct utrace_event_lost *)(hdr + 1))->count;
			if (!t->quiet)
				fprintf(stderr, "lost %llu\n", t->lost);
			continue;
		}
		t->records++;
		if (!t->quiet)
			print_record(hdr);
		if (hdr->type == UTRACE_EV_DEATH && hdr->tid == t->pid)
			t->death = hdr->time_ns / 1e9;
		if (hdr->flags & UTRACE_EVF_STOPPED) {
			resume.id = hdr->id;
			if (ioctl(t->fd, UTRACE_IOC_CONTROL, &resume))
				perror("resume");
		}
	}
}

/*
 * Read records until the child's death record, or until the stream ends:
 * a non-stopping death record can be dropped when the queue is full.
 * One read per poll(), as froggyd does: poll() waits while a batch of
 * non-stopping records fills, where reading on would take them one by
 * one as the thread makes them.
 */
static void read_records(struct trace *t)
{
	static char buf[1 << 20] __attribute__((aligned(8)));
	struct pollfd pfd = { .fd = t->fd, .events = POLLIN };

	while (!t->death) {
		ssize_t n;

		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("poll");
			exit(1);
		}
		n = read(t->fd, buf, sizeof(buf));
		if (n > 0) {
			t->reads++;
			handle_records(t, buf, n);
		} else if (n == 0) {
			t->death = now();
		} else if (errno != EAGAIN && errno != EINTR) {
			perror("read");
			exit(1);
		}
	}
}

/* Parse "NR,NR,..." into @set; 0 on success. */
static int parse_only(const char *list, __u64 *set)
{
	char *end;
	long nr;

	do {
		nr = strtol(list, &end, 10);
		if (end == list || nr < 0 || nr >= UTRACE_SYSCALLS_MAX ||
		    (*end && *end != ','))
			return -1;
		set[nr / 64] |= 1ULL << (nr % 64);
		list = end + 1;
	} while (*end);
	return 0;
}

int main(int argc, char **argv)
{
	__u64 only[UTRACE_SYSCALLS_MAX / 64] = { 0 };
	struct utrace_syscalls syscalls = {
		.size = sizeof(syscalls), .set = (__u64)(unsigned long)only,
	};
	__u64 events = SYSCALL_EVENTS | UTRACE_EVMASK(UTRACE_EV_DEATH);
	struct utrace_attach at = {
		.size = sizeof(at), .events = events, .nonstop = events,
	};
	struct trace t = { 0 };
	double start;
	int i, go, status;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--stop"))
			at.nonstop &= ~SYSCALL_EVENTS;
		else if (!strcmp(argv[i], "--exits"))
			at.events &= ~UTRACE_EVMASK(UTRACE_EV_SYSCALL_ENTRY);
		else if (!strcmp(argv[i], "--lossless"))
			at.flags |= UTRACE_ATTACH_LOSSLESS;
		else if (!strcmp(argv[i], "--quiet"))
			t.quiet = 1;
		else if (!strcmp(argv[i], "--only") && i + 1 < argc &&
			 !parse_only(argv[++i], only))
			syscalls.nbits = UTRACE_SYSCALLS_MAX;
		else
			usage();
	}
	if (i + 1 >= argc)
		usage();
	at.nonstop &= at.events;
	/* The records go out in bulk, not a write(2) a line. */
	if (!t.quiet)
		setvbuf(stderr, NULL, _IOFBF, 1 << 16);

	t.fd = utrace_session(O_NONBLOCK, UTRACE_FEATURE_NONSTOP |
			     (at.events & UTRACE_EVMASK(UTRACE_EV_SYSCALL_ENTRY) ?
			      0 : UTRACE_FEATURE_EXIT_ARGS) |
			     (at.flags & UTRACE_ATTACH_LOSSLESS ?
			      UTRACE_FEATURE_LOSSLESS : 0));
	if (t.fd < 0)
		return 1;
	t.pid = spawn(argv + i + 1, &go);
	at.tid = t.pid;
	if (ioctl(t.fd, UTRACE_IOC_ATTACH, &at)) {
		perror("attach");
		kill(t.pid, SIGKILL);
		return 1;
	}
	syscalls.id = at.id;
	if (syscalls.nbits && ioctl(t.fd, UTRACE_IOC_SET_SYSCALLS, &syscalls)) {
		perror("system call set");
		kill(t.pid, SIGKILL);
		return 1;
	}

	start = now();
	if (write(go, "g", 1) != 1) {
		perror("go");
		return 1;
	}
	read_records(&t);
	if (waitpid(t.pid, &status, 0) != t.pid) {
		perror("waitpid");
		return 1;
	}
	fflush(stderr);

	printf("records=%llu\n", t.records);
	printf("lost=%llu\n", t.lost);
	printf("reads=%llu\n", t.reads);
	printf("traced_s=%.3f\n", t.death - start);
	printf("status=%d\n", WIFEXITED(status) ? WEXITSTATUS(status) :
	       128 + WTERMSIG(status));
	return !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
