// SPDX-License-Identifier: GPL-2.0
/*
 * A tracee that forks: the child writes one line and exits with status 7,
 * the parent waits for it and reports what it saw.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	static const char line[] = "child says hello\n";
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		if (write(STDOUT_FILENO, line, strlen(line)) < 0)
			_exit(1);
		_exit(7);
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return 1;
	}
	printf("parent: child %d exited with %d\n", (int)pid,
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
