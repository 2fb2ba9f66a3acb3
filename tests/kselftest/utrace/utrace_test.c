// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests for /dev/utrace: every request and event kind, with the values
 * the kernel reports checked against what the tracee really did, and the
 * errors of bad requests.
 *
 * Each test forks its own tracee, which waits for a byte on a pipe
 * ("go") before it does its part, so the test can attach first.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <linux/userfaultfd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "kselftest_harness.h"
#include "utrace_util.h"
#include "utrace_tracee.h"

/* Under TCG, stepping and stopping 50 threads takes a while. */
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT	120

#define WAIT_MS	20000

/* Set by the tracees; the tracer reads and writes them by address. */
static volatile long tracee_global = 0x1122334455667788;
static volatile long watched;
static volatile int usr1_count, usr2_count;

/* Spin in a run of one-byte nops. */
extern char spin_start[], spin_end[];
static int spin_fn(void)
{
	for (;;)
		asm volatile("spin_start:\n\t"
			     ".rept 64\n\tnop\n\t.endr\n"
			     "spin_end:\n\t" ::: "memory");
	return 0;
}

/* Loop until r12 holds 0xc0ffee, which only a tracer can arrange. */
static int r12_fn(void)
{
	tracee_global = 0xfeedface;
	asm volatile("xor %%r12, %%r12\n"
		     "1: cmp $0xc0ffee, %%r12\n\t"
		     "jne 1b\n" ::: "r12", "cc");
	return 42;
}

static int __attribute__((noinline)) bp_target(int x)
{
	asm volatile("");
	return x + 1;
}

static int bp_fn(void)
{
	return bp_target(1) + bp_target(2);
}

static int watch_fn(void)
{
	watched = 7;
	return (int)watched;
}

static int syscalls_fn(void)
{
	syscall(SYS_getppid);
	syscall(SYS_write, -1L, "1234567", 7);
	return 0;
}

static void on_usr1(int sig)
{
	usr1_count++;
}

static void on_usr2(int sig)
{
	usr2_count++;
}

static int signal_fn(void)
{
	raise(SIGUSR1);
	raise(SIGUSR1);
	return usr1_count * 10 + usr2_count;
}

static void *thread_exit_fn(void *arg)
{
	return arg;
}

static int clone_fn(void)
{
	pthread_t thread;
	int status;
	pid_t pid;

	pthread_create(&thread, NULL, thread_exit_fn, NULL);
	pthread_join(thread, NULL);
	pid = fork();
	if (pid == 0)
		_exit(3);
	waitpid(pid, &status, 0);
	return WEXITSTATUS(status);
}

/* A stream of system calls, to the thread's end. */
#define SYSCALL_STREAM_EVENTS (UTRACE_EVMASK(UTRACE_EV_SYSCALL_ENTRY) | \
			       UTRACE_EVMASK(UTRACE_EV_SYSCALL_EXIT) | \
			       UTRACE_EVMASK(UTRACE_EV_DEATH))

#define FLOOD_CALLS 20000

static int flood_fn(void)
{
	int i;

	for (i = 0; i < FLOOD_CALLS; i++)
		syscall(SYS_getppid);
	return 0;
}

TEST(overflow_is_counted_exactly)
{
	__u64 events = SYSCALL_STREAM_EVENTS;
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(flood_fn);
	__u64 received = 0, lost = 0, lost_records = 0, seq = 0;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	wait_blocked(&t);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, 0, events, events, NULL));
	go(&t);
	/* Nobody reads while the tracee floods the queue. */
	EXPECT_EQ(0, reap(&t));

	utrace_reader_init(r, fd);
	while ((ev = utrace_next(r, 1000))) {
		EXPECT_EQ(++seq, ev->seq);
		if (ev->type == UTRACE_EV_LOST) {
			lost += ((struct utrace_event_lost *)utrace_body(ev))->count;
			lost_records++;
		} else {
			received++;
		}
	}
	/*
	 * The exit of the read() that took "go", an entry and an exit per
	 * getppid(), the entry of exit_group(), and the death.
	 */
	EXPECT_GT(lost, 0);
	EXPECT_GT(lost_records, 0);
	EXPECT_EQ(1 + 2 * FLOOD_CALLS + 1 + 1, received + lost);
	close(fd);
	free(r);
}

/*
 * Wait until a lossless flood_fn() tracee has filled the queue, and give
 * it time to go past the limit if it did not wait for room.
 */
static bool lossless_queue_fills(int fd)
{
	int i;

	for (i = 0; i < WAIT_MS / 10; i++) {
		if (utrace_fdinfo(fd, "utrace-queued:") == UTRACE_QUEUE_MAX)
			break;
		usleep(10000);
	}
	usleep(200000);
	return utrace_fdinfo(fd, "utrace-queued:") == UTRACE_QUEUE_MAX;
}

/*
 * Read the session to its end: the records read, and -1 for a LOST record
 * or a gap in the numbering.
 */
static long read_all_lossless(int fd, __u16 *last_type)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	long received = 0;
	__u64 seq = 0;

	utrace_reader_init(r, fd);
	while ((ev = utrace_next(r, WAIT_MS))) {
		if (ev->type == UTRACE_EV_LOST || ev->seq != ++seq)
			received = -1;
		else if (received >= 0)
			received++;
		*last_type = ev->type;
	}
	if (errno)
		received = -1;
	free(r);
	return received;
}

/*
 * Attach losslessly to a tracee running @fn with @events, all of them
 * non-stopping, and read nothing until the queue is full: the tracee
 * waits there and drops none.  Then every record is read, @expected of
 * them, the death last.
 */
static void lossless_run(struct __test_metadata *_metadata, int (*fn)(void),
			 __u64 events, long expected)
{
	struct tracee t = start_tracee(fn);
	__u16 last_type = 0;
	int fd = utrace_open(), status;

	ASSERT_GE(fd, 0);
	wait_blocked(&t);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_LOSSLESS, events,
				   events, NULL));
	go(&t);
	ASSERT_TRUE(lossless_queue_fills(fd));
	EXPECT_EQ(0, utrace_fdinfo(fd, "utrace-lost:"));
	EXPECT_EQ(0, waitpid(t.pid, &status, WNOHANG));

	EXPECT_EQ(expected, read_all_lossless(fd, &last_type));
	EXPECT_EQ(UTRACE_EV_DEATH, last_type);
	EXPECT_EQ(0, reap(&t));
	close(fd);
}

TEST(lossless_stream_waits_for_the_reader)
{
	/* As overflow_is_counted_exactly, with every record read. */
	lossless_run(_metadata, flood_fn, SYSCALL_STREAM_EVENTS,
		     1 + 2 * FLOOD_CALLS + 1 + 1);
}

#define SIGNAL_FLOOD 8000

static volatile int usr1_handled;

static void count_usr1(int sig)
{
	usr1_handled++;
}

/* More signals than the queue holds, and not one system call record. */
static int signal_flood_fn(void)
{
	int i;

	signal(SIGUSR1, count_usr1);
	for (i = 0; i < SIGNAL_FLOOD; i++)
		raise(SIGUSR1);
	return usr1_handled == SIGNAL_FLOOD ? 0 : 1;
}

TEST(lossless_signal_records_wait_for_the_reader_too)
{
	/* Every signal, then the death. */
	lossless_run(_metadata, signal_flood_fn,
		     UTRACE_EVMASK(UTRACE_EV_SIGNAL) |
		     UTRACE_EVMASK(UTRACE_EV_DEATH), SIGNAL_FLOOD + 1);
}

TEST(lossless_wait_gives_way_to_requests)
{
	__u64 events = SYSCALL_STREAM_EVENTS;
	struct tracee t = start_tracee(flood_fn);
	struct utrace_detach detach = { .size = sizeof(detach) };
	__u16 last_type = 0;
	int fd = utrace_open(), status;
	long queued;

	ASSERT_GE(fd, 0);
	wait_blocked(&t);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_LOSSLESS, events,
				   events, &detach.id));
	go(&t);
	ASSERT_TRUE(lossless_queue_fills(fd));

	/*
	 * A resume of a running thread waits until it leaves the callback
	 * it is in, but not for one waiting for room: that one waits for a
	 * read only this thread would make.  It still waits, having queued
	 * nothing more.
	 */
	EXPECT_EQ(0, utrace_ctl(fd, detach.id, 0, UTRACE_CTL_RESUME, 0));
	EXPECT_EQ(-EBUSY, utrace_ctl(fd, detach.id, 0, UTRACE_CTL_SINGLESTEP, 0));
	queued = utrace_fdinfo(fd, "utrace-queued:");
	EXPECT_EQ(UTRACE_QUEUE_MAX, queued);
	EXPECT_EQ(0, waitpid(t.pid, &status, WNOHANG));

	/* Detached, it runs to its end; what was queued is all there. */
	EXPECT_EQ(0, utrace_ioctl(fd, UTRACE_IOC_DETACH, &detach));
	EXPECT_EQ(0, reap(&t));
	EXPECT_LE(queued, read_all_lossless(fd, &last_type));
	EXPECT_NE(UTRACE_EV_DEATH, last_type);
	close(fd);
}

TEST(lossless_waiter_is_killable_and_freed_by_close)
{
	__u64 events = SYSCALL_STREAM_EVENTS;
	struct tracee t = start_tracee(flood_fn);
	struct tracee u = start_tracee(flood_fn);
	__u16 last_type = 0;
	int fd = utrace_open(), fd2 = utrace_open(), status;

	ASSERT_GE(fd, 0);
	ASSERT_GE(fd2, 0);
	wait_blocked(&t);
	wait_blocked(&u);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_LOSSLESS, events,
				   events, NULL));
	ASSERT_EQ(0, utrace_attach(fd2, u.pid, UTRACE_ATTACH_LOSSLESS, events,
				   events, NULL));
	go(&t);
	go(&u);
	ASSERT_TRUE(lossless_queue_fills(fd));
	ASSERT_TRUE(lossless_queue_fills(fd2));

	/* SIGKILL ends the wait; the death is told after the full queue. */
	EXPECT_EQ(0, kill(t.pid, SIGKILL));
	ASSERT_EQ(t.pid, waitpid(t.pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_LT(UTRACE_QUEUE_MAX, read_all_lossless(fd, &last_type));
	EXPECT_EQ(UTRACE_EV_DEATH, last_type);
	close(fd);

	/* A tracer gone leaves nobody to wait for: the tracee runs on. */
	close(fd2);
	EXPECT_EQ(0, reap(&u));
	close(t.go);
}

static pid_t outer_pid;

static int pidns_tracer(void)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t;
	int fd = utrace_open();

	if (fd < 0)
		return 1;
	/* The test's own process is not in this namespace. */
	if (utrace_attach(fd, outer_pid, 0, 0, 0, NULL) != -ESRCH)
		return 2;
	t = start_tracee(spin_fn);
	go(&t);
	if (utrace_attach(fd, t.pid, UTRACE_ATTACH_STOP, 0, 0, NULL))
		return 3;
	utrace_reader_init(r, fd);
	ev = utrace_wait(r, UTRACE_EV_STOP, WAIT_MS);
	if (!ev)
		return 4;
	/* Tids as this namespace numbers them: we are 1, the tracee 2. */
	if (getpid() != 1 || ev->tid != t.pid || ev->tid != 2 || ev->tgid != 2)
		return 5;
	kill_tracee(&t);
	return 0;
}

TEST(tids_are_those_of_the_tracers_pid_namespace)
{
	int status;
	pid_t pid;

	outer_pid = getpid();
	ASSERT_GT(outer_pid, 2);
	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	pid = fork();
	if (pid == 0)
		_exit(pidns_tracer());
	ASSERT_GT(pid, 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * A session opened outside a pid namespace and used from inside it: tids
 * are the opener's, in requests as in records.
 */
static int attach_from_inside(int fd, pid_t outer_tid)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	__u64 id;

	if (getpid() != 1)
		return 1;
	if (utrace_attach(fd, outer_tid, UTRACE_ATTACH_STOP, 0, 0, &id))
		return 2;
	utrace_reader_init(r, fd);
	ev = utrace_wait(r, UTRACE_EV_STOP, WAIT_MS);
	if (!ev)
		return 3;
	return ev->id == id && ev->tid == outer_tid ? 0 : 4;
}

TEST(tids_are_those_of_the_sessions_opener_whoever_asks)
{
	struct tracee t = start_tracee(spin_fn);
	int fd = utrace_open(), status;
	pid_t pid;

	ASSERT_GE(fd, 0);
	go(&t);
	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	pid = fork();
	if (pid == 0)
		_exit(attach_from_inside(fd, t.pid));
	ASSERT_GT(pid, 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(fd);
	kill_tracee(&t);
}

TEST(api_handshake_comes_first)
{
	struct utrace_api api = { .size = sizeof(api), .api = UTRACE_API };
	int fd = open(UTRACE_DEVICE, O_RDWR);

	ASSERT_GE(fd, 0);
	/* Nothing before the handshake. */
	EXPECT_EQ(-EINVAL, utrace_attach(fd, getpid(), 0, 0, 0, NULL));
	/* No unknown features, versions or reserved bits. */
	api.features = 1ULL << 40;
	EXPECT_EQ(-EINVAL, utrace_ioctl(fd, UTRACE_IOC_API, &api));
	api.features = 0;
	api.api = UTRACE_API + 1;
	EXPECT_EQ(-EINVAL, utrace_ioctl(fd, UTRACE_IOC_API, &api));
	api.api = UTRACE_API;
	api.reserved[1] = 1;
	EXPECT_EQ(-EINVAL, utrace_ioctl(fd, UTRACE_IOC_API, &api));
	api.reserved[1] = 0;

	api.features = UTRACE_FEATURE_NONSTOP;
	ASSERT_EQ(0, utrace_ioctl(fd, UTRACE_IOC_API, &api));
	EXPECT_EQ(UTRACE_API, api.api);
	EXPECT_EQ(UTRACE_FEATURES_ALL, api.features);
	/* Once. */
	EXPECT_EQ(-EINVAL, utrace_ioctl(fd, UTRACE_IOC_API, &api));
	close(fd);
}

TEST(registers_read_and_changed)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct user_fpregs_struct fpregs;
	struct user_regs_struct regs;
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(r12_fn);
	char xstate[4096];
	size_t done;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	go(&t);
	usleep(100000);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_STOP, 0, 0, &id));
	ev = utrace_wait(r, UTRACE_EV_STOP, WAIT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(id, ev->id);
	EXPECT_EQ(t.pid, ev->tid);
	EXPECT_EQ(t.pid, ev->tgid);
	EXPECT_EQ(UTRACE_EVF_STOPPED, ev->flags);

	ASSERT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET, NT_PRSTATUS,
				 &regs, sizeof(regs), &done));
	EXPECT_EQ(sizeof(regs), done);
	EXPECT_EQ(((struct utrace_event_pc *)utrace_body(ev))->pc, regs.rip);
	EXPECT_NE(0xc0ffee, regs.r12);

	ASSERT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET, NT_PRFPREG,
				 &fpregs, sizeof(fpregs), &done));
	EXPECT_EQ(sizeof(fpregs), done);
	EXPECT_EQ(0x1f80, fpregs.mxcsr & 0xffbf);
	ASSERT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET, NT_X86_XSTATE,
				 xstate, sizeof(xstate), &done));
	EXPECT_GT(done, 512);

	/* The tracee sees the change and leaves its loop. */
	regs.r12 = 0xc0ffee;
	ASSERT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_SET_REGSET, NT_PRSTATUS,
				 &regs, sizeof(regs), &done));
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	EXPECT_EQ(42, reap(&t));
	close(fd);
	free(r);
}

/*
 * A register set is read and written in whole elements (8 bytes for the
 * x86_64 sets), as PTRACE_GETREGSET wants them: any other length is
 * refused, for reads and writes alike, rather than cut short in silence.
 */
TEST(regset_length_is_a_whole_number_of_elements)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct user_regs_struct regs, before, after;
	struct tracee t = start_tracee(spin_fn);
	size_t done;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	go(&t);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_STOP, 0, 0, &id));
	ASSERT_NE(NULL, utrace_wait(r, UTRACE_EV_STOP, WAIT_MS));
	ASSERT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET, NT_PRSTATUS,
				 &before, sizeof(before), &done));

	EXPECT_EQ(-EINVAL, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET,
				       NT_PRSTATUS, &regs, sizeof(regs) - 4,
				       &done));
	EXPECT_EQ(-EINVAL, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET,
				       NT_PRSTATUS, &regs, 3, &done));
	EXPECT_EQ(-EINVAL, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET,
				       NT_X86_XSTATE, &regs, 12, &done));
	/* A write of a length that is not whole changes nothing. */
	regs = before;
	regs.r15 = ~before.r15;		/* the first register */
	EXPECT_EQ(-EINVAL, utrace_regs(fd, id, UTRACE_IOC_SET_REGSET,
				       NT_PRSTATUS, &regs, 12, &done));
	ASSERT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET, NT_PRSTATUS,
				 &after, sizeof(after), &done));
	EXPECT_EQ(before.r15, after.r15);

	/* Whole elements, fewer than the set has, are fine. */
	EXPECT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET, NT_PRSTATUS,
				 &regs, 16, &done));
	EXPECT_EQ(16, done);
	EXPECT_EQ(before.r14, regs.r14);

	kill_tracee(&t);
	close(fd);
	free(r);
}

TEST(memory_read_written_and_partial)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	long page = sysconf(_SC_PAGESIZE);
	struct tracee t;
	char *area, buf[64];
	long value;
	size_t done;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	/* Two pages, the second unmapped: reads stop at the hole. */
	area = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	ASSERT_EQ(0, munmap(area + page, page));
	memset(area, 0x5a, page);

	utrace_reader_init(r, fd);
	t = start_tracee(r12_fn);
	go(&t);
	usleep(100000);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_STOP, 0, 0, &id));
	ASSERT_NE(NULL, utrace_wait(r, UTRACE_EV_STOP, WAIT_MS));

	ASSERT_EQ(0, utrace_mem(fd, id, UTRACE_IOC_READ_MEM,
				(uintptr_t)&tracee_global, &value,
				sizeof(value), &done));
	EXPECT_EQ(sizeof(value), done);
	EXPECT_EQ(0xfeedface, value);
	value = 0x123456789;
	ASSERT_EQ(0, utrace_mem(fd, id, UTRACE_IOC_WRITE_MEM,
				(uintptr_t)&tracee_global, &value,
				sizeof(value), &done));
	value = 0;
	ASSERT_EQ(0, utrace_mem(fd, id, UTRACE_IOC_READ_MEM,
				(uintptr_t)&tracee_global, &value,
				sizeof(value), &done));
	EXPECT_EQ(0x123456789, value);

	ASSERT_EQ(0, utrace_mem(fd, id, UTRACE_IOC_READ_MEM,
				(uintptr_t)(area + page - 16), buf,
				sizeof(buf), &done));
	EXPECT_EQ(16, done);
	EXPECT_EQ(0x5a, buf[15]);
	EXPECT_EQ(-EIO, utrace_mem(fd, id, UTRACE_IOC_READ_MEM,
				   (uintptr_t)(area + page), buf,
				   sizeof(buf), &done));

	kill_tracee(&t);
	close(fd);
	free(r);
}

/*
 * Long enough that the copy is still going when the tracee is killed:
 * the pages it copies into are new, and the emulated machine fast.
 */
#define LONG_READ	(256 << 20)

struct long_read {
	int fd;
	__u64 id;
	char *from, *to;
	int ret;
	size_t done;
};

static void *long_read_fn(void *arg)
{
	struct long_read *lr = arg;

	lr->ret = utrace_mem(lr->fd, lr->id, UTRACE_IOC_READ_MEM,
			     (uintptr_t)lr->from, lr->to, LONG_READ, &lr->done);
	return NULL;
}

/*
 * Our copy of the tracee's memory is to fault on its second page into a
 * userfaultfd that holds the transfer there: one page done, the tracee
 * still stopped, while the test kills it.
 */
static int hold_faults_in(void *addr, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (uintptr_t)addr, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int uffd = syscall(SYS_userfaultfd, O_CLOEXEC);

	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) ||
	    ioctl(uffd, UFFDIO_REGISTER, &reg))
		return -1;
	return uffd;
}

/*
 * SIGKILL ends a stop at once, even while the tracer copies memory: the
 * transfer, held by a userfaultfd after its first page, is let go only
 * once the tracee is killed, and must then stop short.
 */
TEST(sigkill_ends_a_stop_during_a_long_memory_read)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	size_t page = getpagesize();
	struct uffdio_range all;
	struct uffd_msg msg;
	struct long_read lr;
	pthread_t reader;
	struct tracee t;
	int uffd, status;

	lr.fd = utrace_open();
	ASSERT_GE(lr.fd, 0);
	/* Memory the tracee inherits, its first page marked, to copy. */
	lr.from = mmap(NULL, LONG_READ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	lr.to = mmap(NULL, LONG_READ, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, lr.from);
	ASSERT_NE(MAP_FAILED, lr.to);
	memset(lr.from, 0x5a, page);
	memset(lr.to, 0, page);
	uffd = hold_faults_in(lr.to + page, LONG_READ - page);
	ASSERT_LE(0, uffd);

	utrace_reader_init(r, lr.fd);
	t = start_tracee(spin_fn);
	go(&t);
	usleep(100000);
	ASSERT_EQ(0, utrace_attach(lr.fd, t.pid, UTRACE_ATTACH_STOP, 0, 0,
				   &lr.id));
	ASSERT_NE(NULL, utrace_wait(r, UTRACE_EV_STOP, WAIT_MS));

	lr.ret = 1;
	ASSERT_EQ(0, pthread_create(&reader, NULL, long_read_fn, &lr));
	/* The transfer reaches the second page and waits there. */
	ASSERT_EQ(sizeof(msg), read(uffd, &msg, sizeof(msg)));
	EXPECT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);
	EXPECT_EQ((uintptr_t)lr.to + page, msg.arg.pagefault.address & ~(page - 1));
	EXPECT_EQ(0x5a, lr.to[0]);

	ASSERT_EQ(0, kill(t.pid, SIGKILL));
	ASSERT_EQ(t.pid, waitpid(t.pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	close(t.go);
	/* Let it go on, faulting normally from now on. */
	all.start = (uintptr_t)lr.to + page;
	all.len = LONG_READ - page;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_UNREGISTER, &all));
	ASSERT_EQ(0, pthread_join(reader, NULL));

	/* It stopped with the tracee's death, not at the end of the copy. */
	if (lr.ret == 0) {
		EXPECT_LT(lr.done, LONG_READ);
	} else {
		EXPECT_EQ(-ESRCH, lr.ret);
	}
	close(uffd);
	munmap(lr.from, LONG_READ);
	munmap(lr.to, LONG_READ);
	close(lr.fd);
	free(r);
}

TEST(breakpoint_written_into_text_is_reported)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	unsigned char int3 = 0xcc, orig;
	struct utrace_event_header *ev;
	struct user_regs_struct regs;
	struct tracee t;
	size_t done;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	t = start_tracee(bp_fn);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_STOP,
				   UTRACE_EVMASK(UTRACE_EV_BREAKPOINT), 0, &id));
	ASSERT_NE(NULL, utrace_wait(r, UTRACE_EV_STOP, WAIT_MS));

	/* Text is read-only; the write goes through as /proc/PID/mem's. */
	ASSERT_EQ(0, utrace_mem(fd, id, UTRACE_IOC_READ_MEM,
				(uintptr_t)bp_target, &orig, 1, &done));
	ASSERT_EQ(0, utrace_mem(fd, id, UTRACE_IOC_WRITE_MEM,
				(uintptr_t)bp_target, &int3, 1, &done));
	EXPECT_EQ(1, done);
	go(&t);
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));

	ev = utrace_wait(r, UTRACE_EV_BREAKPOINT, WAIT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(UTRACE_EVF_STOPPED, ev->flags);
	EXPECT_EQ((uintptr_t)bp_target,
		  ((struct utrace_event_pc *)utrace_body(ev))->pc);

	/* Take the breakpoint out and run the instruction it covered. */
	ASSERT_EQ(0, utrace_mem(fd, id, UTRACE_IOC_WRITE_MEM,
				(uintptr_t)bp_target, &orig, 1, &done));
	ASSERT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET, NT_PRSTATUS,
				 &regs, sizeof(regs), &done));
	EXPECT_EQ((uintptr_t)bp_target + 1, regs.rip);
	regs.rip = (uintptr_t)bp_target;
	ASSERT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_SET_REGSET, NT_PRSTATUS,
				 &regs, sizeof(regs), &done));
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	EXPECT_EQ(5, reap(&t));
	close(fd);
	free(r);
}

TEST(single_step_moves_one_instruction)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(spin_fn);
	__u64 id, pc, prev;
	int fd = utrace_open(), i, inside = 0;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	go(&t);
	usleep(100000);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_STOP, 0, 0, &id));
	ev = utrace_wait(r, UTRACE_EV_STOP, WAIT_MS);
	ASSERT_NE(NULL, ev);
	prev = ((struct utrace_event_pc *)utrace_body(ev))->pc;

	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_SINGLESTEP, 0));
		ev = utrace_wait(r, UTRACE_EV_STEP, WAIT_MS);
		ASSERT_NE(NULL, ev);
		EXPECT_EQ(UTRACE_EVF_STOPPED, ev->flags);
		pc = ((struct utrace_event_pc *)utrace_body(ev))->pc;
		if (prev >= (uintptr_t)spin_start && prev < (uintptr_t)spin_end) {
			EXPECT_EQ(prev + 1, pc);
			inside++;
		}
		prev = pc;
	}
	EXPECT_GE(inside, 4);
	/* The step traps never reached the tracee. */
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	usleep(100000);
	EXPECT_EQ(0, waitpid(t.pid, NULL, WNOHANG));
	kill_tracee(&t);
	close(fd);
	free(r);
}

static int spin_ignoring_usr1_fn(void)
{
	signal(SIGUSR1, SIG_IGN);
	return spin_fn();
}

/*
 * Whether this CPU's block step crosses a branch, as PTRACE_SINGLEBLOCK
 * from inside the run of nops shows: QEMU's TCG has no branch trap, and
 * steps one instruction there.
 */
static bool ptrace_blockstep_crosses(void)
{
	struct user_regs_struct regs;
	bool crosses = false;
	int status, i;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		_exit(spin_fn());
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		abort();
	for (i = 0; i < 300; i++) {
		if (ptrace(PTRACE_GETREGS, pid, NULL, &regs))
			abort();
		if (regs.rip >= (uintptr_t)spin_start &&
		    regs.rip + 8 < (uintptr_t)spin_end)
			break;
		ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL);
		waitpid(pid, &status, 0);
	}
	ptrace(PTRACE_SINGLEBLOCK, pid, NULL, NULL);
	waitpid(pid, &status, 0);
	if (!ptrace(PTRACE_GETREGS, pid, NULL, &regs))
		crosses = regs.rip == (uintptr_t)spin_start;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return crosses;
}

/*
 * A report on the way (a signal here) does not make a block step single:
 * it crosses the branch where ptrace's does.  Under TCG both step one
 * instruction, so only a CPU with a branch trap can show the difference.
 */
TEST(block_step_stays_a_block_step_across_a_report)
{
	bool crosses = ptrace_blockstep_crosses();
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 signal = UTRACE_EVMASK(UTRACE_EV_SIGNAL);
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(spin_ignoring_usr1_fn);
	int fd = utrace_open(), i;
	__u64 id, pc, prev;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	go(&t);
	usleep(100000);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_STOP, signal,
				   signal, &id));
	ev = utrace_wait(r, UTRACE_EV_STOP, WAIT_MS);
	ASSERT_NE(NULL, ev);
	pc = ((struct utrace_event_pc *)utrace_body(ev))->pc;
	/* Step into the run of nops, well before its end. */
	for (i = 0; i < 300; i++) {
		if (pc >= (uintptr_t)spin_start && pc + 8 < (uintptr_t)spin_end)
			break;
		ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_SINGLESTEP, 0));
		ev = utrace_wait(r, UTRACE_EV_STEP, WAIT_MS);
		ASSERT_NE(NULL, ev);
		pc = ((struct utrace_event_pc *)utrace_body(ev))->pc;
	}
	ASSERT_LT(pc + 8, (uintptr_t)spin_end);
	prev = pc;

	/* Reported on the way out: the ignored SIGUSR1, then the branch. */
	ASSERT_EQ(0, kill(t.pid, SIGUSR1));
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_BLOCKSTEP, 0));
	ev = utrace_wait(r, UTRACE_EV_STEP, WAIT_MS);
	ASSERT_NE(NULL, ev);
	pc = ((struct utrace_event_pc *)utrace_body(ev))->pc;
	if (crosses) {
		EXPECT_EQ((uintptr_t)spin_start, pc);
	} else {
		EXPECT_EQ(prev + 1, pc);
	}
	kill_tracee(&t);
	close(fd);
	free(r);
}

TEST(watchpoint_catches_the_write)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_watch watch = {
		.size = sizeof(watch),
		.addr = (uintptr_t)&watched,
		.len = 8,
		.kind = UTRACE_WATCH_WRITE,
	};
	struct utrace_event_header *ev;
	struct utrace_event_watch *hit;
	struct tracee t = start_tracee(watch_fn);
	size_t done;
	long value;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_STOP,
				   UTRACE_EVMASK(UTRACE_EV_WATCHPOINT), 0, &id));
	ASSERT_NE(NULL, utrace_wait(r, UTRACE_EV_STOP, WAIT_MS));
	watch.id = id;
	ASSERT_EQ(0, utrace_ioctl(fd, UTRACE_IOC_SET_WATCH, &watch));
	go(&t);
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));

	ev = utrace_wait(r, UTRACE_EV_WATCHPOINT, WAIT_MS);
	ASSERT_NE(NULL, ev);
	hit = utrace_body(ev);
	EXPECT_EQ((uintptr_t)&watched, hit->addr);
	EXPECT_EQ(watch.slot, hit->slot);
	EXPECT_EQ(UTRACE_EVF_STOPPED, ev->flags);
	/* Stopped right after the write. */
	ASSERT_EQ(0, utrace_mem(fd, id, UTRACE_IOC_READ_MEM,
				(uintptr_t)&watched, &value, sizeof(value),
				&done));
	EXPECT_EQ(7, value);
	ASSERT_EQ(0, utrace_ioctl(fd, UTRACE_IOC_CLEAR_WATCH, &watch));
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	EXPECT_EQ(7, reap(&t));
	close(fd);
	free(r);
}

TEST(attach_by_pidfd_names_the_process_not_its_pid)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(spin_fn);
	int fd = utrace_open(), pidfd;
	__u64 id;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	go(&t);
	pidfd = syscall(SYS_pidfd_open, t.pid, 0);
	ASSERT_GE(pidfd, 0);

	ASSERT_EQ(0, utrace_attach(fd, pidfd, UTRACE_ATTACH_PIDFD |
				   UTRACE_ATTACH_STOP, 0, 0, &id));
	ev = utrace_wait(r, UTRACE_EV_STOP, WAIT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(id, ev->id);
	EXPECT_EQ(t.pid, ev->tid);

	/* Not a pidfd; not with LAUNCH, which names the caller. */
	EXPECT_EQ(-EBADF, utrace_attach(fd, fd, UTRACE_ATTACH_PIDFD, 0, 0,
					NULL));
	EXPECT_EQ(-EINVAL, utrace_attach(fd, pidfd, UTRACE_ATTACH_PIDFD |
					 UTRACE_ATTACH_LAUNCH, 0, 0, NULL));

	/* Reaped, the process is gone for its pidfd, whoever has its pid. */
	close(fd);
	kill_tracee(&t);
	fd = utrace_open();
	ASSERT_GE(fd, 0);
	EXPECT_EQ(-ESRCH, utrace_attach(fd, pidfd, UTRACE_ATTACH_PIDFD, 0, 0,
					NULL));
	close(pidfd);
	close(fd);
	free(r);
}

TEST(new_threads_and_children_are_followed)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 events = UTRACE_EVMASK(UTRACE_EV_CLONE) |
		       UTRACE_EVMASK(UTRACE_EV_DEATH);
	struct utrace_event_header *ev;
	struct utrace_event_clone *clone;
	struct tracee t = start_tracee(clone_fn);
	__u64 id, thread_id = 0, child_id = 0;
	int thread_died = 0, child_died = 0;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_CLONES |
				   UTRACE_ATTACH_CHILDREN, events, events, &id));
	go(&t);
	while ((ev = utrace_next(r, WAIT_MS))) {
		if (ev->type == UTRACE_EV_CLONE && ev->id == id) {
			clone = utrace_body(ev);
			EXPECT_NE(0, clone->child_id);
			EXPECT_GT(clone->child_tid, 0);
			/* No pidfd unless asked for. */
			EXPECT_EQ(-1, clone->child_pidfd);
			if (clone->flags & CLONE_THREAD)
				thread_id = clone->child_id;
			else
				child_id = clone->child_id;
		}
		if (ev->type == UTRACE_EV_DEATH) {
			thread_died |= ev->id == thread_id;
			child_died |= ev->id == child_id;
			if (ev->id == id)
				break;
		}
	}
	ASSERT_NE(NULL, ev);
	EXPECT_NE(0, thread_id);
	EXPECT_NE(0, child_id);
	EXPECT_TRUE(thread_died);
	EXPECT_TRUE(child_died);
	EXPECT_EQ(3, reap(&t));
	close(fd);
	free(r);
}

/* A thread, then a child that waits to be told to end; its wait status. */
static int fork_and_wait_fn(void)
{
	pthread_t thread;
	int status;
	pid_t pid;

	pthread_create(&thread, NULL, thread_exit_fn, NULL);
	pthread_join(thread, NULL);
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status) ? WTERMSIG(status) : 100;
}

/* The pid a pidfd of ours refers to, from its fdinfo; or -1. */
static pid_t pidfd_pid(int pidfd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	return proc_number(path, "Pid:");
}

/*
 * UTRACE_ATTACH_CHILD_PIDFD: a new process's clone record brings a pidfd
 * of it, close-on-exec, which reaches the child (a new thread's has none);
 * a process gone by the time the record is read has -ESRCH instead.
 */
TEST(clone_records_bring_a_pidfd_of_each_new_process)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 events = UTRACE_EVMASK(UTRACE_EV_CLONE) |
		       UTRACE_EVMASK(UTRACE_EV_DEATH);
	__u32 flags = UTRACE_ATTACH_CLONES | UTRACE_ATTACH_CHILDREN |
		      UTRACE_ATTACH_CHILD_PIDFD;
	struct utrace_event_clone *clone;
	struct utrace_event_header *ev;
	int fd = utrace_open(), pidfd = -1, threads = 0;
	struct tracee t = start_tracee(fork_and_wait_fn);
	pid_t child = 0;
	__u64 id;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, flags, events, events, &id));
	go(&t);
	while (!child && (ev = utrace_wait(r, UTRACE_EV_CLONE, WAIT_MS))) {
		clone = utrace_body(ev);
		if (clone->flags & CLONE_THREAD) {
			EXPECT_EQ(-1, clone->child_pidfd);
			threads++;
			continue;
		}
		child = clone->child_tid;
		pidfd = clone->child_pidfd;
	}
	EXPECT_EQ(1, threads);
	ASSERT_NE(0, child);
	ASSERT_LE(0, pidfd);
	EXPECT_EQ(child, pidfd_pid(pidfd));
	EXPECT_EQ(FD_CLOEXEC, fcntl(pidfd, F_GETFD));
	/* It reaches the child: the tracee's wait sees our SIGTERM. */
	ASSERT_EQ(0, syscall(SYS_pidfd_send_signal, pidfd, SIGTERM, NULL, 0));
	EXPECT_EQ(SIGTERM, reap(&t));
	close(pidfd);
	close(fd);

	/* Read only once the child is reaped: nothing to name. */
	fd = utrace_open();
	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	t = start_tracee(clone_fn);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, flags, events, events, &id));
	go(&t);
	EXPECT_EQ(3, reap(&t));
	threads = 0;
	while ((ev = utrace_wait(r, UTRACE_EV_CLONE, WAIT_MS))) {
		clone = utrace_body(ev);
		if (clone->flags & CLONE_THREAD) {
			threads++;
			continue;
		}
		EXPECT_EQ(-ESRCH, clone->child_pidfd);
		break;
	}
	EXPECT_NE(NULL, ev);
	EXPECT_EQ(1, threads);
	close(fd);
	free(r);
}

TEST(launch_stops_at_exec)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct utrace_event_exec *exec;
	struct utrace_event_exit *death;
	int fd = utrace_open(), status;
	pid_t pid;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	pid = fork();
	if (pid == 0) {
		if (utrace_attach(fd, 0, UTRACE_ATTACH_LAUNCH,
				  UTRACE_EVMASK(UTRACE_EV_DEATH),
				  UTRACE_EVMASK(UTRACE_EV_DEATH), NULL))
			_exit(100);
		execl("/bin/true", "/bin/true", NULL);
		_exit(101);
	}
	ev = utrace_wait(r, UTRACE_EV_EXEC, WAIT_MS);
	ASSERT_NE(NULL, ev);
	exec = utrace_body(ev);
	EXPECT_EQ(pid, ev->tid);
	EXPECT_EQ(UTRACE_EVF_STOPPED, ev->flags);
	EXPECT_EQ(pid, exec->old_tid);
	EXPECT_STREQ("/bin/true", (char *)(exec + 1));
	EXPECT_EQ(strlen("/bin/true"), exec->name_len);
	/* Still stopped at the exec: the parent sees no exit. */
	usleep(100000);
	EXPECT_EQ(0, waitpid(pid, &status, WNOHANG));

	ASSERT_EQ(0, utrace_ctl(fd, ev->id, 0, UTRACE_CTL_RESUME, 0));
	ev = utrace_wait(r, UTRACE_EV_DEATH, WAIT_MS);
	ASSERT_NE(NULL, ev);
	death = utrace_body(ev);
	EXPECT_EQ(0, death->code);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(fd);
	free(r);
}

TEST(syscall_arguments_and_results)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 events = SYSCALL_STREAM_EVENTS;
	struct utrace_event_header *ev;
	struct utrace_event_syscall *sc;
	struct tracee t = start_tracee(syscalls_fn);
	int saw_getppid = 0, saw_write_entry = 0, saw_write_exit = 0;
	__u64 id, last_seq = 0;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, 0, events, events, &id));
	go(&t);
	while ((ev = utrace_next(r, WAIT_MS)) && ev->type != UTRACE_EV_DEATH) {
		/* Numbered in order, without gaps. */
		if (last_seq)
			EXPECT_EQ(last_seq + 1, ev->seq);
		last_seq = ev->seq;
		EXPECT_EQ(0, ev->flags);
		sc = utrace_body(ev);
		EXPECT_EQ(AUDIT_ARCH_X86_64, sc->arch);
		if (ev->type == UTRACE_EV_SYSCALL_EXIT && sc->nr == SYS_getppid) {
			EXPECT_EQ(getpid(), sc->ret);
			saw_getppid = 1;
		}
		if (ev->type == UTRACE_EV_SYSCALL_ENTRY && sc->nr == SYS_write) {
			EXPECT_EQ((__u64)-1, sc->args[0]);
			EXPECT_EQ(7, sc->args[2]);
			saw_write_entry = 1;
		}
		if (ev->type == UTRACE_EV_SYSCALL_EXIT && sc->nr == SYS_write) {
			/* The exit carries the arguments too. */
			EXPECT_EQ((__u64)-1, sc->args[0]);
			EXPECT_EQ(7, sc->args[2]);
			EXPECT_EQ(-EBADF, sc->ret);
			saw_write_exit = 1;
		}
	}
	ASSERT_NE(NULL, ev);
	EXPECT_TRUE(saw_getppid);
	EXPECT_TRUE(saw_write_entry);
	EXPECT_TRUE(saw_write_exit);
	EXPECT_EQ(0, reap(&t));
	close(fd);
	free(r);
}

#define SET_CALLS 200
/* A number past the system call table, as an x32 call's is. */
#define NO_SUCH_CALL 100000

static void *set_thread_fn(void *arg)
{
	syscall(SYS_getpid);
	syscall(SYS_getppid);
	syscall(SYS_write, -1L, "1234567", 7);
	return arg;
}

static int set_fn(void)
{
	pthread_t thread;
	int i;

	for (i = 0; i < SET_CALLS; i++) {
		syscall(SYS_getpid);
		syscall(SYS_getppid);
		syscall(SYS_write, -1L, "1234567", 7);
	}
	pthread_create(&thread, NULL, set_thread_fn, NULL);
	pthread_join(thread, NULL);
	return 0;
}

static int set_syscalls(int fd, __u32 flags, __u64 id, const __u64 *set,
			__u32 nbits)
{
	struct utrace_syscalls req = {
		.size = sizeof(req), .flags = flags, .id = id,
		.set = (__u64)(unsigned long)set, .nbits = nbits,
	};

	return utrace_ioctl(fd, UTRACE_IOC_SET_SYSCALLS, &req);
}

/* The system call records set_fn()'s tracee made, by call. */
struct set_tally {
	int entries, exits;
	int getpids, getppids, writes, others;
	int unnumbered;		/* negative: rt_sigreturn()'s exit */
	int past_table;		/* NO_SUCH_CALL */
	int thread_writes;	/* of the thread set_fn() creates */
};

/*
 * Count the system call records until the death of the thread attached
 * as @id.  Returns that death's record, or NULL if none came.
 */
static struct utrace_event_header *tally_set_calls(struct utrace_reader *r,
						   __u64 id,
						   struct set_tally *tally)
{
	struct utrace_event_header *ev;
	struct utrace_event_syscall *sc;

	memset(tally, 0, sizeof(*tally));
	while ((ev = utrace_next(r, WAIT_MS)) && !(ev->type == UTRACE_EV_DEATH &&
						   ev->id == id)) {
		if (ev->type == UTRACE_EV_SYSCALL_ENTRY)
			tally->entries++;
		else if (ev->type == UTRACE_EV_SYSCALL_EXIT)
			tally->exits++;
		else
			continue;
		sc = utrace_body(ev);
		if (sc->nr == SYS_getpid)
			tally->getpids++;
		else if (sc->nr == SYS_getppid)
			tally->getppids++;
		else if (sc->nr == SYS_write)
			tally->writes++;
		else if (sc->nr >= 0 && sc->nr < 64)
			tally->others++;
		else if (sc->nr < 0)
			tally->unnumbered++;
		else if (sc->nr == NO_SUCH_CALL)
			tally->past_table++;
		if (sc->nr == SYS_write && ev->id != id)
			tally->thread_writes++;
	}
	return ev;
}

/*
 * A set of 64 bits that has write (1) and not getpid (39): write is
 * reported, getpid is not, and getppid (110), which the set does not
 * cover, is; a new thread inherits the set.
 */
TEST(only_the_system_calls_of_the_set_are_reported)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 death = UTRACE_EVMASK(UTRACE_EV_DEATH), set = 1ULL << SYS_write;
	struct utrace_event_mask mask = {
		.size = sizeof(mask), .flags = UTRACE_ALL_THREADS,
		.events = SYSCALL_STREAM_EVENTS,
		.nonstop = SYSCALL_STREAM_EVENTS,
	};
	__u64 big[UTRACE_SYSCALLS_MAX / 64 + 1] = { 0 };
	struct tracee t = start_tracee(set_fn);
	struct set_tally tally;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	/* No system calls before the set: the tracee may not be asleep yet. */
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_CLONES, death,
				   death, &id));

	/* Bad sets first: none of them changes the thread's. */
	EXPECT_EQ(-EINVAL, set_syscalls(fd, 0, id, &set, 63));
	EXPECT_EQ(-EINVAL, set_syscalls(fd, 0, id, big,
					UTRACE_SYSCALLS_MAX + 64));
	EXPECT_EQ(-EINVAL, set_syscalls(fd, 0, id, &set, 0));
	EXPECT_EQ(-EFAULT, set_syscalls(fd, 0, id, NULL, 64));
	EXPECT_EQ(-ESRCH, set_syscalls(fd, 0, id + 1000000, &set, 64));
	EXPECT_EQ(0, set_syscalls(fd, 0, id, big, UTRACE_SYSCALLS_MAX));
	EXPECT_EQ(0, set_syscalls(fd, 0, id, NULL, 0));
	ASSERT_EQ(0, set_syscalls(fd, UTRACE_ALL_THREADS, 0, &set, 64));
	ASSERT_EQ(0, utrace_ioctl(fd, UTRACE_IOC_SET_EVENTS, &mask));

	go(&t);
	ASSERT_NE(NULL, tally_set_calls(r, id, &tally));
	EXPECT_EQ(0, tally.getpids);
	EXPECT_EQ(0, tally.others);
	/* An entry and an exit a call, the new thread's included. */
	EXPECT_EQ(2 * (SET_CALLS + 1), tally.getppids);
	EXPECT_EQ(2 * (SET_CALLS + 1), tally.writes);
	EXPECT_EQ(2, tally.thread_writes);
	EXPECT_EQ(0, reap(&t));
	close(fd);
	free(r);
}

/*
 * With exits only, the set decides at the exit: the exits of the set's
 * calls come, and those of the calls out of it, which utrace does not
 * report at all, do not.
 */
TEST(exits_alone_follow_the_set)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 death = UTRACE_EVMASK(UTRACE_EV_DEATH), set = 1ULL << SYS_write;
	__u64 events = UTRACE_EVMASK(UTRACE_EV_SYSCALL_EXIT) | death;
	struct tracee t = start_tracee(set_fn);
	struct set_tally tally;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_CLONES, death,
				   death, &id));
	ASSERT_EQ(0, set_syscalls(fd, UTRACE_ALL_THREADS, 0, &set, 64));
	ASSERT_EQ(0, utrace_events(fd, id, events, events));

	go(&t);
	ASSERT_NE(NULL, tally_set_calls(r, id, &tally));
	EXPECT_EQ(0, tally.entries);
	EXPECT_EQ(0, tally.getpids);
	/* The new thread's calls included. */
	EXPECT_EQ(SET_CALLS + 1, tally.getppids);
	EXPECT_EQ(SET_CALLS + 1, tally.writes);
	EXPECT_EQ(0, reap(&t));
	close(fd);
	free(r);
}

/* getppid() the i386 way, as a 64-bit program may: int $0x80, eax 64. */
#define I386_NR_GETPPID 64

static long int80_getppid(void)
{
	long ret = I386_NR_GETPPID;

	asm volatile("int $0x80" : "+a" (ret) : : "r8", "r9", "r10", "r11",
		     "memory");
	return ret;
}

static int abi_fn(void)
{
	long native = syscall(SYS_getppid);

	return int80_getppid() == native && int80_getppid() == getppid() ?
	       0 : 1;
}

static int set_syscalls_abi(int fd, __u64 id, const __u64 *set, __u32 nbits,
			    __u32 arch)
{
	struct utrace_syscalls req = {
		.size = sizeof(req), .id = id,
		.set = (__u64)(unsigned long)set, .nbits = nbits, .arch = arch,
	};

	return utrace_ioctl(fd, UTRACE_IOC_SET_SYSCALLS, &req);
}

/*
 * A set of x86_64 numbers, with getppid (110): an int $0x80 getppid, 64 in
 * the i386 table, is of another ABI, so reported whatever its number, with
 * its record's arch saying so.  With the set's arch zero, 64 is judged by
 * the set, which does not have it.
 */
TEST(a_set_judges_only_the_calls_of_its_abi)
{
	__u64 death = UTRACE_EVMASK(UTRACE_EV_DEATH);
	__u64 set[2] = { 0, 1ULL << (SYS_getppid - 64) };
	__u32 archs[] = { AUDIT_ARCH_X86_64, 0 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(archs); i++) {
		struct utrace_reader *r = malloc(sizeof(*r));
		struct tracee t = start_tracee(abi_fn);
		struct utrace_event_header *ev;
		struct utrace_event_syscall *sc;
		int native = 0, i386 = 0, judged = 0;
		int fd = utrace_open();
		__u64 id;

		ASSERT_GE(fd, 0);
		utrace_reader_init(r, fd);
		ASSERT_EQ(0, utrace_attach(fd, t.pid, 0, death, death, &id));
		/* An ABI is an ELF machine and flags, and needs a set. */
		EXPECT_EQ(-EINVAL, set_syscalls_abi(fd, id, set, 128,
						    0x12345678));
		EXPECT_EQ(-EINVAL, set_syscalls_abi(fd, id, NULL, 0,
						    AUDIT_ARCH_X86_64));
		ASSERT_EQ(0, set_syscalls_abi(fd, id, set, 128, archs[i]));
		ASSERT_EQ(0, utrace_events(fd, id, SYSCALL_STREAM_EVENTS,
					   SYSCALL_STREAM_EVENTS));
		go(&t);
		while ((ev = utrace_next(r, WAIT_MS)) &&
		       ev->type != UTRACE_EV_DEATH) {
			if (ev->type != UTRACE_EV_SYSCALL_ENTRY &&
			    ev->type != UTRACE_EV_SYSCALL_EXIT)
				continue;
			sc = utrace_body(ev);
			if (sc->arch == AUDIT_ARCH_I386 &&
			    sc->nr == I386_NR_GETPPID)
				i386++;
			else if (sc->arch == AUDIT_ARCH_X86_64 &&
				 sc->nr == SYS_getppid)
				native++;
			else if (sc->nr >= 0 && sc->nr < 128)
				judged++;	/* out of the set: a wrong one */
		}
		ASSERT_NE(NULL, ev);
		/* An entry and an exit a call, two calls of each kind. */
		EXPECT_EQ(4, native);
		EXPECT_EQ(archs[i] ? 4 : 0, i386);
		EXPECT_EQ(0, judged);
		EXPECT_EQ(0, reap(&t));
		close(fd);
		free(r);
	}
}

static int in_flight_pipe[2];

static int blocking_read_fn(void)
{
	char c;

	return read(in_flight_pipe[0], &c, 1) == 1 && c == 'x' ? 0 : 1;
}

/* Whether @pid sleeps in system call @nr, by /proc/PID/syscall. */
static int sleeps_in_syscall(pid_t pid, long nr)
{
	char path[64], buf[256];
	long current = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	sscanf(buf, "%ld", &current);
	return current == nr;
}

/*
 * A read() made while the set left it out is reported at its exit once
 * the set has it: its exit comes, with its result, though its entry was
 * never seen.
 */
TEST(a_call_in_flight_is_reported_at_its_exit_once_the_set_has_it)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 death = UTRACE_EVMASK(UTRACE_EV_DEATH), set = 1ULL << SYS_write;
	struct utrace_event_header *ev;
	struct utrace_event_syscall *sc;
	struct tracee t;
	int read_entries = 0, read_exits = 0, i;
	__u64 id;
	int fd;

	ASSERT_EQ(0, pipe(in_flight_pipe));
	t = start_tracee(blocking_read_fn);
	close(in_flight_pipe[0]);
	fd = utrace_open();
	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, 0, death, death, &id));
	ASSERT_EQ(0, set_syscalls(fd, 0, id, &set, 64));
	ASSERT_EQ(0, utrace_events(fd, id, SYSCALL_STREAM_EVENTS,
				   SYSCALL_STREAM_EVENTS));
	go(&t);
	for (i = 0; i < 500 && !sleeps_in_syscall(t.pid, SYS_read); i++)
		usleep(10000);
	ASSERT_TRUE(sleeps_in_syscall(t.pid, SYS_read));

	/* Every call from now on, and the read() in flight. */
	ASSERT_EQ(0, set_syscalls(fd, 0, id, NULL, 0));
	ASSERT_EQ(1, write(in_flight_pipe[1], "x", 1));
	while ((ev = utrace_next(r, WAIT_MS)) && ev->type != UTRACE_EV_DEATH) {
		if (ev->type != UTRACE_EV_SYSCALL_ENTRY &&
		    ev->type != UTRACE_EV_SYSCALL_EXIT)
			continue;
		sc = utrace_body(ev);
		if (sc->nr != SYS_read)
			continue;
		if (ev->type == UTRACE_EV_SYSCALL_ENTRY) {
			read_entries++;
		} else {
			EXPECT_EQ(1, sc->ret);
			read_exits++;
		}
	}
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, read_entries);
	EXPECT_EQ(1, read_exits);
	EXPECT_EQ(0, reap(&t));
	close(in_flight_pipe[1]);
	close(fd);
	free(r);
}

static void on_sigusr1(int sig)
{
}

/*
 * Handlers return through rt_sigreturn(), whose exit has no number; and
 * a call past the table fails with ENOSYS.
 */
static int sigreturn_fn(void)
{
	struct sigaction sa = { .sa_handler = on_sigusr1 };
	int i;

	if (sigaction(SIGUSR1, &sa, NULL))
		return 1;
	for (i = 0; i < SET_CALLS; i++) {
		raise(SIGUSR1);
		syscall(SYS_write, -1L, "1234567", 7);
		syscall(NO_SUCH_CALL);
	}
	return 0;
}

/*
 * rt_sigreturn() leaves the thread's system call number at -1, which is
 * what its exit reports: a negative number, in no set.  A thread with a
 * set of write alone reports its writes and nothing of the handlers'
 * returns; without a set it reports those exits too.  A number past the
 * table is in every set, as the device reports what a set does not
 * cover.
 */
TEST(a_set_leaves_out_negative_numbers_and_keeps_those_past_the_table)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 death = UTRACE_EVMASK(UTRACE_EV_DEATH), set = 1ULL << SYS_write;
	struct set_tally tally;
	struct tracee t;
	int with_set;
	__u64 id;
	int fd;

	for (with_set = 1; with_set >= 0; with_set--) {
		t = start_tracee(sigreturn_fn);
		fd = utrace_open();
		ASSERT_GE(fd, 0);
		utrace_reader_init(r, fd);
		ASSERT_EQ(0, utrace_attach(fd, t.pid, 0, death, death, &id));
		if (with_set)
			ASSERT_EQ(0, set_syscalls(fd, 0, id, &set, 64));
		ASSERT_EQ(0, utrace_events(fd, id, SYSCALL_STREAM_EVENTS,
					   SYSCALL_STREAM_EVENTS));
		go(&t);
		ASSERT_NE(NULL, tally_set_calls(r, id, &tally));
		EXPECT_EQ(2 * SET_CALLS, tally.writes);
		EXPECT_EQ(2 * SET_CALLS, tally.past_table);
		if (with_set) {
			EXPECT_EQ(0, tally.unnumbered);
			EXPECT_EQ(0, tally.others + tally.getpids);
		} else {
			EXPECT_EQ(SET_CALLS, tally.unnumbered);
		}
		EXPECT_EQ(0, reap(&t));
		close(fd);
	}
	free(r);
}

#define REUSE_CALLS 1500

static int write_loop_fn(void)
{
	int i;

	for (i = 0; i < REUSE_CALLS; i++)
		syscall(SYS_write, -1L, "1234567", 7);
	return 0;
}

/*
 * The memory of the system call records read() copied out is reused for
 * the next ones: nothing of a record may show through in a later one.
 */
TEST(reused_syscall_records_carry_nothing_of_their_last_use)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 events = SYSCALL_STREAM_EVENTS;
	struct utrace_event_header *ev;
	struct utrace_event_syscall *sc;
	struct tracee t = start_tracee(write_loop_fn);
	int entries = 0, exits = 0;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, 0, events, events, NULL));
	go(&t);
	while ((ev = utrace_next(r, WAIT_MS)) && ev->type != UTRACE_EV_DEATH) {
		EXPECT_EQ(0, ev->flags);
		sc = utrace_body(ev);
		EXPECT_EQ(0, sc->reserved);
		if (sc->nr != SYS_write)
			continue;
		if (ev->type == UTRACE_EV_SYSCALL_ENTRY) {
			entries++;
			EXPECT_EQ((__u64)-1, sc->args[0]);
			EXPECT_EQ(7, sc->args[2]);
			EXPECT_EQ(0, sc->ret);
		} else {
			exits++;
			EXPECT_EQ(-EBADF, sc->ret);
			EXPECT_EQ((__u64)-1, sc->args[0]);
			EXPECT_EQ(7, sc->args[2]);
		}
	}
	ASSERT_NE(NULL, ev);
	/* Fewer records than the queue holds: none was dropped. */
	EXPECT_EQ(REUSE_CALLS, entries);
	EXPECT_EQ(REUSE_CALLS, exits);
	EXPECT_EQ(0, reap(&t));
	close(fd);
	free(r);
}

/*
 * Install a seccomp filter whose verdict for getppid() is
 * SECCOMP_RET_TRACE with data SECCOMP_TEST_DATA; other calls are allowed.
 */
#define SECCOMP_TEST_DATA	0x42
#define SECCOMP_SKIPPED_RET	4321

static int trace_getppid_by_seccomp(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K,
			 SECCOMP_RET_TRACE | SECCOMP_TEST_DATA),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/*
 * Two getppid() calls under the filter: the first is let through by the
 * tracer, the second skipped with SECCOMP_SKIPPED_RET as its result.
 * Exit 0 if both came out so, else a code that tells which did not.
 */
static int seccomp_traced_fn(void)
{
	long ppid = getppid(), first, second;

	if (trace_getppid_by_seccomp())
		return 10;
	first = syscall(SYS_getppid);
	second = syscall(SYS_getppid);
	return (first == ppid ? 0 : 1) + (second == SECCOMP_SKIPPED_RET ? 0 : 2);
}

/* Without a tracer for the verdict, the call fails with ENOSYS. */
static int seccomp_untraced_fn(void)
{
	if (trace_getppid_by_seccomp())
		return 10;
	return syscall(SYS_getppid) == -1 && errno == ENOSYS ? 0 : 1;
}

static int utrace_syscall_info(int fd, __u64 id,
			       struct utrace_syscall_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->id = id;
	return utrace_ioctl(fd, UTRACE_IOC_GET_SYSCALL_INFO, info);
}

/* The next stopping seccomp record: checked, with the stop's details. */
static struct utrace_event_header *
expect_seccomp_stop(struct __test_metadata *_metadata, struct utrace_reader *r,
		    int fd, __u64 id, struct user_regs_struct *regs)
{
	struct utrace_event_header *ev = utrace_wait(r, UTRACE_EV_SECCOMP,
						     WAIT_MS);
	struct utrace_event_seccomp *sc;
	struct utrace_syscall_info info;

	if (!ev)
		return NULL;
	sc = utrace_body(ev);
	EXPECT_EQ(UTRACE_EVF_STOPPED, ev->flags);
	EXPECT_EQ(SYS_getppid, sc->nr);
	EXPECT_EQ(AUDIT_ARCH_X86_64, sc->arch);
	EXPECT_EQ(SECCOMP_TEST_DATA, sc->data);

	EXPECT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET, NT_PRSTATUS,
				 regs, sizeof(*regs), NULL));
	EXPECT_EQ(0, utrace_syscall_info(fd, id, &info));
	EXPECT_EQ(UTRACE_SYSCALL_INFO_SECCOMP, info.op);
	EXPECT_EQ(AUDIT_ARCH_X86_64, info.arch);
	EXPECT_EQ(SYS_getppid, info.nr);
	EXPECT_EQ(SECCOMP_TEST_DATA, info.ret_data);
	EXPECT_EQ(regs->rip, info.instruction_pointer);
	EXPECT_EQ(regs->rsp, info.stack_pointer);
	return ev;
}

/*
 * A SECCOMP_RET_TRACE verdict is the tracer's to decide, as under ptrace
 * with PTRACE_O_TRACESECCOMP: the thread stops with the call and the
 * filter's data, a call let through is made, and one whose number the
 * tracer set to -1 is skipped with the result the tracer chose.
 */
TEST(seccomp_trace_verdicts_stop_for_the_tracer)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct user_regs_struct regs;
	struct tracee t = start_tracee(seccomp_traced_fn);
	__u64 id, events = UTRACE_EVMASK(UTRACE_EV_SECCOMP) |
			   UTRACE_EVMASK(UTRACE_EV_DEATH);
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, 0, events,
				   UTRACE_EVMASK(UTRACE_EV_DEATH), &id));
	go(&t);

	ASSERT_NE(NULL, expect_seccomp_stop(_metadata, r, fd, id, &regs));
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));

	ASSERT_NE(NULL, expect_seccomp_stop(_metadata, r, fd, id, &regs));
	regs.orig_rax = -1;
	regs.rax = SECCOMP_SKIPPED_RET;
	ASSERT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_SET_REGSET, NT_PRSTATUS,
				 &regs, sizeof(regs), NULL));
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));

	EXPECT_NE(NULL, utrace_wait(r, UTRACE_EV_DEATH, WAIT_MS));
	EXPECT_EQ(0, reap(&t));
	close(fd);
	free(r);
}

/*
 * A tracer that does not select seccomp stops changes nothing: the call
 * fails with ENOSYS, as it does untraced.
 */
TEST(seccomp_trace_verdicts_fail_unless_selected)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct tracee t = start_tracee(seccomp_untraced_fn);
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, 0, SYSCALL_STREAM_EVENTS,
				   SYSCALL_STREAM_EVENTS, &id));
	go(&t);
	EXPECT_NE(NULL, utrace_wait(r, UTRACE_EV_DEATH, WAIT_MS));
	EXPECT_EQ(0, reap(&t));
	close(fd);
	free(r);
}

/*
 * PTRACE_GET_SYSCALL_INFO's account of each stop: the entry's call and
 * arguments, the exit's result and whether it is an error, the registers'
 * pc and stack pointer, and nothing of a call at a stop of another kind.
 */
TEST(syscall_info_tells_each_kind_of_stop)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct utrace_event_syscall *sc;
	struct utrace_syscall_info info;
	struct user_regs_struct regs;
	struct tracee t = start_tracee(syscalls_fn);
	int saw_write_entry = 0, saw_write_exit = 0, saw_getppid_exit = 0;
	__u64 id, events = SYSCALL_STREAM_EVENTS;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, 0, events,
				   UTRACE_EVMASK(UTRACE_EV_DEATH), &id));
	/* Not stopped yet: no stop to tell of. */
	EXPECT_EQ(-EBUSY, utrace_syscall_info(fd, id, &info));
	go(&t);
	while ((ev = utrace_next(r, WAIT_MS)) && ev->type != UTRACE_EV_DEATH) {
		ASSERT_EQ(UTRACE_EVF_STOPPED, ev->flags);
		sc = utrace_body(ev);
		ASSERT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET,
					 NT_PRSTATUS, &regs, sizeof(regs),
					 NULL));
		ASSERT_EQ(0, utrace_syscall_info(fd, id, &info));
		EXPECT_EQ(AUDIT_ARCH_X86_64, info.arch);
		EXPECT_EQ(regs.rip, info.instruction_pointer);
		EXPECT_EQ(regs.rsp, info.stack_pointer);
		EXPECT_EQ(0, info.ret_data);
		if (ev->type == UTRACE_EV_SYSCALL_ENTRY) {
			EXPECT_EQ(UTRACE_SYSCALL_INFO_ENTRY, info.op);
			EXPECT_EQ(sc->nr, info.nr);
			EXPECT_EQ(0, memcmp(sc->args, info.args,
					    sizeof(info.args)));
			EXPECT_EQ(0, info.rval);
			if (info.nr == SYS_write) {
				EXPECT_EQ((__u64)-1, info.args[0]);
				EXPECT_EQ(7, info.args[2]);
				saw_write_entry = 1;
			}
		} else {
			ASSERT_EQ(UTRACE_EV_SYSCALL_EXIT, ev->type);
			EXPECT_EQ(UTRACE_SYSCALL_INFO_EXIT, info.op);
			EXPECT_EQ(0, info.nr);
			EXPECT_EQ(sc->ret, info.rval);
			EXPECT_EQ(sc->ret < 0 && sc->ret >= -4095, info.is_error);
			if (sc->nr == SYS_write) {
				EXPECT_EQ(-EBADF, info.rval);
				EXPECT_EQ(1, info.is_error);
				saw_write_exit = 1;
			}
			if (sc->nr == SYS_getppid) {
				EXPECT_EQ(getpid(), info.rval);
				EXPECT_EQ(0, info.is_error);
				saw_getppid_exit = 1;
			}
		}
		ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	}
	ASSERT_NE(NULL, ev);
	EXPECT_TRUE(saw_write_entry);
	EXPECT_TRUE(saw_write_exit);
	EXPECT_TRUE(saw_getppid_exit);
	EXPECT_EQ(0, reap(&t));
	close(fd);
	free(r);
}

TEST(syscall_info_at_a_requested_stop_has_no_call)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_syscall_info info;
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(spin_fn);
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	go(&t);
	usleep(100000);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_STOP, 0, 0, &id));
	ev = utrace_wait(r, UTRACE_EV_STOP, WAIT_MS);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(0, utrace_syscall_info(fd, id, &info));
	EXPECT_EQ(UTRACE_SYSCALL_INFO_NONE, info.op);
	EXPECT_EQ(AUDIT_ARCH_X86_64, info.arch);
	EXPECT_EQ(((struct utrace_event_pc *)utrace_body(ev))->pc,
		  info.instruction_pointer);
	EXPECT_NE(0, info.stack_pointer);
	EXPECT_EQ(0, info.nr);
	EXPECT_EQ(0, info.rval);

	info.flags = 1;
	EXPECT_EQ(-EINVAL, utrace_ioctl(fd, UTRACE_IOC_GET_SYSCALL_INFO,
					&info));
	info.flags = 0;
	info.reserved[1] = 1;
	EXPECT_EQ(-EINVAL, utrace_ioctl(fd, UTRACE_IOC_GET_SYSCALL_INFO,
					&info));
	kill_tracee(&t);
	close(fd);
	free(r);
}

TEST(signals_suppressed_and_injected)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct utrace_event_signal *sig;
	struct tracee t;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	t = start_tracee(signal_fn);
	signal(SIGUSR1, SIG_DFL);
	signal(SIGUSR2, SIG_DFL);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, 0,
				   UTRACE_EVMASK(UTRACE_EV_SIGNAL), 0, &id));
	go(&t);

	/* The first SIGUSR1 is suppressed... */
	ev = utrace_wait(r, UTRACE_EV_SIGNAL, WAIT_MS);
	ASSERT_NE(NULL, ev);
	sig = utrace_body(ev);
	EXPECT_EQ(SIGUSR1, sig->signo);
	EXPECT_EQ(SI_TKILL, sig->code);
	EXPECT_EQ(t.pid, sig->pid);
	EXPECT_EQ(2, sig->disposition);
	EXPECT_EQ(UTRACE_EVF_STOPPED, ev->flags);
	ASSERT_EQ(0, utrace_ctl(fd, id, UTRACE_CTL_SIGNAL, UTRACE_CTL_RESUME, 0));

	/* ...the second turns into a SIGUSR2. */
	ev = utrace_wait(r, UTRACE_EV_SIGNAL, WAIT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(SIGUSR1, ((struct utrace_event_signal *)utrace_body(ev))->signo);
	ASSERT_EQ(0, utrace_ctl(fd, id, UTRACE_CTL_SIGNAL, UTRACE_CTL_RESUME,
				SIGUSR2));
	EXPECT_EQ(1, reap(&t));
	close(fd);
	free(r);
}

/*
 * What the tracee's SA_SIGINFO handler for SIGUSR1 saw, in memory it
 * shares with the test.
 */
struct seen_siginfo {
	int signo;		/* set last: the rest is there */
	int code;
	int value;
	pid_t pid;
	uid_t uid;
};

static struct seen_siginfo *seen;

static void on_usr1_info(int sig, siginfo_t *info, void *ucontext)
{
	seen->code = info->si_code;
	seen->value = info->si_value.sival_int;
	seen->pid = info->si_pid;
	seen->uid = info->si_uid;
	__atomic_store_n(&seen->signo, sig, __ATOMIC_RELEASE);
}

static int wait_for_usr1_fn(void)
{
	while (!__atomic_load_n(&seen->signo, __ATOMIC_ACQUIRE))
		usleep(1000);
	return 0;
}

/*
 * A tracee that runs @fn, which waits for its SIGUSR1 handler to run,
 * attached with stopping signal events, and let go; @seen says what the
 * handler saw.
 */
static struct tracee start_siginfo_tracee_fn(int fd, __u64 *id,
					     int (*fn)(void))
{
	struct sigaction sa = {
		.sa_sigaction = on_usr1_info,
		.sa_flags = SA_SIGINFO,
	}, old;
	struct tracee t;

	if (!seen) {
		seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (seen == MAP_FAILED)
			abort();
	}
	memset(seen, 0, sizeof(*seen));
	sigaction(SIGUSR1, &sa, &old);
	t = start_tracee(fn);
	sigaction(SIGUSR1, &old, NULL);
	if (utrace_attach(fd, t.pid, 0, UTRACE_EVMASK(UTRACE_EV_SIGNAL), 0, id))
		abort();
	go(&t);
	return t;
}

static struct tracee start_siginfo_tracee(int fd, __u64 *id)
{
	return start_siginfo_tracee_fn(fd, id, wait_for_usr1_fn);
}

/* Whether the @len bytes at @p are all zero. */
static bool all_zero(const void *p, size_t len)
{
	const unsigned char *c = p;

	while (len--)
		if (*c++)
			return false;
	return true;
}

TEST(siginfo_at_a_signal_stop_is_the_senders)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t;
	siginfo_t info;
	size_t done;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	t = start_siginfo_tracee(fd, &id);
	ASSERT_EQ(0, kill(t.pid, SIGUSR1));
	ev = utrace_wait(r, UTRACE_EV_SIGNAL, WAIT_MS);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(UTRACE_EVF_STOPPED, ev->flags);

	/* All of the buffer is written: the fields, and zeros after them. */
	memset(&info, 0xa5, sizeof(info));
	ASSERT_EQ(0, utrace_siginfo(fd, id, UTRACE_IOC_GET_SIGINFO, &info,
				    sizeof(info), &done));
	EXPECT_EQ(sizeof(info), done);
	EXPECT_EQ(SIGUSR1, info.si_signo);
	EXPECT_EQ(0, info.si_errno);
	EXPECT_EQ(SI_USER, info.si_code);
	EXPECT_EQ(getpid(), info.si_pid);
	EXPECT_EQ(getuid(), info.si_uid);
	EXPECT_TRUE(all_zero((char *)&info + 24, sizeof(info) - 24));

	/* Resumed, the thread gets the signal with that siginfo. */
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	EXPECT_EQ(0, reap(&t));
	EXPECT_EQ(SIGUSR1, seen->signo);
	EXPECT_EQ(SI_USER, seen->code);
	EXPECT_EQ(getpid(), seen->pid);
	EXPECT_EQ(getuid(), seen->uid);
	close(fd);
	free(r);
}

TEST(siginfo_written_is_what_the_handler_gets)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	union sigval value = { .sival_int = 1234 };
	struct utrace_event_header *ev;
	struct tracee t;
	siginfo_t info, back;
	size_t done;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	t = start_siginfo_tracee(fd, &id);
	ASSERT_EQ(0, sigqueue(t.pid, SIGUSR1, value));
	ev = utrace_wait(r, UTRACE_EV_SIGNAL, WAIT_MS);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(UTRACE_EVF_STOPPED, ev->flags);

	ASSERT_EQ(0, utrace_siginfo(fd, id, UTRACE_IOC_GET_SIGINFO, &info,
				    sizeof(info), &done));
	EXPECT_EQ(SI_QUEUE, info.si_code);
	EXPECT_EQ(1234, info.si_value.sival_int);
	EXPECT_EQ(getpid(), info.si_pid);

	/* Another code and value: read back as written... */
	info.si_code = SI_MESGQ;
	info.si_value.sival_int = 4321;
	ASSERT_EQ(0, utrace_siginfo(fd, id, UTRACE_IOC_SET_SIGINFO, &info,
				    sizeof(info), &done));
	EXPECT_EQ(sizeof(info), done);
	ASSERT_EQ(0, utrace_siginfo(fd, id, UTRACE_IOC_GET_SIGINFO, &back,
				    sizeof(back), &done));
	EXPECT_EQ(0, memcmp(&info, &back, sizeof(info)));

	/* ...and what the handler gets once the signal is delivered. */
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	EXPECT_EQ(0, reap(&t));
	EXPECT_EQ(SIGUSR1, seen->signo);
	EXPECT_EQ(SI_MESGQ, seen->code);
	EXPECT_EQ(4321, seen->value);
	EXPECT_EQ(getpid(), seen->pid);
	close(fd);
	free(r);
}

TEST(a_signal_given_instead_comes_from_the_tracer)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	t = start_siginfo_tracee(fd, &id);
	ASSERT_EQ(0, kill(t.pid, SIGUSR2));
	ev = utrace_wait(r, UTRACE_EV_SIGNAL, WAIT_MS);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(SIGUSR2, ((struct utrace_event_signal *)utrace_body(ev))->signo);

	/* SIGUSR1 instead: sent by the tracer, as kill() would send it. */
	ASSERT_EQ(0, utrace_ctl(fd, id, UTRACE_CTL_SIGNAL, UTRACE_CTL_RESUME,
				SIGUSR1));
	EXPECT_EQ(0, reap(&t));
	EXPECT_EQ(SIGUSR1, seen->signo);
	EXPECT_EQ(SI_USER, seen->code);
	EXPECT_EQ(getpid(), seen->pid);
	EXPECT_EQ(getuid(), seen->uid);
	close(fd);
	free(r);
}

/* The tracee is pid 1 of a pid namespace the tracer is outside of. */
static int sigqueue_self_fn(void)
{
	union sigval value = { .sival_int = 77 };

	if (getpid() != 1 || sigqueue(getpid(), SIGUSR1, value))
		return 1;
	return wait_for_usr1_fn();
}

TEST(a_held_signal_keeps_its_sender_across_pid_namespaces)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, unshare(CLONE_NEWPID));
	utrace_reader_init(r, fd);
	t = start_siginfo_tracee_fn(fd, &id, sigqueue_self_fn);
	ev = utrace_wait(r, UTRACE_EV_SIGNAL, WAIT_MS);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(UTRACE_EVF_STOPPED, ev->flags);

	/* Let go, it gets the siginfo its sender gave: pid 1, not 0. */
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	EXPECT_EQ(0, reap(&t));
	EXPECT_EQ(SIGUSR1, seen->signo);
	EXPECT_EQ(SI_QUEUE, seen->code);
	EXPECT_EQ(77, seen->value);
	EXPECT_EQ(1, seen->pid);
	close(fd);
	free(r);
}

/* What the tracee's real-time signal handler saw, in order. */
struct seen_rt {
	int count;
	int values[3];
};

static struct seen_rt *seen_rt;

static void on_rt(int sig, siginfo_t *info, void *ucontext)
{
	int n = __atomic_fetch_add(&seen_rt->count, 1, __ATOMIC_ACQ_REL);

	if (n < 3)
		seen_rt->values[n] = info->si_value.sival_int;
}

/*
 * Queue three values of SIGRTMIN to this thread while it is blocked, then
 * take them.  Thread-directed: a process-wide signal held and given back
 * to the thread's own queue would come first anyway.
 */
static int rt_order_fn(void)
{
	struct sigaction sa = {
		.sa_sigaction = on_rt,
		.sa_flags = SA_SIGINFO,
	};
	sigset_t set;
	int i;

	sigaction(SIGRTMIN, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (i = 1; i <= 3; i++)
		pthread_sigqueue(pthread_self(), SIGRTMIN,
				 (union sigval){ .sival_int = i });
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	return __atomic_load_n(&seen_rt->count, __ATOMIC_ACQUIRE) == 3 ? 0 : 1;
}

TEST(held_real_time_signals_keep_their_order)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t;
	int fd = utrace_open(), stops;
	__u64 id;

	ASSERT_GE(fd, 0);
	seen_rt = mmap(NULL, sizeof(*seen_rt), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, seen_rt);
	utrace_reader_init(r, fd);
	t = start_tracee(rt_order_fn);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, 0,
				   UTRACE_EVMASK(UTRACE_EV_SIGNAL), 0, &id));
	go(&t);

	/* Each is held at its stop and let go, in the order they came. */
	for (stops = 0; stops < 3; stops++) {
		ev = utrace_wait(r, UTRACE_EV_SIGNAL, stops ? 3000 : WAIT_MS);
		if (!ev)
			break;
		ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	}
	EXPECT_EQ(0, reap(&t));
	EXPECT_EQ(3, seen_rt->count);
	EXPECT_EQ(1, seen_rt->values[0]);
	EXPECT_EQ(2, seen_rt->values[1]);
	EXPECT_EQ(3, seen_rt->values[2]);
	munmap(seen_rt, sizeof(*seen_rt));
	close(fd);
	free(r);
}

TEST(siginfo_needs_a_thread_stopped_at_a_signal)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	char big[sizeof(siginfo_t) + 64];
	struct tracee t;
	siginfo_t info;
	size_t done;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	t = start_siginfo_tracee(fd, &id);
	memset(&info, 0, sizeof(info));
	info.si_signo = SIGUSR1;
	info.si_code = SI_USER;

	/* Running: the device's "not stopped". */
	EXPECT_EQ(-EBUSY, utrace_siginfo(fd, id, UTRACE_IOC_GET_SIGINFO,
					 &info, sizeof(info), &done));
	EXPECT_EQ(-EBUSY, utrace_siginfo(fd, id, UTRACE_IOC_SET_SIGINFO,
					 &info, sizeof(info), &done));
	EXPECT_EQ(-ESRCH, utrace_siginfo(fd, id + 1000, UTRACE_IOC_GET_SIGINFO,
					 &info, sizeof(info), &done));

	/* Stopped, but not at a signal: no siginfo, as for ptrace. */
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_STOP, 0));
	ASSERT_NE(NULL, utrace_wait(r, UTRACE_EV_STOP, WAIT_MS));
	EXPECT_EQ(-EINVAL, utrace_siginfo(fd, id, UTRACE_IOC_GET_SIGINFO,
					  &info, sizeof(info), &done));
	EXPECT_EQ(-EINVAL, utrace_siginfo(fd, id, UTRACE_IOC_SET_SIGINFO,
					  &info, sizeof(info), &done));
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));

	/* At a signal: bad buffers and bad siginfos. */
	ASSERT_EQ(0, kill(t.pid, SIGUSR1));
	ev = utrace_wait(r, UTRACE_EV_SIGNAL, WAIT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(-EINVAL, utrace_siginfo(fd, id, UTRACE_IOC_GET_SIGINFO,
					  &info, sizeof(info) - 1, &done));
	EXPECT_EQ(-EFAULT, utrace_siginfo(fd, id, UTRACE_IOC_GET_SIGINFO,
					  NULL, sizeof(info), &done));
	EXPECT_EQ(-EFAULT, utrace_siginfo(fd, id, UTRACE_IOC_SET_SIGINFO,
					  NULL, sizeof(info), &done));
	info.si_signo = 0;
	EXPECT_EQ(-EINVAL, utrace_siginfo(fd, id, UTRACE_IOC_SET_SIGINFO,
					  &info, sizeof(info), &done));
	info.si_signo = 65;
	EXPECT_EQ(-EINVAL, utrace_siginfo(fd, id, UTRACE_IOC_SET_SIGINFO,
					  &info, sizeof(info), &done));
	/*
	 * A code of no layout the kernel knows, with bytes past those it
	 * keeps: refused, as copy_siginfo_from_user() refuses it.
	 */
	info.si_signo = SIGUSR1;
	info.si_code = 100;
	((char *)&info)[100] = 1;
	EXPECT_EQ(-E2BIG, utrace_siginfo(fd, id, UTRACE_IOC_SET_SIGINFO,
					 &info, sizeof(info), &done));
	/* A bigger buffer takes the siginfo alone. */
	memset(big, 0xa5, sizeof(big));
	ASSERT_EQ(0, utrace_siginfo(fd, id, UTRACE_IOC_GET_SIGINFO, big,
				    sizeof(big), &done));
	EXPECT_EQ(sizeof(siginfo_t), done);
	EXPECT_EQ(SIGUSR1, ((siginfo_t *)big)->si_signo);
	EXPECT_EQ((char)0xa5, big[sizeof(siginfo_t)]);

	/* The signal suppressed, a later stop has no siginfo either. */
	ASSERT_EQ(0, utrace_ctl(fd, id, UTRACE_CTL_SIGNAL, UTRACE_CTL_RESUME,
				0));
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_STOP, 0));
	ASSERT_NE(NULL, utrace_wait(r, UTRACE_EV_STOP, WAIT_MS));
	EXPECT_EQ(-EINVAL, utrace_siginfo(fd, id, UTRACE_IOC_GET_SIGINFO,
					  &info, sizeof(info), &done));
	EXPECT_EQ(0, seen->signo);

	kill_tracee(&t);
	close(fd);
	free(r);
}

/* Every request, with a size, flags or reserved field it must refuse. */
static const struct {
	unsigned long cmd;
	size_t size, ver0;
	size_t flags_offset;	/* 0: no flags field */
	size_t reserved_offset;
} requests[] = {
#define REQ(cmd, type, ver0) \
	{ cmd, sizeof(struct type), ver0, offsetof(struct type, flags), \
	  offsetof(struct type, reserved) }
	REQ(UTRACE_IOC_ATTACH, utrace_attach, UTRACE_ATTACH_SIZE_VER0),
	REQ(UTRACE_IOC_DETACH, utrace_detach, UTRACE_DETACH_SIZE_VER0),
	REQ(UTRACE_IOC_SET_EVENTS, utrace_event_mask, UTRACE_EVENTS_SIZE_VER0),
	REQ(UTRACE_IOC_CONTROL, utrace_control, UTRACE_CONTROL_SIZE_VER0),
	REQ(UTRACE_IOC_GET_REGSET, utrace_regset, UTRACE_REGSET_SIZE_VER0),
	REQ(UTRACE_IOC_SET_REGSET, utrace_regset, UTRACE_REGSET_SIZE_VER0),
	REQ(UTRACE_IOC_READ_MEM, utrace_mem, UTRACE_MEM_SIZE_VER0),
	REQ(UTRACE_IOC_WRITE_MEM, utrace_mem, UTRACE_MEM_SIZE_VER0),
	REQ(UTRACE_IOC_SET_WATCH, utrace_watch, UTRACE_WATCH_SIZE_VER0),
	REQ(UTRACE_IOC_CLEAR_WATCH, utrace_watch, UTRACE_WATCH_SIZE_VER0),
	REQ(UTRACE_IOC_SET_SYSCALLS, utrace_syscalls, UTRACE_SYSCALLS_SIZE_VER0),
	REQ(UTRACE_IOC_GET_SIGINFO, utrace_siginfo, UTRACE_SIGINFO_SIZE_VER0),
	REQ(UTRACE_IOC_SET_SIGINFO, utrace_siginfo, UTRACE_SIGINFO_SIZE_VER0),
#undef REQ
};

TEST(bad_requests_get_clear_errors)
{
	char *unmapped = mmap(NULL, 4096, PROT_NONE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	__u64 buf[128];
	unsigned int i;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	for (i = 0; i < sizeof(requests) / sizeof(requests[0]); i++) {
		unsigned long cmd = requests[i].cmd;
		__u32 *size = (__u32 *)buf;

		TH_LOG("request %#lx", cmd);
		memset(buf, 0, sizeof(buf));
		*size = 0;
		EXPECT_EQ(-EINVAL, utrace_ioctl(fd, cmd, buf));
		*size = requests[i].ver0 - 8;
		EXPECT_EQ(-EINVAL, utrace_ioctl(fd, cmd, buf));
		*size = 4097;
		EXPECT_EQ(-EINVAL, utrace_ioctl(fd, cmd, buf));
		/* A newer, bigger struct is fine while the new bytes are 0... */
		*size = requests[i].size + 8;
		buf[requests[i].size / 8] = 1;
		EXPECT_EQ(-E2BIG, utrace_ioctl(fd, cmd, buf));
		buf[requests[i].size / 8] = 0;

		*size = requests[i].size;
		*(__u32 *)((char *)buf + requests[i].flags_offset) = 0x80000000;
		EXPECT_EQ(-EINVAL, utrace_ioctl(fd, cmd, buf));
		*(__u32 *)((char *)buf + requests[i].flags_offset) = 0;
		*(__u64 *)((char *)buf + requests[i].reserved_offset) = 1;
		EXPECT_EQ(-EINVAL, utrace_ioctl(fd, cmd, buf));

		EXPECT_EQ(-EFAULT, utrace_ioctl(fd, cmd, NULL));
		EXPECT_EQ(-EFAULT, utrace_ioctl(fd, cmd, unmapped));
	}
	EXPECT_EQ(-ENOTTY, utrace_ioctl(fd, _IO(UTRACE_IOC_MAGIC, 0x7f), buf));
	EXPECT_EQ(-ENOTTY, utrace_ioctl(fd, _IO('X', 1), buf));
	close(fd);
}

TEST(bad_threads_and_states)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct user_regs_struct regs;
	struct tracee t = start_tracee(spin_fn);
	char small[8], buf[64], *area;
	size_t done;
	__u64 id, other_id;
	int fd = utrace_open(), other = utrace_open();
	struct tracee t2 = start_tracee(spin_fn);

	ASSERT_GE(fd, 0);
	ASSERT_GE(other, 0);
	utrace_reader_init(r, fd);
	/* No such thread, a tid that is not a thread, the pid 0 without
	 * launch, and unknown event bits. */
	EXPECT_EQ(-ESRCH, utrace_attach(fd, INT_MAX - 1, 0, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, utrace_attach(fd, 0, 0, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, utrace_attach(fd, t.pid, 0, 1ULL << 40, 0, NULL));
	EXPECT_EQ(-EINVAL, utrace_attach(fd, t.pid, 0, 0,
					 UTRACE_EVMASK(UTRACE_EV_EXEC), NULL));
	/* Our own process, as ptrace refuses it: it would stop its reader. */
	EXPECT_EQ(-EPERM, utrace_attach(fd, getpid(), UTRACE_ATTACH_STOP, 0,
					0, NULL));
	EXPECT_EQ(-EPERM, utrace_attach(fd, gettid(), UTRACE_ATTACH_GROUP, 0,
					0, NULL));

	go(&t);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, 0, 0, 0, &id));
	/* Running: no registers, no memory, no step. */
	EXPECT_EQ(-EBUSY, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET,
				      NT_PRSTATUS, &regs, sizeof(regs), &done));
	EXPECT_EQ(-EBUSY, utrace_mem(fd, id, UTRACE_IOC_READ_MEM,
				     (uintptr_t)&watched, buf, 8, &done));
	EXPECT_EQ(-EBUSY, utrace_ctl(fd, id, 0, UTRACE_CTL_SINGLESTEP, 0));
	/* An id never given, and one another session gave. */
	EXPECT_EQ(-ESRCH, utrace_ctl(fd, id + 1000, 0, UTRACE_CTL_STOP, 0));
	ASSERT_EQ(0, utrace_attach(other, t2.pid, 0, 0, 0, &other_id));
	EXPECT_NE(id, other_id);
	EXPECT_EQ(-ESRCH, utrace_ctl(fd, other_id, 0, UTRACE_CTL_STOP, 0));
	/* Nonsense actions and signals. */
	EXPECT_EQ(-EINVAL, utrace_ctl(fd, id, 0, 99, 0));
	EXPECT_EQ(-EINVAL, utrace_ctl(fd, id, UTRACE_CTL_SIGNAL,
				      UTRACE_CTL_RESUME, 999));
	EXPECT_EQ(-EINVAL, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 9));

	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_STOP, 0));
	ASSERT_NE(NULL, utrace_wait(r, UTRACE_EV_STOP, WAIT_MS));
	/*
	 * Stopped: an unknown register set, and a huge length into a page
	 * followed by a hole, which the copy runs into.
	 */
	EXPECT_EQ(-EINVAL, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET, 0x9999,
				       &regs, sizeof(regs), &done));
	area = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	ASSERT_EQ(0, mprotect(area + 4096, 4096, PROT_NONE));
	EXPECT_EQ(-EFAULT, utrace_mem(fd, id, UTRACE_IOC_READ_MEM,
				      (uintptr_t)spin_start & ~4095UL, area,
				      1ULL << 62, &done));
	EXPECT_EQ(-EFAULT, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET,
				       NT_PRSTATUS, NULL, sizeof(regs), &done));

	/* read(): too small a buffer for a record, and nothing queued. */
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_SINGLESTEP, 0));
	usleep(200000);
	EXPECT_EQ(-1, read(fd, small, sizeof(small)));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_NE(NULL, utrace_wait(r, UTRACE_EV_STEP, WAIT_MS));
	ASSERT_EQ(0, fcntl(fd, F_SETFL, O_NONBLOCK));
	EXPECT_EQ(-1, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(EAGAIN, errno);

	kill_tracee(&t);
	kill_tracee(&t2);
	close(fd);
	close(other);
	free(r);
}

TEST(one_exclusive_session_per_thread)
{
	struct utrace_reader *ra = malloc(sizeof(*ra)), *rb = malloc(sizeof(*rb));
	struct tracee t1 = start_tracee(spin_fn), t2 = start_tracee(spin_fn);
	int a = utrace_open(), b = utrace_open();
	__u64 id1, id2;

	ASSERT_GE(a, 0);
	ASSERT_GE(b, 0);
	utrace_reader_init(ra, a);
	utrace_reader_init(rb, b);
	go(&t1);
	go(&t2);
	/* Two sessions, two processes: both work at once. */
	ASSERT_EQ(0, utrace_attach(a, t1.pid, UTRACE_ATTACH_STOP, 0, 0, &id1));
	ASSERT_EQ(0, utrace_attach(b, t2.pid, UTRACE_ATTACH_STOP, 0, 0, &id2));
	ASSERT_NE(NULL, utrace_wait(ra, UTRACE_EV_STOP, WAIT_MS));
	ASSERT_NE(NULL, utrace_wait(rb, UTRACE_EV_STOP, WAIT_MS));
	/* One process, two sessions: the second is refused. */
	EXPECT_EQ(-EBUSY, utrace_attach(b, t1.pid, 0, 0, 0, NULL));
	EXPECT_EQ(-EBUSY, utrace_attach(a, t1.pid, 0, 0, 0, NULL));
	kill_tracee(&t1);
	kill_tracee(&t2);
	close(a);
	close(b);
	free(ra);
	free(rb);
}

TEST(poll_fdinfo_and_hangup)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct pollfd pfd;
	struct tracee t = start_tracee(syscalls_fn);
	char path[64], info[4096], expect[64];
	ssize_t n;
	__u64 id;
	int fd = utrace_open(), info_fd;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, 0, UTRACE_EVMASK(UTRACE_EV_DEATH),
				   UTRACE_EVMASK(UTRACE_EV_DEATH), &id));

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	info_fd = open(path, O_RDONLY);
	ASSERT_GE(info_fd, 0);
	n = read(info_fd, info, sizeof(info) - 1);
	ASSERT_GT(n, 0);
	info[n] = '\0';
	snprintf(expect, sizeof(expect), "id %llu tid %d running",
		 (unsigned long long)id, t.pid);
	EXPECT_NE(NULL, strstr(info, expect));
	close(info_fd);

	pfd.fd = fd;
	pfd.events = POLLIN;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	go(&t);
	EXPECT_EQ(0, reap(&t));
	ASSERT_EQ(1, poll(&pfd, 1, WAIT_MS));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_NE(NULL, utrace_wait(r, UTRACE_EV_DEATH, WAIT_MS));
	/* Nothing left to trace: hang-up, and read() says end of stream. */
	ASSERT_EQ(1, poll(&pfd, 1, WAIT_MS));
	EXPECT_EQ(POLLHUP, pfd.revents);
	EXPECT_EQ(0, read(fd, info, sizeof(info)));
	/* The dead thread's id names nothing any more. */
	EXPECT_EQ(-ESRCH, utrace_ctl(fd, id, 0, UTRACE_CTL_STOP, 0));
	close(fd);
	free(r);
}

/* UTRACE_CTL_HOLD, whose result is the ioctl's return value. */
static int utrace_hold(int fd, __u64 id, __u32 flags)
{
	struct utrace_control req = {
		.size = sizeof(req), .flags = flags, .id = id,
		.action = UTRACE_CTL_HOLD,
	};
	int ret = ioctl(fd, UTRACE_IOC_CONTROL, &req);

	return ret < 0 ? -errno : ret;
}

TEST(hold_leaves_a_sleeping_thread_asleep_and_interrupts_a_running_one)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(spin_fn);
	__u64 id, pc;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, 0, 0, 0, &id));
	wait_blocked(&t);

	/* Asleep in read(): held there, not woken, no record. */
	EXPECT_EQ(1, utrace_hold(fd, id, 0));
	EXPECT_EQ(NULL, utrace_next(r, 300));
	EXPECT_EQ(ETIMEDOUT, errno);
	EXPECT_EQ('S', proc_state(t.pid));
	/* Woken, it stops on its way out, before any code of its own. */
	go(&t);
	ev = utrace_wait(r, UTRACE_EV_STOP, WAIT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(UTRACE_EVF_STOPPED, ev->flags);
	pc = ((struct utrace_event_pc *)utrace_body(ev))->pc;
	EXPECT_FALSE(pc >= (uintptr_t)spin_start && pc < (uintptr_t)spin_end);
	EXPECT_EQ('t', wait_proc_state(t.pid, 't'));
	/* A stopped thread counts as held. */
	EXPECT_EQ(1, utrace_hold(fd, id, 0));

	/* Running: interrupted, and its stop is reported. */
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	usleep(100000);
	EXPECT_EQ('R', proc_state(t.pid));
	EXPECT_EQ(0, utrace_hold(fd, id, 0));
	ev = utrace_wait(r, UTRACE_EV_STOP, WAIT_MS);
	ASSERT_NE(NULL, ev);
	pc = ((struct utrace_event_pc *)utrace_body(ev))->pc;
	EXPECT_TRUE(pc >= (uintptr_t)spin_start && pc <= (uintptr_t)spin_end);

	/* One thread at a time. */
	EXPECT_EQ(-EINVAL, utrace_hold(fd, 0, UTRACE_ALL_THREADS));
	kill_tracee(&t);
	close(fd);
	free(r);
}

#define CLONE_TRIES 10

static int clone_loop_fn(void)
{
	pthread_t thread;
	int i;

	for (i = 0; i < CLONE_TRIES; i++) {
		if (pthread_create(&thread, NULL, thread_exit_fn, NULL))
			return 1;
		pthread_join(thread, NULL);
	}
	return 0;
}

/*
 * A stop asked of a thread on its way into clone() (resumed from its
 * system call entry, then stopped at once, long before the clone is
 * done) is pending when it creates the child: the child starts stopped,
 * with a STOP record before any other, and the clone record says so.  A
 * child cloned with no stop pending runs at once.  The stop, asked of a
 * thread resumed a moment before, is reported all the same.
 */
TEST(a_thread_cloned_with_a_stop_pending_starts_stopped)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 events = UTRACE_EVMASK(UTRACE_EV_SYSCALL_ENTRY) |
		       UTRACE_EVMASK(UTRACE_EV_CLONE) |
		       UTRACE_EVMASK(UTRACE_EV_DEATH);
	__u64 nonstop = events & ~UTRACE_EVMASK(UTRACE_EV_SYSCALL_ENTRY);
	struct {
		__u64 id;
		bool stopped;		/* UTRACE_CLONE_STOPPED */
		int first;		/* its first record's type */
	} children[CLONE_TRIES] = {};
	struct tracee t = start_tracee(clone_loop_fn);
	struct utrace_event_header *ev;
	struct utrace_event_clone *clone;
	struct utrace_event_syscall *sc;
	int nr_children = 0, nr_stopped = 0, i;
	__u64 id;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	ASSERT_EQ(0, utrace_attach(fd, t.pid, UTRACE_ATTACH_CLONES, events,
				   nonstop, &id));
	go(&t);
	while ((ev = utrace_next(r, WAIT_MS))) {
		if (ev->type == UTRACE_EV_DEATH && ev->id == id)
			break;
		if (ev->type == UTRACE_EV_CLONE) {
			clone = utrace_body(ev);
			ASSERT_LT(nr_children, CLONE_TRIES);
			ASSERT_NE(0, clone->child_id);
			EXPECT_EQ(0, clone->child_flags & ~UTRACE_CLONE_STOPPED);
			children[nr_children].id = clone->child_id;
			children[nr_children].stopped =
				clone->child_flags & UTRACE_CLONE_STOPPED;
			nr_stopped += children[nr_children].stopped;
			nr_children++;
		}
		for (i = 0; i < nr_children; i++)
			if (children[i].id == ev->id && !children[i].first)
				children[i].first = ev->type;
		if (!(ev->flags & UTRACE_EVF_STOPPED))
			continue;
		ASSERT_EQ(0, utrace_ctl(fd, ev->id, 0, UTRACE_CTL_RESUME, 0));
		if (ev->type != UTRACE_EV_SYSCALL_ENTRY || ev->id != id)
			continue;
		sc = utrace_body(ev);
		if (sc->nr == SYS_clone || sc->nr == SYS_clone3)
			ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_STOP, 0));
	}
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(CLONE_TRIES, nr_children);
	for (i = 0; i < nr_children; i++) {
		if (children[i].stopped) {
			EXPECT_EQ(UTRACE_EV_STOP, children[i].first);
		} else {
			EXPECT_NE(UTRACE_EV_STOP, children[i].first);
		}
	}
	/* The clone takes far longer than the request: it is seen. */
	EXPECT_GT(nr_stopped, 0);
	TH_LOG("%d of %d children started stopped", nr_stopped, nr_children);
	EXPECT_EQ(0, reap(&t));
	close(fd);
	free(r);
}

static int attach_errno(void *arg)
{
	int fd = utrace_open();

	if (fd < 0)
		return 101;
	return -utrace_attach(fd, *(pid_t *)arg, 0, 0, 0, NULL);
}

/* As user 65534: attach to a child of our own, and to @arg. */
static int attach_child_and_other(void *arg)
{
	struct tracee child = start_tracee(spin_fn);
	int fd = utrace_open(), ret;

	if (fd < 0)
		return 101;
	ret = utrace_attach(fd, child.pid, 0, 0, 0, NULL);
	kill_tracee(&child);
	if (ret)
		return 102;
	return -utrace_attach(fd, *(pid_t *)arg, 0, 0, 0, NULL);
}

static int spin_as_nobody(void)
{
	if (become(65534))
		return 100;
	return spin_fn();
}

static int spin_as_other(void)
{
	if (become(65533))
		return 100;
	return spin_fn();
}

TEST(permission_is_ptrace_permission)
{
	struct tracee root = start_tracee(spin_fn);
	struct tracee other = start_tracee(spin_as_other);
	struct tracee same = start_tracee(spin_as_nobody);
	const char *scope = "/proc/sys/kernel/yama/ptrace_scope";

	go(&root);
	go(&other);
	go(&same);
	usleep(100000);
	ASSERT_EQ(0, write_file(scope, "0"));
	/* A root process, another user's process: no. */
	EXPECT_EQ(EPERM, as_user(65534, attach_errno, &root.pid));
	EXPECT_EQ(EPERM, as_user(65534, attach_errno, &other.pid));
	/* The same user's process: yes, unless Yama says only children. */
	EXPECT_EQ(0, as_user(65534, attach_errno, &same.pid));
	ASSERT_EQ(0, write_file(scope, "1"));
	EXPECT_EQ(EPERM, as_user(65534, attach_child_and_other, &same.pid));
	ASSERT_EQ(0, write_file(scope, "0"));
	kill_tracee(&root);
	kill_tracee(&other);
	kill_tracee(&same);
}

#define MANY_THREADS 50

static volatile long *counters;

/*
 * Observers: they only watch, share the thread with a controlling session
 * and with ptrace, and leave a set-user-ID exec its privileges.
 */
#define OBSERVER_EVENTS	(UTRACE_EVMASK(UTRACE_EV_SYSCALL_EXIT) | \
			 UTRACE_EVMASK(UTRACE_EV_EXEC) | \
			 UTRACE_EVMASK(UTRACE_EV_DEATH))

static int utrace_observe(int fd, pid_t tid, __u64 events, __u64 *id)
{
	return utrace_attach(fd, tid, UTRACE_ATTACH_OBSERVE, events, events,
			     id);
}

TEST(an_observer_only_watches)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct tracee t = start_tracee(flood_fn);
	struct user_regs_struct regs;
	struct utrace_watch watch = {
		.size = sizeof(watch),
		.addr = (uintptr_t)&watched,
		.len = 8,
		.kind = UTRACE_WATCH_WRITE,
	};
	__u64 id, stopping = UTRACE_EVMASK(UTRACE_EV_SYSCALL_EXIT);
	int fd = utrace_open(), n = 0;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	/* Nothing that stops, or that the tracer must answer. */
	EXPECT_EQ(-EINVAL, utrace_attach(fd, t.pid, UTRACE_ATTACH_OBSERVE,
					 stopping, 0, NULL));
	EXPECT_EQ(-EINVAL, utrace_attach(fd, t.pid, UTRACE_ATTACH_OBSERVE |
					 UTRACE_ATTACH_STOP, 0, 0, NULL));
	EXPECT_EQ(-EINVAL, utrace_observe(fd, t.pid,
					  UTRACE_EVMASK(UTRACE_EV_SECCOMP),
					  NULL));
	EXPECT_EQ(-EINVAL, utrace_observe(fd, t.pid,
					  UTRACE_EVMASK(UTRACE_EV_BREAKPOINT),
					  NULL));
	ASSERT_EQ(0, utrace_observe(fd, t.pid, OBSERVER_EVENTS, &id));
	EXPECT_EQ(-EINVAL, utrace_events(fd, id, stopping, 0));

	/* No control, no watchpoint, no stopped-thread request. */
	EXPECT_EQ(-EPERM, utrace_ctl(fd, id, 0, UTRACE_CTL_STOP, 0));
	EXPECT_EQ(-EPERM, utrace_ctl(fd, id, 0, UTRACE_CTL_HOLD, 0));
	EXPECT_EQ(-EPERM, utrace_ctl(fd, id, 0, UTRACE_CTL_INTERRUPT, 0));
	EXPECT_EQ(0, utrace_ctl(fd, 0, UTRACE_ALL_THREADS, UTRACE_CTL_STOP, 0));
	watch.id = id;
	EXPECT_EQ(-EPERM, utrace_ioctl(fd, UTRACE_IOC_SET_WATCH, &watch));
	EXPECT_EQ(-EBUSY, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET,
				      NT_PRSTATUS, &regs, sizeof(regs), NULL));

	/* Every call seen, none stopped for. */
	go(&t);
	while (utrace_wait(r, UTRACE_EV_SYSCALL_EXIT, WAIT_MS) && ++n < 100)
		;
	EXPECT_EQ(100, n);
	EXPECT_NE(NULL, utrace_wait(r, UTRACE_EV_DEATH, WAIT_MS * 5));
	EXPECT_EQ(0, reap(&t));
	close(fd);
	free(r);
}

TEST(observers_share_the_thread_with_a_controller_and_ptrace)
{
	struct utrace_reader *observer = malloc(sizeof(*observer));
	struct utrace_reader *controller = malloc(sizeof(*controller));
	struct tracee t = start_tracee(syscalls_fn);
	struct utrace_event_header *ev;
	struct utrace_event_syscall *sc;
	int obs = utrace_open(), obs2 = utrace_open(), ctl = utrace_open();
	int status, saw_getppid = 0;
	__u64 obs_id, ctl_id;

	ASSERT_GE(obs, 0);
	ASSERT_GE(obs2, 0);
	ASSERT_GE(ctl, 0);
	utrace_reader_init(observer, obs);
	utrace_reader_init(controller, ctl);
	ASSERT_EQ(0, utrace_observe(obs, t.pid, OBSERVER_EVENTS, &obs_id));
	ASSERT_EQ(0, utrace_observe(obs2, t.pid, OBSERVER_EVENTS, NULL));

	/* ptrace can have the thread beside observers... */
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, t.pid, 0, 0));
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, t.pid, 0, 0));
	ASSERT_EQ(t.pid, waitpid(t.pid, &status, __WALL));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, t.pid, 0, 0));
	close(obs2);

	/* ...and so can one controlling session, which alone stops it. */
	ASSERT_EQ(0, utrace_attach(ctl, t.pid, 0, OBSERVER_EVENTS,
				   UTRACE_EVMASK(UTRACE_EV_DEATH), &ctl_id));
	EXPECT_EQ(-EBUSY, utrace_attach(obs, t.pid, 0, OBSERVER_EVENTS,
					OBSERVER_EVENTS, NULL));
	go(&t);
	while ((ev = utrace_next(controller, WAIT_MS)) &&
	       ev->type != UTRACE_EV_DEATH) {
		EXPECT_EQ(UTRACE_EVF_STOPPED, ev->flags);
		ASSERT_EQ(0, utrace_ctl(ctl, ctl_id, 0, UTRACE_CTL_RESUME, 0));
	}
	EXPECT_NE(NULL, ev);
	while ((ev = utrace_next(observer, WAIT_MS)) &&
	       ev->type != UTRACE_EV_DEATH) {
		EXPECT_EQ(0, ev->flags);
		sc = utrace_body(ev);
		if (ev->type == UTRACE_EV_SYSCALL_EXIT && sc->nr == SYS_getppid) {
			EXPECT_EQ(getpid(), sc->ret);
			saw_getppid = 1;
		}
	}
	EXPECT_NE(NULL, ev);
	EXPECT_TRUE(saw_getppid);
	EXPECT_EQ(0, reap(&t));
	close(obs);
	close(ctl);
	free(observer);
	free(controller);
}

/*
 * A set-user-ID root copy of this program, which run with SETUID_ENV set
 * exits at once, with 1 if it runs as root.
 */
#define SETUID_COPY	"/tmp/utrace_test_setuid"
#define SETUID_ENV	"UTRACE_TEST_REPORT_EUID"
#define NOBODY		65534

__attribute__((constructor)) static void report_euid(void)
{
	if (getenv(SETUID_ENV))
		_exit(geteuid() == 0 ? 1 : 0);
}

/* As user NOBODY, exec the set-user-ID copy. */
static int exec_setuid_copy_fn(void)
{
	char *envp[] = { SETUID_ENV "=1", NULL };
	char *argv[] = { SETUID_COPY, NULL };

	if (become(NOBODY))
		return 100;
	execve(SETUID_COPY, argv, envp);
	return 101;
}

/* What a tracer of exec_setuid_copy_fn() saw: flags of the attach. */
#define SETUID_NOT_TRACED	(~0U)
#define SAW_ROOT		1	/* the program ran as root */
#define SAW_DETACHED		2	/* the session lost it at the exec */
#define SAW_DEATH		4	/* the session saw it die */

/* Trace exec_setuid_copy_fn() with attach @flags; what came of it, or 100+. */
static int trace_setuid_exec(void *arg)
{
	unsigned int flags = *(unsigned int *)arg;
	struct utrace_reader *r = malloc(sizeof(*r));
	struct tracee t = start_tracee(exec_setuid_copy_fn);
	struct utrace_event_header *ev;
	struct utrace_event_detached *detached;
	int fd = utrace_open(), saw = 0, status;

	if (fd < 0 || !r)
		return 101;
	utrace_reader_init(r, fd);
	if (flags != SETUID_NOT_TRACED &&
	    utrace_attach(fd, t.pid, flags, OBSERVER_EVENTS, OBSERVER_EVENTS,
			  NULL))
		return 102;
	go(&t);
	if (flags != SETUID_NOT_TRACED) {
		while ((ev = utrace_next(r, WAIT_MS))) {
			if (ev->type == UTRACE_EV_DEATH)
				saw |= SAW_DEATH;
			if (ev->type != UTRACE_EV_DETACHED)
				continue;
			detached = utrace_body(ev);
			if (detached->reason != UTRACE_DETACHED_PRIVILEGED_EXEC)
				return 103;
			saw |= SAW_DETACHED;
		}
		/* The end of the stream: nothing more traced. */
		if (errno)
			return 104;
	}
	close(t.go);
	if (waitpid(t.pid, &status, 0) != t.pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) > 1)
		return 105;
	close(fd);
	free(r);
	return saw | (WEXITSTATUS(status) ? SAW_ROOT : 0);
}

static int trace_setuid_exec_as(uid_t uid, unsigned int flags)
{
	return uid ? as_user(uid, trace_setuid_exec, &flags) :
		     trace_setuid_exec(&flags);
}

/*
 * A set-user-ID root program run by user NOBODY: root untraced; not root
 * under a controlling session of NOBODY's, as under ptrace, but root under
 * one of root's, which has CAP_SYS_PTRACE, as ptrace allows; root under an
 * observer, which then loses it unless the observer is root.
 */
TEST(setuid_exec_keeps_its_privileges_under_observers_and_capable_tracers)
{
	ASSERT_EQ(0, copy_self_setuid(SETUID_COPY));
	EXPECT_EQ(SAW_ROOT, trace_setuid_exec_as(NOBODY, SETUID_NOT_TRACED));
	EXPECT_EQ(SAW_DEATH, trace_setuid_exec_as(NOBODY, 0));
	EXPECT_EQ(SAW_ROOT | SAW_DEATH, trace_setuid_exec_as(0, 0));
	EXPECT_EQ(SAW_ROOT | SAW_DETACHED,
		  trace_setuid_exec_as(NOBODY, UTRACE_ATTACH_OBSERVE));
	EXPECT_EQ(SAW_ROOT | SAW_DEATH,
		  trace_setuid_exec_as(0, UTRACE_ATTACH_OBSERVE));
	unlink(SETUID_COPY);
}

static void *count_fn(void *arg)
{
	volatile long *counter = arg;

	for (;;)
		(*counter)++;
	return NULL;
}

static int many_threads_fn(void)
{
	pthread_t thread;
	int i;

	for (i = 0; i < MANY_THREADS; i++)
		pthread_create(&thread, NULL, count_fn, (void *)&counters[i]);
	for (;;)
		pause();
	return 0;
}

/*
 * How many of the counting threads count within @msecs: 50 runnable
 * threads on two emulated CPUs take a while to all get a turn.
 */
static int count_moving(int msecs)
{
	long start[MANY_THREADS];
	int i, moved, waited;

	for (i = 0; i < MANY_THREADS; i++)
		start[i] = counters[i];
	for (waited = 0; ; waited += 100) {
		moved = 0;
		for (i = 0; i < MANY_THREADS; i++)
			moved += counters[i] != start[i];
		if (moved == MANY_THREADS || waited >= msecs)
			return moved;
		usleep(100000);
	}
}

TEST(tracer_death_lets_every_thread_run)
{
	struct tracee t;
	int ready[2], status;
	pid_t tracer;
	char c;

	counters = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, counters);
	t = start_tracee(many_threads_fn);
	go(&t);
	ASSERT_EQ(MANY_THREADS, count_moving(20000));

	ASSERT_EQ(0, pipe(ready));
	tracer = fork();
	if (tracer == 0) {
		struct utrace_reader *r = malloc(sizeof(*r));
		int fd = utrace_open(), stopped = 0;

		utrace_reader_init(r, fd);
		if (utrace_attach(fd, t.pid, UTRACE_ATTACH_GROUP |
				  UTRACE_ATTACH_STOP, 0, 0, NULL))
			_exit(1);
		while (stopped < MANY_THREADS + 1 &&
		       utrace_wait(r, UTRACE_EV_STOP, WAIT_MS))
			stopped++;
		if (write(ready[1], "r", 1) != 1)
			_exit(2);
		for (;;)
			pause();
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	/* All held: nothing counts. */
	EXPECT_EQ(0, count_moving(1000));

	kill(tracer, SIGKILL);
	ASSERT_EQ(tracer, waitpid(tracer, &status, 0));
	/* The tracer's death released every one of them. */
	EXPECT_EQ(MANY_THREADS, count_moving(20000));
	kill_tracee(&t);
}

TEST(ia32_tracee_has_the_ia32_register_layout)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	char path[PATH_MAX], spin32[PATH_MAX + 32], regs[1024];
	struct utrace_event_header *ev;
	ssize_t n;
	size_t done;
	__u32 eip;
	__u64 id;
	pid_t pid;
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	ASSERT_GT(n, 0);
	path[n] = '\0';
	snprintf(spin32, sizeof(spin32), "%s/utrace_spin32", dirname(path));
	ASSERT_EQ(0, access(spin32, X_OK));

	utrace_reader_init(r, fd);
	pid = fork();
	if (pid == 0) {
		if (utrace_attach(fd, 0, UTRACE_ATTACH_LAUNCH, 0, 0, NULL))
			_exit(100);
		execl(spin32, spin32, NULL);
		_exit(101);
	}
	ev = utrace_wait(r, UTRACE_EV_EXEC, WAIT_MS);
	ASSERT_NE(NULL, ev);
	id = ev->id;
	/* struct user_regs_struct of i386: 17 registers of 4 bytes. */
	ASSERT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET, NT_PRSTATUS,
				 regs, sizeof(regs), &done));
	EXPECT_EQ(17 * 4, done);
	memcpy(&eip, regs + 12 * 4, sizeof(eip));
	EXPECT_NE(0, eip);
	EXPECT_LT(eip, 0x100000000ULL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(fd);
	free(r);
}

TEST_HARNESS_MAIN
