// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * debuggee: the program the froggyd tests debug.
 *
 * Each mode (argv[1]) exercises one part of the debugger.  Lines a test
 * looks for carry a "MARK:name" comment, which mark() in tests/daemon/conftest.py
 * turns into line numbers, so that editing this file does not break the
 * tests.
 *
 *   basic     outer(20) -> middle -> leaf -> write(2); opens /dev/null;
 *             exits with 0
 *   spin      calls outer(1) forever, pausing 10 ms between calls
 *   threads   N (argv[2], default 4) threads each call tick() argv[3]
 *             times (default: forever) and bump their counter; exits 0
 *   fork      forks; the child execs "debuggee basic"; exits with the
 *             child's exit code
 *   forktick  forks; the child calls tick(0) twice in its own copy of
 *             memory and _exits with 7; the parent waits, then calls tick(1);
 *             exits 0 if the child exited with 7 and the parent's tick
 *             counted, else the child's signal + 128, or 3
 *   forkspin  forks; the child calls outer(1) forever, pausing 10 ms
 *             between calls; the parent calls tick(1), then waits for it
 *   vfork     vforks; the child calls tick(0) in its parent's memory and
 *             _exits with 7; the parent then calls tick(1); exits 0 if
 *             both ticks counted and the child exited with 7, else the
 *             child's signal + 128, or 3.  With argv[2] "wait", it
 *             waits for a SIGUSR1 first
 *   signal    raises SIGUSR1 (handled: counts), calls outer(1), exits
 *             with the number of SIGUSR1 the handler saw
 *   churn     two threads create and join short-lived threads forever
 *   getppid   calls getppid() argv[2] times (default 1000), as a system
 *             call each; exits 0
 *   int80     calls getppid() the i386 way (int $0x80, number 64), then
 *             the x86_64 way (number 110); exits 0 if both agree
 *   readwatched  reads watched without writing it; exits with its value
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_THREADS 16

volatile long watched;
volatile long counters[MAX_THREADS];
volatile sig_atomic_t usr1_seen;
static long tick_rounds = -1;

__attribute__((noinline)) long leaf(long x)
{
	char message[32];
	int length;

	length = snprintf(message, sizeof(message), "leaf %ld\n", x); /* MARK:leaf-first */
	if (write(1, message, length) < 0) /* MARK:leaf-write */
		return -1;
	return x * 2; /* MARK:leaf-return */
}

__attribute__((noinline)) long middle(long x)
{
	long y = x + 1; /* MARK:middle-first */

	y = leaf(y); /* MARK:middle-call */
	return y + 3; /* MARK:middle-return */
}

__attribute__((noinline)) long outer(long x)
{
	long result = middle(x); /* MARK:outer-call */

	watched = result; /* MARK:watch-write */
	return result; /* MARK:outer-return */
}

__attribute__((noinline)) void tick(long index)
{
	counters[index]++; /* MARK:tick */
}

static void *ticker(void *arg)
{
	long index = (long)arg;

	for (long round = 0; tick_rounds < 0 || round < tick_rounds; round++)
		tick(index);
	return NULL;
}

static int run_threads(int count)
{
	pthread_t threads[MAX_THREADS];

	if (count < 1 || count > MAX_THREADS)
		return 2;
	for (long i = 0; i < count; i++)
		if (pthread_create(&threads[i], NULL, ticker, (void *)i))
			return 3;
	for (int i = 0; i < count; i++)
		pthread_join(threads[i], NULL);
	return 0;
}

static void *churner(void *arg)
{
	pthread_t thread;

	(void)arg;
	for (;;)
		if (!pthread_create(&thread, NULL, ticker, NULL))
			pthread_join(thread, NULL);
	return NULL;
}

static int run_churn(void)
{
	pthread_t threads[2];

	tick_rounds = 1;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&threads[i], NULL, churner, NULL))
			return 3;
	pthread_join(threads[0], NULL);
	return 0;
}

static int run_fork(const char *self)
{
	int status;
	pid_t child = fork();

	if (child < 0)
		return 2;
	if (child == 0) {
		execl(self, self, "basic", (char *)NULL);
		_exit(127);
	}
	if (waitpid(child, &status, 0) != child)
		return 3;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 4;
}

static int run_forktick(void)
{
	int status;
	pid_t child = fork();

	if (child < 0)
		return 2;
	if (child == 0) {
		tick(0); /* MARK:fork-child-tick */
		tick(0);
		_exit(counters[0] == 2 ? 7 : 6);
	}
	if (waitpid(child, &status, 0) != child)
		return 3;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	tick(1); /* MARK:fork-parent-tick */
	return WIFEXITED(status) && WEXITSTATUS(status) == 7 &&
	       counters[0] == 0 && counters[1] == 1 ? 0 : 3;
}

static int run_forkspin(void)
{
	pid_t child = fork();

	if (child < 0)
		return 2;
	if (child == 0) {
		for (;;) {
			outer(1); /* MARK:forkspin-child-call */
			usleep(10000);
		}
	}
	tick(1); /* MARK:forkspin-parent-tick */
	return waitpid(child, NULL, 0) == child ? 0 : 3;
}

static int run_vfork(int wait_usr1)
{
	sigset_t usr1;
	int status, signo;
	pid_t child;

	if (wait_usr1) {
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		if (sigwait(&usr1, &signo))
			return 2;
	}
	child = vfork();
	if (child < 0)
		return 2;
	if (child == 0) {
		tick(0); /* MARK:vfork-child-tick */
		_exit(7);
	}
	if (waitpid(child, &status, 0) != child)
		return 3;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	tick(1); /* MARK:vfork-parent-tick */
	return WIFEXITED(status) && WEXITSTATUS(status) == 7 &&
	       counters[0] == 1 && counters[1] == 1 ? 0 : 3;
}

static int run_int80(void)
{
	long ret = 64; /* __NR_getppid of the i386 table */

#ifdef __x86_64__
	asm volatile("int $0x80" : "+a" (ret) : : "r8", "r9", "r10", "r11",
		     "memory");
#else
	asm volatile("int $0x80" : "+a" (ret) : : "memory");
#endif
	return ret == getppid() ? 0 : 1;
}

static int run_getppid(long calls)
{
	for (long i = 0; i < calls; i++)
		syscall(SYS_getppid);
	return 0;
}

static void on_usr1(int signo)
{
	(void)signo;
	usr1_seen++;
}

static int run_signal(void)
{
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1); /* MARK:raise */
	outer(1);
	return usr1_seen;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "basic";

	if (!strcmp(mode, "basic")) {
		int fd;

		outer(20);
		fd = open("/dev/null", O_WRONLY);
		if (fd < 0)
			return 1;
		close(fd);
		return 0;
	}
	if (!strcmp(mode, "spin")) {
		for (;;) {
			outer(1);
			usleep(10000);
		}
	}
	if (!strcmp(mode, "threads")) {
		if (argc > 3)
			tick_rounds = atol(argv[3]);
		return run_threads(argc > 2 ? atoi(argv[2]) : 4);
	}
	if (!strcmp(mode, "fork"))
		return run_fork(argv[0]);
	if (!strcmp(mode, "forktick"))
		return run_forktick();
	if (!strcmp(mode, "forkspin"))
		return run_forkspin();
	if (!strcmp(mode, "vfork"))
		return run_vfork(argc > 2 && !strcmp(argv[2], "wait"));
	if (!strcmp(mode, "signal"))
		return run_signal();
	if (!strcmp(mode, "churn"))
		return run_churn();
	if (!strcmp(mode, "getppid"))
		return run_getppid(argc > 2 ? atol(argv[2]) : 1000);
	if (!strcmp(mode, "int80"))
		return run_int80();
	if (!strcmp(mode, "readwatched"))
		return (int)watched; /* MARK:read-watched */
	fprintf(stderr, "debuggee: unknown mode %s\n", mode);
	return 2;
}
