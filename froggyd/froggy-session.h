/* froggy-session.h: one traced process tree
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/user.h>

#include "froggy-breakpoint.h"
#include "froggy-peer.h"
#include "froggy-symbolizer.h"

G_BEGIN_DECLS

typedef enum
{
  FROGGY_STEP_INSTRUCTION,
  FROGGY_STEP_LINE,
  FROGGY_STEP_OVER,
  FROGGY_STEP_OUT,
} FroggyStepKind;

/* The most instructions one step request may take. */
#define FROGGY_STEP_MAX_COUNT 1000000

/* The most bytes one memory read or write may take. */
#define FROGGY_MEMORY_MAX (1024 * 1024)

/* A thread as froggy_session_threads() sees it. */
typedef struct
{
  pid_t    tid;
  pid_t    pid;
  gboolean stopped;
  gboolean has_pc;   /* stopped, and its registers known */
  guint64  pc;
} FroggyThreadState;

/* What `catch` asks for; see protocol/README.md. */
typedef struct
{
  char     *kind;        /* "syscall", "signal", "fork", "exec", "exit" */
  GArray   *numbers;     /* int: syscall or signal numbers; empty: all */
  gboolean  entry;
  gboolean  exit;
} FroggyCatchSpec;

#define FROGGY_TYPE_SESSION (froggy_session_get_type ())
G_DECLARE_FINAL_TYPE (FroggySession, froggy_session, FROGGY, SESSION, GObject)

FroggySession *froggy_session_new                (guint               id,
                                                  gboolean            follow_fork,
                                                  GError            **error);
guint          froggy_session_get_id             (FroggySession      *self);
pid_t          froggy_session_get_pid            (FroggySession      *self);
const GError  *froggy_session_get_launch_error   (FroggySession      *self);

/* Clients: the first added controls, the others observe. */
void           froggy_session_add_peer           (FroggySession      *self,
                                                  FroggyPeer         *peer);
gboolean       froggy_session_has_peer           (FroggySession      *self,
                                                  FroggyPeer         *peer);
/* Returns whether any client is left. */
gboolean       froggy_session_remove_peer        (FroggySession      *self,
                                                  FroggyPeer         *peer);
FroggyPeer    *froggy_session_get_controller     (FroggySession      *self);
void           froggy_session_set_controller     (FroggySession      *self,
                                                  FroggyPeer         *peer);

gboolean       froggy_session_set_lossless       (FroggySession      *self,
                                                  GError            **error);
gboolean       froggy_session_launch             (FroggySession      *self,
                                                  const char * const *argv,
                                                  const char * const *env,
                                                  const char         *cwd,
                                                  const char         *stdio,
                                                  FroggyPeer         *owner,
                                                  GError            **error);
/* The attach is @client's request: the kernel judges its right. */
gboolean       froggy_session_attach             (FroggySession      *self,
                                                  pid_t               pid,
                                                  gboolean            all_threads,
                                                  const FroggyCredentials *client,
                                                  GError            **error);
/* Completes once every thread named has stopped or is gone.  With @tids
 * NULL: every thread, and those born of them while they are waited for,
 * which are stopped as well. */
void           froggy_session_wait_stopped_async (FroggySession      *self,
                                                  GArray             *tids,
                                                  GCancellable       *cancellable,
                                                  GAsyncReadyCallback callback,
                                                  gpointer            user_data);
/* Returns the threads waited for that are still there (pid_t). */
GArray        *froggy_session_wait_stopped_finish (FroggySession     *self,
                                                  GAsyncResult       *result,
                                                  GError            **error);

/* FroggyThreadState */
GArray        *froggy_session_threads            (FroggySession      *self);
/* What is at @address of process @pid: function, module, line. */
FroggySymbol  *froggy_session_lookup_address     (FroggySession      *self,
                                                  pid_t               pid,
                                                  guint64             address);
/* Stops @tid (0: all); *@stopping gets the threads to wait for. */
gboolean       froggy_session_stop               (FroggySession      *self,
                                                  pid_t               tid,
                                                  GArray            **stopping,
                                                  GError            **error);
gboolean       froggy_session_continue           (FroggySession      *self,
                                                  pid_t               tid,
                                                  int                 signo,
                                                  GError            **error);
/* @count: instructions, for FROGGY_STEP_INSTRUCTION; 1 otherwise. */
gboolean       froggy_session_step               (FroggySession      *self,
                                                  pid_t               tid,
                                                  FroggyStepKind      kind,
                                                  guint               count,
                                                  GError            **error);
gboolean       froggy_session_get_regs           (FroggySession      *self,
                                                  pid_t               tid,
                                                  struct user_regs_struct *regs,
                                                  GError            **error);
gboolean       froggy_session_set_regs           (FroggySession      *self,
                                                  pid_t               tid,
                                                  const struct user_regs_struct *regs,
                                                  GError            **error);
/* The fxsave image, of a 64-bit or a 32-bit thread. */
gboolean       froggy_session_get_fpregs         (FroggySession      *self,
                                                  pid_t               tid,
                                                  struct user_fpregs_struct *fp,
                                                  GError            **error);
/* The siginfo of the signal @tid is stopped for, in the kernel's layout;
 * the one written goes with that signal when the thread continues. */
gboolean       froggy_session_get_siginfo        (FroggySession      *self,
                                                  pid_t               tid,
                                                  siginfo_t          *info,
                                                  GError            **error);
gboolean       froggy_session_set_siginfo        (FroggySession      *self,
                                                  pid_t               tid,
                                                  const siginfo_t    *info,
                                                  GError            **error);
/* Fewer bytes than @length when the mapping ends; our int3s read as the
 * bytes they replaced. */
GBytes        *froggy_session_read_memory        (FroggySession      *self,
                                                  pid_t               tid,
                                                  guint64             address,
                                                  gsize               length,
                                                  GError            **error);
/* Returns how many bytes were written, or -1. */
gssize         froggy_session_write_memory       (FroggySession      *self,
                                                  pid_t               tid,
                                                  guint64             address,
                                                  GBytes             *data,
                                                  GError            **error);
/* The new breakpoint, the session's own. */
const FroggyBreakpoint *
               froggy_session_insert_breakpoint  (FroggySession      *self,
                                                  const char         *location,
                                                  pid_t               tid,
                                                  const char         *condition,
                                                  guint               ignore_count,
                                                  gboolean            temporary,
                                                  gboolean            auto_continue,
                                                  GError            **error);
gboolean       froggy_session_remove_breakpoint  (FroggySession      *self,
                                                  guint               id,
                                                  GError            **error);
gboolean       froggy_session_enable_breakpoint  (FroggySession      *self,
                                                  guint               id,
                                                  gboolean            enabled,
                                                  GError            **error);
/* FroggyBreakpoint, the session's own. */
GPtrArray     *froggy_session_list_breakpoints   (FroggySession      *self);
/* Returns the new watchpoint's id, or 0. */
guint          froggy_session_insert_watchpoint  (FroggySession      *self,
                                                  guint64             address,
                                                  guint               length,
                                                  gboolean            read_write,
                                                  pid_t               tid,
                                                  GError            **error);
gboolean       froggy_session_remove_watchpoint  (FroggySession      *self,
                                                  guint               id,
                                                  GError            **error);
/* Takes @spec; returns the new catchpoint's id, or 0. */
guint          froggy_session_add_catch          (FroggySession      *self,
                                                  FroggyCatchSpec    *spec,
                                                  GError            **error);
gboolean       froggy_session_remove_catch       (FroggySession      *self,
                                                  guint               id,
                                                  GError            **error);
/* @events: event kind -> "stop", "report" or "off"; all or nothing. */
gboolean       froggy_session_subscribe          (FroggySession      *self,
                                                  GHashTable         *events,
                                                  GError            **error);
/* FroggySymbol, innermost frame first; a frame's address is its pc. */
GPtrArray     *froggy_session_backtrace          (FroggySession      *self,
                                                  pid_t               tid,
                                                  guint               max_frames,
                                                  GError            **error);
FroggySymbol  *froggy_session_lookup_symbol      (FroggySession      *self,
                                                  const char         *name,
                                                  gboolean            by_address,
                                                  guint64             address,
                                                  GError            **error);
/* The names and source files starting with @prefix, at most @limit of
 * them in all; *@complete says whether those are all. */
gboolean       froggy_session_complete_symbol    (FroggySession      *self,
                                                  const char         *prefix,
                                                  guint               limit,
                                                  GStrv              *names,
                                                  GStrv              *files,
                                                  gboolean           *complete,
                                                  GError            **error);
/* FroggySymbol with address, file and line. */
GPtrArray     *froggy_session_source_lines       (FroggySession      *self,
                                                  const char         *location,
                                                  GError            **error);
gboolean       froggy_session_kill               (FroggySession      *self,
                                                  GError            **error);
/* Takes the breakpoints out and lets everything run; ::ended follows. */
void           froggy_session_detach             (FroggySession      *self);
void           froggy_session_detach_async       (FroggySession      *self,
                                                  GAsyncReadyCallback callback,
                                                  gpointer            user_data);
gboolean       froggy_session_detach_finish      (FroggySession      *self,
                                                  GAsyncResult       *result,
                                                  GError            **error);

void           froggy_catch_spec_free            (FroggyCatchSpec    *spec);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (FroggyCatchSpec, froggy_catch_spec_free)

G_END_DECLS
