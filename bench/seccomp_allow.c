// SPDX-License-Identifier: GPL-2.0
/*
 * Run PROGRAM under a seccomp filter that allows every system call: the
 * cost of the kernel's cheapest per-call hook, which a system call tracer
 * cannot undercut.  The filter sets the thread's seccomp work flag, so
 * each call takes the slow entry path that any tracer's hook needs; being
 * one constant "allow", it is answered from seccomp's per-call cache
 * without running the filter.  The exit path stays the fast one, as no
 * exit work is set.
 *
 * usage: seccomp_allow PROGRAM [ARG...]
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog filter = { .len = 1, .filter = &allow };

	if (argc < 2) {
		fprintf(stderr, "usage: seccomp_allow PROGRAM [ARG...]\n");
		return 2;
	}
	/* An unprivileged filter needs no_new_privs; root's does not mind. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &filter)) {
		perror("seccomp");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
