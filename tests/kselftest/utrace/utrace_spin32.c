// SPDX-License-Identifier: GPL-2.0
/* A 32-bit tracee for the ia32 register view test: it only spins. */
int main(void)
{
	for (;;)
		asm volatile("" ::: "memory");
	return 0;
}
