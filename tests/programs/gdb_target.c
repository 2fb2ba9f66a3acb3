// SPDX-License-Identifier: GPL-2.0
/*
 * A tracee for debugger tests: a global, a small call chain, one printf.
 * add_numbers(19, 23) stores 42 in a local and adds it to the global.
 */
#include <stdio.h>

int global_counter;

static int add_numbers(int a, int b)
{
	int total = a + b;

	global_counter += total;
	return total;
}

int main(void)
{
	int result = add_numbers(19, 23);

	printf("result=%d counter=%d\n", result, global_counter);
	return 0;
}
