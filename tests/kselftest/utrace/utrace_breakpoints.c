// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests for /dev/utrace's breakpoints (UTRACE_IOC_INSERT_BREAKPOINT),
 * which go through uprobes: where a thread stops and with which registers,
 * that no other thread or process is touched, what fork, vfork, exec, death
 * and the end of the session do to them, and the errors of bad requests.
 *
 * The tracees are forks of this program, so the functions they run are at
 * the same addresses as in the test.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "utrace_util.h"
#include "utrace_tracee.h"

#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT	120

#define WAIT_MS		20000
#define INT3		0xcc
#define NOP		0x90
/* Breakpoints the "thousands" test inserts: one on each nop of a run. */
#define MANY		4096
#define MANY_TEXT	"4096"

static int __attribute__((noinline)) bp_add(int x)
{
	asm volatile("");
	return x + 1;
}

static int __attribute__((noinline)) bp_other(int x)
{
	asm volatile("");
	return x + 100;
}

/* A run of nops that nothing runs, and a breakpoint instruction. */
extern char nops_start[], int3_insn[];
asm(".pushsection .text\n"
    "nops_start:\n\t.rept " MANY_TEXT "\n\tnop\n\t.endr\n"
    "int3_insn:\n\tint3\n\tret\n"
    ".popsection\n");

static volatile long counter;

static int add_twice_fn(void)
{
	return bp_add(1) + bp_add(2);
}

/* bp_add() called ROUNDS times: exits with the sum of 1..ROUNDS, mod 256. */
#define ROUNDS		200

static int add_rounds_fn(void)
{
	int i, sum = 0;

	for (i = 0; i < ROUNDS; i++)
		sum += bp_add(i);
	return sum;
}

static void *count_fn(void *arg)
{
	for (;;)
		counter++;
	return NULL;
}

static int add_beside_a_counter_fn(void)
{
	pthread_t thread;

	pthread_create(&thread, NULL, count_fn, NULL);
	while (!counter)
		sched_yield();
	return bp_add(1);
}

/*
 * A child runs bp_add(1) and exits with it; then the parent's bp_add(2).
 * With @borrow, the child is a vfork child borrowing the parent's memory.
 */
static int child_then_add(bool borrow)
{
	int status;
	pid_t pid = borrow ? vfork() : fork();

	if (pid == 0)
		_exit(bp_add(1));
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 2)
		return 100;
	return bp_add(2);
}

static int fork_then_add_fn(void)
{
	return child_then_add(false);
}

static int vfork_then_add_fn(void)
{
	return child_then_add(true);
}

static int add_then_exec_fn(void)
{
	bp_add(1);
	execl("/bin/true", "true", NULL);
	return 100;
}

/* The byte at @addr in process @pid, as the process sees it; -1 if gone. */
static int peek_byte(pid_t pid, const void *addr)
{
	unsigned char byte;
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = pread(fd, &byte, 1, (uintptr_t)addr);
	close(fd);
	return n == 1 ? byte : -1;
}

/* The next breakpoint hit, skipping other records; NULL on timeout. */
static struct utrace_event_breakpoint *
wait_hit(struct utrace_reader *r, struct utrace_event_header **hdr)
{
	*hdr = utrace_wait(r, UTRACE_EV_BREAKPOINT_HIT, WAIT_MS);
	return *hdr ? utrace_body(*hdr) : NULL;
}

static struct user_regs_struct get_regs(struct __test_metadata *_metadata,
					int fd, __u64 id)
{
	struct user_regs_struct regs;
	size_t done;

	memset(&regs, 0, sizeof(regs));
	EXPECT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_GET_REGSET, NT_PRSTATUS,
				 &regs, sizeof(regs), &done));
	return regs;
}

static void set_regs(struct __test_metadata *_metadata, int fd, __u64 id,
		     struct user_regs_struct *regs)
{
	size_t done;

	EXPECT_EQ(0, utrace_regs(fd, id, UTRACE_IOC_SET_REGSET, NT_PRSTATUS,
				 regs, sizeof(*regs), &done));
}

/* Attach to @t stopped, with @events; its id. */
static __u64 attach_stopped(struct __test_metadata *_metadata, int fd,
			    struct utrace_reader *r, struct tracee *t,
			    __u32 flags, __u64 events)
{
	struct utrace_event_header *ev;
	__u64 id = 0;

	EXPECT_EQ(0, utrace_attach(fd, t->pid, flags | UTRACE_ATTACH_STOP,
				   events, 0, &id));
	ev = utrace_wait(r, UTRACE_EV_STOP, WAIT_MS);
	EXPECT_NE(NULL, ev);
	return id;
}

/*
 * Attach to @t stopped, with @flags and @events, put a breakpoint at
 * bp_add() (its handle in @handle, unless NULL) and let the tracee go;
 * its id.
 */
static __u64 run_to_bp_add(struct __test_metadata *_metadata, int fd,
			   struct utrace_reader *r, struct tracee *t,
			   __u32 flags, __u64 events, __u64 *handle)
{
	__u64 id = attach_stopped(_metadata, fd, r, t, flags, events);

	EXPECT_EQ(0, utrace_insert_breakpoint(fd, id, bp_add, handle));
	go(t);
	EXPECT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	return id;
}

TEST(a_hit_stops_at_the_address_and_resumes_through_the_instruction)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_breakpoint *hit;
	struct utrace_event_header *ev;
	struct user_regs_struct regs;
	struct tracee t = start_tracee(add_twice_fn);
	int fd = utrace_open(), orig = peek_byte(getpid(), bp_add);
	__u64 id, handle = 0;
	__u8 before[8];

	ASSERT_GE(fd, 0);
	ASSERT_GE(orig, 0);
	utrace_reader_init(r, fd);
	id = attach_stopped(_metadata, fd, r, &t, 0, 0);
	ASSERT_EQ(0, utrace_insert_breakpoint_orig(fd, id, bp_add, &handle,
						   before));
	EXPECT_NE(0, handle);
	/* The bytes it replaced, as the tracee had them. */
	EXPECT_EQ(0, memcmp(before, bp_add, sizeof(before)));
	EXPECT_EQ(1, utrace_fdinfo(fd, "utrace-breakpoints:"));
	/* In the tracee's memory, and in no other process's. */
	EXPECT_EQ(INT3, peek_byte(t.pid, bp_add));
	EXPECT_EQ(orig, peek_byte(getpid(), bp_add));
	EXPECT_NE(INT3, orig);

	go(&t);
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	hit = wait_hit(r, &ev);
	ASSERT_NE(NULL, hit);
	EXPECT_EQ(UTRACE_EVF_STOPPED, ev->flags);
	EXPECT_EQ(id, ev->id);
	EXPECT_EQ((uintptr_t)bp_add, hit->pc);
	EXPECT_EQ(handle, hit->handle);
	/* The real registers: the pc at the breakpoint, not out of line. */
	regs = get_regs(_metadata, fd, id);
	EXPECT_EQ((uintptr_t)bp_add, regs.rip);
	EXPECT_EQ(1, regs.rdi);

	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	hit = wait_hit(r, &ev);
	ASSERT_NE(NULL, hit);
	regs = get_regs(_metadata, fd, id);
	EXPECT_EQ((uintptr_t)bp_add, regs.rip);
	EXPECT_EQ(2, regs.rdi);

	/* Removed while stopped at it: the instruction still runs. */
	EXPECT_EQ(0, utrace_remove_breakpoint(fd, handle));
	EXPECT_EQ(0, utrace_fdinfo(fd, "utrace-breakpoints:"));
	EXPECT_EQ(orig, peek_byte(t.pid, bp_add));
	EXPECT_EQ(-ENOENT, utrace_remove_breakpoint(fd, handle));
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	EXPECT_EQ(5, reap(&t));
	close(fd);
	free(r);
}

TEST(register_changes_at_a_hit_are_honoured)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct user_regs_struct regs;
	struct tracee t = start_tracee(add_twice_fn);
	int fd = utrace_open();
	__u64 id;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	id = run_to_bp_add(_metadata, fd, r, &t, 0, 0, NULL);

	/* bp_add(41) rather than bp_add(1)... */
	ASSERT_NE(NULL, wait_hit(r, &ev));
	regs = get_regs(_metadata, fd, id);
	regs.rdi = 41;
	set_regs(_metadata, fd, id, &regs);
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));

	/* ...and bp_other(2) rather than bp_add(2): the pc moved. */
	ASSERT_NE(NULL, wait_hit(r, &ev));
	regs = get_regs(_metadata, fd, id);
	regs.rip = (uintptr_t)bp_other;
	set_regs(_metadata, fd, id, &regs);
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	EXPECT_EQ(42 + 102, reap(&t));
	close(fd);
	free(r);
}

TEST(steps_from_a_hit_run_the_probed_instruction_once)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct user_regs_struct regs;
	struct tracee t = start_tracee(add_twice_fn);
	int fd = utrace_open();
	__u64 id, pc;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	/* A stray SIGTRAP would be a stopping record of its own. */
	id = run_to_bp_add(_metadata, fd, r, &t, 0,
			   UTRACE_EVMASK(UTRACE_EV_SIGNAL), NULL);
	ASSERT_NE(NULL, wait_hit(r, &ev));

	/* The step ends after the instruction (lea 1(%rdi),%eax), done once. */
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_SINGLESTEP, 0));
	ev = utrace_next(r, WAIT_MS);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(UTRACE_EV_STEP, ev->type);
	pc = ((struct utrace_event_pc *)utrace_body(ev))->pc;
	EXPECT_LT((uintptr_t)bp_add, pc);
	EXPECT_GE((uintptr_t)bp_add + 8, pc);
	regs = get_regs(_metadata, fd, id);
	EXPECT_EQ(pc, regs.rip);
	EXPECT_EQ(2, (int)regs.rax);

	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	ev = utrace_next(r, WAIT_MS);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(UTRACE_EV_BREAKPOINT_HIT, ev->type);

	/* A block step goes on past it, to the caller, out of bp_add(). */
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_BLOCKSTEP, 0));
	ev = utrace_next(r, WAIT_MS);
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(UTRACE_EV_STEP, ev->type);
	pc = ((struct utrace_event_pc *)utrace_body(ev))->pc;
	EXPECT_TRUE(pc < (uintptr_t)bp_add || pc >= (uintptr_t)bp_other)
		TH_LOG("pc %llx, bp_add at %p", pc, bp_add);
	EXPECT_EQ(3, (int)get_regs(_metadata, fd, id).rax);
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	EXPECT_EQ(5, reap(&t));
	EXPECT_EQ(NULL, utrace_next(r, 0));
	close(fd);
	free(r);
}

/*
 * The tracer sees the hit's record before the thread stops at it: a step
 * asked for at once, while the thread is still on its way to its stop,
 * must end after uprobes stepped the instruction as well, not at the
 * breakpoint.  Single and block steps, ROUNDS hits.
 */
TEST(a_step_asked_before_the_thread_stops_at_its_hit_runs_the_instruction)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(add_rounds_fn);
	int fd = utrace_open(), i;
	__u64 id, pc;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	id = run_to_bp_add(_metadata, fd, r, &t, 0,
			   UTRACE_EVMASK(UTRACE_EV_SIGNAL), NULL);
	for (i = 0; i < ROUNDS; i++) {
		ASSERT_NE(NULL, wait_hit(r, &ev));
		ASSERT_EQ(0, utrace_ctl(fd, id, 0, i & 1 ? UTRACE_CTL_BLOCKSTEP :
							   UTRACE_CTL_SINGLESTEP,
					0));
		ev = utrace_next(r, WAIT_MS);
		ASSERT_NE(NULL, ev);
		ASSERT_EQ(UTRACE_EV_STEP, ev->type);
		pc = ((struct utrace_event_pc *)utrace_body(ev))->pc;
		/* Never the breakpoint: the instruction ran. */
		ASSERT_NE((uintptr_t)bp_add, pc)
			TH_LOG("round %d (%s step)", i, i & 1 ? "block" : "single");
		ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	}
	EXPECT_EQ(ROUNDS * (ROUNDS + 1) / 2 % 256, reap(&t));
	EXPECT_EQ(NULL, utrace_next(r, 0));
	close(fd);
	free(r);
}

TEST(other_threads_run_while_one_is_stopped_at_a_hit)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(add_beside_a_counter_fn);
	long before, after;
	int fd = utrace_open();
	size_t done;
	__u64 id;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	/* The counting thread is traced too, and never stopped. */
	id = run_to_bp_add(_metadata, fd, r, &t, UTRACE_ATTACH_CLONES, 0, NULL);
	ASSERT_NE(NULL, wait_hit(r, &ev));
	EXPECT_EQ(id, ev->id);

	ASSERT_EQ(0, utrace_mem(fd, id, UTRACE_IOC_READ_MEM,
				(uintptr_t)&counter, &before, sizeof(before),
				&done));
	usleep(200000);
	ASSERT_EQ(0, utrace_mem(fd, id, UTRACE_IOC_READ_MEM,
				(uintptr_t)&counter, &after, sizeof(after),
				&done));
	EXPECT_LT(before, after);
	EXPECT_EQ(NULL, utrace_next(r, 0));

	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	EXPECT_EQ(2, reap(&t));
	close(fd);
	free(r);
}

TEST(a_breakpoint_is_its_process_and_its_session_alone)
{
	struct utrace_reader *ra = malloc(sizeof(*ra));
	struct utrace_reader *rb = malloc(sizeof(*rb));
	struct tracee a = start_tracee(add_twice_fn);
	struct tracee b = start_tracee(add_twice_fn);
	struct tracee untraced = start_tracee(add_twice_fn);
	int fa = utrace_open(), fb = utrace_open(), hits = 0;
	struct utrace_event_header *ev;
	__u64 ida, idb, ha, hb;

	ASSERT_GE(fa, 0);
	ASSERT_GE(fb, 0);
	utrace_reader_init(ra, fa);
	utrace_reader_init(rb, fb);
	ida = attach_stopped(_metadata, fa, ra, &a, 0, 0);
	idb = attach_stopped(_metadata, fb, rb, &b, 0, 0);
	ASSERT_EQ(0, utrace_insert_breakpoint(fa, ida, bp_add, &ha));
	ASSERT_EQ(0, utrace_insert_breakpoint(fb, idb, bp_add, &hb));
	/* An id of one session names nothing in the other. */
	EXPECT_EQ(-ESRCH, utrace_insert_breakpoint(fa, idb, bp_other, NULL));
	EXPECT_NE(INT3, peek_byte(untraced.pid, bp_add));

	go(&untraced);
	EXPECT_EQ(5, reap(&untraced));
	go(&a);
	go(&b);
	ASSERT_EQ(0, utrace_ctl(fa, ida, 0, UTRACE_CTL_RESUME, 0));
	ASSERT_EQ(0, utrace_ctl(fb, idb, 0, UTRACE_CTL_RESUME, 0));
	while (hits < 4) {
		struct utrace_event_breakpoint *hit = wait_hit(ra, &ev);

		ASSERT_NE(NULL, hit);
		EXPECT_EQ(a.pid, ev->tgid);
		EXPECT_EQ(ha, hit->handle);
		ASSERT_EQ(0, utrace_ctl(fa, ida, 0, UTRACE_CTL_RESUME, 0));
		hit = wait_hit(rb, &ev);
		ASSERT_NE(NULL, hit);
		EXPECT_EQ(b.pid, ev->tgid);
		EXPECT_EQ(hb, hit->handle);
		ASSERT_EQ(0, utrace_ctl(fb, idb, 0, UTRACE_CTL_RESUME, 0));
		hits += 2;
	}
	EXPECT_EQ(5, reap(&a));
	EXPECT_EQ(5, reap(&b));
	close(fa);
	close(fb);
	free(ra);
	free(rb);
}

/*
 * A followed fork child hits its copy of the parent's breakpoint, which
 * goes with its death, or (@remove_copy) by its address in the child,
 * while the child is stopped at it; the parent's stays.
 */
static void fork_child_copies(struct __test_metadata *_metadata,
			      bool remove_copy)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 events = UTRACE_EVMASK(UTRACE_EV_CLONE) |
		       UTRACE_EVMASK(UTRACE_EV_DEATH);
	struct utrace_event_breakpoint *hit;
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(fork_then_add_fn);
	__u64 id, handle, child_id = 0;
	int fd = utrace_open(), child_hits = 0, child_dead = 0;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	id = attach_stopped(_metadata, fd, r, &t, UTRACE_ATTACH_CHILDREN,
			    events);
	ASSERT_EQ(0, utrace_events(fd, id, events, events));
	ASSERT_EQ(0, utrace_insert_breakpoint(fd, id, bp_add, &handle));
	go(&t);
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));

	/* The child's hit, of its own copy, then its death; the parent's. */
	while ((ev = utrace_next(r, WAIT_MS))) {
		if (ev->type == UTRACE_EV_CLONE) {
			child_id = ((struct utrace_event_clone *)
				    utrace_body(ev))->child_id;
			EXPECT_EQ(2, utrace_fdinfo(fd, "utrace-breakpoints:"));
		} else if (ev->type == UTRACE_EV_BREAKPOINT_HIT &&
			   ev->id == child_id) {
			hit = utrace_body(ev);
			EXPECT_EQ((uintptr_t)bp_add, hit->pc);
			EXPECT_NE(handle, hit->handle);
			child_hits++;
			/* Stopped at it, the child still runs the insn. */
			if (remove_copy) {
				EXPECT_EQ(0, utrace_remove_breakpoint_at(fd,
							child_id, bp_add));
				EXPECT_EQ(-ENOENT, utrace_remove_breakpoint_at(fd,
							child_id, bp_add));
				EXPECT_EQ(1, utrace_fdinfo(fd,
						"utrace-breakpoints:"));
			}
			ASSERT_EQ(0, utrace_ctl(fd, child_id, 0,
						UTRACE_CTL_RESUME, 0));
		} else if (ev->type == UTRACE_EV_DEATH && ev->id == child_id) {
			child_dead = 1;
		} else if (ev->type == UTRACE_EV_BREAKPOINT_HIT) {
			break;
		}
	}
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(id, ev->id);
	EXPECT_EQ(handle, ((struct utrace_event_breakpoint *)
			   utrace_body(ev))->handle);
	EXPECT_NE(0, child_id);
	EXPECT_EQ(1, child_hits);
	EXPECT_TRUE(child_dead);
	/* The child's copy is gone, and the parent's is there. */
	EXPECT_EQ(1, utrace_fdinfo(fd, "utrace-breakpoints:"));
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	EXPECT_EQ(3, reap(&t));
	/* And the parent's with the parent. */
	EXPECT_EQ(0, utrace_fdinfo(fd, "utrace-breakpoints:"));
	close(fd);
	free(r);
}

TEST(a_followed_fork_child_gets_copies_and_its_death_removes_them)
{
	fork_child_copies(_metadata, false);
}

TEST(a_fork_childs_copy_goes_by_its_address_in_the_child)
{
	fork_child_copies(_metadata, true);
}

/* Run @fn under a breakpoint at bp_add; the ids of the threads that hit. */
static int hits_under(struct __test_metadata *_metadata, int (*fn)(void),
		      __u32 flags, int *status)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(fn);
	int fd = utrace_open(), hits = 0;
	__u64 id;

	EXPECT_GE(fd, 0);
	utrace_reader_init(r, fd);
	id = attach_stopped(_metadata, fd, r, &t, flags,
			    UTRACE_EVMASK(UTRACE_EV_DEATH));
	EXPECT_EQ(0, utrace_events(fd, id, UTRACE_EVMASK(UTRACE_EV_DEATH),
				   UTRACE_EVMASK(UTRACE_EV_DEATH)));
	EXPECT_EQ(0, utrace_insert_breakpoint(fd, id, bp_add, NULL));
	go(&t);
	EXPECT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	while ((ev = utrace_next(r, WAIT_MS))) {
		if (ev->type == UTRACE_EV_BREAKPOINT_HIT) {
			EXPECT_EQ(id, ev->id);
			hits++;
			EXPECT_EQ(0, utrace_ctl(fd, ev->id, 0,
						UTRACE_CTL_RESUME, 0));
		}
		if (ev->type == UTRACE_EV_DEATH && ev->id == id)
			break;
	}
	EXPECT_NE(NULL, ev);
	*status = reap(&t);
	close(fd);
	free(r);
	return hits;
}

TEST(unfollowed_and_vfork_children_run_through_unreported)
{
	int status;

	/* The child's hit takes the breakpoint out of its own memory. */
	EXPECT_EQ(1, hits_under(_metadata, fork_then_add_fn, 0, &status));
	EXPECT_EQ(3, status);
	/* A vfork child is not reported, followed or not. */
	EXPECT_EQ(1, hits_under(_metadata, vfork_then_add_fn, 0, &status));
	EXPECT_EQ(3, status);
	EXPECT_EQ(1, hits_under(_metadata, vfork_then_add_fn,
				UTRACE_ATTACH_CHILDREN, &status));
	EXPECT_EQ(3, status);
}

TEST(exec_removes_the_breakpoints_of_the_old_image)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	__u64 events = UTRACE_EVMASK(UTRACE_EV_EXEC);
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(add_then_exec_fn);
	int fd = utrace_open();
	__u64 id;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	id = attach_stopped(_metadata, fd, r, &t, 0, events);
	ASSERT_EQ(0, utrace_insert_breakpoint(fd, id, bp_add, NULL));
	ASSERT_EQ(0, utrace_insert_breakpoint(fd, id, bp_other, NULL));
	EXPECT_EQ(2, utrace_fdinfo(fd, "utrace-breakpoints:"));
	go(&t);
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	ASSERT_NE(NULL, wait_hit(r, &ev));
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	ev = utrace_wait(r, UTRACE_EV_EXEC, WAIT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(UTRACE_EVF_STOPPED, ev->flags);
	EXPECT_EQ(0, utrace_fdinfo(fd, "utrace-breakpoints:"));
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	EXPECT_EQ(0, reap(&t));
	close(fd);
	free(r);
}

TEST(insert_refuses_what_uprobes_cannot_take)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_breakpoint req = { .size = sizeof(req) };
	int fd, observer;
	struct tracee t;
	__u64 id, oid, handle;
	void *jit;

	/* Anonymous code, as a JIT makes it; the tracee inherits it. */
	jit = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, jit);
	memset(jit, 0xc3, 4096);
	/* Opened after the fork, so that the tracee holds no session. */
	t = start_tracee(add_twice_fn);
	fd = utrace_open();
	observer = utrace_open();
	ASSERT_GE(fd, 0);
	ASSERT_GE(observer, 0);
	utrace_reader_init(r, fd);
	id = attach_stopped(_metadata, fd, r, &t, 0, 0);

	EXPECT_EQ(-EFAULT, utrace_insert_breakpoint(fd, id, (void *)16, NULL));
	EXPECT_EQ(-ENXIO, utrace_insert_breakpoint(fd, id, jit, NULL));
	EXPECT_EQ(-ENXIO, utrace_insert_breakpoint(fd, id, (void *)&counter, NULL));
	EXPECT_EQ(-ESRCH, utrace_insert_breakpoint(fd, id + 1000, bp_add, NULL));
	EXPECT_EQ(-EOPNOTSUPP, utrace_insert_breakpoint(fd, id, int3_insn, NULL));
	ASSERT_EQ(0, utrace_insert_breakpoint(fd, id, bp_add, &handle));
	EXPECT_EQ(-EEXIST, utrace_insert_breakpoint(fd, id, bp_add, NULL));
	EXPECT_EQ(-ENOENT, utrace_remove_breakpoint(fd, handle + 1));
	EXPECT_EQ(-ENOENT, utrace_remove_breakpoint(fd, 1ULL << 40));
	/* By address: of a thread of the session, where one is. */
	EXPECT_EQ(-ENOENT, utrace_remove_breakpoint_at(fd, id, bp_other));
	EXPECT_EQ(-ESRCH, utrace_remove_breakpoint_at(fd, id + 1000, bp_add));
	/* Neither a handle nor a thread. */
	EXPECT_EQ(-EINVAL, utrace_remove_breakpoint(fd, 0));

	/* Unknown flags, an input handle, a removal by handle and address. */
	req.id = id;
	req.addr = (uintptr_t)bp_other;
	req.flags = 1;
	EXPECT_EQ(-EINVAL, utrace_ioctl(fd, UTRACE_IOC_INSERT_BREAKPOINT, &req));
	req.flags = 0;
	req.handle = handle;
	EXPECT_EQ(-EINVAL, utrace_ioctl(fd, UTRACE_IOC_INSERT_BREAKPOINT, &req));
	EXPECT_EQ(-EINVAL, utrace_ioctl(fd, UTRACE_IOC_REMOVE_BREAKPOINT, &req));
	req.handle = 0;
	req.orig[7] = 1;
	EXPECT_EQ(-EINVAL, utrace_ioctl(fd, UTRACE_IOC_INSERT_BREAKPOINT, &req));
	req.orig[7] = 0;
	req.reserved[2] = 1;
	EXPECT_EQ(-EINVAL, utrace_ioctl(fd, UTRACE_IOC_INSERT_BREAKPOINT, &req));
	req.size = UTRACE_BREAKPOINT_SIZE_VER0 - 8;
	EXPECT_EQ(-EINVAL, utrace_ioctl(fd, UTRACE_IOC_INSERT_BREAKPOINT, &req));
	EXPECT_EQ(1, utrace_fdinfo(fd, "utrace-breakpoints:"));

	/* An observer never stops a thread. */
	ASSERT_EQ(0, utrace_attach(observer, t.pid, UTRACE_ATTACH_OBSERVE, 0,
				   0, &oid));
	EXPECT_EQ(-EPERM, utrace_insert_breakpoint(observer, oid, bp_other, NULL));

	close(observer);
	go(&t);
	close(fd);
	EXPECT_EQ(5, reap(&t));
	munmap(jit, 4096);
	free(r);
}

TEST(thousands_of_breakpoints_come_and_go_with_the_session)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct tracee t = start_tracee(add_twice_fn);
	int fd = utrace_open(), i, left = 0;
	__u64 id, handle;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	id = attach_stopped(_metadata, fd, r, &t, 0, 0);
	for (i = 0; i < MANY; i++)
		ASSERT_EQ(0, utrace_insert_breakpoint(fd, id, nops_start + i, &handle));
	EXPECT_EQ(MANY, utrace_fdinfo(fd, "utrace-breakpoints:"));
	for (i = 0; i < MANY; i++)
		left += peek_byte(t.pid, nops_start + i) == INT3;
	EXPECT_EQ(MANY, left);
	/* The last one, by its handle; the rest with the session. */
	EXPECT_EQ(0, utrace_remove_breakpoint(fd, handle));
	EXPECT_EQ(NOP, peek_byte(t.pid, nops_start + MANY - 1));
	close(fd);
	for (i = left = 0; i < MANY; i++)
		left += peek_byte(t.pid, nops_start + i) != NOP;
	EXPECT_EQ(0, left);
	go(&t);
	EXPECT_EQ(5, reap(&t));
	free(r);
}

TEST(closing_the_session_at_a_hit_lets_the_thread_run_on)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(add_twice_fn);
	int fd = utrace_open();

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	run_to_bp_add(_metadata, fd, r, &t, 0, 0, NULL);
	ASSERT_NE(NULL, wait_hit(r, &ev));
	EXPECT_EQ('t', wait_proc_state(t.pid, 't'));
	close(fd);
	/* No SIGTRAP, no second stop: both calls made. */
	EXPECT_EQ(5, reap(&t));
	free(r);
}

TEST(sigkill_at_a_hit_ends_the_thread_and_its_breakpoints)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	struct tracee t = start_tracee(add_twice_fn);
	int fd = utrace_open(), status;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	run_to_bp_add(_metadata, fd, r, &t, 0, UTRACE_EVMASK(UTRACE_EV_DEATH),
		      NULL);
	ASSERT_NE(NULL, wait_hit(r, &ev));
	ASSERT_EQ(0, kill(t.pid, SIGKILL));
	ev = utrace_wait(r, UTRACE_EV_DEATH, WAIT_MS);
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(0, utrace_fdinfo(fd, "utrace-breakpoints:"));
	close(t.go);
	ASSERT_EQ(t.pid, waitpid(t.pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(SIGKILL, WTERMSIG(status));
	close(fd);
	free(r);
}

/*
 * The file and offset mapped at @addr in this program, from
 * /proc/self/maps, as uprobe_events names a place; -1 if not found.
 */
static long file_offset(const void *addr, char *path, size_t len)
{
	unsigned long start, end, pgoff;
	char line[4096], file[4096];
	long offset = -1;
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps)
		return -1;
	while (offset < 0 && fgets(line, sizeof(line), maps))
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &start, &end,
			   &pgoff, file) == 4 &&
		    (uintptr_t)addr >= start && (uintptr_t)addr < end) {
			offset = (uintptr_t)addr - start + pgoff;
			snprintf(path, len, "%s", file);
		}
	fclose(maps);
	return offset;
}

/* The hits uprobe_profile counts for @event; -1 if it has no line. */
static long profile_hits(const char *event)
{
	char line[512], file[256], name[256];
	long hits = -1, n;
	FILE *profile = fopen("/sys/kernel/tracing/uprobe_profile", "r");

	if (!profile)
		return -1;
	while (fgets(line, sizeof(line), profile))
		if (sscanf(line, "%255s %255s %ld", file, name, &n) == 3 &&
		    !strcmp(name, event))
			hits = n;
	fclose(profile);
	return hits;
}

/*
 * Before the perf test: a process that ever had a uprobe installed keeps
 * MMF_HAS_UPROBES, and so do its forks, and uprobes then takes any
 * breakpoint instruction at a probed place in them for its own.  This
 * program never had one (only its tracees did) until that test.
 */
TEST(a_ptrace_breakpoint_at_the_same_place_in_another_process_works)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct tracee ours = start_tracee(add_twice_fn);
	struct tracee theirs = start_tracee(add_twice_fn);
	struct utrace_event_header *ev;
	struct user_regs_struct regs;
	long word, trapped;
	int fd = utrace_open(), status, hits = 0;
	__u64 id;

	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	id = attach_stopped(_metadata, fd, r, &ours, 0, 0);
	ASSERT_EQ(0, utrace_insert_breakpoint(fd, id, bp_add, NULL));

	/* As gdb does: an int3 poked into the other process's text. */
	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, theirs.pid, 0, 0));
	ASSERT_EQ(0, ptrace(PTRACE_INTERRUPT, theirs.pid, 0, 0));
	ASSERT_EQ(theirs.pid, waitpid(theirs.pid, &status, 0));
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, theirs.pid, bp_add, 0);
	ASSERT_EQ(0, errno);
	ASSERT_EQ(0, ptrace(PTRACE_POKETEXT, theirs.pid, bp_add,
			    (word & ~0xffL) | INT3));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, theirs.pid, 0, 0));
	go(&theirs);
	ASSERT_EQ(theirs.pid, waitpid(theirs.pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	EXPECT_EQ(SIGTRAP, WSTOPSIG(status));
	ASSERT_EQ(0, ptrace(PTRACE_GETREGS, theirs.pid, 0, &regs));
	trapped = regs.rip - 1;
	EXPECT_EQ((uintptr_t)bp_add, trapped);
	/* Out with it, back a byte, and on: no uprobe got in the way. */
	ASSERT_EQ(0, ptrace(PTRACE_POKETEXT, theirs.pid, bp_add, word));
	regs.rip = trapped;
	ASSERT_EQ(0, ptrace(PTRACE_SETREGS, theirs.pid, 0, &regs));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, theirs.pid, 0, 0));
	EXPECT_EQ(5, reap(&theirs));

	go(&ours);
	ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	while (hits < 2 && wait_hit(r, &ev)) {
		hits++;
		ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	}
	EXPECT_EQ(2, hits);
	EXPECT_EQ(5, reap(&ours));
	close(fd);
	free(r);
}

#define PROBE_ENABLE \
	"/sys/kernel/tracing/events/froggy_test/froggy_bp_add/enable"

TEST(a_perf_uprobe_at_the_same_place_counts_every_hit)
{
	struct utrace_reader *r = malloc(sizeof(*r));
	struct utrace_event_header *ev;
	char path[4096], probe[4200];
	struct tracee t;
	int fd, hits = 0;
	long offset;
	__u64 id;

	offset = file_offset(bp_add, path, sizeof(path));
	ASSERT_LE(0, offset);
	if (access("/sys/kernel/tracing/uprobe_events", W_OK))
		ASSERT_EQ(0, mount("tracefs", "/sys/kernel/tracing", "tracefs",
				   0, NULL));
	snprintf(probe, sizeof(probe), "p:froggy_test/froggy_bp_add %s:0x%lx", path,
		 offset);
	ASSERT_EQ(0, write_file("/sys/kernel/tracing/uprobe_events", probe));
	ASSERT_EQ(0, write_file(PROBE_ENABLE, "1"));
	EXPECT_EQ(0, profile_hits("froggy_bp_add"));

	/* Our breakpoint and perf's on one uprobe: both see both calls. */
	t = start_tracee(add_twice_fn);
	fd = utrace_open();
	ASSERT_GE(fd, 0);
	utrace_reader_init(r, fd);
	id = run_to_bp_add(_metadata, fd, r, &t, 0, 0, NULL);
	while (hits < 2 && wait_hit(r, &ev)) {
		hits++;
		ASSERT_EQ(0, utrace_ctl(fd, id, 0, UTRACE_CTL_RESUME, 0));
	}
	EXPECT_EQ(2, hits);
	EXPECT_EQ(5, reap(&t));
	close(fd);
	EXPECT_EQ(2, profile_hits("froggy_bp_add"));

	/* perf's goes on alone once ours is gone. */
	EXPECT_EQ(5, add_twice_fn());
	EXPECT_EQ(4, profile_hits("froggy_bp_add"));
	EXPECT_EQ(0, write_file(PROBE_ENABLE, "0"));
	EXPECT_EQ(0, write_file("/sys/kernel/tracing/uprobe_events",
				"-:froggy_test/froggy_bp_add"));
	free(r);
}

TEST_HARNESS_MAIN
