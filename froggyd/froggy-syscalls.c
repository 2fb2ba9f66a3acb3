/* froggy-syscalls.c
 *
 * The tables are generated at build time from the installed
 * <asm/unistd_64.h> and <asm/unistd_32.h> (see CMakeLists.txt), so they
 * are the kernel's own lists.  Catchpoints name their calls by x86_64
 * number; a call a 64-bit thread makes through int $0x80 has an i386
 * number, and is known by its name.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <string.h>

#include <linux/audit.h>

#include "froggy-syscalls.h"

static const char * const x86_64_names[] = {
#include "froggy-syscall-names-64.h"
};

static const char * const i386_names[] = {
#include "froggy-syscall-names-32.h"
};

static const struct
{
  guint32             arch;
  const char         *abi;
  const char * const *names;
  gsize               n_names;
} syscall_tables[] = {
  { AUDIT_ARCH_X86_64, "x86_64", x86_64_names, G_N_ELEMENTS (x86_64_names) },
  { AUDIT_ARCH_I386, "i386", i386_names, G_N_ELEMENTS (i386_names) },
};

const char *
froggy_syscall_name (guint32 arch,
                     gint64  nr)
{
  for (guint i = 0; i < G_N_ELEMENTS (syscall_tables); i++)
    if (syscall_tables[i].arch == arch)
      return nr >= 0 && nr < (gint64) syscall_tables[i].n_names ?
             syscall_tables[i].names[nr] : NULL;
  return NULL;
}

const char *
froggy_syscall_abi (guint32 arch)
{
  for (guint i = 0; i < G_N_ELEMENTS (syscall_tables); i++)
    if (syscall_tables[i].arch == arch)
      return syscall_tables[i].abi;
  return NULL;
}

int
froggy_syscall_number (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (x86_64_names); i++)
    if (x86_64_names[i] != NULL && strcmp (x86_64_names[i], name) == 0)
      return i;
  return -1;
}
