/* froggy-syscalls.c
 *
 * The table is generated at build time from the installed
 * <asm/unistd_64.h> (see CMakeLists.txt), so it is the kernel's own list.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <string.h>

#include "froggy-syscalls.h"

static const char * const syscall_names[] = {
#include "froggy-syscall-names.h"
};

const char *
froggy_syscall_name (gint64 nr)
{
  if (nr < 0 || nr >= (gint64) G_N_ELEMENTS (syscall_names))
    return NULL;
  return syscall_names[nr];
}

int
froggy_syscall_number (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (syscall_names); i++)
    if (syscall_names[i] != NULL && strcmp (syscall_names[i], name) == 0)
      return i;
  return -1;
}
