/* froggy-shell.h: the gdb-like shell of `froggy attach` and `froggy run`
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "froggy-daemon-proxy.h"

G_BEGIN_DECLS

#define FROGGY_TYPE_SHELL (froggy_shell_get_type ())
G_DECLARE_FINAL_TYPE (FroggyShell, froggy_shell, FROGGY, SHELL, GObject)

FroggyShell *froggy_shell_new        (FroggyDaemonProxy  *daemon);

/* Starts the session the shell debugs: attaches to every thread of @pid,
 * or launches @argv stopped at its exec.  Prints the first stop. */
gboolean     froggy_shell_attach     (FroggyShell        *self,
                                      gint64              pid,
                                      GError            **error);
gboolean     froggy_shell_launch     (FroggyShell        *self,
                                      const char * const *argv,
                                      GError            **error);

/* Runs one command line, as typed at the prompt; returns once it is done
 * (for continue and the steps: once the program stopped again or ended).
 * FALSE when it failed (the error was printed) or asked to quit. */
gboolean     froggy_shell_execute    (FroggyShell        *self,
                                      const char         *line);
/* Commands from a file, one per line ('#' starts a comment). */
gboolean     froggy_shell_source     (FroggyShell        *self,
                                      const char         *path);
gboolean     froggy_shell_quit_requested (FroggyShell    *self);

/* The interactive loop: readline on the terminal (or plain lines from a
 * pipe) until quit or the end of input.  Returns the exit status. */
int          froggy_shell_run        (FroggyShell        *self);

/* Lets go of the session: detaches from an attached process, kills a
 * launched one, as gdb does when it quits. */
void         froggy_shell_end_session (FroggyShell       *self);

G_END_DECLS
