// SPDX-License-Identifier: GPL-2.0
/*
 * Stress and fault tests for /dev/utrace: a fuzzer of its requests, and
 * tracees that churn threads, exec from a non-leader thread, fork in a
 * storm, race a set-user-ID exec against an attach, are detached with
 * signals pending, and stream their system calls losslessly to a slow
 * reader that stops and resumes them.  Each checks its outcome: nothing
 * lost, nothing left stopped, the tracee as if never traced.
 *
 * UTRACE_STRESS_SCALE (1 unless set: the short run of every check)
 * multiplies the iterations; qemu/check --stress sets 50.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>

#include "kselftest_harness.h"
#include "utrace_util.h"
#include "utrace_tracee.h"

#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT	3000

#define WAIT_MS		20000
#define NOBODY		65534

static int stress_scale(void)
{
	const char *text = getenv("UTRACE_STRESS_SCALE");
	int scale = text ? atoi(text) : 1;

	return scale > 0 ? scale : 1;
}

/* Shared with the tracees, which fork from the test. */
static void *shared_page(void)
{
	void *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED)
		abort();
	return page;
}

/* The one-letter state of a task, as /proc shows it; 0 if it is gone. */
static char task_state(pid_t pid, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	return stat_state(path);
}

/*
 * Count the threads of @pid by state: in a utrace (or ptrace) stop, dead
 * or a zombie on the way out, and anything else.
 */
static void count_states(pid_t pid, int *stopped, int *dying, int *other)
{
	char path[64];
	struct dirent *entry;
	DIR *dir;

	*stopped = *dying = *other = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((entry = readdir(dir))) {
		if (entry->d_name[0] == '.')
			continue;
		switch (task_state(pid, atoi(entry->d_name))) {
		case 't':
			(*stopped)++;
			break;
		case 0:
		case 'X':
		case 'Z':
			(*dying)++;
			break;
		default:
			(*other)++;
		}
	}
	closedir(dir);
}

/*
 * The same, once @want threads are stopped and none runs, or as they are
 * after 5 s: a stopping record is queued just before its thread goes to
 * sleep, so /proc may show it running for a moment after it was read.
 */
static void settle_states(pid_t pid, int want, int *stopped, int *dying,
			  int *other)
{
	long long until = now_ms() + 5000;

	count_states(pid, stopped, dying, other);
	while ((*stopped != want || *other) && now_ms() < until) {
		usleep(1000);
		count_states(pid, stopped, dying, other);
	}
}

/* One line of /proc/PID/status, without its name; "" if missing. */
static void status_field(pid_t pid, const char *name, char *out, size_t size)
{
	char path[64], line[256];
	size_t len = strlen(name);
	FILE *file;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	out[0] = 0;
	file = fopen(path, "r");
	if (!file)
		return;
	while (fgets(line, sizeof(line), file)) {
		if (!strncmp(line, name, len) && line[len] == ':') {
			snprintf(out, size, "%s", line + len + 1);
			break;
		}
	}
	fclose(file);
}

static void *thread_exit_fn(void *arg)
{
	return arg;
}

/*
 * The ioctl fuzzer.
 *
 * It runs as nobody, so that of the processes in the guest it can attach
 * only to its own tracee and that tracee's children and threads; every
 * other tid it names must be refused.  The requests are the device's, with
 * each field drawn from values that matter (valid ids and tids, sizes just
 * under and over the known ones, addresses on both sides of a guard page,
 * kernel addresses) or random, then sometimes mutated byte by byte, under
 * ioctl numbers that are right or bent in their direction, size, type or
 * number.  Now and then the session is reopened, sometimes without the
 * handshake, and the tracee (which the fuzzer may well crash) is replaced.
 */

#define FUZZ_CALLS	20000		/* per unit of scale */
#define FUZZ_BUF	(1 << 20)
#define FUZZ_IDS	64
#define FUZZ_TIDS	16

struct fuzzer {
	__u64 rng;
	int fd;
	struct tracee tracee;
	char *page;		/* requests go at its end; a guard page follows */
	char *buf;		/* data for the requests; a guard page follows */
	__u64 ids[FUZZ_IDS];
	unsigned int nids;
	pid_t tids[FUZZ_TIDS];
	unsigned int ntids;
	unsigned long calls, succeeded, reopened, restarted, errors[256];
};

static volatile long fuzz_target;

/* The fuzzer's tracee: system calls, signals, threads and children. */
static void fuzz_on_signal(int sig)
{
	fuzz_target++;
}

/* Where the fuzzer's breakpoints go, mostly: the tracee calls it often. */
static unsigned long __attribute__((noinline)) fuzz_probed(unsigned long i)
{
	asm volatile("");
	return i & 1;
}

static int fuzz_tracee_fn(void)
{
	pthread_t thread;
	unsigned long i;
	pid_t child;

	/*
	 * Not the session: a tracee that holds it open keeps it alive, and
	 * itself stopped, after the fuzzer closes it.
	 */
	close_range(3, ~0U, 0);
	signal(SIGUSR1, fuzz_on_signal);
	for (i = 0; ; i++) {
		fuzz_target += syscall(SYS_getppid) + fuzz_probed(i);
		if (i % 64 == 0 &&
		    !pthread_create(&thread, NULL, thread_exit_fn, NULL))
			pthread_join(thread, NULL);
		if (i % 256 == 0) {
			child = fork();
			if (child == 0)
				_exit(0);
			if (child > 0)
				waitpid(child, NULL, 0);
			raise(SIGUSR1);
		}
		if (i % 16 == 0)
			usleep(100);
	}
	return 0;
}

static __u64 fuzz_next(struct fuzzer *f)
{
	/* xorshift64* */
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return f->rng * 0x2545F4914F6CDD1DULL;
}

static __u64 fuzz_below(struct fuzzer *f, __u64 n)
{
	return fuzz_next(f) % n;
}

static bool fuzz_chance(struct fuzzer *f, unsigned int one_in)
{
	return fuzz_below(f, one_in) == 0;
}

static void fuzz_note_tids(struct fuzzer *f)
{
	char path[64];
	struct dirent *entry;
	DIR *dir;

	f->ntids = 0;
	f->tids[f->ntids++] = f->tracee.pid;
	snprintf(path, sizeof(path), "/proc/%d/task", f->tracee.pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((entry = readdir(dir)) && f->ntids < FUZZ_TIDS)
		if (entry->d_name[0] != '.')
			f->tids[f->ntids++] = atoi(entry->d_name);
	closedir(dir);
}

static void fuzz_restart_tracee(struct fuzzer *f)
{
	if (f->tracee.pid > 0)
		kill_tracee(&f->tracee);
	f->tracee = start_tracee(fuzz_tracee_fn);
	go(&f->tracee);
	fuzz_note_tids(f);
	f->restarted++;
}

static void fuzz_reopen(struct fuzzer *f)
{
	if (f->fd >= 0)
		close(f->fd);
	f->nids = 0;
	/* Now and then no handshake: every request must then be refused. */
	if (fuzz_chance(f, 8))
		f->fd = open(UTRACE_DEVICE, O_RDWR | O_CLOEXEC);
	else
		f->fd = utrace_open();
	if (f->fd < 0)
		abort();
	fcntl(f->fd, F_SETFL, O_NONBLOCK);
	f->reopened++;
}

static __s32 fuzz_tid(struct fuzzer *f)
{
	switch (fuzz_below(f, 12)) {
	case 0:
		return 0;
	case 1:
		return -1;
	case 2:
		return 1;		/* init: root's, refused */
	case 3:
		return getpid();	/* the fuzzer itself: refused */
	case 4:
		return (__s32)fuzz_next(f);
	case 5:
		return 0x7fffffff;
	default:
		return f->tids[fuzz_below(f, f->ntids)];
	}
}

/* An address for a breakpoint: in the tracee's loop, or anywhere. */
static __u64 fuzz_code_addr(struct fuzzer *f)
{
	switch (fuzz_below(f, 8)) {
	case 0:
		return fuzz_next(f);
	case 1:
		return (uintptr_t)f->page + fuzz_below(f, 4096);
	case 2:
		/* Most likely within an instruction. */
		return (uintptr_t)fuzz_probed + fuzz_below(f, 16);
	default:
		return (uintptr_t)fuzz_probed;
	}
}

static __u64 fuzz_id(struct fuzzer *f)
{
	if (f->nids && !fuzz_chance(f, 5))
		return f->ids[fuzz_below(f, f->nids)];
	switch (fuzz_below(f, 4)) {
	case 0:
		return 0;
	case 1:
		return ~0ULL;
	case 2:
		return fuzz_below(f, 100000);
	default:
		return fuzz_next(f);
	}
}

static __u64 fuzz_u64(struct fuzzer *f)
{
	static const __u64 edges[] = {
		0, 1, 2, 7, 8, 0x7f, 0x80, 0xff, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000ULL, 1ULL << 63, ~0ULL, ~0ULL - 7,
	};

	if (fuzz_chance(f, 3))
		return fuzz_next(f);
	return edges[fuzz_below(f, sizeof(edges) / sizeof(edges[0]))];
}

/* An address: in the tracee (shared layout: it forked from us) or not. */
static __u64 fuzz_addr(struct fuzzer *f)
{
	switch (fuzz_below(f, 10)) {
	case 0:
		return (uintptr_t)&fuzz_target;
	case 1:
		return (uintptr_t)fuzz_tracee_fn + fuzz_below(f, 64);
	case 2:
		return (uintptr_t)f->buf + fuzz_below(f, FUZZ_BUF);
	case 3:
		return (uintptr_t)f->buf + FUZZ_BUF - fuzz_below(f, 64);
	case 4:
		return 0xffffffff81000000ULL;
	case 5:
		return 0x00007ffffffff000ULL - fuzz_below(f, 64);
	case 6:
		return (uintptr_t)&f->rng;	/* our stack or heap */
	default:
		return fuzz_u64(f);
	}
}

/* Where the request's data goes: our buffer, its end, or nowhere. */
static __u64 fuzz_data(struct fuzzer *f)
{
	switch (fuzz_below(f, 8)) {
	case 0:
		return 0;
	case 1:
		return 0xffffffff81000000ULL;
	case 2:
		return (uintptr_t)f->buf + FUZZ_BUF - fuzz_below(f, 512);
	case 3:
		return fuzz_next(f);
	default:
		return (uintptr_t)f->buf + fuzz_below(f, 4096);
	}
}

static __u64 fuzz_len(struct fuzzer *f)
{
	static const __u64 lens[] = {
		0, 1, 4, 8, 15, 16, 216, 512, 4095, 4096, 4097, 65536,
		FUZZ_BUF, ~0ULL, 0x7fffffffffffffffULL, 1ULL << 32,
	};

	if (fuzz_chance(f, 3))
		return fuzz_below(f, 8192);
	return lens[fuzz_below(f, sizeof(lens) / sizeof(lens[0]))];
}

static __u64 fuzz_events(struct fuzzer *f)
{
	__u64 events = fuzz_u64(f);

	return fuzz_chance(f, 6) ? events : events & UTRACE_EVENTS_SELECTABLE;
}

/* The size field: right most often, else just off or far off. */
static __u32 fuzz_size(struct fuzzer *f, __u32 size)
{
	switch (fuzz_below(f, 12)) {
	case 0:
		return 0;
	case 1:
		return size - 8;
	case 2:
		return size + 8;
	case 3:
		return 4096;
	case 4:
		return 8192;		/* into the guard page */
	case 5:
		return (__u32)fuzz_next(f);
	default:
		return size;
	}
}

/*
 * Fill in a request for ioctl number @nr at @req; its size, the one the
 * ioctl number carries.
 */
static size_t fuzz_request(struct fuzzer *f, unsigned int nr, void *req)
{
	__u64 events;

	switch (nr) {
	case _IOC_NR(UTRACE_IOC_API): {
		struct utrace_api *r = req;

		r->size = fuzz_size(f, sizeof(*r));
		r->api = fuzz_chance(f, 2) ? UTRACE_API : fuzz_u64(f);
		r->features = fuzz_chance(f, 2) ? UTRACE_FEATURES_ALL : fuzz_u64(f);
		return sizeof(*r);
	}
	case _IOC_NR(UTRACE_IOC_ATTACH): {
		struct utrace_attach *r = req;

		r->size = fuzz_size(f, sizeof(*r));
		/*
		 * Never LAUNCH: it attaches the fuzzer itself, which its own
		 * stopping events would then stop for good.
		 */
		r->flags = fuzz_below(f, 256) & ~UTRACE_ATTACH_LAUNCH;
		r->tid = fuzz_tid(f);
		events = fuzz_events(f);
		r->events = events;
		r->nonstop = fuzz_chance(f, 2) ? events : events & fuzz_u64(f);
		return sizeof(*r);
	}
	case _IOC_NR(UTRACE_IOC_DETACH): {
		struct utrace_detach *r = req;

		r->size = fuzz_size(f, sizeof(*r));
		r->flags = fuzz_below(f, 4);
		r->id = fuzz_id(f);
		return sizeof(*r);
	}
	case _IOC_NR(UTRACE_IOC_SET_EVENTS): {
		struct utrace_event_mask *r = req;

		r->size = fuzz_size(f, sizeof(*r));
		r->flags = fuzz_below(f, 4);
		r->id = fuzz_id(f);
		events = fuzz_events(f);
		r->events = events;
		r->nonstop = fuzz_chance(f, 2) ? events : events & fuzz_u64(f);
		return sizeof(*r);
	}
	case _IOC_NR(UTRACE_IOC_CONTROL): {
		static const int signals[] = {
			0, SIGUSR1, SIGUSR2, SIGSTOP, SIGCONT, SIGKILL, SIGSEGV,
			SIGTRAP, SIGCHLD, 32, 64, 65, -1,
		};
		struct utrace_control *r = req;

		r->size = fuzz_size(f, sizeof(*r));
		r->flags = fuzz_below(f, 8);
		r->id = fuzz_id(f);
		r->action = fuzz_below(f, 7);
		r->signal = signals[fuzz_below(f, sizeof(signals) / sizeof(signals[0]))];
		return sizeof(*r);
	}
	case _IOC_NR(UTRACE_IOC_GET_REGSET):
	case _IOC_NR(UTRACE_IOC_SET_REGSET): {
		static const __u32 notes[] = {
			NT_PRSTATUS, NT_PRFPREG, NT_X86_XSTATE, NT_386_TLS,
			NT_386_IOPERM, NT_PRXFPREG, 0, 0x7fffffff,
		};
		struct utrace_regset *r = req;

		r->size = fuzz_size(f, sizeof(*r));
		r->id = fuzz_id(f);
		r->note_type = notes[fuzz_below(f, sizeof(notes) / sizeof(notes[0]))];
		r->data = fuzz_data(f);
		r->len = fuzz_len(f);
		return sizeof(*r);
	}
	case _IOC_NR(UTRACE_IOC_READ_MEM):
	case _IOC_NR(UTRACE_IOC_WRITE_MEM): {
		struct utrace_mem *r = req;

		r->size = fuzz_size(f, sizeof(*r));
		r->id = fuzz_id(f);
		r->addr = fuzz_addr(f);
		r->data = fuzz_data(f);
		r->len = fuzz_len(f);
		return sizeof(*r);
	}
	case _IOC_NR(UTRACE_IOC_SET_WATCH):
	case _IOC_NR(UTRACE_IOC_CLEAR_WATCH): {
		struct utrace_watch *r = req;

		r->size = fuzz_size(f, sizeof(*r));
		r->id = fuzz_id(f);
		r->addr = fuzz_addr(f);
		r->len = fuzz_below(f, 10);
		r->kind = fuzz_below(f, 4);
		r->slot = fuzz_chance(f, 4) ? fuzz_next(f) : fuzz_below(f, 5);
		return sizeof(*r);
	}
	case _IOC_NR(UTRACE_IOC_SET_SYSCALLS): {
		struct utrace_syscalls *r = req;

		r->size = fuzz_size(f, sizeof(*r));
		r->flags = fuzz_below(f, 4);
		r->id = fuzz_id(f);
		/* Mostly the whole range, and the fuzzer's buffer as the set. */
		r->nbits = fuzz_chance(f, 4) ? fuzz_next(f) :
			   64 * fuzz_below(f, UTRACE_SYSCALLS_MAX / 64 + 2);
		r->set = fuzz_chance(f, 8) ? fuzz_data(f) :
			 (__u64)(unsigned long)f->buf;
		return sizeof(*r);
	}
	case _IOC_NR(UTRACE_IOC_GET_SIGINFO):
	case _IOC_NR(UTRACE_IOC_SET_SIGINFO): {
		struct utrace_siginfo *r = req;

		r->size = fuzz_size(f, sizeof(*r));
		r->id = fuzz_id(f);
		r->data = fuzz_data(f);
		r->len = fuzz_len(f);
		return sizeof(*r);
	}
	case _IOC_NR(UTRACE_IOC_GET_SYSCALL_INFO): {
		struct utrace_syscall_info *r = req;

		r->size = fuzz_size(f, sizeof(*r));
		r->flags = fuzz_chance(f, 8) ? fuzz_below(f, 4) : 0;
		r->id = fuzz_id(f);
		return sizeof(*r);
	}
	case _IOC_NR(UTRACE_IOC_INSERT_BREAKPOINT):
	case _IOC_NR(UTRACE_IOC_REMOVE_BREAKPOINT): {
		struct utrace_breakpoint *r = req;

		r->size = fuzz_size(f, sizeof(*r));
		r->flags = fuzz_chance(f, 8) ? fuzz_below(f, 4) : 0;
		/* A removal goes by handle, or by address as an insertion. */
		if (nr == _IOC_NR(UTRACE_IOC_INSERT_BREAKPOINT) ||
		    fuzz_chance(f, 4)) {
			r->id = fuzz_id(f);
			r->addr = fuzz_code_addr(f);
		} else {
			r->handle = fuzz_chance(f, 8) ? fuzz_next(f) :
							fuzz_below(f, 64);
		}
		return sizeof(*r);
	}
	default:
		return fuzz_below(f, 128);
	}
}

/* One call: an ioctl most often, else a read or a poll of the stream. */
static void fuzz_one(struct fuzzer *f)
{
	unsigned int nr, dir, type;
	size_t size, i;
	char *req;
	void *arg;
	long ret;

	f->calls++;
	if (fuzz_chance(f, 16)) {
		struct pollfd pfd = { .fd = f->fd, .events = POLLIN };

		if (fuzz_chance(f, 2))
			ret = read(f->fd, f->buf + fuzz_below(f, 64),
				   fuzz_chance(f, 4) ? fuzz_below(f, 96) : 65536);
		else
			ret = poll(&pfd, 1, 0);
		goto out;
	}

	nr = fuzz_chance(f, 20) ? fuzz_below(f, 256) :
		fuzz_below(f, _IOC_NR(UTRACE_IOC_REMOVE_BREAKPOINT) + 1);
	/* Room for the biggest request: it ends where the guard page begins. */
	_Static_assert(sizeof(struct utrace_syscall_info) <= 128,
		       "the biggest request fits the fuzzer's 128 bytes");
	req = f->page + 4096 - 128;
	memset(req, 0, 128);
	size = fuzz_request(f, nr, req);
	if (fuzz_chance(f, 8))
		for (i = fuzz_below(f, 4) + 1; i; i--)
			req[fuzz_below(f, size ? size : 1)] = fuzz_next(f);
	if (fuzz_chance(f, 50))
		for (i = 0; i < 128; i++)
			req[i] = fuzz_next(f);

	dir = _IOC_READ | _IOC_WRITE;
	type = UTRACE_IOC_MAGIC;
	if (fuzz_chance(f, 10))
		dir = fuzz_below(f, 4);
	if (fuzz_chance(f, 10))
		size = fuzz_below(f, 1 << _IOC_SIZEBITS);
	if (fuzz_chance(f, 40))
		type = fuzz_below(f, 256);

	arg = req;
	switch (fuzz_below(f, 40)) {
	case 0:
		arg = NULL;
		break;
	case 1:
		arg = f->page + 4096;			/* the guard page */
		break;
	case 2:
		arg = (void *)0xffffffff81000000ULL;
		break;
	case 3:
		arg = req + 1;				/* unaligned */
		break;
	}
	ret = ioctl(f->fd, _IOC(dir, type, nr, size), arg);
	/* Keep the ids the device hands out: the next requests use them. */
	if (ret == 0 && nr == _IOC_NR(UTRACE_IOC_ATTACH) && type == UTRACE_IOC_MAGIC &&
	    arg == req && ((struct utrace_attach *)req)->id) {
		if (f->nids < FUZZ_IDS)
			f->ids[f->nids++] = ((struct utrace_attach *)req)->id;
		else
			f->ids[fuzz_below(f, FUZZ_IDS)] = ((struct utrace_attach *)req)->id;
	}
out:
	if (ret >= 0)
		f->succeeded++;
	else
		f->errors[errno & 0xff]++;
}

/* Reap what the tracee left behind, the children it never waited for. */
static void fuzz_reap_orphans(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* At the end: kill and reap every process left, down to the last. */
static void fuzz_kill_orphans(void)
{
	struct dirent *entry;
	char path[300];
	int ppid;
	FILE *stat;
	DIR *proc;

	do {
		proc = opendir("/proc");
		while (proc && (entry = readdir(proc))) {
			snprintf(path, sizeof(path), "/proc/%s/stat", entry->d_name);
			stat = fopen(path, "r");
			if (!stat)
				continue;
			if (fscanf(stat, "%*d (%*[^)]) %*c %d", &ppid) == 1 &&
			    ppid == getpid())
				kill(atoi(entry->d_name), SIGKILL);
			fclose(stat);
		}
		if (proc)
			closedir(proc);
	} while (waitpid(-1, NULL, 0) > 0);
}

static int fuzz_run(void *arg)
{
	unsigned long target = *(unsigned long *)arg;
	struct fuzzer *f = calloc(1, sizeof(*f));
	char *map;
	int i, state;

	if (!f)
		return 101;
	/* The tracee's orphans come back to us. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	map = mmap(NULL, 4096 * 2 + FUZZ_BUF + 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return 102;
	f->page = map;
	mprotect(map + 4096, 4096, PROT_NONE);
	f->buf = map + 8192;
	mprotect(f->buf + FUZZ_BUF, 4096, PROT_NONE);
	f->rng = 0x9e3779b97f4a7c15ULL ^ (now_ms() << 20) ^ getpid();
	printf("# fuzz seed %#llx\n", (unsigned long long)f->rng);
	for (i = 0; i < FUZZ_BUF; i++)
		f->buf[i] = fuzz_next(f);
	f->fd = -1;
	fuzz_reopen(f);
	fuzz_restart_tracee(f);

	while (f->calls < target) {
		fuzz_one(f);
		if (f->calls % 256 == 0) {
			if (waitpid(f->tracee.pid, NULL, WNOHANG) != 0) {
				/* Killed or crashed by what we wrote. */
				f->tracee.pid = 0;
				close(f->tracee.go);
				fuzz_restart_tracee(f);
			}
			fuzz_reap_orphans();
			if (fuzz_chance(f, 8))
				fuzz_note_tids(f);
		}
		if (fuzz_chance(f, 3000))
			fuzz_reopen(f);
		if (fuzz_chance(f, 5000))
			fuzz_restart_tracee(f);
	}

	/* Closing the session lets every thread it held go. */
	close(f->fd);
	for (i = 0; i < 500; i++) {
		state = task_state(f->tracee.pid, f->tracee.pid);
		if (state != 't')
			break;
		usleep(10000);
	}
	if (state == 't') {
		printf("# the tracee stayed stopped after the session closed\n");
		return 103;
	}
	kill_tracee(&f->tracee);
	fuzz_kill_orphans();

	printf("# fuzz: %lu calls, %lu succeeded, %lu sessions, %lu tracees\n",
	       f->calls, f->succeeded, f->reopened, f->restarted);
	for (i = 0; i < 256; i++)
		if (f->errors[i])
			printf("#   %-16s %lu\n", strerrorname_np(i) ?: "?",
			       f->errors[i]);
	fflush(stdout);
	return f->calls >= target && f->succeeded > 0 ? 0 : 104;
}

TEST(ioctl_fuzzer_finds_nothing)
{
	unsigned long calls = (unsigned long)FUZZ_CALLS * stress_scale();

	ASSERT_EQ(0, write_file("/proc/sys/kernel/yama/ptrace_scope", "1"));
	EXPECT_EQ(0, as_user(NOBODY, fuzz_run, &calls));
	ASSERT_EQ(0, write_file("/proc/sys/kernel/yama/ptrace_scope", "0"));
}

/*
 * Thread churn: four threads create and join threads as fast as they can
 * while the tracer stops every thread, checks in /proc that all are
 * stopped, and resumes them, over and over.
 */

#define CHURN_WORKERS	4
#define CHURN_IDS	4096

static volatile int *churn_done;

static void *churn_worker(void *arg)
{
	pthread_t thread;

	while (!*churn_done)
		if (!pthread_create(&thread, NULL, thread_exit_fn, NULL))
			pthread_join(thread, NULL);
	return NULL;
}

static int churn_fn(void)
{
	pthread_t workers[CHURN_WORKERS];
	int i;

	for (i = 0; i < CHURN_WORKERS; i++)
		if (pthread_create(&workers[i], NULL, churn_worker, NULL))
			return 1;
	for (i = 0; i < CHURN_WORKERS; i++)
		pthread_join(workers[i], NULL);
	return 0;
}

struct churn {
	__u64 ids[CHURN_IDS];
	bool stopped[CHURN_IDS];
	int n;
	unsigned long clones, deaths, stops, lost;
};

static int churn_find(struct churn *c, __u64 id)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->ids[i] == id)
			return i;
	return -1;
}

/* Take one record; with @stopping, a new thread is to stop as well. */
static void churn_record(struct churn *c, int fd, struct utrace_event_header *ev,
			 bool stopping)
{
	struct utrace_event_clone *clone = utrace_body(ev);
	int i = churn_find(c, ev->id);

	switch (ev->type) {
	case UTRACE_EV_CLONE:
		c->clones++;
		if (c->n == CHURN_IDS)
			abort();
		c->ids[c->n] = clone->child_id;
		c->stopped[c->n++] = false;
		if (stopping)
			utrace_ctl(fd, clone->child_id, 0,
				  UTRACE_CTL_INTERRUPT, 0);
		break;
	case UTRACE_EV_STOP:
		c->stops++;
		if (i >= 0)
			c->stopped[i] = true;
		break;
	case UTRACE_EV_DEATH:
		c->deaths++;
		if (i >= 0) {
			c->ids[i] = c->ids[--c->n];
			c->stopped[i] = c->stopped[c->n];
		}
		break;
	case UTRACE_EV_LOST:
		c->lost += ((struct utrace_event_lost *)utrace_body(ev))->count;
		break;
	}
}

static bool churn_all_stopped(struct churn *c)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!c->stopped[i])
			return false;
	return true;
}

TEST(thread_churn_under_stop_all)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 events = UTRACE_EVMASK(UTRACE_EV_CLONE) |
		       UTRACE_EVMASK(UTRACE_EV_DEATH);
	struct churn *c = calloc(1, sizeof(*c));
	long long deadline = now_ms() + 1000LL * (2 + stress_scale());
	long long churn_until, left;
	int fd = utrace_open(), stopped, dying, other, ret, i;
	struct utrace_event_header *ev;
	unsigned long rounds = 0;
	struct tracee t;

	ASSERT_GE(fd, 0);
	churn_done = shared_page();
	t = start_tracee(churn_fn);
	wait_blocked(&t);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_CLONES, events,
				   events, &c->ids[0]));
	c->n = 1;
	go(&t);

	while (now_ms() < deadline) {
		ret = utrace_ctl(fd, 0, UTRACE_ALL_THREADS,
				UTRACE_CTL_INTERRUPT, 0);
		ASSERT_TRUE(ret == 0 || ret == -ESRCH) TH_LOG("stop: %d", ret);
		while (!churn_all_stopped(c)) {
			ev = utrace_next(r, WAIT_MS);
			ASSERT_NE(NULL, ev) TH_LOG("%d threads, not all stopped", c->n);
			churn_record(c, fd, ev, true);
		}
		/* No record may be pending that says otherwise. */
		while ((ev = utrace_next(r, 0)))
			churn_record(c, fd, ev, true);
		ASSERT_TRUE(churn_all_stopped(c));
		settle_states(t.pid, c->n, &stopped, &dying, &other);
		ASSERT_EQ(c->n, stopped) TH_LOG("round %lu", rounds);
		ASSERT_EQ(0, other) TH_LOG("round %lu", rounds);

		ret = utrace_ctl(fd, 0, UTRACE_ALL_THREADS, UTRACE_CTL_RESUME, 0);
		ASSERT_EQ(0, ret);
		for (i = 0; i < c->n; i++)
			c->stopped[i] = false;
		rounds++;
		/*
		 * Let them churn for 20 ms.  Records come faster than that
		 * while they do, so the time bounds the loop, not a lull.
		 */
		churn_until = now_ms() + 20;
		while ((left = churn_until - now_ms()) > 0 &&
		       (ev = utrace_next(r, left)))
			churn_record(c, fd, ev, false);
	}

	*churn_done = 1;
	while (c->n > 0) {
		ev = utrace_next(r, WAIT_MS);
		ASSERT_NE(NULL, ev) TH_LOG("%d threads never died", c->n);
		churn_record(c, fd, ev, false);
	}
	EXPECT_EQ(0, reap(&t));
	/* Every thread created died, and so did the first. */
	EXPECT_EQ(c->clones + 1, c->deaths);
	EXPECT_EQ(0, c->lost);
	EXPECT_LT(0, rounds);
	printf("# %lu rounds of stop-all, %lu threads created, %lu stops\n",
	       rounds, c->clones, c->stops);
	close(fd);
	free(c);
	free(r);
}

/*
 * exec from a non-leader thread of an 8-thread process: the exec takes
 * the leader's tid, the other seven die first, and the engine of the
 * thread that exec'd goes on with the new program.
 */

#define EXEC_THREADS	8

static pthread_barrier_t exec_barrier;
static volatile pid_t *exec_tid;

static void *exec_worker(void *arg)
{
	pthread_barrier_wait(&exec_barrier);
	if ((long)arg == EXEC_THREADS / 2) {
		*exec_tid = gettid();
		execl("/bin/sh", "sh", "-c", "exit 7", NULL);
		_exit(100);
	}
	for (;;)
		pause();
	return NULL;
}

static int exec_fn(void)
{
	pthread_t thread;
	long i;

	pthread_barrier_init(&exec_barrier, NULL, EXEC_THREADS);
	for (i = 1; i < EXEC_THREADS; i++)
		if (pthread_create(&thread, NULL, exec_worker, (void *)i))
			return 1;
	exec_worker(0);
	return 0;
}

TEST(exec_from_a_non_leader_thread)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 nonstop = UTRACE_EVMASK(UTRACE_EV_CLONE) |
			UTRACE_EVMASK(UTRACE_EV_DEATH);
	__u64 events = nonstop | UTRACE_EVMASK(UTRACE_EV_EXEC);
	int fd = utrace_open(), round, rounds = stress_scale();
	struct utrace_event_header *ev;
	struct utrace_event_exec *exec;
	__u64 ids[EXEC_THREADS];
	pid_t tids[EXEC_THREADS];
	int nids, deaths, execs, i, stopped, dying, other;
	__u64 exec_id;
	struct tracee t;

	ASSERT_GE(fd, 0);
	exec_tid = shared_page();
	utrace_reader_init(r, fd);
	for (round = 0; round < rounds; round++) {
		*exec_tid = 0;
		t = start_tracee(exec_fn);
		wait_blocked(&t);
		ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_CLONES,
					   events, nonstop, &ids[0]));
		tids[0] = t.pid;
		nids = 1;
		deaths = execs = 0;
		exec_id = 0;
		go(&t);
		while ((ev = utrace_next(r, WAIT_MS))) {
			if (ev->type == UTRACE_EV_CLONE) {
				struct utrace_event_clone *clone = utrace_body(ev);

				ASSERT_LT(nids, EXEC_THREADS);
				ids[nids] = clone->child_id;
				tids[nids++] = clone->child_tid;
			} else if (ev->type == UTRACE_EV_DEATH) {
				deaths++;
				if (ev->id == exec_id)
					break;
			} else if (ev->type == UTRACE_EV_EXEC) {
				execs++;
				exec = utrace_body(ev);
				exec_id = ev->id;
				/* All the others are gone by now. */
				EXPECT_EQ(EXEC_THREADS - 1, deaths);
				EXPECT_EQ(*exec_tid, exec->old_tid);
				EXPECT_EQ(t.pid, ev->tid);
				EXPECT_EQ(t.pid, ev->tgid);
				EXPECT_TRUE(ev->flags & UTRACE_EVF_STOPPED);
				for (i = 0; i < nids; i++)
					if (tids[i] == *exec_tid)
						EXPECT_EQ(ids[i], ev->id);
				/* One thread is left, stopped, with the leader's tid. */
				settle_states(t.pid, 1, &stopped, &dying, &other);
				EXPECT_EQ(1, stopped);
				EXPECT_EQ(0, other);
				EXPECT_EQ('t', task_state(t.pid, t.pid));
				ASSERT_EQ(0, utrace_ctl(fd, ev->id, 0,
							UTRACE_CTL_RESUME, 0));
			}
		}
		ASSERT_NE(NULL, ev) TH_LOG("round %d: %d deaths, %d execs",
					   round, deaths, execs);
		EXPECT_EQ(EXEC_THREADS, nids);
		EXPECT_EQ(1, execs);
		EXPECT_EQ(EXEC_THREADS, deaths);
		EXPECT_EQ(7, reap(&t));
		if (_metadata->passed == 0)
			break;
	}
	close(fd);
	free(r);
}

/*
 * A fork storm: 200 children at once, each followed, the parent stopped
 * at every fork and resumed; every child reported born and dead, and
 * every exit status right.
 */

#define STORM_CHILDREN	200

static int storm_fn(void)
{
	pid_t pids[STORM_CHILDREN];
	int hold[2], i, status;
	char c;

	if (pipe(hold))
		return 1;
	for (i = 0; i < STORM_CHILDREN; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return 2;
		if (pids[i] == 0) {
			close(hold[1]);
			/* Until the parent has forked them all. */
			if (read(hold[0], &c, 1) != 0)
				_exit(255);
			_exit(i & 0x7f);
		}
	}
	close(hold[1]);
	for (i = 0; i < STORM_CHILDREN; i++)
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != (i & 0x7f))
			return 3;
	return 0;
}

TEST(fork_storm_is_followed_whole)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 nonstop = UTRACE_EVMASK(UTRACE_EV_DEATH);
	__u64 events = nonstop | UTRACE_EVMASK(UTRACE_EV_CLONE);
	int fd = utrace_open(), round, rounds = 1 + stress_scale() / 10;
	__u64 *children = calloc(STORM_CHILDREN, sizeof(*children));
	int nchildren, child_deaths, i;
	struct utrace_event_header *ev;
	struct tracee t;
	__u64 id;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	for (round = 0; round < rounds; round++) {
		t = start_tracee(storm_fn);
		wait_blocked(&t);
		ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_CHILDREN,
					   events, nonstop, &id));
		nchildren = child_deaths = 0;
		go(&t);
		while ((ev = utrace_next(r, WAIT_MS))) {
			if (ev->type == UTRACE_EV_LOST)
				break;
			if (ev->type == UTRACE_EV_CLONE) {
				struct utrace_event_clone *clone = utrace_body(ev);

				ASSERT_EQ(id, ev->id);
				ASSERT_LT(nchildren, STORM_CHILDREN);
				ASSERT_NE(0, clone->child_id);
				EXPECT_FALSE(clone->flags & CLONE_THREAD);
				children[nchildren++] = clone->child_id;
				ASSERT_TRUE(ev->flags & UTRACE_EVF_STOPPED);
				ASSERT_EQ(0, utrace_ctl(fd, id, 0,
							UTRACE_CTL_RESUME, 0));
			} else if (ev->type == UTRACE_EV_DEATH) {
				if (ev->id == id)
					break;
				for (i = 0; i < nchildren; i++)
					if (children[i] == ev->id) {
						children[i] = 0;
						child_deaths++;
					}
			}
		}
		ASSERT_NE(NULL, ev) TH_LOG("round %d: %d children, %d died",
					   round, nchildren, child_deaths);
		ASSERT_EQ(UTRACE_EV_DEATH, ev->type);
		EXPECT_EQ(STORM_CHILDREN, nchildren);
		EXPECT_EQ(STORM_CHILDREN, child_deaths);
		EXPECT_EQ(0, reap(&t));
		if (_metadata->passed == 0)
			break;
	}
	printf("# %d rounds of %d followed children\n", round, STORM_CHILDREN);
	close(fd);
	free(children);
	free(r);
}

/*
 * Attach and detach racing fork: an attach that lands while the parent is
 * copied, or a detach while the child is made, leaves the child with no
 * tracing state and off the system call slow path, and the kernel calm.
 */
static volatile long *forks_done;

static int fork_loop_fn(void)
{
	int status;
	pid_t pid;

	for (;;) {
		pid = fork();
		if (pid == 0)
			_exit(getppid() > 0 ? 0 : 1);
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			return 1;
		(*forks_done)++;
	}
}

TEST(attach_and_detach_racing_fork)
{
	__u64 events = UTRACE_EVMASK(UTRACE_EV_SYSCALL_ENTRY) |
		       UTRACE_EVMASK(UTRACE_EV_CLONE) |
		       UTRACE_EVMASK(UTRACE_EV_DEATH);
	int fd = utrace_open(), round, rounds = 200 * stress_scale();
	char pid_field[64];
	long before;
	struct tracee t;
	__u64 id;

	ASSERT_GE(fd, 0);
	forks_done = shared_page();
	t = start_tracee(fork_loop_fn);
	go(&t);
	for (round = 0; round < rounds; round++) {
		struct utrace_detach detach = { .size = sizeof(detach) };

		ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_CHILDREN,
					   events, events, &id));
		if (round % 2)
			usleep(round % 7 * 100);
		detach.id = id;
		ASSERT_EQ(0, utrace_ioctl(fd, UTRACE_IOC_DETACH, &detach));
		if (round % 50 == 0) {
			/* Children followed meanwhile go with the session. */
			close(fd);
			fd = utrace_open();
			ASSERT_GE(fd, 0);
		}
	}
	close(fd);

	/* Still forking, untraced. */
	before = *forks_done;
	for (round = 0; round < 2000 && *forks_done < before + 10; round++)
		usleep(10000);
	EXPECT_GE(*forks_done, before + 10);
	status_field(t.pid, "UtracePid", pid_field, sizeof(pid_field));
	EXPECT_NE(0, pid_field[0]);
	EXPECT_EQ(0, atoi(pid_field));
	printf("# %d attaches racing %ld forks\n", rounds, *forks_done);
	kill_tracee(&t);
}

/*
 * Detach with signals pending: one blocked, one ignored, and the one the
 * thread is stopped for.  Afterwards its signal state is that of a twin
 * that was never traced, and it handles what the twin handles.
 */

struct signal_slot {
	volatile int ready, phase, hups;
};

static struct signal_slot *signal_slot;
static volatile int hup_count, usr1_count, usr2_count;

static void count_hup(int sig)
{
	hup_count++;
}

static void count_usr1(int sig)
{
	usr1_count++;
}

static void count_usr2(int sig)
{
	usr2_count++;
}

static int signal_state_fn(void)
{
	struct signal_slot *slot = signal_slot;
	sigset_t usr1;

	signal(SIGHUP, count_hup);
	signal(SIGUSR1, count_usr1);
	signal(SIGUSR2, SIG_IGN);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	slot->ready = 1;
	while (!slot->phase) {
		slot->hups = hup_count;
		usleep(1000);
	}
	sigprocmask(SIG_UNBLOCK, &usr1, NULL);
	signal(SIGUSR2, count_usr2);
	return hup_count * 100 + usr1_count * 10 + usr2_count;
}

static void wait_for_flag(volatile int *flag, int value)
{
	int i;

	for (i = 0; i < 2000 && *flag != value; i++)
		usleep(10000);
}

TEST(detach_leaves_the_signal_state_as_never_traced)
{
	static const char *const fields[] = {
		"SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt",
	};
	struct utrace_reader *r = malloc(sizeof(*r));
	struct signal_slot *slots = shared_page();
	char traced_value[64], twin_value[64], state[64];
	struct utrace_event_header *ev;
	struct utrace_event_signal *sig;
	struct tracee traced, twin;
	int fd = utrace_open(), i, others = 0;
	__u64 id;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	signal_slot = &slots[0];
	traced = start_tracee(signal_state_fn);
	signal_slot = &slots[1];
	twin = start_tracee(signal_state_fn);
	go(&traced);
	go(&twin);
	wait_for_flag(&slots[0].ready, 1);
	wait_for_flag(&slots[1].ready, 1);
	ASSERT_EQ(0, utrace_attach(fd, traced.pid, 0,
				   UTRACE_EVMASK(UTRACE_EV_SIGNAL), 0, &id));

	for (i = 0; i < 2; i++) {
		pid_t pid = i ? twin.pid : traced.pid;

		kill(pid, SIGUSR1);
		kill(pid, SIGUSR2);
		kill(pid, SIGHUP);
	}
	/* The traced one stops for SIGHUP (and maybe SIGUSR2 first). */
	while ((ev = utrace_wait(r, UTRACE_EV_SIGNAL, WAIT_MS))) {
		sig = utrace_body(ev);
		if (sig->signo == SIGHUP)
			break;
		others++;
		EXPECT_EQ(SIGUSR2, sig->signo);
		ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	}
	ASSERT_NE(NULL, ev);
	status_field(traced.pid, "State", state, sizeof(state));
	EXPECT_EQ('t', state[1]) TH_LOG("state %s", state);
	{
		struct utrace_detach detach = { .size = sizeof(detach), .id = id };

		ASSERT_EQ(0, utrace_ioctl(fd, UTRACE_IOC_DETACH, &detach));
	}
	/* SIGHUP is delivered as it would have been. */
	wait_for_flag(&slots[0].hups, 1);
	wait_for_flag(&slots[1].hups, 1);
	EXPECT_EQ(1, slots[0].hups);
	EXPECT_EQ(1, slots[1].hups);
	usleep(50000);

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		status_field(traced.pid, fields[i], traced_value, sizeof(traced_value));
		status_field(twin.pid, fields[i], twin_value, sizeof(twin_value));
		EXPECT_STREQ(twin_value, traced_value) TH_LOG("%s", fields[i]);
	}
	status_field(traced.pid, "ShdPnd", traced_value, sizeof(traced_value));
	EXPECT_EQ(1UL << (SIGUSR1 - 1), strtoul(traced_value, NULL, 16));
	/* Not held: sleeping or running, as the twin. */
	status_field(traced.pid, "State", state, sizeof(state));
	EXPECT_TRUE(state[1] == 'S' || state[1] == 'R') TH_LOG("state %s", state);

	/* Unblocked, the pending SIGUSR1 is handled once; SIGUSR2 is gone. */
	slots[0].phase = slots[1].phase = 1;
	EXPECT_EQ(110, reap(&twin));
	EXPECT_EQ(110, reap(&traced));
	printf("# SIGUSR2 reported while ignored: %d\n", others);
	close(fd);
	free(r);
}

/*
 * An attach racing a set-user-ID exec: either the attach is refused (the
 * exec had made the process privileged) or the exec runs without
 * privilege.  Never traced and privileged.
 */

#define SETUID_COPY	"/tmp/utrace_stress_setuid"
#define SETUID_ENV	"UTRACE_STRESS_REPORT_EUID"

/* In the set-user-ID copy: linger a little, then say whether we are root. */
__attribute__((constructor)) static void report_euid(void)
{
	long long until;

	if (!getenv(SETUID_ENV))
		return;
	until = now_ms() + 50;
	while (now_ms() < until)
		;
	_exit(geteuid() == 0 ? 1 : 0);
}

struct setuid_race {
	int rounds, attached, refused, gone, violations;
};

/*
 * Whether @pid is through its exec: /proc/PID/exe names the copy, or is
 * hidden from us because the exec made it privileged, or it is gone.
 */
static bool past_exec(pid_t pid)
{
	char path[64], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return true;
	target[n] = 0;
	return !strcmp(target, SETUID_COPY);
}

static int setuid_race_run(void *arg)
{
	struct setuid_race *race = arg;
	char *envp[] = { SETUID_ENV "=1", NULL };
	char *argv[] = { SETUID_COPY, NULL };
	unsigned int seed = getpid();
	int fd = utrace_open(), i, ret, status;
	pid_t pid;

	if (fd < 0)
		return 101;
	for (i = 0; i < race->rounds; i++) {
		pid = fork();
		if (pid == 0) {
			execve(SETUID_COPY, argv, envp);
			_exit(100);
		}
		/*
		 * Mostly at random; but every fourth round surely before the
		 * exec and every fourth surely after it, so that both
		 * outcomes occur however loaded the machine is.
		 */
		if (i % 4 == 1) {
			usleep(rand_r(&seed) % 3000);
		} else if (i % 4 == 2) {
			usleep(rand_r(&seed) % 300);
		} else if (i % 4 == 3) {
			long long until = now_ms() + 2000;

			while (!past_exec(pid) && now_ms() < until)
				usleep(100);
		}
		ret = utrace_attach(fd, pid, 0, 0, 0, NULL);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) > 1)
			return 102;
		if (ret == 0) {
			race->attached++;
			race->violations += WEXITSTATUS(status) != 0;
		} else if (ret == -EPERM) {
			race->refused++;
		} else {
			race->gone++;
		}
	}
	close(fd);
	return 0;
}

TEST(attach_racing_a_setuid_exec_never_traces_privilege)
{
	struct setuid_race *race = shared_page();

	ASSERT_EQ(0, copy_self_setuid(SETUID_COPY));
	race->rounds = 20 * stress_scale();
	EXPECT_EQ(0, as_user(NOBODY, setuid_race_run, race));
	unlink(SETUID_COPY);
	printf("# %d rounds: %d attached (the exec then unprivileged), %d refused, %d gone\n",
	       race->rounds, race->attached, race->refused, race->gone);
	EXPECT_EQ(0, race->violations);
	/* Both sides of the race were run. */
	EXPECT_LT(0, race->attached);
	EXPECT_LT(0, race->refused);
}

/*
 * A lossless stream of four threads' system calls, read slowly: each
 * round the tracer resumes them all, lets them fill the queue and wait
 * there, asks them all to stop, and reads a little, which lets them queue
 * their records and take the stop.  The requests never wait for them, and
 * no record is lost or numbered out of turn, to the threads' death by
 * SIGKILL.
 */

#define LOSSLESS_THREADS	4

static void *lossless_worker(void *arg)
{
	for (;;)
		syscall(SYS_getppid);
	return NULL;
}

static int lossless_fn(void)
{
	pthread_t thread;
	int i;

	for (i = 1; i < LOSSLESS_THREADS; i++)
		if (pthread_create(&thread, NULL, lossless_worker, NULL))
			return 1;
	lossless_worker(NULL);
	return 0;
}

/* Check the records of @n bytes at @buf; false at a loss or a gap. */
static bool lossless_check(const char *buf, ssize_t n, __u64 *seq,
			   unsigned long *deaths)
{
	const struct utrace_event_header *ev;
	ssize_t pos;

	for (pos = 0; pos < n; pos += ev->size) {
		ev = (const void *)(buf + pos);
		if (ev->type == UTRACE_EV_LOST || ev->seq != ++*seq)
			return false;
		if (ev->type == UTRACE_EV_DEATH)
			(*deaths)++;
	}
	return true;
}

TEST(lossless_stream_under_stops_and_resumes)
{
	__u64 nonstop = UTRACE_EVMASK(UTRACE_EV_SYSCALL_ENTRY) |
			UTRACE_EVMASK(UTRACE_EV_SYSCALL_EXIT) |
			UTRACE_EVMASK(UTRACE_EV_DEATH);
	long long deadline = now_ms() + 1000LL * (2 + stress_scale());
	static char buf[8192] __attribute__((aligned(8)));
	unsigned long rounds = 0, deaths = 0;
	struct tracee t = start_tracee(lossless_fn);
	int fd = utrace_open(), ret, i;
	__u64 seq = 0;
	ssize_t n;

	ASSERT_GE(fd, 0);
	wait_blocked(&t);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_CLONES |
				   UTRACE_ATTACH_LOSSLESS, nonstop, nonstop,
				   NULL));
	go(&t);

	while (now_ms() < deadline) {
		/* Running, they fill the queue and wait there for room. */
		ret = utrace_ctl(fd, 0, UTRACE_ALL_THREADS, UTRACE_CTL_RESUME, 0);
		ASSERT_EQ(0, ret);
		for (i = 0; i < WAIT_MS &&
		     utrace_fdinfo(fd, "utrace-queued:") < UTRACE_QUEUE_MAX; i++)
			usleep(1000);
		ASSERT_LE(UTRACE_QUEUE_MAX, utrace_fdinfo(fd, "utrace-queued:"));
		/* A stop asked of threads that wait: no request waits for them. */
		ret = utrace_ctl(fd, 0, UTRACE_ALL_THREADS,
				 UTRACE_CTL_INTERRUPT, 0);
		ASSERT_EQ(0, ret);
		/* A slow reader: a few dozen records at a time. */
		for (i = 0; i < 4; i++) {
			n = read(fd, buf, sizeof(buf));
			ASSERT_GT(n, 0);
			ASSERT_TRUE(lossless_check(buf, n, &seq, &deaths))
				TH_LOG("record %llu", (unsigned long long)seq);
		}
		rounds++;
	}
	EXPECT_LT(0, rounds);

	ASSERT_EQ(0, utrace_ctl(fd, 0, UTRACE_ALL_THREADS, UTRACE_CTL_RESUME, 0));
	ASSERT_EQ(0, kill(t.pid, SIGKILL));
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		ASSERT_TRUE(lossless_check(buf, n, &seq, &deaths))
			TH_LOG("record %llu", (unsigned long long)seq);
	EXPECT_EQ(0, n);
	EXPECT_EQ(LOSSLESS_THREADS, deaths);
	EXPECT_EQ(-1, reap(&t));
	printf("# %lu rounds, each with the queue full, %llu records\n",
	       rounds, (unsigned long long)seq);
	close(fd);
}

/*
 * Breakpoints inserted and removed while four threads run through them:
 * every hit is resumed, some removals come while threads are stopped at
 * the breakpoint, and the threads never stop anywhere else or die of it.
 */

#define BP_THREADS	4

static volatile int *bp_done;

static long __attribute__((noinline)) bp_churn_target(long x)
{
	asm volatile("");
	return x + 1;
}

static void *bp_churn_thread(void *arg)
{
	long sum = 0;

	while (!*bp_done)
		sum = bp_churn_target(sum);
	return (void *)sum;
}

static int bp_churn_fn(void)
{
	pthread_t threads[BP_THREADS];
	int i;

	for (i = 0; i < BP_THREADS; i++)
		if (pthread_create(&threads[i], NULL, bp_churn_thread, NULL))
			return 1;
	for (i = 0; i < BP_THREADS; i++)
		pthread_join(threads[i], NULL);
	return 0;
}

TEST(breakpoints_come_and_go_under_threads_that_hit_them)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	int fd = utrace_open(), round, rounds = 20 * stress_scale(), i;
	unsigned long hits = 0, removed_under_stops = 0;
	struct utrace_event_header *ev;
	__u64 id, handle, stopped[64];
	int nstopped;
	struct tracee t;

	ASSERT_GE(fd, 0);
	bp_done = shared_page();
	t = start_tracee(bp_churn_fn);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_CLONES, 0, 0,
				   &id));
	go(&t);
	for (round = 0; round < rounds; round++) {
		ASSERT_EQ(0, utrace_insert_breakpoint(fd, id, bp_churn_target,
						      &handle));
		/* A few hits, each resumed but the last ones. */
		nstopped = 0;
		for (i = 0; i < 8; i++) {
			ev = utrace_next(r, WAIT_MS);
			ASSERT_NE(NULL, ev);
			ASSERT_EQ(UTRACE_EV_BREAKPOINT_HIT, ev->type);
			EXPECT_EQ(handle, ((struct utrace_event_breakpoint *)
					   utrace_body(ev))->handle);
			hits++;
			if (i >= 6) {
				stopped[nstopped++] = ev->id;
				continue;
			}
			ASSERT_EQ(0, utrace_ctl(fd, ev->id, 0,
						UTRACE_CTL_RESUME, 0));
		}
		/* Out from under the threads stopped at it. */
		ASSERT_EQ(0, utrace_remove_breakpoint(fd, handle));
		removed_under_stops += nstopped;
		for (i = 0; i < nstopped; i++)
			ASSERT_EQ(0, utrace_ctl(fd, stopped[i], 0,
						UTRACE_CTL_RESUME, 0));
		/* Hits in flight at the removal, then nothing. */
		while ((ev = utrace_next(r, 50))) {
			ASSERT_EQ(UTRACE_EV_BREAKPOINT_HIT, ev->type);
			hits++;
			ASSERT_EQ(0, utrace_ctl(fd, ev->id, 0,
						UTRACE_CTL_RESUME, 0));
		}
	}
	*bp_done = 1;
	EXPECT_EQ(0, reap(&t));
	printf("# %d rounds: %lu hits, %lu resumed after their breakpoint went\n",
	       rounds, hits, removed_under_stops);
	fflush(stdout);
	close(fd);
	free(r);
}

TEST_HARNESS_MAIN
