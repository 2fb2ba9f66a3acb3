// SPDX-License-Identifier: GPL-2.0
/*
 * A process of N threads (argv[1]) that all wait: the target of the
 * attach and stop-all benchmark.  Prints "ready" once every thread runs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *wait_forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 10;
	pthread_attr_t attr;
	pthread_t thread;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 1; i < count; i++)
		if (pthread_create(&thread, &attr, wait_forever, NULL))
			return 1;
	printf("ready\n");
	fflush(stdout);
	wait_forever(NULL);
	return 0;
}
