// SPDX-License-Identifier: GPL-2.0
/*
 * The classic ptrace behaviours debuggers rely on, which the utrace series
 * must leave as they are: each test holds a stock 6.1 kernel to the same
 * outcome (qemu/check --stock runs them there too).
 *
 * Each test forks its own tracee, which waits for a byte on a pipe ("go")
 * before it does its part, so the test can attach first.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/audit.h>
#include <linux/ptrace.h>

#include "kselftest_harness.h"
#include "utrace_tracee.h"

/* The PPid line of /proc/PID/status, or -1. */
static pid_t proc_ppid(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return proc_number(path, "PPid:");
}

static int pause_fn(void)
{
	for (;;)
		pause();
	return 0;
}

/* Seize @pid and stop it; the stop's wait status. */
static int seize_and_stop(pid_t pid, long options)
{
	int status = 0;

	if (ptrace(PTRACE_SEIZE, pid, 0, options) ||
	    ptrace(PTRACE_INTERRUPT, pid, 0, 0) ||
	    waitpid(pid, &status, __WALL) != pid)
		return -1;
	return status;
}

/*
 * Seize @pid and send it @sig: its signal-delivery-stop, where a resume
 * may give another signal instead (at other stops it is ignored).
 * Returns the stop's wait status.
 */
static int seize_and_stop_at_signal(pid_t pid, int sig)
{
	int status = 0;

	if (ptrace(PTRACE_SEIZE, pid, 0, 0) || kill(pid, sig) ||
	    waitpid(pid, &status, __WALL) != pid)
		return -1;
	return status;
}

/*
 * PTRACE_ATTACH to a process already stopped by SIGSTOP: the tracer sees
 * the stop, and a detach without a signal leaves it stopped, as its
 * parent and the shell expect, until SIGCONT.
 */
TEST(attach_to_a_stopped_process_leaves_it_stopped)
{
	struct tracee t = start_tracee(pause_fn);
	int status;

	go(&t);
	ASSERT_EQ(0, kill(t.pid, SIGSTOP));
	ASSERT_EQ(t.pid, waitpid(t.pid, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ('T', proc_state(t.pid));

	ASSERT_EQ(0, ptrace(PTRACE_ATTACH, t.pid, 0, 0));
	ASSERT_EQ(t.pid, waitpid(t.pid, &status, __WALL));
	ASSERT_TRUE(WIFSTOPPED(status));
	EXPECT_EQ(SIGSTOP, WSTOPSIG(status));
	EXPECT_EQ('t', proc_state(t.pid));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, t.pid, 0, 0));
	EXPECT_EQ('T', wait_proc_state(t.pid, 'T'));

	ASSERT_EQ(0, kill(t.pid, SIGCONT));
	EXPECT_EQ('S', wait_proc_state(t.pid, 'S'));
	kill_tracee(&t);
}

static int usr1_pipe[2];

static void write_on_usr1(int sig)
{
	if (write(usr1_pipe[1], "u", 1) != 1)
		_exit(99);
}

static int handle_usr1_fn(void)
{
	return pause_fn();
}

/*
 * PTRACE_DETACH with a signal, at a signal-delivery-stop, delivers it
 * instead: the handler runs.
 */
TEST(detach_delivers_the_signal_it_names)
{
	struct tracee t;
	char c = 0;
	int status;

	ASSERT_EQ(0, pipe(usr1_pipe));
	signal(SIGUSR1, write_on_usr1);
	t = start_tracee(handle_usr1_fn);
	signal(SIGUSR1, SIG_DFL);
	go(&t);
	usleep(50000);
	status = seize_and_stop_at_signal(t.pid, SIGUSR2);
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(SIGUSR2, WSTOPSIG(status));
	ASSERT_EQ(0, ptrace(PTRACE_DETACH, t.pid, 0, SIGUSR1));
	ASSERT_EQ(1, read(usr1_pipe[0], &c, 1));
	EXPECT_EQ('u', c);
	EXPECT_EQ('S', wait_proc_state(t.pid, 'S'));
	kill_tracee(&t);
	close(usr1_pipe[0]);
	close(usr1_pipe[1]);
}

static int data_pipe[2];

/* Read one byte: exit 0 for it, 1 for an EINTR, 2 for anything else. */
static int read_data_fn(void)
{
	ssize_t n;
	char c;

	close(data_pipe[1]);
	n = read(data_pipe[0], &c, 1);
	if (n == 1 && c == 'd')
		return 0;
	return n < 0 && errno == EINTR ? 1 : 2;
}

/*
 * A debugger's stop of a thread blocked in read() breaks it out of the
 * call (-ERESTARTSYS inside); when it continues, the call is restarted,
 * and the program never sees an EINTR.
 */
TEST(a_blocking_read_stopped_by_a_debugger_is_restarted)
{
	struct tracee t;
	int status;

	ASSERT_EQ(0, pipe(data_pipe));
	t = start_tracee(read_data_fn);
	close(data_pipe[0]);
	go(&t);
	/* Asleep in read() of the data pipe (its go was read already). */
	usleep(100000);
	ASSERT_EQ('S', wait_proc_state(t.pid, 'S'));
	status = seize_and_stop(t.pid, 0);
	ASSERT_TRUE(WIFSTOPPED(status));
	EXPECT_EQ(PTRACE_EVENT_STOP, status >> 16);
	ASSERT_EQ(0, ptrace(PTRACE_CONT, t.pid, 0, 0));
	usleep(100000);
	ASSERT_EQ(1, write(data_pipe[1], "d", 1));
	ASSERT_EQ(t.pid, waitpid(t.pid, &status, __WALL));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(data_pipe[1]);
	close(t.go);
}

static int vfork_fn(void)
{
	pid_t pid = vfork();
	int status;

	if (pid == 0)
		_exit(7);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 7 ? 0 : 2;
}

/*
 * PTRACE_O_TRACEVFORK and TRACEVFORKDONE: the parent stops at the vfork
 * with the child's pid, the child starts traced and stopped, and the
 * parent stops again once the child has released its memory.
 */
TEST(vfork_and_vfork_done_are_reported_in_order)
{
	struct tracee t = start_tracee(vfork_fn);
	unsigned long child = 0, done_msg = 0;
	int status, events = 0, child_stops = 0, exited = 0;
	pid_t pid, child_pid = 0;

	ASSERT_EQ(0, ptrace(PTRACE_SEIZE, t.pid, 0,
			    PTRACE_O_TRACEVFORK | PTRACE_O_TRACEVFORKDONE));
	go(&t);
	while ((pid = waitpid(-1, &status, __WALL)) > 0) {
		if (WIFEXITED(status)) {
			if (pid == t.pid) {
				EXPECT_EQ(0, WEXITSTATUS(status));
				exited = 1;
				break;
			}
			continue;
		}
		ASSERT_TRUE(WIFSTOPPED(status));
		if (pid == t.pid && status >> 16 == PTRACE_EVENT_VFORK) {
			EXPECT_EQ(0, events);
			events = 1;
			ASSERT_EQ(0, ptrace(PTRACE_GETEVENTMSG, pid, 0, &child));
		} else if (pid == t.pid &&
			   status >> 16 == PTRACE_EVENT_VFORK_DONE) {
			EXPECT_EQ(1, events);
			events = 2;
			ASSERT_EQ(0, ptrace(PTRACE_GETEVENTMSG, pid, 0,
					    &done_msg));
		} else if (pid != t.pid) {
			/*
			 * The auto-attached child's first stop, which may
			 * come before the parent's event stop or after it.
			 */
			child_pid = pid;
			child_stops++;
		}
		ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	}
	EXPECT_TRUE(exited);
	EXPECT_EQ(2, events);
	EXPECT_NE(0, child);
	EXPECT_EQ(child, done_msg);
	EXPECT_EQ(1, child_stops);
	EXPECT_EQ((pid_t)child, child_pid);
	close(t.go);
}

/*
 * A traced process whose parent dies is reparented to the subreaper (here
 * the tracer itself); its signals still stop it for the tracer, and its
 * death is reported, and reaped, once.
 */
TEST(a_traced_orphan_is_reparented_and_reaped_once)
{
	int pids[2], status;
	pid_t parent, orphan;

	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));
	ASSERT_EQ(0, pipe(pids));
	parent = fork();
	if (parent == 0) {
		orphan = fork();
		if (orphan == 0)
			_exit(pause_fn());
		if (write(pids[1], &orphan, sizeof(orphan)) != sizeof(orphan))
			_exit(1);
		_exit(pause_fn());
	}
	ASSERT_EQ(sizeof(orphan), read(pids[0], &orphan, sizeof(orphan)));
	ASSERT_EQ(parent, proc_ppid(orphan));
	ASSERT_LE(0, seize_and_stop(orphan, 0));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, orphan, 0, 0));

	ASSERT_EQ(0, kill(parent, SIGKILL));
	ASSERT_EQ(parent, waitpid(parent, &status, 0));
	EXPECT_EQ(getpid(), proc_ppid(orphan));

	ASSERT_EQ(0, kill(orphan, SIGTERM));
	ASSERT_EQ(orphan, waitpid(orphan, &status, __WALL));
	ASSERT_TRUE(WIFSTOPPED(status));
	EXPECT_EQ(SIGTERM, WSTOPSIG(status));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, orphan, 0, SIGTERM));
	ASSERT_EQ(orphan, waitpid(orphan, &status, __WALL));
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	EXPECT_EQ(-1, waitpid(orphan, &status, __WALL | WNOHANG));
	EXPECT_EQ(ECHILD, errno);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	close(pids[0]);
	close(pids[1]);
}

static volatile int handler_ran;

static void step_target_handler(int sig)
{
	handler_ran = 1;
}

static int spin_with_handler_fn(void)
{
	signal(SIGUSR1, step_target_handler);
	for (;;)
		asm volatile("" ::: "memory");
	return 0;
}

/*
 * PTRACE_SINGLESTEP from a signal-delivery-stop with a signal to deliver
 * stops at the first instruction of its handler.
 */
TEST(a_step_with_a_signal_stops_at_its_handler)
{
	struct tracee t = start_tracee(spin_with_handler_fn);
	struct user_regs_struct regs;
	int status;

	go(&t);
	usleep(100000);
	status = seize_and_stop_at_signal(t.pid, SIGUSR2);
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(SIGUSR2, WSTOPSIG(status));
	ASSERT_EQ(0, ptrace(PTRACE_SINGLESTEP, t.pid, 0, SIGUSR1));
	ASSERT_EQ(t.pid, waitpid(t.pid, &status, __WALL));
	ASSERT_TRUE(WIFSTOPPED(status));
	EXPECT_EQ(SIGTRAP, WSTOPSIG(status));
	ASSERT_EQ(0, ptrace(PTRACE_GETREGS, t.pid, 0, &regs));
	EXPECT_EQ((unsigned long long)(uintptr_t)step_target_handler, regs.rip);
	kill_tracee(&t);
}

static volatile long watched_word;

static int write_watched_fn(void)
{
	watched_word = 0x77;
	return watched_word == 0x77 ? 0 : 1;
}

/* A debug register set through PTRACE_POKEUSER traps the write after it. */
TEST(a_hardware_watchpoint_traps_the_write)
{
	struct tracee t = start_tracee(write_watched_fn);
	long dr6, value;
	int status;

	ASSERT_LE(0, seize_and_stop(t.pid, 0));
	ASSERT_EQ(0, ptrace(PTRACE_POKEUSER, t.pid,
			    offsetof(struct user, u_debugreg[0]),
			    &watched_word));
	/* L0, a write of 8 bytes. */
	ASSERT_EQ(0, ptrace(PTRACE_POKEUSER, t.pid,
			    offsetof(struct user, u_debugreg[7]),
			    1 | (1 << 16) | (2 << 18)));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, t.pid, 0, 0));
	go(&t);
	ASSERT_EQ(t.pid, waitpid(t.pid, &status, __WALL));
	ASSERT_TRUE(WIFSTOPPED(status));
	EXPECT_EQ(SIGTRAP, WSTOPSIG(status));
	dr6 = ptrace(PTRACE_PEEKUSER, t.pid,
		     offsetof(struct user, u_debugreg[6]), 0);
	EXPECT_EQ(1, dr6 & 1);
	errno = 0;
	value = ptrace(PTRACE_PEEKDATA, t.pid, &watched_word, 0);
	EXPECT_EQ(0, errno);
	EXPECT_EQ(0x77, value);
	ASSERT_EQ(0, ptrace(PTRACE_CONT, t.pid, 0, 0));
	ASSERT_EQ(t.pid, waitpid(t.pid, &status, __WALL));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(t.go);
}

/*
 * A 32-bit tracee has the i386 register set, and its system calls the
 * i386 ABI, as PTRACE_GET_SYSCALL_INFO tells.
 */
TEST(a_32_bit_tracee_has_the_i386_views)
{
	char path[PATH_MAX], spin32[PATH_MAX + 32], regs[1024];
	struct ptrace_syscall_info info;
	struct iovec iov = { regs, sizeof(regs) };
	int status;
	ssize_t n;
	pid_t pid;

	n = readlink("/proc/self/exe", path, sizeof(path) - 32);
	ASSERT_GT(n, 0);
	path[n] = '\0';
	snprintf(spin32, sizeof(spin32), "%s/utrace_spin32", dirname(path));
	ASSERT_EQ(0, access(spin32, X_OK));

	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execl(spin32, spin32, NULL);
		_exit(101);
	}
	/* The exec's SIGTRAP. */
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	ASSERT_EQ(SIGTRAP, WSTOPSIG(status));
	ASSERT_EQ(0, ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &iov));
	EXPECT_EQ(17 * 4, iov.iov_len);
	ASSERT_LT(0, ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(info), &info));
	EXPECT_EQ(AUDIT_ARCH_I386, info.arch);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

TEST_HARNESS_MAIN
