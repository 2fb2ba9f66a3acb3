/* froggy-syscalls.h: system call names, of the x86_64 and i386 ABIs
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The name of call @nr in the ABI @arch (an AUDIT_ARCH_* value, as the
 * kernel's records carry it); NULL for a number with no name, or an ABI
 * the table does not have. */
const char *froggy_syscall_name   (guint32     arch,
                                   gint64      nr);
/* The ABI's short name ("x86_64", "i386"), or NULL. */
const char *froggy_syscall_abi    (guint32     arch);
/* The x86_64 number of @name, or -1 for an unknown name. */
int         froggy_syscall_number (const char *name);

G_END_DECLS
