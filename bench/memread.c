// SPDX-License-Identifier: GPL-2.0
/*
 * How fast a debugger reads a stopped tracee's memory: MIB MiB through
 * /dev/utrace (UTRACE_IOC_READ_MEM), through /proc/PID/mem, and word by
 * word with PTRACE_PEEKDATA, each checked against the pattern the tracee
 * wrote.  A utrace session and ptrace refuse to share a thread, so each
 * way has a tracee of its own.  Prints "key=value" lines; exits 1 when
 * what was read is not what the tracee holds.
 *
 * usage: memread [MIB]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "bench.h"

#define CHUNK		(1 << 20)
/* Under TCG a PEEKDATA costs microseconds: this many MiB tell the rate. */
#define PEEKDATA_MIB	4

struct tracee {
	pid_t pid;
	uint64_t addr;		/* the area, in the tracee */
};

static uint64_t buf[CHUNK / sizeof(uint64_t)];

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/*
 * A child with @size bytes mapped, each 8-byte word holding its offset,
 * that then waits in read() until this process is gone.
 */
static struct tracee spawn(size_t size)
{
	struct tracee t;
	int report[2], hold[2];
	uint64_t *area;
	size_t i;
	char c;

	if (pipe(report) || pipe(hold))
		die("pipe");
	t.pid = fork();
	if (t.pid < 0)
		die("fork");
	if (t.pid == 0) {
		close(hold[1]);
		area = mmap(NULL, size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED)
			_exit(1);
		for (i = 0; i < size / sizeof(*area); i++)
			area[i] = i * sizeof(*area);
		t.addr = (uintptr_t)area;
		if (write(report[1], &t.addr, sizeof(t.addr)) != sizeof(t.addr))
			_exit(1);
		while (read(hold[0], &c, 1) < 0)
			;
		_exit(0);
	}
	close(report[1]);
	close(hold[0]);
	if (read(report[0], &t.addr, sizeof(t.addr)) != sizeof(t.addr)) {
		fprintf(stderr, "memread: the tracee did not start\n");
		exit(1);
	}
	close(report[0]);
	return t;
}

static void reap(struct tracee *t)
{
	kill(t->pid, SIGKILL);
	waitpid(t->pid, NULL, 0);
}

/* The words of @len bytes read at @off must be their offsets. */
static void check(const uint64_t *words, uint64_t off, size_t len,
		  const char *way)
{
	size_t i;

	for (i = 0; i < len / sizeof(*words); i++) {
		if (words[i] != off + i * sizeof(*words)) {
			fprintf(stderr, "memread: %s: %#llx at offset %#llx\n",
				way, (unsigned long long)words[i],
				(unsigned long long)(off + i * sizeof(*words)));
			exit(1);
		}
	}
}

/* Wait for the session's UTRACE_EV_STOP record. */
static void wait_stop(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char records[4096] __attribute__((aligned(8)));
	const struct utrace_event_header *hdr;
	ssize_t n, off;

	for (;;) {
		if (poll(&pfd, 1, 10000) != 1) {
			fprintf(stderr, "memread: the tracee did not stop\n");
			exit(1);
		}
		n = read(fd, records, sizeof(records));
		if (n <= 0)
			die("read");
		for (off = 0; off < n; off += hdr->size) {
			hdr = (const void *)(records + off);
			if (hdr->type == UTRACE_EV_STOP)
				return;
		}
	}
}

/* MiB/s reading @size bytes of a stopped thread through /dev/utrace. */
static double read_device(size_t size)
{
	struct tracee t = spawn(size);
	struct utrace_attach at = {
		.size = sizeof(at), .flags = UTRACE_ATTACH_STOP, .tid = t.pid,
	};
	struct utrace_mem mem = { .size = sizeof(mem), .data = (uintptr_t)buf };
	double start, spent = 0;
	int fd = utrace_session(0, 0);
	size_t off;

	if (fd < 0)
		exit(1);
	if (ioctl(fd, UTRACE_IOC_ATTACH, &at))
		die("attach");
	wait_stop(fd);
	mem.id = at.id;
	for (off = 0; off < size; off += CHUNK) {
		mem.addr = t.addr + off;
		mem.len = CHUNK;
		start = now();
		if (ioctl(fd, UTRACE_IOC_READ_MEM, &mem))
			die("UTRACE_IOC_READ_MEM");
		spent += now() - start;
		if (mem.len != CHUNK) {
			fprintf(stderr, "memread: device: short read\n");
			exit(1);
		}
		check(buf, off, CHUNK, "device");
	}
	close(fd);
	reap(&t);
	return size / (double)CHUNK / spent;
}

/* MiB/s reading @size bytes of a ptrace-stopped @t's /proc/PID/mem. */
static double read_proc_mem(struct tracee *t, size_t size)
{
	double start, spent = 0;
	char path[64];
	size_t off;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", t->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	for (off = 0; off < size; off += CHUNK) {
		start = now();
		if (pread(fd, buf, CHUNK, t->addr + off) != CHUNK)
			die("pread /proc/PID/mem");
		spent += now() - start;
		check(buf, off, CHUNK, "/proc/PID/mem");
	}
	close(fd);
	return size / (double)CHUNK / spent;
}

/* MiB/s reading @size bytes of a ptrace-stopped @t with PTRACE_PEEKDATA. */
static double read_peekdata(struct tracee *t, size_t size)
{
	double start, spent = 0;
	size_t off, i;

	for (off = 0; off < size; off += CHUNK) {
		start = now();
		for (i = 0; i < CHUNK / sizeof(*buf); i++) {
			errno = 0;
			buf[i] = ptrace(PTRACE_PEEKDATA, t->pid,
					t->addr + off + i * sizeof(*buf), NULL);
			if (errno)
				die("PTRACE_PEEKDATA");
		}
		spent += now() - start;
		check(buf, off, CHUNK, "PTRACE_PEEKDATA");
	}
	return size / (double)CHUNK / spent;
}

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 64;
	long peek_mib = mib < PEEKDATA_MIB ? mib : PEEKDATA_MIB;
	size_t size = (size_t)mib * CHUNK;
	double device, proc_mem, peekdata;
	struct tracee t;
	int status;

	if (mib <= 0) {
		fprintf(stderr, "usage: memread [MIB]\n");
		return 2;
	}
	device = read_device(size);

	t = spawn(size);
	if (ptrace(PTRACE_SEIZE, t.pid, NULL, NULL) ||
	    ptrace(PTRACE_INTERRUPT, t.pid, NULL, NULL))
		die("ptrace");
	if (waitpid(t.pid, &status, 0) != t.pid || !WIFSTOPPED(status)) {
		fprintf(stderr, "memread: the ptraced tracee did not stop\n");
		return 1;
	}
	proc_mem = read_proc_mem(&t, size);
	peekdata = read_peekdata(&t, (size_t)peek_mib * CHUNK);
	reap(&t);

	printf("mib=%ld\n", mib);
	printf("device_mib_s=%.1f\n", device);
	printf("proc_mem_mib_s=%.1f\n", proc_mem);
	printf("peekdata_mib=%ld\n", peek_mib);
	printf("peekdata_mib_s=%.1f\n", peekdata);
	return 0;
}
