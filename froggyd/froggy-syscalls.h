/* froggy-syscalls.h: x86_64 system call names
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* NULL for a number with no name. */
const char *froggy_syscall_name   (gint64      nr);
/* -1 for an unknown name. */
int         froggy_syscall_number (const char *name);

G_END_DECLS
