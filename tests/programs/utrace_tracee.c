// SPDX-License-Identifier: GPL-2.0
/*
 * The tracee of the utrace engine tests (tests/utrace/).
 *
 * usage: utrace_tracee MODE [ARG]
 *
 * It prints "ready PID" and waits for a line on stdin, so the test can
 * attach its engines first, then does what MODE says and prints what it
 * saw, one "key=value" line per fact.  MODE "ids" only prints the real
 * and effective uids, at once: run set-user-ID, it shows whether the
 * exec that started it raised its privilege.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t usr1_handled;

static void wait_for_go(void)
{
	char line[64];

	printf("ready %d\n", getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		exit(2);
}

/* getppid, a one-byte write, then a write to a bad descriptor. */
static int mode_syscalls(void)
{
	long ret;

	ret = syscall(SYS_getppid);
	printf("getppid=%ld getppid_errno=%d\n", ret, ret < 0 ? errno : 0);
	fflush(stdout);
	ret = syscall(SYS_write, 1, "w\n", 2);
	printf("write=%ld\n", ret);
	ret = syscall(SYS_write, 12345, "x", 1);
	printf("badwrite=%ld badwrite_errno=%d\n", ret, ret < 0 ? errno : 0);
	return 0;
}

/* Exits with status 3 after a child that exits with 5. */
static int mode_fork_exit(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(5);
	waitpid(pid, &status, 0);
	printf("child=%d status=%d\n", pid, WEXITSTATUS(status));
	fflush(stdout);
	return 3;
}

static void on_usr1(int sig __attribute__((unused)))
{
	usr1_handled++;
}

/* SIGUSR1 runs a handler, SIGUSR2 is ignored, SIGTERM would kill. */
static int mode_signals(void)
{
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, SIG_IGN);
	wait_for_go();
	raise(SIGUSR1);
	raise(SIGUSR2);
	printf("usr1_handled=%d\n", usr1_handled);
	fflush(stdout);
	return 0;
}

static int rt_order[3], rt_seen;

static void on_rt(int sig __attribute__((unused)), siginfo_t *info,
		  void *ucontext __attribute__((unused)))
{
	if (rt_seen < 3)
		rt_order[rt_seen++] = info->si_value.sival_int;
}

/*
 * Three SIGRTMIN values queued to this thread while blocked, then
 * unblocked: POSIX says they are delivered in the order they were sent,
 * whatever a tracer does.  (Thread-directed, so all three share the queue
 * a signal held back goes to.)
 */
static int mode_rt_order(void)
{
	struct sigaction sa = { .sa_sigaction = on_rt, .sa_flags = SA_SIGINFO };
	sigset_t rt;
	int i;

	sigaction(SIGRTMIN, &sa, NULL);
	sigemptyset(&rt);
	sigaddset(&rt, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &rt, NULL);
	wait_for_go();
	for (i = 1; i <= 3; i++)
		pthread_sigqueue(pthread_self(), SIGRTMIN,
				 (union sigval){ .sival_int = i });
	sigprocmask(SIG_UNBLOCK, &rt, NULL);
	printf("rt_order=%d,%d,%d\n", rt_order[0], rt_order[1], rt_order[2]);
	fflush(stdout);
	return 0;
}

/*
 * Spin in a run of one-byte nops, so that any single step from inside the
 * run moves the instruction pointer by exactly one.
 */
static int mode_spin(void)
{
	extern char spin_start[], spin_end[];

	printf("spin_start=%p spin_end=%p\n", spin_start, spin_end);
	fflush(stdout);
	for (;;) {
		asm volatile("spin_start:\n\t"
			     ".rept 256\n\tnop\n\t.endr\n"
			     "spin_end:\n\t" ::: "memory");
	}
	return 0;
}

/* Block in read() on stdin until the test writes a line. */
static int mode_block(void)
{
	char buf[64];
	ssize_t n;

	n = read(0, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	printf("read=%zd errno=%d data=%s", n, n < 0 ? errno : 0, buf);
	return 0;
}

static void *exec_from_thread(void *path)
{
	char *const argv[] = { path, NULL };
	char line[64];

	printf("thread=%ld\n", syscall(SYS_gettid));
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		exit(2);
	execv(path, argv);
	perror("execv");
	exit(1);
}

/* A thread other than the leader execs ARG, after a second line. */
static int mode_thread_exec(const char *path)
{
	pthread_t thread;

	pthread_create(&thread, NULL, exec_from_thread, (void *)path);
	pause();
	return 1;
}

static void *short_lived_thread(void *arg __attribute__((unused)))
{
	printf("thread=%ld\n", syscall(SYS_gettid));
	fflush(stdout);
	return NULL;
}

/* Start a thread that exits at once, join it, and exit with 4. */
static int mode_thread_exit(void)
{
	pthread_t thread;

	pthread_create(&thread, NULL, short_lived_thread, NULL);
	pthread_join(thread, NULL);
	printf("joined\n");
	fflush(stdout);
	return 4;
}

static void *spinning_thread(void *arg __attribute__((unused)))
{
	printf("thread=%ld\n", syscall(SYS_gettid));
	fflush(stdout);
	for (;;)
		pause();
	return NULL;
}

static void *busy_thread(void *arg __attribute__((unused)))
{
	printf("thread=%ld\n", syscall(SYS_gettid));
	fflush(stdout);
	for (;;)
		asm volatile("" ::: "memory");
	return NULL;
}

/* Start ARG threads that spin, then block in read() on stdin. */
static int mode_busy_threads(int nthreads)
{
	pthread_t thread;
	int i;

	for (i = 0; i < nthreads; i++)
		pthread_create(&thread, NULL, busy_thread, NULL);
	return mode_block();
}

/* Start ARG threads that sleep, then exit the group with 6. */
static int mode_group_exit(int nthreads)
{
	pthread_t thread;
	char line[64];
	int i;

	for (i = 0; i < nthreads; i++)
		pthread_create(&thread, NULL, spinning_thread, NULL);
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	exit(6);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "ids")) {
		printf("uid=%d euid=%d\n", (int)getuid(), (int)geteuid());
		return 0;
	}
	if (!strcmp(mode, "signals"))
		return mode_signals();
	if (!strcmp(mode, "rt-order"))
		return mode_rt_order();

	wait_for_go();
	if (!strcmp(mode, "syscalls"))
		return mode_syscalls();
	if (!strcmp(mode, "fork-exit"))
		return mode_fork_exit();
	if (!strcmp(mode, "exec") && argc > 2) {
		execv(argv[2], argv + 2);
		return 1;
	}
	if (!strcmp(mode, "spin"))
		return mode_spin();
	if (!strcmp(mode, "block"))
		return mode_block();
	if (!strcmp(mode, "thread-exec") && argc > 2)
		return mode_thread_exec(argv[2]);
	if (!strcmp(mode, "thread-exit"))
		return mode_thread_exit();
	if (!strcmp(mode, "busy-threads"))
		return mode_busy_threads(argc > 2 ? atoi(argv[2]) : 3);
	if (!strcmp(mode, "group-exit"))
		return mode_group_exit(argc > 2 ? atoi(argv[2]) : 3);
	if (!strcmp(mode, "traceme")) {
		long ret = ptrace(PTRACE_TRACEME, 0, NULL, NULL);

		printf("traceme=%ld traceme_errno=%d\n", ret, ret < 0 ? errno : 0);
		return 0;
	}

	fprintf(stderr, "utrace_tracee: unknown mode \"%s\"\n", mode);
	return 2;
}
