/* froggy-breakpoint.h: a user's breakpoint and what decides a stop at it
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>
#include <sys/types.h>
#include <sys/user.h>

G_BEGIN_DECLS

typedef struct
{
  guint    id;
  char    *location;     /* as the client gave it */
  GArray  *addresses;    /* guint64, in the session's main process */
  char    *function;     /* where it resolved, when known */
  char    *file;
  int      line;
  pid_t    thread;       /* stop only this thread; 0: any */
  char    *condition;    /* "$REG OP VALUE", or NULL */
  guint    ignore_count; /* hits still to pass */
  guint    hits;
  gboolean enabled;
  gboolean temporary;
  gboolean auto_continue; /* a hit is reported, and the thread goes on */
  gboolean by_function;  /* set again in the new image after an exec */

  /* the parsed condition */
  char    *condition_register;
  int      condition_op;
  guint64  condition_value;
} FroggyBreakpoint;

FroggyBreakpoint *froggy_breakpoint_new            (guint                          id,
                                                    const char                    *location);
void              froggy_breakpoint_free           (FroggyBreakpoint              *self);
gboolean          froggy_breakpoint_set_condition  (FroggyBreakpoint              *self,
                                                    const char                    *condition,
                                                    GError                       **error);
gboolean          froggy_breakpoint_has_address    (FroggyBreakpoint              *self,
                                                    guint64                        address);
/* Whether a hit by @tid with @regs stops: thread filter, condition, then
 * ignore count (which a hit that passes the rest uses up). */
gboolean          froggy_breakpoint_should_stop    (FroggyBreakpoint              *self,
                                                    pid_t                          tid,
                                                    struct user_regs_struct       *regs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FroggyBreakpoint, froggy_breakpoint_free)

G_END_DECLS
