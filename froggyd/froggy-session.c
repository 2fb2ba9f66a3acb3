/* froggy-session.c
 *
 * A FroggySession is one traced process tree: one /dev/utrace session in
 * the kernel (a FroggyDevice), the processes and threads in it, the
 * breakpoints, watchpoints and catchpoints set on it, and the clients
 * (FroggyPeer) that control or observe it.
 *
 * Everything is driven by the device's event records, read in the main
 * loop and handled in froggy-session-records.c.  Nothing here ever waits
 * for a tracee: what needs threads stopped first (attach, stop, detach,
 * stepping over a breakpoint while other threads run) waits on a
 * StopWaiter, completed from the records.
 *
 * This file is the object, its clients, its lifecycle and its public
 * API, the top floor; the other froggy-session-*.c files are the floors
 * below it (see froggy-session-private.h).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <elf.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/audit.h>

#include "froggy-breakpoint.h"
#include "froggy-device.h"
#include "froggy-error.h"
#include "froggy-params.h"
#include "froggy-registers.h"
#include "froggy-session-private.h"
#include "froggy-session.h"
#include "froggy-symbolizer.h"
#include "froggy-syscalls.h"


enum {
  ENDED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (FroggySession, froggy_session, G_TYPE_OBJECT)

static void
froggy_session_dispose (GObject *object)
{
  FroggySession *self = FROGGY_SESSION (object);

  g_clear_handle_id (&self->resync_source, g_source_remove);
  if (self->device != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->device, self);
      froggy_device_close (self->device);
      g_clear_object (&self->device);
    }
  g_clear_pointer (&self->peers, g_ptr_array_unref);
  self->controller = NULL;
  g_clear_pointer (&self->detach_tasks, g_ptr_array_unref);
  G_OBJECT_CLASS (froggy_session_parent_class)->dispose (object);
}

static void
froggy_session_finalize (GObject *object)
{
  FroggySession *self = FROGGY_SESSION (object);

  g_list_free_full (self->waiters, (GDestroyNotify) stop_waiter_free);
  g_hash_table_unref (self->threads);
  g_hash_table_unref (self->processes);
  g_ptr_array_unref (self->breakpoints);
  g_ptr_array_unref (self->watchpoints);
  g_ptr_array_unref (self->catchpoints);
  g_hash_table_unref (self->reported);
  g_clear_error (&self->launch_error);
  G_OBJECT_CLASS (froggy_session_parent_class)->finalize (object);
}

static void
froggy_session_class_init (FroggySessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = froggy_session_dispose;
  object_class->finalize = froggy_session_finalize;

  /**
   * FroggySession::ended:
   *
   * Every thread is gone or detached: the session is over.
   */
  signals[ENDED] = g_signal_new ("ended", G_TYPE_FROM_CLASS (klass),
                                 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                 G_TYPE_NONE, 0);
}

static void
froggy_session_init (FroggySession *self)
{
  self->threads = g_hash_table_new_full (NULL, NULL, NULL, thread_free);
  self->processes = g_hash_table_new_full (NULL, NULL, NULL, process_free);
  self->breakpoints = g_ptr_array_new_with_free_func ((GDestroyNotify) froggy_breakpoint_free);
  self->watchpoints = g_ptr_array_new_with_free_func (watchpoint_free);
  self->catchpoints = g_ptr_array_new_with_free_func (catchpoint_free);
  self->reported = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->peers = g_ptr_array_new_with_free_func (g_object_unref);
  self->events = BASE_EVENTS;
  self->nonstop = BASE_NONSTOP;
  self->next_breakpoint_id = 1;
  self->next_watchpoint_id = 1;
  self->resync_schedule = resync_schedule;
}

FroggySession *
froggy_session_new (guint      id,
                    gboolean   follow_fork,
                    GError   **error)
{
  g_autoptr(FroggySession) self = g_object_new (FROGGY_TYPE_SESSION, NULL);

  self->id = id;
  self->follow_fork = follow_fork;
  self->device = froggy_device_open (error);
  if (self->device == NULL)
    return NULL;
  g_signal_connect_swapped (self->device, "event", G_CALLBACK (session_record), self);
  g_signal_connect_swapped (self->device, "hangup", G_CALLBACK (session_hangup), self);
  return g_steal_pointer (&self);
}

guint
froggy_session_get_id (FroggySession *self)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), 0);
  return self->id;
}

pid_t
froggy_session_get_pid (FroggySession *self)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), 0);
  return self->pid;
}

/**
 * froggy_session_set_lossless:
 *
 * Before the launch or attach: make every event the session streams
 * reach every client.  The kernel then makes a thread wait rather than
 * drop its system call record when the session's queue is full, and the
 * session stops reading that queue while one of its clients lags.
 */
gboolean
froggy_session_set_lossless (FroggySession  *self,
                             GError        **error)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);
  g_return_val_if_fail (self->pid == 0, FALSE);

  if (!froggy_device_has_feature (self->device, UTRACE_FEATURE_LOSSLESS))
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_KERNEL,
                   "this kernel has no lossless event streams (UTRACE_FEATURE_LOSSLESS)");
      return FALSE;
    }
  self->lossless = TRUE;
  return TRUE;
}

/* Why a launched program never reached its exec, or NULL. */
const GError *
froggy_session_get_launch_error (FroggySession *self)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);
  return self->launch_error;
}

/* Clients {{{ */

void
froggy_session_add_peer (FroggySession *self,
                         FroggyPeer    *peer)
{
  g_return_if_fail (FROGGY_IS_SESSION (self));

  if (froggy_session_has_peer (self, peer))
    return;
  g_ptr_array_add (self->peers, g_object_ref (peer));
  g_signal_connect_object (peer, "caught-up", G_CALLBACK (lossless_pace), self,
                           G_CONNECT_SWAPPED);
  if (self->controller == NULL)
    self->controller = peer;
}

gboolean
froggy_session_has_peer (FroggySession *self,
                         FroggyPeer    *peer)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);
  return g_ptr_array_find (self->peers, peer, NULL);
}

gboolean
froggy_session_remove_peer (FroggySession *self,
                            FroggyPeer    *peer)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  if (self->controller == peer)
    self->controller = NULL;
  g_signal_handlers_disconnect_by_func (peer, lossless_pace, self);
  g_ptr_array_remove (self->peers, peer);
  lossless_pace (self);
  /* The first observer left takes over. */
  if (self->controller == NULL && self->peers->len > 0)
    self->controller = g_ptr_array_index (self->peers, 0);
  return self->peers->len > 0;
}

FroggyPeer *
froggy_session_get_controller (FroggySession *self)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);
  return self->controller;
}

void
froggy_session_set_controller (FroggySession *self,
                               FroggyPeer    *peer)
{
  g_return_if_fail (FROGGY_IS_SESSION (self));
  g_return_if_fail (peer == NULL || froggy_session_has_peer (self, peer));
  self->controller = peer;
}



/* }}} */

/* Waiting for stops {{{ */

static void
wait_stopped_done (FroggySession *self,
                   gpointer       data)
{
  g_autoptr(GTask) task = data;
  GArray *tids = g_task_get_task_data (task);
  GArray *present = g_array_new (FALSE, FALSE, sizeof (pid_t));

  for (guint i = 0; i < tids->len; i++)
    {
      pid_t tid = g_array_index (tids, pid_t, i);

      if (thread_lookup (self, tid) != NULL)
        g_array_append_val (present, tid);
    }
  g_task_return_pointer (task, present, (GDestroyNotify) g_array_unref);
}

void
froggy_session_wait_stopped_async (FroggySession       *self,
                                   GArray              *tids,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GArray) waited = tids ? g_array_ref (tids) : all_tids (self);

  g_return_if_fail (FROGGY_IS_SESSION (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, froggy_session_wait_stopped_async);
  g_task_set_task_data (task, g_array_ref (waited), (GDestroyNotify) g_array_unref);
  stop_waiter_add (self, waited, tids == NULL, wait_stopped_done, g_steal_pointer (&task));
}

/* Returns the threads waited for that are still there (pid_t). */
GArray *
froggy_session_wait_stopped_finish (FroggySession  *self,
                                    GAsyncResult   *result,
                                    GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* }}} */

/* Stepping {{{ */

gboolean
froggy_session_step (FroggySession   *self,
                     pid_t            tid,
                     FroggyStepKind   kind,
                     guint            count,
                     GError         **error)
{
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  thread = thread_get (self, tid, TRUE, error);
  return thread != NULL && thread_step_start (self, thread, kind, count, error);
}

/* }}} */

/* Starting {{{ */

static void
launch_child_exited (GPid     pid,
                     int      status,
                     gpointer user_data)
{
  FroggySession *self = user_data;

  g_debug ("launched process %d reaped, status 0x%x", pid, status);

  /* It died before its exec reached us (the attach in the child failed,
   * or the exec did): nobody will ever see it stop. */
  if (!self->launch_seen)
    {
      g_message ("launched process %d exited before its exec (status 0x%x)",
                 pid, status);
      g_clear_error (&self->launch_error);
      self->launch_error = launch_exit_error (status);
      session_abandon (self);
    }
}

static guint32
attach_flags (FroggySession *self)
{
  return UTRACE_ATTACH_CLONES | UTRACE_ATTACH_CHILDREN |
         (self->lossless ? UTRACE_ATTACH_LOSSLESS : 0);
}

gboolean
froggy_session_launch (FroggySession      *self,
                       const char * const *argv,
                       const char * const *env,
                       const char         *cwd,
                       const char         *stdio,
                       FroggyPeer         *owner,
                       GError            **error)
{
  LaunchSetup setup = {
    .fd = froggy_device_get_fd (self->device),
    .client = froggy_peer_get_credentials (owner),
    .events = self->events,
    .nonstop = self->nonstop,
    .flags = UTRACE_ATTACH_LAUNCH | attach_flags (self),
  };
  pid_t pid;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  pid = launch_program (&setup, argv, env, cwd, stdio, error);
  if (pid < 0)
    return FALSE;
  self->pid = pid;
  self->launched = TRUE;
  g_child_watch_add_full (G_PRIORITY_DEFAULT, pid, launch_child_exited,
                          g_object_ref (self), g_object_unref);
  return TRUE;
}

gboolean
froggy_session_attach (FroggySession           *self,
                       pid_t                    pid,
                       gboolean                 all_threads,
                       const FroggyCredentials *client,
                       GError                 **error)
{
  guint64 id;
  guint32 flags = attach_flags (self) | UTRACE_ATTACH_STOP;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  if (all_threads)
    flags |= UTRACE_ATTACH_GROUP;
  if (!froggy_device_attach_as (self->device, client, pid, flags, self->events, self->nonstop,
                                &id, error))
    return FALSE;
  self->pid = pid;
  process_lookup (self, pid);

  /* The threads known now; the others introduce themselves by their
   * records (a group attach returns one id). */
  if (all_threads)
    {
      g_autofree char *path = g_strdup_printf ("/proc/%d/task", pid);
      g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)))
        {
          pid_t tid = atoi (name);

          if (thread_lookup (self, tid) == NULL)
            thread_add (self, 0, tid, pid);
        }
    }
  if (thread_lookup (self, pid) == NULL)
    thread_add (self, id, pid, pid);
  thread_lookup (self, pid)->id = id;
  return TRUE;
}

/* }}} */

/* Requests {{{ */

/* Every thread of the session, as FroggyThreadState. */
GArray *
froggy_session_threads (FroggySession *self)
{
  GArray *states = g_array_new (FALSE, TRUE, sizeof (FroggyThreadState));
  GHashTableIter iter;
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      FroggyThreadState state = {
        .tid = thread->tid,
        .pid = thread->pid,
        .stopped = thread->stopped,
      };

      if (thread->stopped && thread->id != 0)
        {
          state.pc = thread_pc (self, thread);
          state.has_pc = TRUE;
        }
      g_array_append_val (states, state);
    }
  return states;
}

/* What is at @address in process @pid: the function, the source line. */
FroggySymbol *
froggy_session_lookup_address (FroggySession *self,
                               pid_t          pid,
                               guint64        address)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  return froggy_symbolizer_lookup_address (process_lookup (self, pid)->symbolizer, address);
}

gboolean
froggy_session_stop (FroggySession  *self,
                     pid_t           tid,
                     GArray        **stopping,
                     GError        **error)
{
  g_autoptr(GArray) tids = g_array_new (FALSE, FALSE, sizeof (pid_t));
  g_autoptr(GError) local_error = NULL;
  GHashTableIter iter;
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  /* After a loss, the threads the kernel has: a stop of every thread
   * reaches those whose CLONE records were lost too. */
  if (tid == 0 && self->records_lost)
    {
      g_clear_handle_id (&self->resync_source, g_source_remove);
      threads_resync (self);
      if (self->ended)
        {
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NO_SESSION, "the session has ended");
          return FALSE;
        }
    }
  if (tid != 0 && thread_get (self, tid, FALSE, error) == NULL)
    return FALSE;

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      if (tid != 0 && thread->tid != tid)
        continue;
      g_array_append_val (tids, thread->tid);
      /* Held for someone's step-over, it looks running to the user:
       * now it stays stopped when that ends.  One held asleep stops
       * only if woken: interrupt it. */
      if (thread->paused || thread->deferred)
        {
          thread->paused = thread->deferred = FALSE;
          if (thread->stopped)
            notify_simple (self, "interrupted", thread);
          else if (thread_control (self, thread, UTRACE_CTL_INTERRUPT, -1, NULL))
            thread->stop_requested = TRUE;
          continue;
        }
      if (thread->stopped)
        continue;
      if (!thread_control (self, thread, UTRACE_CTL_INTERRUPT, -1, &local_error))
        {
          /* Exiting: its death record answers whoever waits for it. */
          if (g_error_matches (local_error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD))
            {
              g_clear_error (&local_error);
              continue;
            }
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
      thread->stop_requested = TRUE;
    }
  *stopping = g_steal_pointer (&tids);
  return TRUE;
}

gboolean
froggy_session_continue (FroggySession  *self,
                         pid_t           tid,
                         int             signo,
                         GError        **error)
{
  GHashTableIter iter;
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  if (tid != 0)
    {
      thread = thread_get (self, tid, TRUE, error);
      if (thread == NULL)
        return FALSE;
      thread_end_step (self, thread);
      return thread_resume (self, thread, signo, error);
    }

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      /* A paused thread runs when the step-over it waits for ends. */
      if (!thread->stopped || thread->id == 0 || thread->over_address != 0 ||
          thread->paused || thread->deferred)
        continue;
      thread_end_step (self, thread);
      if (!thread_resume (self, thread, signo, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
froggy_session_get_regs (FroggySession            *self,
                         pid_t                     tid,
                         struct user_regs_struct  *regs,
                         GError                  **error)
{
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  thread = thread_get (self, tid, TRUE, error);
  return thread != NULL && froggy_device_get_regs (self->device, thread->id, regs, error);
}

/* The fxsave image, whether the thread is 64-bit or 32-bit. */
gboolean
froggy_session_get_fpregs (FroggySession              *self,
                           pid_t                       tid,
                           struct user_fpregs_struct  *fp,
                           GError                    **error)
{
  gsize len = sizeof *fp;
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  thread = thread_get (self, tid, TRUE, error);
  if (thread == NULL ||
      !froggy_device_get_regset (self->device, thread->id, NT_PRFPREG, fp, &len, error))
    return FALSE;
  /* A 32-bit thread's NT_PRFPREG is the 108-byte fsave image; its
   * fxsave image, the layout here, is NT_PRXFPREG. */
  if (len != sizeof *fp)
    {
      len = sizeof *fp;
      if (!froggy_device_get_regset (self->device, thread->id, NT_PRXFPREG, fp, &len, error))
        return FALSE;
    }
  if (len != sizeof *fp)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_KERNEL,
                   "an unknown %zu-byte floating-point register set", len);
      return FALSE;
    }
  return TRUE;
}

gboolean
froggy_session_set_regs (FroggySession                  *self,
                         pid_t                           tid,
                         const struct user_regs_struct  *regs,
                         GError                        **error)
{
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  thread = thread_get (self, tid, TRUE, error);
  return thread != NULL && froggy_device_set_regs (self->device, thread->id, regs, error);
}

/* The siginfo of the signal @tid stopped for (a "signal" stop). */
gboolean
froggy_session_get_siginfo (FroggySession  *self,
                            pid_t           tid,
                            siginfo_t      *info,
                            GError        **error)
{
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  thread = thread_get (self, tid, TRUE, error);
  return thread != NULL && froggy_device_get_siginfo (self->device, thread->id, info, error);
}

/* What @tid gets when it continues with the signal it stopped for: a
 * continue without "signal" delivers @info's si_signo with it. */
gboolean
froggy_session_set_siginfo (FroggySession    *self,
                            pid_t             tid,
                            const siginfo_t  *info,
                            GError          **error)
{
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  thread = thread_get (self, tid, TRUE, error);
  return thread != NULL && froggy_device_set_siginfo (self->device, thread->id, info, error);
}

/* The thread through which a process's memory is reached. */
static Thread *
memory_thread (FroggySession  *self,
               pid_t           tid,
               GError        **error)
{
  Thread *thread;

  if (tid != 0)
    {
      thread = thread_get (self, tid, FALSE, error);
      if (thread == NULL)
        return NULL;
    }
  thread = process_stopped_thread (self, tid != 0 ? thread_lookup (self, tid)->pid : self->pid);
  if (thread == NULL)
    g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_RUNNING,
                 "no thread of the process is stopped: stop one first");
  return thread;
}

/* Up to @length bytes at @address (FROGGY_MEMORY_MAX at most): fewer
 * when the mapping ends.  The program's bytes, not our int3s. */
GBytes *
froggy_session_read_memory (FroggySession  *self,
                            pid_t           tid,
                            guint64         address,
                            gsize           length,
                            GError        **error)
{
  g_autofree guint8 *buf = NULL;
  GHashTableIter iter;
  Process *process;
  Thread *thread;
  Site *site;
  gssize n;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  if (length == 0 || length > FROGGY_MEMORY_MAX)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "length must be 1 to %d", FROGGY_MEMORY_MAX);
      return NULL;
    }
  thread = memory_thread (self, tid, error);
  if (thread == NULL)
    return NULL;
  buf = g_malloc (length);
  n = froggy_device_read_memory (self->device, thread->id, address, buf, length, error);
  if (n < 0)
    return NULL;

  process = process_lookup (self, thread->pid);
  g_hash_table_iter_init (&iter, process->sites);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &site))
    if (site->address >= address && site->address < address + n)
      buf[site->address - address] = site->original;
  return g_bytes_new_take (g_steal_pointer (&buf), n);
}

/* Writes @data (FROGGY_MEMORY_MAX bytes at most) at @address; returns
 * how many bytes were written, or -1.  Breakpoints stay in place: what
 * is written under them becomes the byte they put back. */
gssize
froggy_session_write_memory (FroggySession  *self,
                             pid_t           tid,
                             guint64         address,
                             GBytes         *data,
                             GError        **error)
{
  gsize length = 0;
  const guint8 *written = g_bytes_get_data (data, &length);
  g_autofree guint8 *buf = NULL;
  GHashTableIter iter;
  Process *process;
  Thread *thread;
  Site *site;
  gssize n;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), -1);

  if (length == 0 || length > FROGGY_MEMORY_MAX)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "data must be 1 to %d bytes", FROGGY_MEMORY_MAX);
      return -1;
    }
  thread = memory_thread (self, tid, error);
  if (thread == NULL)
    return -1;

  buf = g_memdup2 (written, length);
  process = process_lookup (self, thread->pid);
  g_hash_table_iter_init (&iter, process->sites);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &site))
    if (site->address >= address && site->address < address + length)
      buf[site->address - address] = INT3;

  n = froggy_device_write_memory (self->device, thread->id, address, buf, length, error);
  if (n < 0)
    return -1;
  g_hash_table_iter_init (&iter, process->sites);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &site))
    if (site->address >= address && site->address < address + n)
      site->original = written[site->address - address];
  return n;
}

const FroggyBreakpoint *
froggy_session_insert_breakpoint (FroggySession  *self,
                                  const char     *location,
                                  pid_t           tid,
                                  const char     *condition,
                                  guint           ignore_count,
                                  gboolean        temporary,
                                  gboolean        auto_continue,
                                  GError        **error)
{
  g_autoptr(FroggyBreakpoint) breakpoint = NULL;
  FroggyBreakpoint *inserted;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  if (tid != 0 && thread_get (self, tid, FALSE, error) == NULL)
    return NULL;
  breakpoint = froggy_breakpoint_new (self->next_breakpoint_id, location);
  breakpoint->thread = tid;
  breakpoint->ignore_count = ignore_count;
  breakpoint->temporary = temporary;
  breakpoint->auto_continue = auto_continue;
  breakpoint->by_function = location[0] != '*' && strchr (location, ':') == NULL;
  if (condition != NULL && !froggy_breakpoint_set_condition (breakpoint, condition, error))
    return NULL;
  if (!resolve_breakpoint (self, breakpoint, error))
    return NULL;
  if (!breakpoint_arm (self, breakpoint, error))
    return NULL;
  breakpoint_arm_in_children (self, breakpoint);

  self->next_breakpoint_id++;
  inserted = g_steal_pointer (&breakpoint);
  g_ptr_array_add (self->breakpoints, inserted);
  return inserted;
}

gboolean
froggy_session_remove_breakpoint (FroggySession  *self,
                                  guint           id,
                                  GError        **error)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  return breakpoint_remove (self, id, error);
}

gboolean
froggy_session_enable_breakpoint (FroggySession  *self,
                                  guint           id,
                                  gboolean        enabled,
                                  GError        **error)
{
  FroggyBreakpoint *breakpoint;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  breakpoint = breakpoint_get (self, id, error);
  if (breakpoint == NULL)
    return FALSE;
  if (breakpoint->enabled == enabled)
    return TRUE;
  if (enabled && !breakpoint_arm (self, breakpoint, error))
    return FALSE;
  if (enabled)
    breakpoint_arm_in_children (self, breakpoint);
  else
    breakpoint_disarm (self, breakpoint);
  breakpoint->enabled = enabled;
  return TRUE;
}

/* The session's breakpoints (FroggyBreakpoint), its own. */
GPtrArray *
froggy_session_list_breakpoints (FroggySession *self)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  return self->breakpoints;
}

/* Returns the watchpoint's id, or 0. */
guint
froggy_session_insert_watchpoint (FroggySession  *self,
                                  guint64         address,
                                  guint           length,
                                  gboolean        read_write,
                                  pid_t           tid,
                                  GError        **error)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), 0);

  return watchpoint_insert (self, address, length, read_write, tid, error);
}

gboolean
froggy_session_remove_watchpoint (FroggySession  *self,
                                  guint           id,
                                  GError        **error)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  return watchpoint_remove (self, id, error);
}

/* Takes @spec; returns the catchpoint's id, or 0. */
guint
froggy_session_add_catch (FroggySession    *self,
                          FroggyCatchSpec  *spec,
                          GError          **error)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), 0);

  return catch_add (self, spec, error);
}

gboolean
froggy_session_remove_catch (FroggySession  *self,
                             guint           id,
                             GError        **error)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  return catch_remove (self, id, error);
}

/* @events: event kind -> "stop", "report" or "off", applied whole or
 * not at all. */
gboolean
froggy_session_subscribe (FroggySession  *self,
                          GHashTable     *events,
                          GError        **error)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  return events_subscribe (self, events, error);
}

/* The frames of @tid's stack, innermost first (FroggySymbol: address is
 * the frame's pc). */
GPtrArray *
froggy_session_backtrace (FroggySession  *self,
                          pid_t           tid,
                          guint           max_frames,
                          GError        **error)
{
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  thread = thread_get (self, tid, TRUE, error);
  if (thread == NULL)
    return NULL;
  return thread_backtrace (self, thread, max_frames, error);
}

FroggySymbol *
froggy_session_lookup_symbol (FroggySession  *self,
                              const char     *name,
                              gboolean        by_address,
                              guint64         address,
                              GError        **error)
{
  Process *process;
  g_autoptr(FroggySymbol) symbol = NULL;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  process = process_lookup (self, self->pid);
  if (by_address)
    {
      symbol = froggy_symbolizer_lookup_address (process->symbolizer, address);
      if (symbol == NULL && froggy_symbolizer_refresh (process->symbolizer, NULL))
        symbol = froggy_symbolizer_lookup_address (process->symbolizer, address);
      if (symbol == NULL)
        {
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NOT_FOUND,
                       "0x%" G_GINT64_MODIFIER "x is in no module", address);
          return NULL;
        }
    }
  else
    {
      symbol = froggy_symbolizer_lookup_function (process->symbolizer, name, NULL);
      if (symbol == NULL && froggy_symbolizer_refresh (process->symbolizer, NULL))
        symbol = froggy_symbolizer_lookup_function (process->symbolizer, name, NULL);
      if (symbol == NULL)
        {
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NOT_FOUND, "no symbol \"%s\"", name);
          return NULL;
        }
    }
  return g_steal_pointer (&symbol);
}

/* The names and source files starting with @prefix, at most @limit of
 * them in all, the first in order of both lists merged: what a
 * completion shows first, whichever list it comes from.  *@complete
 * says whether those are all. */
gboolean
froggy_session_complete_symbol (FroggySession   *self,
                                const char      *prefix,
                                guint            limit,
                                GStrv           *names_out,
                                GStrv           *files_out,
                                gboolean        *complete,
                                GError         **error)
{
  Process *process;
  g_auto(GStrv) names = NULL;
  g_auto(GStrv) files = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GStrvBuilder) name_builder = g_strv_builder_new ();
  g_autoptr(GStrvBuilder) file_builder = g_strv_builder_new ();
  guint next_name = 0;
  guint next_file = 0;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);
  g_return_val_if_fail (prefix != NULL, FALSE);

  process = process_lookup (self, self->pid);
  if (!froggy_symbolizer_complete (process->symbolizer, prefix, &names, &files, &local_error))
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD,
                   "process %d: %s", (int) self->pid, local_error->message);
      return FALSE;
    }

  while (next_name + next_file < limit && (names[next_name] != NULL || files[next_file] != NULL))
    {
      if (files[next_file] == NULL ||
          (names[next_name] != NULL && strcmp (names[next_name], files[next_file]) <= 0))
        g_strv_builder_add (name_builder, names[next_name++]);
      else
        g_strv_builder_add (file_builder, files[next_file++]);
    }
  *complete = names[next_name] == NULL && files[next_file] == NULL;
  *names_out = g_strv_builder_end (name_builder);
  *files_out = g_strv_builder_end (file_builder);
  return TRUE;
}

/* The code of a source line (FILE:LINE), or the line of an address
 * (*ADDRESS): FroggySymbol with address, file and line. */
GPtrArray *
froggy_session_source_lines (FroggySession  *self,
                             const char     *location,
                             GError        **error)
{
  Process *process;
  g_autoptr(GPtrArray) symbols = NULL;
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  process = process_lookup (self, self->pid);
  if (location[0] == '*')
    {
      guint64 address;
      g_autoptr(FroggySymbol) symbol = NULL;

      if (!froggy_parse_word (location + 1, &address))
        {
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                       "\"%s\" is not *ADDRESS", location);
          return NULL;
        }
      symbol = froggy_symbolizer_lookup_address (process->symbolizer, address);
      if (symbol == NULL || symbol->line == 0)
        {
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NOT_FOUND,
                       "no line information at %s", location + 1);
          return NULL;
        }
      symbols = g_ptr_array_new_with_free_func ((GDestroyNotify) froggy_symbol_free);
      g_ptr_array_add (symbols, g_steal_pointer (&symbol));
    }
  else
    {
      if (strchr (location, ':') == NULL)
        {
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                       "\"%s\" is neither FILE:LINE nor *ADDRESS", location);
          return NULL;
        }
      symbols = froggy_symbolizer_resolve_location (process->symbolizer, location, &local_error);
      if (symbols == NULL)
        {
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NOT_FOUND, "%s", local_error->message);
          return NULL;
        }
    }

  return g_steal_pointer (&symbols);
}

gboolean
froggy_session_kill (FroggySession  *self,
                     GError        **error)
{
  GHashTableIter iter;
  gpointer key;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  g_hash_table_iter_init (&iter, self->processes);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (kill (GPOINTER_TO_INT (key), SIGKILL) < 0 && errno != ESRCH)
      {
        int errsv = errno;

        g_propagate_error (error, froggy_error_from_errno (errsv, "kill"));
        return FALSE;
      }
  return TRUE;
}

/* Every process has a stopped thread now: take the int3s out and close
 * the device, which lets every thread run on. */
static void
detach_stopped (FroggySession *self,
                gpointer       data)
{
  g_autoptr(FroggySession) hold = data;
  GHashTableIter iter;
  Process *process;

  g_hash_table_iter_init (&iter, self->processes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &process))
    process_remove_sites (self, process);
  watchpoints_clear_all (self);
  session_end (self);
}

void
froggy_session_detach (FroggySession *self)
{
  g_autoptr(GArray) waited = g_array_new (FALSE, FALSE, sizeof (pid_t));
  g_autoptr(FroggySession) hold = NULL;
  GHashTableIter iter;
  Process *process;

  g_return_if_fail (FROGGY_IS_SESSION (self));

  if (self->detaching || self->ended)
    return;
  self->detaching = TRUE;
  /* The session may end before this returns, its last reference gone
   * with the daemon's table of sessions. */
  hold = g_object_ref (self);

  /* A process with int3s of ours needs a stopped thread to take them
   * out; the kernel's breakpoints go with the session. */
  g_hash_table_iter_init (&iter, self->processes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &process))
    {
      GHashTableIter threads;
      Thread *thread;

      if (!process_has_int3s (process) || process_stopped_thread (self, process->pid))
        continue;
      g_hash_table_iter_init (&threads, self->threads);
      while (g_hash_table_iter_next (&threads, NULL, (gpointer *) &thread))
        if (thread->pid == process->pid && thread->id != 0 &&
            thread_control (self, thread, UTRACE_CTL_INTERRUPT, -1, NULL))
          {
            g_array_append_val (waited, thread->tid);
            break;
          }
    }
  stop_waiter_add (self, waited, FALSE, detach_stopped, g_object_ref (self));
}

/* froggy_session_detach(), done when every tracee is let go: a new
 * attach to them cannot find them still traced. */
void
froggy_session_detach_async (FroggySession       *self,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (FROGGY_IS_SESSION (self));

  task = g_task_new (self, NULL, callback, user_data);
  g_task_set_source_tag (task, froggy_session_detach_async);
  if (self->ended)
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  if (self->detach_tasks == NULL)
    self->detach_tasks = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (self->detach_tasks, g_steal_pointer (&task));
  froggy_session_detach (self);
}

gboolean
froggy_session_detach_finish (FroggySession  *self,
                              GAsyncResult   *result,
                              GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* }}} */
