/* froggy-notice.h: what a session tells its clients, in C
 *
 * A FroggyNotice is one notification of protocol/README.md before it is
 * encoded (froggy_encode_notice()): the session fills one in as a record
 * is handled and sends it at once, so that its strings and its symbol
 * need to live only that long.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>
#include <sys/types.h>

#include "froggy-symbolizer.h"

G_BEGIN_DECLS

typedef struct
{
  const char         *reason;       /* "breakpoint-hit", "signal", ... */
  guint               session;
  pid_t               thread;       /* 0: about the session, no thread */
  pid_t               pid;
  gboolean            stopped;      /* the thread waits for a continue */

  gboolean            has_location; /* where the thread is */
  guint64             pc;
  const FroggySymbol *location;     /* nullable: the function, the line */

  /* What the reason adds; each member is sent only when set. */
  guint               breakpoint;   /* breakpoint-hit */
  guint               watchpoint;   /* watchpoint */
  guint               catchpoint;   /* syscall-entry, syscall-exit */
  int                 signo;        /* signal, with its name */
  gboolean            has_code;     /* signal: si_code, unless the program's
                                     * own int3 */
  int                 code;
  gboolean            has_address;  /* signal: the fault address;
                                     * watchpoint: what was touched */
  guint64             address;
  gboolean            is_syscall;   /* syscall-entry, syscall-exit */
  guint64             syscall_nr;
  const char         *syscall_name; /* NULL: unknown */
  const char         *syscall_abi;  /* NULL: unknown */
  gboolean            has_args;
  guint64             args[6];
  gboolean            has_return;   /* syscall-exit */
  gint64              ret;
  const char         *filename;     /* exec */
  pid_t               new_thread;   /* clone */
  pid_t               child;        /* fork */
  gboolean            has_status;   /* exit: the wait status, if known */
  int                 status;
  const char         *step_kind;    /* step-done */
  gboolean            has_count;    /* lost */
  guint64             count;
} FroggyNotice;

G_END_DECLS
