/* froggy-registers.h: x86_64 register names and the NT_PRSTATUS layout
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>
#include <sys/user.h>

G_BEGIN_DECLS

/* The general registers as a {name: "0x..."} a{sv}, in the order of
 * protocol/README.md (floating). */
GVariant *froggy_registers_general_to_variant (const struct user_regs_struct *regs);
/* The x87/SSE state of an NT_PRFPREG (fxsave) buffer (floating). */
GVariant *froggy_registers_fp_to_variant      (const struct user_fpregs_struct *fpregs);
/* 4 for a 32-bit thread's registers (widened to this layout), 8 for a
 * 64-bit one's: the size of a pointer, a return address, a stack slot. */
guint     froggy_registers_word_size          (const struct user_regs_struct *regs);
/* The address of register @name in @regs, or NULL if there is none. */
unsigned long long *froggy_registers_lookup   (struct user_regs_struct *regs,
                                                const char              *name);

G_END_DECLS
