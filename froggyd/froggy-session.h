/* froggy-session.h: one traced process tree
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include <sys/types.h>

#include "froggy-peer.h"

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
/* Returns the threads that were waited for, as an "ax" (floating). */
GVariant      *froggy_session_wait_stopped_finish (FroggySession     *self,
                                                  GAsyncResult       *result,
                                                  GError            **error);

GVariant      *froggy_session_describe           (FroggySession      *self,
                                                  FroggyPeer         *peer);
GVariant      *froggy_session_threads            (FroggySession      *self);
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
GVariant      *froggy_session_read_registers     (FroggySession      *self,
                                                  pid_t               tid,
                                                  const char         *regset,
                                                  GError            **error);
gboolean       froggy_session_write_registers    (FroggySession      *self,
                                                  pid_t               tid,
                                                  GVariant           *registers,
                                                  GError            **error);
GVariant      *froggy_session_read_memory        (FroggySession      *self,
                                                  pid_t               tid,
                                                  guint64             address,
                                                  gsize               length,
                                                  GError            **error);
GVariant      *froggy_session_write_memory       (FroggySession      *self,
                                                  pid_t               tid,
                                                  guint64             address,
                                                  const char         *hex,
                                                  GError            **error);
GVariant      *froggy_session_insert_breakpoint  (FroggySession      *self,
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
GVariant      *froggy_session_list_breakpoints   (FroggySession      *self);
GVariant      *froggy_session_insert_watchpoint  (FroggySession      *self,
                                                  guint64             address,
                                                  guint               length,
                                                  gboolean            read_write,
                                                  pid_t               tid,
                                                  GError            **error);
gboolean       froggy_session_remove_watchpoint  (FroggySession      *self,
                                                  guint               id,
                                                  GError            **error);
/* Takes @spec. */
GVariant      *froggy_session_add_catch          (FroggySession      *self,
                                                  FroggyCatchSpec    *spec,
                                                  GError            **error);
gboolean       froggy_session_remove_catch       (FroggySession      *self,
                                                  guint               id,
                                                  GError            **error);
gboolean       froggy_session_subscribe          (FroggySession      *self,
                                                  GVariant           *events,
                                                  GError            **error);
GVariant      *froggy_session_backtrace          (FroggySession      *self,
                                                  pid_t               tid,
                                                  guint               max_frames,
                                                  GError            **error);
GVariant      *froggy_session_lookup_symbol      (FroggySession      *self,
                                                  const char         *name,
                                                  gboolean            by_address,
                                                  guint64             address,
                                                  GError            **error);
/* The names and source files starting with @prefix, at most @limit of
 * them: symbol.complete's result. */
GVariant      *froggy_session_complete_symbol    (FroggySession      *self,
                                                  const char         *prefix,
                                                  guint               limit,
                                                  GError            **error);
GVariant      *froggy_session_source_lines       (FroggySession      *self,
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
