/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracees for the /dev/utrace selftests: a forked child that runs a
 * function once the test writes its "go", so the test can attach first.
 */
#ifndef UTRACE_TRACEE_H
#define UTRACE_TRACEE_H

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct tracee {
	pid_t pid;
	int go;
};

/* Fork a tracee that runs @fn once it gets its "go". */
static inline struct tracee start_tracee(int (*fn)(void))
{
	struct tracee t;
	int pipefd[2];
	char c;

	if (pipe(pipefd))
		abort();
	t.pid = fork();
	if (t.pid == 0) {
		close(pipefd[1]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (read(pipefd[0], &c, 1) != 1)
			_exit(100);
		_exit(fn());
	}
	close(pipefd[0]);
	t.go = pipefd[1];
	return t;
}

/* Wait until the tracee sleeps in read() for its "go". */
static inline void wait_blocked(struct tracee *t)
{
	char path[64], line[128];
	int i, fd;

	snprintf(path, sizeof(path), "/proc/%d/syscall", t->pid);
	for (i = 0; i < 2000; i++) {
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			ssize_t n = read(fd, line, sizeof(line) - 1);

			close(fd);
			if (n > 2 && line[0] == '0' && line[1] == ' ')
				return;
		}
		usleep(10000);
	}
	abort();
}

static inline void go(struct tracee *t)
{
	if (write(t->go, "g", 1) != 1)
		abort();
}

/* The exit status of a tracee, or -1 if it did not exit normally. */
static inline int reap(struct tracee *t)
{
	int status;

	close(t->go);
	if (waitpid(t->pid, &status, 0) != t->pid)
		return -2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static inline void kill_tracee(struct tracee *t)
{
	kill(t->pid, SIGKILL);
	reap(t);
}

/*
 * Become @uid.  Changing credentials makes a process undumpable, which
 * only CAP_SYS_PTRACE could trace: make it dumpable again, so that the
 * tests see the uid and Yama rules alone.
 */
static inline int become(uid_t uid)
{
	if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -1;
	return prctl(PR_SET_DUMPABLE, 1);
}

/* Run @fn in a child as user @uid; its exit status, or -1. */
static inline int as_user(uid_t uid, int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (become(uid))
			_exit(100);
		_exit(fn(arg));
	}
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static inline int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * The number after @key ("PPid:") at the start of a line of the text file
 * @path (a /proc file, read whole up to 4 KiB), or -1.
 */
static inline long proc_number(const char *path, const char *key)
{
	char text[4096], *line;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	for (line = text; line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (!strncmp(line, key, strlen(key)))
			return strtol(line + strlen(key), NULL, 10);
	}
	return -1;
}

/* The state letter ('S', 't', ...) of a /proc stat file at @path, or 0. */
static inline char stat_state(const char *path)
{
	char stat[512], *paren;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, stat, sizeof(stat) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	stat[n] = '\0';
	paren = strrchr(stat, ')');
	return paren && paren[1] && paren[2] ? paren[2] : 0;
}

/* The state letter of /proc/PID/stat, or 0. */
static inline char proc_state(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	return stat_state(path);
}

/*
 * The state of @pid once it is @want, or what it still is after 20 s: a
 * stopping record, or a ptrace stop's wait status, comes just before the
 * thread goes to sleep.
 */
static inline char wait_proc_state(pid_t pid, char want)
{
	char state = proc_state(pid);
	int i;

	for (i = 0; i < 2000 && state != want; i++) {
		usleep(10000);
		state = proc_state(pid);
	}
	return state;
}

/* Copy the running program to @path, set-user-ID root; 0 or -1. */
static inline int copy_self_setuid(const char *path)
{
	char self[PATH_MAX], chunk[65536];
	ssize_t len, n = 0;
	int in, out, ok = 1;

	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return -1;
	self[len] = '\0';
	in = open(self, O_RDONLY);
	if (in < 0)
		return -1;
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while (ok && (n = read(in, chunk, sizeof(chunk))) > 0)
		ok = write(out, chunk, n) == n;
	close(in);
	if (close(out) || !ok || n < 0)
		return -1;
	if (chown(path, 0, 0) || chmod(path, 04755))
		return -1;
	return 0;
}

#endif /* UTRACE_TRACEE_H */
