/* froggy-session.c
 *
 * A FroggySession is one traced process tree: one /dev/utrace session in
 * the kernel (a FroggyDevice), the processes and threads in it, the
 * breakpoints, watchpoints and catchpoints set on it, and the clients
 * (FroggyPeer) that control or observe it.
 *
 * Everything is driven by the device's event records, read in the main
 * loop: a record either ends in a notification to the clients, with the
 * thread left stopped for them, or is handled here and the thread goes on
 * (a breakpoint whose condition is false, a step of a source-line step,
 * an event nobody asked to see).  Nothing here ever waits for a tracee:
 * what needs threads stopped first (attach, stop, detach, stepping over a
 * breakpoint while other threads run) waits on a StopWaiter, completed
 * from the records.
 *
 * Software breakpoints are int3 bytes written through the device.  A
 * Site is one such byte in one process; user breakpoints and the daemon's
 * own (the return address of a step over or out) share it.  To step a
 * thread over a breakpoint, every other running thread of the process is
 * stopped first, the original byte is put back, the thread steps one
 * instruction, the int3 goes back and the others run on: no thread can
 * run past the breakpoint unseen meanwhile, and none hits it twice.
 *
 * The kernel drops non-stopping records when the session falls 4096
 * behind (a LOST record counts them): CLONE and DEATH records among them.
 * After a loss the session resyncs from the kernel's list of the threads
 * attached (threads_resync()): one that is gone ends as if its DEATH had
 * come, one never heard of joins, and no stop is answered before that.
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

#define INT3 0xcc
#define MAX_MEMORY_READ (1024 * 1024)

/* What the kernel always reports to us, and which of it never stops. */
#define BASE_EVENTS (UTRACE_EVMASK (UTRACE_EV_EXEC) | \
                     UTRACE_EVMASK (UTRACE_EV_CLONE) | \
                     UTRACE_EVMASK (UTRACE_EV_DEATH) | \
                     UTRACE_EVMASK (UTRACE_EV_SIGNAL) | \
                     UTRACE_EVMASK (UTRACE_EV_BREAKPOINT) | \
                     UTRACE_EVMASK (UTRACE_EV_WATCHPOINT))
#define BASE_NONSTOP (UTRACE_EVMASK (UTRACE_EV_CLONE) | \
                      UTRACE_EVMASK (UTRACE_EV_DEATH))

enum {
  ENDED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (FroggySession, froggy_session, G_TYPE_OBJECT)

static void froggy_session_event      (FroggySession                    *self,
                                       const struct utrace_event_header *record,
                                       FroggyDevice                     *device);
static void froggy_session_hangup     (FroggySession                    *self,
                                       FroggyDevice                     *device);
static void thread_step_logic         (FroggySession                    *self,
                                       Thread                           *thread);
static void resync_schedule           (FroggySession                    *self,
                                       guint                             delay_ms);
static void threads_resync            (FroggySession                    *self);

void
froggy_catch_spec_free (FroggyCatchSpec *spec)
{
  if (spec == NULL)
    return;
  g_free (spec->kind);
  g_clear_pointer (&spec->numbers, g_array_unref);
  g_free (spec);
}

static void
watchpoint_free (gpointer data)
{
  Watchpoint *watchpoint = data;

  g_array_unref (watchpoint->slots);
  g_free (watchpoint);
}

static void
catchpoint_free (gpointer data)
{
  Catchpoint *catchpoint = data;

  froggy_catch_spec_free (catchpoint->spec);
  g_free (catchpoint);
}

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
  g_signal_connect_swapped (self->device, "event", G_CALLBACK (froggy_session_event), self);
  g_signal_connect_swapped (self->device, "hangup", G_CALLBACK (froggy_session_hangup), self);
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

GVariant *
froggy_session_describe (FroggySession *self,
                         FroggyPeer    *peer)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "session", g_variant_new_int64 (self->id));
  g_variant_builder_add (&builder, "{sv}", "pid", g_variant_new_int64 (self->pid));
  g_variant_builder_add (&builder, "{sv}", "controller",
                         g_variant_new_boolean (self->controller == peer));
  return g_variant_builder_end (&builder);
}

/* }}} */

/* Waiting for stops {{{ */

static void
wait_stopped_done (FroggySession *self,
                   gpointer       data)
{
  g_autoptr(GTask) task = data;
  GArray *tids = g_task_get_task_data (task);
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("ax"));
  for (guint i = 0; i < tids->len; i++)
    {
      pid_t tid = g_array_index (tids, pid_t, i);

      if (thread_lookup (self, tid) != NULL)
        g_variant_builder_add (&builder, "x", (gint64) tid);
    }
  g_task_return_pointer (task, g_variant_ref_sink (g_variant_builder_end (&builder)),
                         (GDestroyNotify) g_variant_unref);
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

GVariant *
froggy_session_wait_stopped_finish (FroggySession  *self,
                                    GAsyncResult   *result,
                                    GError        **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* }}} */

/* Breakpoint sites {{{ */

static gboolean
site_write (FroggySession  *self,
            Process        *process,
            guint64         address,
            guint8          byte,
            GError        **error)
{
  Thread *thread = process_stopped_thread (self, process->pid);

  if (thread == NULL)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_RUNNING,
                   "no thread of process %d is stopped: stop one first", process->pid);
      return FALSE;
    }
  return froggy_device_write_memory (self->device, thread->id, address, &byte, 1, error) == 1;
}

static gboolean
site_ref (FroggySession  *self,
          Process        *process,
          guint64         address,
          GError        **error)
{
  Site *site = g_hash_table_lookup (process->sites, &address);
  Thread *thread;
  guint8 original, int3 = INT3;

  if (site != NULL)
    {
      site->users++;
      return TRUE;
    }

  thread = process_stopped_thread (self, process->pid);
  if (thread == NULL)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_RUNNING,
                   "no thread of process %d is stopped: stop one first", process->pid);
      return FALSE;
    }
  if (froggy_device_read_memory (self->device, thread->id, address, &original, 1, error) != 1)
    return FALSE;
  if (froggy_device_write_memory (self->device, thread->id, address, &int3, 1, error) != 1)
    return FALSE;

  site = g_new0 (Site, 1);
  site->address = address;
  site->original = original;
  site->users = 1;
  g_hash_table_insert (process->sites, &site->address, site);
  g_hash_table_remove (process->lifted, &address);
  return TRUE;
}

/* @site's int3 is out: a thread that trapped on it before, its record
 * not read yet, is to run the instruction as if it never was there. */
static void
site_lifted (Process *process,
             Site    *site)
{
  if (site->original != INT3)
    g_hash_table_add (process->lifted, g_memdup2 (&site->address, sizeof site->address));
}

static void
site_unref (FroggySession *self,
            Process       *process,
            guint64        address)
{
  Site *site = g_hash_table_lookup (process->sites, &address);
  g_autoptr(GError) error = NULL;

  if (site == NULL || --site->users > 0)
    return;
  /* Nothing stopped to write through: the int3 stays, and the site with
   * it, unused, so that a thread that reaches it steps over it unseen;
   * it goes at the process's next stop (sites_flush()). */
  if (!site_write (self, process, address, site->original, &error))
    {
      g_debug ("process %d: the int3 at 0x%" G_GINT64_MODIFIER "x goes at its next stop: %s",
               process->pid, address, error->message);
      return;
    }
  site_lifted (process, site);
  g_hash_table_remove (process->sites, &address);
}

/* Take out the int3s of sites nobody uses any more (site_unref() could
 * not): a thread of @process is stopped now. */
static void
sites_flush (FroggySession *self,
             Process       *process)
{
  GHashTableIter iter;
  Site *site;

  g_hash_table_iter_init (&iter, process->sites);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &site))
    if (site->users == 0 && site_write (self, process, site->address, site->original, NULL))
      {
        site_lifted (process, site);
        g_hash_table_iter_remove (&iter);
      }
}

/* Every int3 out of @process, for a detach or an unfollowed fork child. */
static void
process_remove_sites (FroggySession *self,
                      Process       *process)
{
  GHashTableIter iter;
  Site *site;

  g_hash_table_iter_init (&iter, process->sites);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &site))
    {
      g_autoptr(GError) error = NULL;

      /* Taking them out of a vfork child would take them out of its
       * parent, which still has them. */
      if (process_shares_memory (process))
        {
          g_hash_table_iter_remove (&iter);
          continue;
        }
      if (!site_write (self, process, site->address, site->original, &error))
        g_warning ("process %d keeps a breakpoint at 0x%" G_GINT64_MODIFIER "x: %s",
                   process->pid, site->address, error->message);
      g_hash_table_iter_remove (&iter);
    }
}

/* A stopped thread of a child nobody follows: take our int3s out of its
 * memory and let it go, out of the session.  A vfork child runs in its
 * parent's memory, int3s included, until it execs or dies: it stays till
 * then, unseen, stepping over them, and FALSE says so. */
static gboolean
process_let_go (FroggySession *self,
                Thread        *thread)
{
  Process *process = process_lookup (self, thread->pid);
  pid_t tid = thread->tid;

  if (process_shares_memory (process))
    return FALSE;
  process_remove_sites (self, process);
  froggy_device_detach (self->device, thread->id, NULL);
  g_hash_table_remove (self->threads, GINT_TO_POINTER (tid));
  /* Gone from the session: nobody waits for it any more. */
  stop_waiters_update (self, tid);
  return TRUE;
}

/* A thread of a child nobody follows: clients never hear of it. */
static gboolean
thread_unseen (FroggySession *self,
               Thread        *thread)
{
  return !process_lookup (self, thread->pid)->followed;
}

static gboolean
breakpoint_arm (FroggySession     *self,
                FroggyBreakpoint  *breakpoint,
                GError           **error)
{
  Process *process = process_lookup (self, self->pid);

  for (guint i = 0; i < breakpoint->addresses->len; i++)
    {
      if (!site_ref (self, process, g_array_index (breakpoint->addresses, guint64, i), error))
        {
          while (i-- > 0)
            site_unref (self, process, g_array_index (breakpoint->addresses, guint64, i));
          return FALSE;
        }
    }
  return TRUE;
}

/* Interrupt a thread of @process, a child with breakpoints pending and
 * none of its threads stopped to write them through: its stop arms them
 * (see process_arm_pending()), and it runs on as a lapsed pause does,
 * unless a stop was asked of it meanwhile.  One that sleeps in a system
 * call is woken for it, as by a stop, and the call restarts where Linux
 * restarts calls after a stop.  A thread that steps is left alone: the
 * stop at its step's end serves. */
static void
process_interrupt_to_arm (FroggySession *self,
                          Process       *process)
{
  GHashTableIter iter;
  Thread *thread;

  if (process->arming != 0 || g_hash_table_size (process->pending) == 0)
    return;
  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      if (thread->pid != process->pid || thread->id == 0 || thread->paused ||
          thread->stepping || thread->over_address != 0)
        continue;
      /* Exiting already: another thread may serve. */
      if (!thread_control (self, thread, UTRACE_CTL_INTERRUPT, -1, NULL))
        continue;
      thread->pause_lapsed = TRUE;
      process->arming = thread->tid;
      return;
    }
  g_debug ("process %d: no thread to stop for its %u pending breakpoints",
           process->pid, g_hash_table_size (process->pending));
}

/* Arm breakpoint @id at @address of @process, a child, unless another
 * breakpoint is armed there.  With no thread of it stopped, it is armed
 * at the child's next stop, which an interrupt brings about; one that
 * cannot be written goes without (logged). */
static void
process_arm_at (FroggySession *self,
                Process       *process,
                guint64        address,
                guint          id)
{
  g_autoptr(GError) error = NULL;

  if (g_hash_table_contains (process->armed, &address) ||
      g_hash_table_contains (process->pending, &address))
    return;
  if (process_stopped_thread (self, process->pid) == NULL)
    {
      g_hash_table_insert (process->pending, g_memdup2 (&address, sizeof address),
                           GUINT_TO_POINTER (id));
      process_interrupt_to_arm (self, process);
      return;
    }
  if (!site_ref (self, process, address, &error))
    {
      g_debug ("breakpoint %u not set in process %d: %s",
               id, process->pid, error->message);
      return;
    }
  g_hash_table_insert (process->armed, g_memdup2 (&address, sizeof address),
                       GUINT_TO_POINTER (id));
}

/* A thread of @process is stopped now: its pending breakpoints go in. */
static void
process_arm_pending (FroggySession *self,
                     Process       *process)
{
  g_autoptr(GHashTable) pending = NULL;
  GHashTableIter iter;
  gpointer key, value;

  process->arming = 0;
  if (g_hash_table_size (process->pending) == 0)
    return;
  /* A detach takes every int3 out: none goes in now. */
  if (self->detaching)
    {
      g_hash_table_remove_all (process->pending);
      return;
    }
  pending = g_steal_pointer (&process->pending);
  process->pending = address_table_new ();
  g_hash_table_iter_init (&iter, pending);
  while (g_hash_table_iter_next (&iter, &key, &value))
    process_arm_at (self, process, *(guint64 *) key, GPOINTER_TO_UINT (value));
}

/* A breakpoint set by function name, in the new image of a followed
 * child that exec'd: its addresses there are the child's own. */
static void
breakpoint_arm_in_child (FroggySession    *self,
                         FroggyBreakpoint *breakpoint,
                         Process          *process)
{
  g_autoptr(GPtrArray) symbols = NULL;

  symbols = froggy_symbolizer_resolve_location (process->symbolizer, breakpoint->location, NULL);
  for (guint i = 0; symbols != NULL && i < symbols->len; i++)
    {
      FroggySymbol *symbol = g_ptr_array_index (symbols, i);

      process_arm_at (self, process, symbol->address, breakpoint->id);
    }
}

/* A breakpoint inserted or enabled after forks goes into every followed
 * child with memory of its own, as it would have been copied there had
 * it been set before: at its addresses in a copy of the first process's
 * image, by function name in another image.  A child whose threads all
 * run gets it at its next stop: until then, it may run past it. */
static void
breakpoint_arm_in_children (FroggySession    *self,
                            FroggyBreakpoint *breakpoint)
{
  Process *first = process_lookup (self, self->pid);
  GHashTableIter iter;
  Process *process;

  g_hash_table_iter_init (&iter, self->processes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &process))
    {
      if (process == first || !process->followed || process_shares_memory (process))
        continue;
      if (process->image != first->image)
        {
          if (breakpoint->by_function)
            breakpoint_arm_in_child (self, breakpoint, process);
          continue;
        }
      for (guint i = 0; i < breakpoint->addresses->len; i++)
        process_arm_at (self, process, g_array_index (breakpoint->addresses, guint64, i),
                        breakpoint->id);
    }
}

static gboolean
pending_is_breakpoint (gpointer key,
                       gpointer value,
                       gpointer id)
{
  return value == id;
}

static void
breakpoint_disarm (FroggySession    *self,
                   FroggyBreakpoint *breakpoint)
{
  Process *process = process_lookup (self, self->pid);
  GHashTableIter iter;
  gpointer key, value;

  for (guint i = 0; i < breakpoint->addresses->len; i++)
    site_unref (self, process, g_array_index (breakpoint->addresses, guint64, i));

  /* And wherever children armed it. */
  g_hash_table_iter_init (&iter, self->processes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &process))
    {
      GHashTableIter armed;

      g_hash_table_iter_init (&armed, process->armed);
      while (g_hash_table_iter_next (&armed, &key, &value))
        {
          if (GPOINTER_TO_UINT (value) != breakpoint->id)
            continue;
          site_unref (self, process, *(guint64 *) key);
          g_hash_table_iter_remove (&armed);
        }
      g_hash_table_foreach_remove (process->pending, pending_is_breakpoint,
                                   GUINT_TO_POINTER (breakpoint->id));
    }
}

/* }}} */

/* Running threads {{{ */

static void step_over_paused (FroggySession *self, gpointer data);
static void step_over_done (FroggySession *self, Thread *thread);

/* Whether a thread of process @pid is stepping over a breakpoint. */
static gboolean
process_stepping_over (FroggySession *self,
                       pid_t          pid)
{
  GHashTableIter iter;
  Thread *thread;

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    if (thread->pid == pid && thread->over_address != 0)
      return TRUE;
  return FALSE;
}

/* Whether @thread vforked a child that is stopped now, before its exec
 * (a stopping record of it came, and no exec record): then @thread runs
 * no user code until that child goes on.  It sleeps in vfork(), or is on
 * its way there, where the interrupt a hold gives a thread caught
 * running does not reach it: its stop would come only after the child's
 * exec, which a step-over waits for in vain. */
static gboolean
thread_waits_for_stopped_vfork_child (FroggySession *self,
                                      Thread        *thread)
{
  GHashTableIter iter;
  Process *process;

  g_hash_table_iter_init (&iter, self->processes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &process))
    {
      Thread *child;

      if (process->vfork_caller != thread->tid)
        continue;
      child = thread_lookup (self, process->pid);
      if (child != NULL && child->stopped)
        return TRUE;
    }
  return FALSE;
}

/* Hold every thread that runs in @thread's memory (of its process, or of
 * a vfork child or parent sharing it): one asleep in a system call (a
 * thread waiting for a lock, a joiner, a vfork parent) is only held
 * there, not woken, and there is no stop of it to wait for.  Returns the
 * threads whose stop is to come. */
static GArray *
step_over_hold_others (FroggySession  *self,
                       Thread         *thread,
                       GError        **error)
{
  g_autoptr(GArray) others = g_array_new (FALSE, FALSE, sizeof (pid_t));
  GHashTableIter iter;
  Thread *other;

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
    {
      g_autoptr(GError) local_error = NULL;
      gboolean held;

      if (other == thread || other->stopped || !threads_share_memory (self, other, thread))
        continue;
      if (thread_waits_for_stopped_vfork_child (self, other))
        continue;
      if (!froggy_device_hold (self->device, other->id, &held, &local_error))
        {
          /* Exiting: its death record is on its way, and it runs no
           * more code to miss the breakpoint in. */
          if (g_error_matches (local_error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD))
            continue;
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
      other->paused = TRUE;
      other->pause_lapsed = FALSE;
      if (!held)
        g_array_append_val (others, other->tid);
    }
  return g_steal_pointer (&others);
}

/* The thread is stopped on an int3 of ours: stop every other running
 * thread of its process, then put the original byte back and step. */
static gboolean
thread_step_over (FroggySession  *self,
                  Thread         *thread,
                  AfterStepOver   then,
                  GError        **error)
{
  g_autoptr(GArray) others = NULL;

  thread->over_then = then;

  /* One step-over at a time in a process: while one is under way the
   * int3 is lifted, and a second would pause the first's thread in the
   * middle of its step.  This one starts when that one ends. */
  if (process_stepping_over (self, thread->pid))
    {
      thread->deferred = TRUE;
      return TRUE;
    }

  thread->over_address = thread_pc (self, thread);
  others = step_over_hold_others (self, thread, error);
  if (others == NULL)
    {
      /* Let go of those held so far: nothing was lifted yet. */
      step_over_done (self, thread);
      return FALSE;
    }
  stop_waiter_add (self, others, TRUE, step_over_paused, GINT_TO_POINTER (thread->tid));
  return TRUE;
}

typedef struct
{
  FroggySession *session;
  pid_t          tid;
} StepOverSync;

static void
step_over_sync_free (gpointer data)
{
  StepOverSync *sync = data;

  g_object_unref (sync->session);
  g_free (sync);
}

static gboolean
step_over_sync (gpointer user_data)
{
  StepOverSync *sync = user_data;
  FroggySession *self = sync->session;
  Thread *thread = thread_lookup (self, sync->tid);
  g_autoptr(GArray) others = NULL;
  g_autoptr(GError) error = NULL;
  Process *process;
  Site *site;

  thread->over_sync = 0;

  /* The threads we know of are stopped or held, but the records queued
   * before that may tell of others: a CLONE record waits for its batch
   * and can come after the stops.  Such a thread runs, unknown, and
   * would miss the breakpoint while the int3 is lifted: handle every
   * record queued so far, and hold whoever is new, first. */
  froggy_device_dispatch_through (self->device, G_MAXUINT64);
  thread = thread_lookup (self, sync->tid);
  if (self->ended || thread == NULL || thread->over_address == 0)
    return G_SOURCE_REMOVE;
  if (!thread->stopped)
    {
      /* Gone on by now (a record of it said so): no step to make. */
      step_over_done (self, thread);
      return G_SOURCE_REMOVE;
    }
  others = step_over_hold_others (self, thread, &error);
  if (others != NULL && others->len > 0)
    {
      g_debug ("thread %d's step-over waits for %u more threads", thread->tid, others->len);
      stop_waiter_add (self, others, TRUE, step_over_paused, GINT_TO_POINTER (thread->tid));
      return G_SOURCE_REMOVE;
    }

  /* The int3 is lifted only with every other thread held, and the step
   * made only with it lifted: else the thread would trap on it again. */
  process = process_lookup (self, thread->pid);
  site = g_hash_table_lookup (process->sites, &thread->over_address);
  if (others == NULL ||
      (site != NULL && !site_write (self, process, site->address, site->original, &error)) ||
      !thread_control (self, thread, UTRACE_CTL_SINGLESTEP, thread->over_signal, &error))
    {
      /* A thread that is gone (killed) needs no step. */
      if (g_error_matches (error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD))
        g_debug ("thread %d gone before its step-over: %s", thread->tid, error->message);
      else
        g_warning ("thread %d cannot step over the breakpoint at 0x%" G_GINT64_MODIFIER "x, "
                   "and stays there: %s", thread->tid, thread->over_address, error->message);
      step_over_done (self, thread);
    }
  thread->over_signal = -1;
  return G_SOURCE_REMOVE;
}

/* Every other thread is paused: the int3 is lifted from the main loop,
 * once the records that came with the stops are handled, never while
 * the device is handing them out. */
static void
step_over_paused (FroggySession *self,
                  gpointer       data)
{
  Thread *thread = thread_lookup (self, GPOINTER_TO_INT (data));
  StepOverSync *sync;

  if (thread == NULL || thread->over_sync != 0)
    return;
  sync = g_new0 (StepOverSync, 1);
  sync->session = g_object_ref (self);
  sync->tid = thread->tid;
  thread->over_sync = g_idle_add_full (G_PRIORITY_HIGH, step_over_sync, sync,
                                       step_over_sync_free);
}

static gboolean thread_resume (FroggySession *self, Thread *thread, int signo, GError **error);
static gboolean thread_single_step (FroggySession *self, Thread *thread, GError **error);
static gboolean thread_on_site (FroggySession *self, Thread *thread);

/* Go on as asked before the thread was deferred: a step, or a resume
 * with the signal it was given (over the site, if it is on one). */
static gboolean
thread_resume_deferred (FroggySession *self,
                        Thread        *thread)
{
  if (thread->over_then == AFTER_STEP_OVER_STEP)
    return thread_single_step (self, thread, NULL);
  return thread_resume (self, thread, thread->over_signal, NULL);
}

/* The next thread left stopped on a site by a step-over steps over it in
 * turn; one at a time per process, the others wait for that to end. */
static gboolean
resume_deferred (gpointer user_data)
{
  FroggySession *self = user_data;
  GHashTableIter iter;
  Thread *thread;

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      if (!thread->deferred)
        continue;
      if (!thread->stopped)
        {
          thread->deferred = FALSE;
          continue;
        }
      if (process_stepping_over (self, thread->pid))
        continue;
      thread->deferred = FALSE;
      if (!thread_resume_deferred (self, thread))
        g_message ("thread %d could not resume after a step-over", thread->tid);
      /* A step-over started: its end calls us again for the others. */
      if (thread->over_address != 0)
        break;
      g_hash_table_iter_init (&iter, self->threads);
    }
  return G_SOURCE_REMOVE;
}

/* The step over the breakpoint is done: the int3 goes back, the threads
 * paused for it run on. */
static void
step_over_done (FroggySession *self,
                Thread        *thread)
{
  Process *process = process_lookup (self, thread->pid);
  Site *site = g_hash_table_lookup (process->sites, &thread->over_address);
  GHashTableIter iter;
  Thread *other;

  gboolean deferred = FALSE;

  g_autoptr(GError) error = NULL;

  g_clear_handle_id (&thread->over_sync, g_source_remove);
  if (site != NULL && !site_write (self, process, site->address, INT3, &error) &&
      !g_error_matches (error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD))
    g_warning ("the breakpoint at 0x%" G_GINT64_MODIFIER "x of process %d is lost: %s",
               site->address, process->pid, error->message);
  thread->over_address = 0;

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
    {
      if (!threads_share_memory (self, other, thread))
        continue;
      if (other->deferred)
        deferred = TRUE;
      if (!other->paused)
        continue;
      other->paused = FALSE;
      /* Its stop is still to come, asked for this step-over only: the
       * record undoes it (see UTRACE_EV_STOP). */
      if (!other->stopped)
        {
          other->pause_lapsed = TRUE;
          continue;
        }
      /* One that stopped on a site of its own while paused needs a
       * step-over of its own, once this thread runs again, so that the
       * step-over pauses it too. */
      if (thread_on_site (self, other))
        {
          other->deferred = deferred = TRUE;
          other->over_then = AFTER_STEP_OVER_RESUME;
          other->over_signal = -1;
        }
      else
        thread_control (self, other, UTRACE_CTL_RESUME, -1, NULL);
    }
  if (deferred)
    g_idle_add_full (G_PRIORITY_DEFAULT, resume_deferred, g_object_ref (self), g_object_unref);
}

static gboolean
thread_on_site (FroggySession *self,
                Thread        *thread)
{
  Process *process = process_lookup (self, thread->pid);
  guint64 pc = thread_pc (self, thread);

  return g_hash_table_contains (process->sites, &pc);
}

/* Let a stopped thread run, stepping over a breakpoint it sits on. */
static gboolean
thread_resume (FroggySession  *self,
               Thread         *thread,
               int             signo,
               GError        **error)
{
  if (signo < 0 && thread->pending_signal)
    signo = thread->pending_signal;
  thread->pending_signal = 0;
  if (thread_on_site (self, thread))
    {
      thread->over_signal = signo;
      return thread_step_over (self, thread, AFTER_STEP_OVER_RESUME, error);
    }
  return thread_control (self, thread, UTRACE_CTL_RESUME, signo, error);
}

static gboolean
thread_single_step (FroggySession  *self,
                    Thread         *thread,
                    GError        **error)
{
  if (thread_on_site (self, thread))
    {
      thread->over_signal = -1;
      return thread_step_over (self, thread, AFTER_STEP_OVER_STEP, error);
    }
  return thread_control (self, thread, UTRACE_CTL_SINGLESTEP, -1, error);
}

/* }}} */

/* Source-level stepping {{{ */

static void
thread_end_step (FroggySession *self,
                 Thread        *thread)
{
  if (thread->return_address != 0)
    {
      site_unref (self, process_lookup (self, thread->pid), thread->return_address);
      thread->return_address = 0;
    }
  thread->stepping = FALSE;
  g_clear_pointer (&thread->step_file, g_free);
}

static void
thread_step_done (FroggySession *self,
                  Thread        *thread,
                  guint64        pc)
{
  static const char * const kinds[] = { "instruction", "line", "over", "out" };
  GVariantBuilder *builder = notification_begin (self, "step-done", thread);

  g_variant_builder_add (builder, "{sv}", "kind", g_variant_new_string (kinds[thread->step_kind]));
  thread_end_step (self, thread);
  notification_end (self, builder, thread, pc);
}

/* Run to @address (the return address of a call, or a function's first
 * line), where the step goes on; @sp: only once the stack is above it. */
static gboolean
thread_run_to (FroggySession  *self,
               Thread         *thread,
               guint64         address,
               guint64         sp,
               gboolean        ends_step,
               GError        **error)
{
  Process *process = process_lookup (self, thread->pid);

  if (!site_ref (self, process, address, error))
    return FALSE;
  thread->return_address = address;
  thread->return_sp = sp;
  thread->return_ends_step = ends_step;
  return thread_resume (self, thread, -1, error);
}

/* One more instruction of a line, over or out step has run. */
static void
thread_step_logic (FroggySession *self,
                   Thread        *thread)
{
  Process *process = process_lookup (self, thread->pid);
  g_autoptr(FroggySymbol) symbol = NULL;
  g_autoptr(GError) error = NULL;
  struct user_regs_struct regs;
  guint64 return_address = 0;
  gboolean called = FALSE;
  gssize word;

  if (thread->step_kind == FROGGY_STEP_INSTRUCTION)
    {
      /* The next of a count, unless this one came to a breakpoint. */
      if (--thread->step_left > 0 && !thread_on_site (self, thread))
        {
          if (!thread_single_step (self, thread, &error))
            goto failed;
          return;
        }
      thread_step_done (self, thread, 0);
      return;
    }
  if (!froggy_device_get_regs (self->device, thread->id, &regs, &error))
    goto failed;

  /* A call pushed a return address just past the instruction we ran. */
  word = froggy_registers_word_size (&regs);
  if (regs.rsp == thread->step_prev_sp - word &&
      froggy_device_read_memory (self->device, thread->id, regs.rsp,
                                 &return_address, word, NULL) == word &&
      return_address > thread->step_prev_pc &&
      return_address <= thread->step_prev_pc + 15)
    called = TRUE;

  if (called)
    {
      if (thread->step_kind == FROGGY_STEP_OVER ||
          !froggy_symbolizer_has_lines (process->symbolizer, regs.rip))
        {
          if (!thread_run_to (self, thread, return_address, regs.rsp, FALSE, &error))
            goto failed;
          return;
        }
      /* Into a function with lines: stop after its prologue, as gdb. */
      symbol = froggy_symbolizer_lookup_address (process->symbolizer, regs.rip);
      if (symbol != NULL && symbol->function != NULL && symbol->offset == 0)
        {
          g_autoptr(GPtrArray) body = froggy_symbolizer_resolve_location (process->symbolizer,
                                                                          symbol->function, NULL);

          if (body != NULL && body->len > 0)
            {
              FroggySymbol *first = g_ptr_array_index (body, 0);

              if (first->address != regs.rip)
                {
                  if (!thread_run_to (self, thread, first->address, 0, TRUE, &error))
                    goto failed;
                  return;
                }
            }
        }
      thread_step_done (self, thread, regs.rip);
      return;
    }

  if (!froggy_symbolizer_has_lines (process->symbolizer, regs.rip))
    {
      /* Returned into code without lines (out of main, say): just run. */
      thread_end_step (self, thread);
      if (!thread_resume (self, thread, -1, &error))
        goto failed;
      return;
    }

  symbol = froggy_symbolizer_lookup_address (process->symbolizer, regs.rip);
  if (symbol != NULL && symbol->line > 0 &&
      (symbol->line != thread->step_line || g_strcmp0 (symbol->file, thread->step_file) != 0) &&
      froggy_symbolizer_is_line_start (process->symbolizer, regs.rip))
    {
      thread_step_done (self, thread, regs.rip);
      return;
    }

  thread->step_prev_pc = regs.rip;
  thread->step_prev_sp = regs.rsp;
  if (!thread_single_step (self, thread, &error))
    goto failed;
  return;

failed:
  g_message ("thread %d: the step ended early: %s", thread->tid, error->message);
  thread_step_done (self, thread, 0);
}

gboolean
froggy_session_step (FroggySession   *self,
                     pid_t            tid,
                     FroggyStepKind   kind,
                     guint            count,
                     GError         **error)
{
  Thread *thread;
  Process *process;
  g_autoptr(FroggySymbol) symbol = NULL;
  struct user_regs_struct regs;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  thread = thread_get (self, tid, TRUE, error);
  if (thread == NULL)
    return FALSE;
  if (!froggy_device_get_regs (self->device, thread->id, &regs, error))
    return FALSE;
  process = process_lookup (self, thread->pid);

  thread_end_step (self, thread);
  thread->stepping = TRUE;
  thread->step_kind = kind;
  thread->step_left = MAX (count, 1);
  thread->step_prev_pc = regs.rip;
  thread->step_prev_sp = regs.rsp;
  symbol = froggy_symbolizer_lookup_address (process->symbolizer, regs.rip);
  if (symbol != NULL)
    {
      thread->step_file = g_strdup (symbol->file);
      thread->step_line = symbol->line;
    }

  if (kind == FROGGY_STEP_OUT)
    {
      guint64 low = 0, high = 0, return_address = 0;

      /* At the entry the return address is on top of the stack; further
       * in, the unwinder knows where it is. */
      if (froggy_symbolizer_function_bounds (process->symbolizer, regs.rip, &low, &high) &&
          low == regs.rip)
        froggy_device_read_memory (self->device, thread->id, regs.rsp, &return_address,
                                   froggy_registers_word_size (&regs), NULL);
      else
        {
          g_autoptr(GVariant) frames = froggy_session_backtrace (self, tid, 2, NULL);

          if (frames != NULL && g_variant_n_children (frames) == 2)
            {
              g_autoptr(GVariant) caller = g_variant_get_child_value (frames, 1);
              const char *pc = NULL;

              if (g_variant_lookup (caller, "pc", "&s", &pc))
                froggy_parse_word (pc, &return_address);
            }
        }
      if (return_address == 0)
        {
          thread_end_step (self, thread);
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NOT_FOUND,
                       "cannot find the caller of the function at 0x%llx", regs.rip);
          return FALSE;
        }
      if (!thread_run_to (self, thread, return_address, regs.rsp, TRUE, error))
        {
          thread_end_step (self, thread);
          return FALSE;
        }
      return TRUE;
    }

  if (!thread_single_step (self, thread, error))
    {
      thread_end_step (self, thread);
      return FALSE;
    }
  return TRUE;
}

/* }}} */

/* Starting {{{ */

static void froggy_session_abandon (FroggySession *self);

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
      froggy_session_abandon (self);
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

GVariant *
froggy_session_threads (FroggySession *self)
{
  GVariantBuilder builder;
  GHashTableIter iter;
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      GVariantBuilder one;

      g_variant_builder_init (&one, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&one, "{sv}", "thread", g_variant_new_int64 (thread->tid));
      g_variant_builder_add (&one, "{sv}", "pid", g_variant_new_int64 (thread->pid));
      g_variant_builder_add (&one, "{sv}", "state",
                             g_variant_new_string (thread->stopped ? "stopped" : "running"));
      if (thread->stopped && thread->id != 0)
        add_location (&one, self, thread->pid, thread_pc (self, thread));
      g_variant_builder_add_value (&builder, g_variant_builder_end (&one));
    }
  return g_variant_builder_end (&builder);
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

GVariant *
froggy_session_read_registers (FroggySession  *self,
                               pid_t           tid,
                               const char     *regset,
                               GError        **error)
{
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  thread = thread_get (self, tid, TRUE, error);
  if (thread == NULL)
    return NULL;

  if (g_strcmp0 (regset, "fp") == 0)
    {
      struct user_fpregs_struct fp;
      gsize len = sizeof fp;

      if (!froggy_device_get_regset (self->device, thread->id, NT_PRFPREG, &fp, &len, error))
        return NULL;
      /* A 32-bit thread's NT_PRFPREG is the 108-byte fsave image; its
       * fxsave image, the layout here, is NT_PRXFPREG. */
      if (len != sizeof fp)
        {
          len = sizeof fp;
          if (!froggy_device_get_regset (self->device, thread->id, NT_PRXFPREG, &fp, &len, error))
            return NULL;
        }
      if (len != sizeof fp)
        {
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_KERNEL,
                       "an unknown %zu-byte floating-point register set", len);
          return NULL;
        }
      return froggy_registers_fp_to_variant (&fp);
    }
  else
    {
      struct user_regs_struct regs;

      if (!froggy_device_get_regs (self->device, thread->id, &regs, error))
        return NULL;
      return froggy_registers_general_to_variant (&regs);
    }
}

gboolean
froggy_session_write_registers (FroggySession  *self,
                                pid_t           tid,
                                GVariant       *registers,
                                GError        **error)
{
  struct user_regs_struct regs;
  Thread *thread;
  GVariantIter iter;
  const char *name;
  GVariant *value;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  thread = thread_get (self, tid, TRUE, error);
  if (thread == NULL)
    return FALSE;
  if (registers == NULL || !g_variant_is_of_type (registers, G_VARIANT_TYPE_VARDICT))
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "registers must be an object of name to value");
      return FALSE;
    }
  if (!froggy_device_get_regs (self->device, thread->id, &regs, error))
    return FALSE;

  g_variant_iter_init (&iter, registers);
  while (g_variant_iter_next (&iter, "{&sv}", &name, &value))
    {
      g_autoptr(GVariant) boxed = value;
      unsigned long long *slot = froggy_registers_lookup (&regs, name);
      guint64 word;

      if (slot == NULL || !g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) ||
          !froggy_parse_word (g_variant_get_string (value, NULL), &word))
        {
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                       "\"%s\": not a general register with a hex value", name);
          return FALSE;
        }
      *slot = word;
    }
  return froggy_device_set_regs (self->device, thread->id, &regs, error);
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

GVariant *
froggy_session_read_memory (FroggySession  *self,
                            pid_t           tid,
                            guint64         address,
                            gsize           length,
                            GError        **error)
{
  g_autofree guint8 *buf = NULL;
  g_autoptr(GString) hex = NULL;
  g_autofree char *text = NULL;
  GVariantBuilder builder;
  GHashTableIter iter;
  Process *process;
  Thread *thread;
  Site *site;
  gssize n;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  if (length == 0 || length > MAX_MEMORY_READ)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "length must be 1 to %d", MAX_MEMORY_READ);
      return NULL;
    }
  thread = memory_thread (self, tid, error);
  if (thread == NULL)
    return NULL;
  buf = g_malloc (length);
  n = froggy_device_read_memory (self->device, thread->id, address, buf, length, error);
  if (n < 0)
    return NULL;

  /* The program's bytes, not our int3s. */
  process = process_lookup (self, thread->pid);
  g_hash_table_iter_init (&iter, process->sites);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &site))
    if (site->address >= address && site->address < address + n)
      buf[site->address - address] = site->original;

  /* By table: a printf a byte took a tenth of a second a MiB, which
   * every other client waited for. */
  hex = g_string_sized_new (2 * n + 1);
  for (gssize i = 0; i < n; i++)
    {
      g_string_append_c (hex, "0123456789abcdef"[buf[i] >> 4]);
      g_string_append_c (hex, "0123456789abcdef"[buf[i] & 0xf]);
    }
  text = froggy_format_word (address);

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "address", g_variant_new_string (text));
  g_variant_builder_add (&builder, "{sv}", "data", g_variant_new_string (hex->str));
  g_variant_builder_add (&builder, "{sv}", "length", g_variant_new_int64 (n));
  return g_variant_builder_end (&builder);
}

GVariant *
froggy_session_write_memory (FroggySession  *self,
                             pid_t           tid,
                             guint64         address,
                             const char     *hex,
                             GError        **error)
{
  gsize length = strlen (hex) / 2;
  g_autofree guint8 *buf = NULL;
  g_autofree guint8 *written = NULL;
  GVariantBuilder builder;
  GHashTableIter iter;
  Process *process;
  Thread *thread;
  Site *site;
  gssize n;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  if (length == 0 || strlen (hex) % 2 != 0 || length > MAX_MEMORY_READ)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "data must be 1 to %d bytes as pairs of hex digits", MAX_MEMORY_READ);
      return NULL;
    }
  buf = g_malloc (length);
  for (gsize i = 0; i < length; i++)
    {
      int high = g_ascii_xdigit_value (hex[2 * i]);
      int low = g_ascii_xdigit_value (hex[2 * i + 1]);

      if (high < 0 || low < 0)
        {
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                       "data must be pairs of hex digits");
          return NULL;
        }
      buf[i] = high << 4 | low;
    }
  thread = memory_thread (self, tid, error);
  if (thread == NULL)
    return NULL;

  /* Breakpoints stay in place: what is written under them becomes the
   * byte they put back, once it is written. */
  written = g_memdup2 (buf, length);
  process = process_lookup (self, thread->pid);
  g_hash_table_iter_init (&iter, process->sites);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &site))
    if (site->address >= address && site->address < address + length)
      buf[site->address - address] = INT3;

  n = froggy_device_write_memory (self->device, thread->id, address, buf, length, error);
  if (n < 0)
    return NULL;
  g_hash_table_iter_init (&iter, process->sites);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &site))
    if (site->address >= address && site->address < address + n)
      site->original = written[site->address - address];
  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "length", g_variant_new_int64 (n));
  return g_variant_builder_end (&builder);
}

static gboolean
resolve_breakpoint (FroggySession     *self,
                    FroggyBreakpoint  *breakpoint,
                    GError           **error)
{
  Process *process = process_lookup (self, self->pid);
  g_autoptr(GPtrArray) symbols = NULL;

  symbols = froggy_symbolizer_resolve_location (process->symbolizer, breakpoint->location, NULL);
  if (symbols == NULL)
    {
      froggy_symbolizer_refresh (process->symbolizer, NULL);
      symbols = froggy_symbolizer_resolve_location (process->symbolizer, breakpoint->location, NULL);
    }
  if (symbols == NULL || symbols->len == 0)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NOT_FOUND,
                   "no code at \"%s\"", breakpoint->location);
      return FALSE;
    }

  g_array_set_size (breakpoint->addresses, 0);
  for (guint i = 0; i < symbols->len; i++)
    {
      FroggySymbol *symbol = g_ptr_array_index (symbols, i);

      g_array_append_val (breakpoint->addresses, symbol->address);
      if (i == 0)
        {
          g_free (breakpoint->function);
          g_free (breakpoint->file);
          breakpoint->function = g_strdup (symbol->function);
          breakpoint->file = g_strdup (symbol->file);
          breakpoint->line = symbol->line;
        }
    }
  return TRUE;
}

GVariant *
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
  GVariant *result;

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
  result = froggy_breakpoint_to_variant (inserted);
  return result;
}

static FroggyBreakpoint *
breakpoint_get (FroggySession  *self,
                guint           id,
                GError        **error)
{
  for (guint i = 0; i < self->breakpoints->len; i++)
    {
      FroggyBreakpoint *breakpoint = g_ptr_array_index (self->breakpoints, i);

      if (breakpoint->id == id)
        return breakpoint;
    }
  g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NO_BREAKPOINT, "no breakpoint %u", id);
  return NULL;
}

gboolean
froggy_session_remove_breakpoint (FroggySession  *self,
                                  guint           id,
                                  GError        **error)
{
  FroggyBreakpoint *breakpoint;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  breakpoint = breakpoint_get (self, id, error);
  if (breakpoint == NULL)
    return FALSE;
  if (breakpoint->enabled)
    breakpoint_disarm (self, breakpoint);
  g_ptr_array_remove (self->breakpoints, breakpoint);
  return TRUE;
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

GVariant *
froggy_session_list_breakpoints (FroggySession *self)
{
  GVariantBuilder builder;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < self->breakpoints->len; i++)
    g_variant_builder_add_value (&builder,
                                 froggy_breakpoint_to_variant (g_ptr_array_index (self->breakpoints, i)));
  return g_variant_builder_end (&builder);
}

static gboolean
watchpoint_set_on (FroggySession  *self,
                   Watchpoint     *watchpoint,
                   Thread         *thread,
                   GError        **error)
{
  guint32 slot;
  int pair[2];

  if (!froggy_device_set_watch (self->device, thread->id, watchpoint->address, watchpoint->length,
                                watchpoint->read_write ? UTRACE_WATCH_READWRITE : UTRACE_WATCH_WRITE,
                                &slot, error))
    return FALSE;
  pair[0] = thread->tid;
  pair[1] = slot;
  g_array_append_vals (watchpoint->slots, pair, 2);
  return TRUE;
}

static void
watchpoint_clear (FroggySession *self,
                  Watchpoint    *watchpoint)
{
  for (guint i = 0; i + 1 < watchpoint->slots->len; i += 2)
    {
      Thread *thread = thread_lookup (self, g_array_index (watchpoint->slots, int, i));

      if (thread != NULL)
        froggy_device_clear_watch (self->device, thread->id,
                                   g_array_index (watchpoint->slots, int, i + 1), NULL);
    }
  g_array_set_size (watchpoint->slots, 0);
}

GVariant *
froggy_session_insert_watchpoint (FroggySession  *self,
                                  guint64         address,
                                  guint           length,
                                  gboolean        read_write,
                                  pid_t           tid,
                                  GError        **error)
{
  Watchpoint *watchpoint;
  GHashTableIter iter;
  GVariantBuilder builder;
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  if (tid != 0 && thread_get (self, tid, FALSE, error) == NULL)
    return NULL;
  if ((length != 1 && length != 2 && length != 4 && length != 8) || address % length != 0)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "a watchpoint covers 1, 2, 4 or 8 bytes at an address aligned to that");
      return NULL;
    }

  watchpoint = g_new0 (Watchpoint, 1);
  watchpoint->address = address;
  watchpoint->length = length;
  watchpoint->read_write = read_write;
  watchpoint->tid = tid;
  watchpoint->slots = g_array_new (FALSE, FALSE, sizeof (int));

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      if ((tid != 0 && thread->tid != tid) || thread->id == 0)
        continue;
      if (!watchpoint_set_on (self, watchpoint, thread, error))
        {
          watchpoint_clear (self, watchpoint);
          watchpoint_free (watchpoint);
          return NULL;
        }
    }
  watchpoint->id = self->next_watchpoint_id++;
  g_ptr_array_add (self->watchpoints, watchpoint);

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "id", g_variant_new_int64 (watchpoint->id));
  return g_variant_builder_end (&builder);
}

gboolean
froggy_session_remove_watchpoint (FroggySession  *self,
                                  guint           id,
                                  GError        **error)
{
  g_return_val_if_fail (FROGGY_IS_SESSION (self), FALSE);

  for (guint i = 0; i < self->watchpoints->len; i++)
    {
      Watchpoint *watchpoint = g_ptr_array_index (self->watchpoints, i);

      if (watchpoint->id == id)
        {
          watchpoint_clear (self, watchpoint);
          g_ptr_array_remove_index (self->watchpoints, i);
          return TRUE;
        }
    }
  g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NO_BREAKPOINT, "no watchpoint %u", id);
  return FALSE;
}

/* The device's masks follow from the catchpoints and subscriptions. */
static gboolean
update_event_masks (FroggySession  *self,
                    GError        **error)
{
  guint64 events = BASE_EVENTS, nonstop = BASE_NONSTOP;
  guint64 syscalls[UTRACE_SYSCALLS_MAX / 64] = { 0 };
  gboolean every_syscall = FALSE;
  GHashTableIter iter;
  const char *kind, *how;
  Thread *thread;

  for (guint i = 0; i < self->catchpoints->len; i++)
    {
      Catchpoint *catchpoint = g_ptr_array_index (self->catchpoints, i);
      FroggyCatchSpec *spec = catchpoint->spec;

      if (g_str_equal (spec->kind, "syscall"))
        {
          if (spec->entry)
            events |= UTRACE_EVMASK (UTRACE_EV_SYSCALL_ENTRY);
          if (spec->exit)
            events |= UTRACE_EVMASK (UTRACE_EV_SYSCALL_EXIT);
          /* Numbers past the set are reported anyway. */
          every_syscall |= spec->numbers == NULL || spec->numbers->len == 0;
          for (guint j = 0; !every_syscall && j < spec->numbers->len; j++)
            {
              int number = g_array_index (spec->numbers, int, j);

              if (number >= 0 && number < UTRACE_SYSCALLS_MAX)
                syscalls[number / 64] |= G_GUINT64_CONSTANT (1) << (number % 64);
            }
        }
      else if (g_str_equal (spec->kind, "fork"))
        nonstop &= ~UTRACE_EVMASK (UTRACE_EV_CLONE);
      else if (g_str_equal (spec->kind, "exit"))
        events |= UTRACE_EVMASK (UTRACE_EV_EXIT);
    }

  g_hash_table_iter_init (&iter, self->reported);
  while (g_hash_table_iter_next (&iter, (gpointer *) &kind, (gpointer *) &how))
    {
      guint64 bit = 0;

      if (g_str_equal (how, "off"))
        continue;
      if (g_str_equal (kind, "syscall-entry"))
        bit = UTRACE_EVMASK (UTRACE_EV_SYSCALL_ENTRY);
      else if (g_str_equal (kind, "syscall-exit"))
        bit = UTRACE_EVMASK (UTRACE_EV_SYSCALL_EXIT);
      else if (g_str_equal (kind, "exit"))
        bit = UTRACE_EVMASK (UTRACE_EV_EXIT);
      else if (g_str_equal (kind, "clone") || g_str_equal (kind, "fork"))
        bit = UTRACE_EVMASK (UTRACE_EV_CLONE);
      if (bit == 0)
        continue;
      /* A subscriber sees every call. */
      if (g_str_has_prefix (kind, "syscall-"))
        every_syscall = TRUE;
      if (g_str_equal (how, "stop"))
        {
          events |= bit;
          nonstop &= ~bit;
        }
      else if (!(events & bit))
        {
          events |= bit;
          nonstop |= bit;
        }
    }

  self->events = events;
  self->nonstop = nonstop;
  if (!froggy_device_set_syscalls (self->device, syscalls,
                                   every_syscall ? 0 : UTRACE_SYSCALLS_MAX, error))
    return FALSE;
  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      g_autoptr(GError) local_error = NULL;

      /* A thread exiting now reports nothing more: its death record is
       * on its way. */
      if (thread->id != 0 &&
          !froggy_device_set_events (self->device, thread->id, events, nonstop, &local_error) &&
          !g_error_matches (local_error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
    }
  return TRUE;
}

/* A request that changed the masks failed part way: its change undone,
 * the device gets the masks it had back. */
static void
restore_event_masks (FroggySession *self)
{
  g_autoptr(GError) error = NULL;

  if (!update_event_masks (self, &error))
    g_warning ("the event masks could not be restored: %s", error->message);
}

static void
copy_string_entry (gpointer key,
                   gpointer value,
                   gpointer user_data)
{
  g_hash_table_replace (user_data, g_strdup (key), g_strdup (value));
}

GVariant *
froggy_session_add_catch (FroggySession    *self,
                          FroggyCatchSpec  *spec,
                          GError          **error)
{
  Catchpoint *catchpoint = g_new0 (Catchpoint, 1);
  GVariantBuilder builder;

  catchpoint->id = self->next_breakpoint_id++;
  catchpoint->spec = spec;
  g_ptr_array_add (self->catchpoints, catchpoint);
  if (!update_event_masks (self, error))
    {
      g_ptr_array_remove (self->catchpoints, catchpoint);
      restore_event_masks (self);
      return NULL;
    }
  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "id", g_variant_new_int64 (catchpoint->id));
  return g_variant_builder_end (&builder);
}

gboolean
froggy_session_remove_catch (FroggySession  *self,
                             guint           id,
                             GError        **error)
{
  for (guint i = 0; i < self->catchpoints->len; i++)
    {
      Catchpoint *catchpoint = g_ptr_array_index (self->catchpoints, i);

      if (catchpoint->id == id)
        {
          Catchpoint *removed = g_ptr_array_steal_index (self->catchpoints, i);

          if (!update_event_masks (self, error))
            {
              g_ptr_array_insert (self->catchpoints, i, removed);
              restore_event_masks (self);
              return FALSE;
            }
          catchpoint_free (removed);
          return TRUE;
        }
    }
  g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NO_BREAKPOINT, "no catchpoint %u", id);
  return FALSE;
}

gboolean
froggy_session_subscribe (FroggySession  *self,
                          GVariant       *events,
                          GError        **error)
{
  static const char * const kinds[] = {
    "syscall-entry", "syscall-exit", "signal", "exec", "clone", "fork", "exit", NULL
  };
  g_autoptr(GHashTable) before = NULL;
  GVariantIter iter;
  const char *kind;
  GVariant *value;

  if (events == NULL || !g_variant_is_of_type (events, G_VARIANT_TYPE_VARDICT))
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "events must be an object of kind to \"stop\", \"report\" or \"off\"");
      return FALSE;
    }
  /* Every entry is checked before any is taken: a request is applied
   * whole or not at all. */
  g_variant_iter_init (&iter, events);
  while (g_variant_iter_next (&iter, "{&sv}", &kind, &value))
    {
      g_autoptr(GVariant) boxed = value;
      const char *how = g_variant_is_of_type (value, G_VARIANT_TYPE_STRING)
                        ? g_variant_get_string (value, NULL) : "";

      if (!g_strv_contains (kinds, kind) ||
          (!g_str_equal (how, "stop") && !g_str_equal (how, "report") && !g_str_equal (how, "off")))
        {
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                       "events: \"%s\" is not a kind with \"stop\", \"report\" or \"off\"", kind);
          return FALSE;
        }
    }

  before = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_foreach (self->reported, copy_string_entry, before);
  g_variant_iter_init (&iter, events);
  while (g_variant_iter_next (&iter, "{&sv}", &kind, &value))
    {
      g_autoptr(GVariant) boxed = value;

      g_hash_table_replace (self->reported, g_strdup (kind), g_variant_dup_string (value, NULL));
    }
  if (!update_event_masks (self, error))
    {
      g_hash_table_remove_all (self->reported);
      g_hash_table_foreach (before, copy_string_entry, self->reported);
      restore_event_masks (self);
      return FALSE;
    }
  return TRUE;
}

typedef struct
{
  FroggySession *self;
  Thread        *thread;
} UnwindTarget;

static gboolean
unwind_read_memory (gpointer  user_data,
                    guint64   address,
                    guint64  *word)
{
  UnwindTarget *target = user_data;

  return froggy_device_read_memory (target->self->device, target->thread->id,
                                    address, word, sizeof *word, NULL) == sizeof *word;
}

static GVariant *
symbol_to_variant (FroggySymbol *symbol,
                   gboolean      with_offset)
{
  g_autofree char *address = froggy_format_word (symbol->address);
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "address", g_variant_new_string (address));
  if (symbol->function != NULL)
    g_variant_builder_add (&builder, "{sv}", "function", g_variant_new_string (symbol->function));
  if (with_offset && symbol->function != NULL)
    {
      g_autofree char *offset = froggy_format_word (symbol->offset);

      g_variant_builder_add (&builder, "{sv}", "offset", g_variant_new_string (offset));
    }
  if (symbol->module != NULL)
    g_variant_builder_add (&builder, "{sv}", "module", g_variant_new_string (symbol->module));
  if (symbol->file != NULL && symbol->line > 0)
    {
      g_variant_builder_add (&builder, "{sv}", "file", g_variant_new_string (symbol->file));
      g_variant_builder_add (&builder, "{sv}", "line", g_variant_new_int64 (symbol->line));
    }
  if (symbol->size > 0)
    g_variant_builder_add (&builder, "{sv}", "size", g_variant_new_int64 ((gint64) symbol->size));
  return g_variant_builder_end (&builder);
}

GVariant *
froggy_session_backtrace (FroggySession  *self,
                          pid_t           tid,
                          guint           max_frames,
                          GError        **error)
{
  struct user_regs_struct regs;
  g_autoptr(GPtrArray) frames = NULL;
  GVariantBuilder builder;
  UnwindTarget target;
  Process *process;
  Thread *thread;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  thread = thread_get (self, tid, TRUE, error);
  if (thread == NULL)
    return NULL;
  if (!froggy_device_get_regs (self->device, thread->id, &regs, error))
    return NULL;
  process = process_lookup (self, thread->pid);
  target.self = self;
  target.thread = thread;
  frames = froggy_symbolizer_backtrace (process->symbolizer, thread->tid, &regs,
                                        unwind_read_memory, &target, max_frames, error);
  if (frames == NULL)
    return NULL;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < frames->len; i++)
    {
      g_autoptr(GVariant) frame = g_variant_ref_sink (symbol_to_variant (g_ptr_array_index (frames, i), TRUE));
      g_auto(GVariantDict) dict;
      const char *address = NULL;

      g_variant_dict_init (&dict, frame);
      g_variant_dict_insert (&dict, "level", "x", (gint64) i);
      if (g_variant_dict_lookup (&dict, "address", "&s", &address))
        {
          g_variant_dict_insert (&dict, "pc", "s", address);
          g_variant_dict_remove (&dict, "address");
        }
      g_variant_builder_add_value (&builder, g_variant_dict_end (&dict));
    }
  return g_variant_builder_end (&builder);
}

GVariant *
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
  return symbol_to_variant (symbol, by_address);
}

GVariant *
froggy_session_complete_symbol (FroggySession  *self,
                                const char     *prefix,
                                guint           limit,
                                GError        **error)
{
  Process *process;
  g_auto(GStrv) names = NULL;
  g_auto(GStrv) files = NULL;
  g_autoptr(GError) local_error = NULL;
  GVariantBuilder builder, name_builder, file_builder;
  guint next_name = 0;
  guint next_file = 0;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);
  g_return_val_if_fail (prefix != NULL, NULL);

  process = process_lookup (self, self->pid);
  if (!froggy_symbolizer_complete (process->symbolizer, prefix, &names, &files, &local_error))
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD,
                   "process %d: %s", (int) self->pid, local_error->message);
      return NULL;
    }

  /* The first @limit of both lists merged in order: what a completion
   * shows first, whichever list it comes from. */
  g_variant_builder_init (&name_builder, G_VARIANT_TYPE_STRING_ARRAY);
  g_variant_builder_init (&file_builder, G_VARIANT_TYPE_STRING_ARRAY);
  while (next_name + next_file < limit && (names[next_name] != NULL || files[next_file] != NULL))
    {
      if (files[next_file] == NULL ||
          (names[next_name] != NULL && strcmp (names[next_name], files[next_file]) <= 0))
        g_variant_builder_add (&name_builder, "s", names[next_name++]);
      else
        g_variant_builder_add (&file_builder, "s", files[next_file++]);
    }

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "names", g_variant_builder_end (&name_builder));
  g_variant_builder_add (&builder, "{sv}", "files", g_variant_builder_end (&file_builder));
  g_variant_builder_add (&builder, "{sv}", "complete",
                         g_variant_new_boolean (names[next_name] == NULL && files[next_file] == NULL));
  return g_variant_builder_end (&builder);
}

GVariant *
froggy_session_source_lines (FroggySession  *self,
                             const char     *location,
                             GError        **error)
{
  Process *process;
  g_autoptr(GPtrArray) symbols = NULL;
  g_autoptr(GError) local_error = NULL;
  GVariantBuilder builder;

  g_return_val_if_fail (FROGGY_IS_SESSION (self), NULL);

  process = process_lookup (self, self->pid);
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
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

  for (guint i = 0; i < symbols->len; i++)
    {
      FroggySymbol *symbol = g_ptr_array_index (symbols, i);
      g_autofree char *address = froggy_format_word (symbol->address);
      GVariantBuilder one;

      g_variant_builder_init (&one, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&one, "{sv}", "address", g_variant_new_string (address));
      g_variant_builder_add (&one, "{sv}", "file", g_variant_new_string (symbol->file ? symbol->file : ""));
      g_variant_builder_add (&one, "{sv}", "line", g_variant_new_int64 (symbol->line));
      g_variant_builder_add_value (&builder, g_variant_builder_end (&one));
    }
  return g_variant_builder_end (&builder);
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

static void
froggy_session_end (FroggySession *self)
{
  g_autoptr(GPtrArray) detach_tasks = NULL;

  if (self->ended)
    return;
  self->ended = TRUE;
  stop_waiters_complete (self);
  notify_simple (self, "session-ended", NULL);
  /* Closing the device detaches every engine before close() returns. */
  if (self->device != NULL)
    froggy_device_close (self->device);
  detach_tasks = g_steal_pointer (&self->detach_tasks);
  for (guint i = 0; detach_tasks != NULL && i < detach_tasks->len; i++)
    g_task_return_boolean (g_ptr_array_index (detach_tasks, i), TRUE);
  g_signal_emit (self, signals[ENDED], 0);
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
  for (guint i = 0; i < self->watchpoints->len; i++)
    watchpoint_clear (self, g_ptr_array_index (self->watchpoints, i));
  froggy_session_end (self);
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

  /* A process with breakpoints needs a stopped thread to take them out. */
  g_hash_table_iter_init (&iter, self->processes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &process))
    {
      GHashTableIter threads;
      Thread *thread;

      if (g_hash_table_size (process->sites) == 0 || process_stopped_thread (self, process->pid))
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

/* Events {{{ */

static const char *
signal_name (int signo,
             char *buf,
             gsize len)
{
  const char *abbrev = sigabbrev_np (signo);

  if (abbrev == NULL)
    g_snprintf (buf, len, "SIG%d", signo);
  else
    g_snprintf (buf, len, "SIG%s", abbrev);
  return buf;
}

/* Signals a debugger lets through unseen, as gdb does by default. */
static gboolean
signal_is_quiet (int signo)
{
  switch (signo)
    {
    case SIGALRM:
    case SIGURG:
    case SIGCHLD:
    case SIGWINCH:
    case SIGIO:
    case SIGVTALRM:
    case SIGPROF:
      return TRUE;
    default:
      return FALSE;
    }
}

static Catchpoint *
catch_matching (FroggySession *self,
                const char    *kind,
                int            number,
                gboolean       at_exit)
{
  for (guint i = 0; i < self->catchpoints->len; i++)
    {
      Catchpoint *catchpoint = g_ptr_array_index (self->catchpoints, i);
      FroggyCatchSpec *spec = catchpoint->spec;
      gboolean listed = spec->numbers == NULL || spec->numbers->len == 0;

      if (!g_str_equal (spec->kind, kind))
        continue;
      if (g_str_equal (kind, "syscall") && !(at_exit ? spec->exit : spec->entry))
        continue;
      for (guint j = 0; !listed && j < spec->numbers->len; j++)
        listed = g_array_index (spec->numbers, int, j) == number;
      if (listed)
        return catchpoint;
    }
  return NULL;
}

static const char *
reported_as (FroggySession *self,
             const char    *kind)
{
  const char *how = g_hash_table_lookup (self->reported, kind);

  /* "off" is only remembered for signals, which stop unless told not to. */
  return g_strcmp0 (how, "off") != 0 ? how : NULL;
}

static void
resume_quietly (FroggySession *self,
                Thread        *thread)
{
  g_autoptr(GError) error = NULL;

  if (!thread->stopped)
    return;
  /* Paused for another's step-over: that resumes it when it ends. */
  if (thread->paused)
    return;
  /* A stop was asked of this thread (stop, attach, detach) and has not
   * come yet: this one serves, as resuming would cancel the request. */
  if (thread->stop_requested || !thread->announced || thread_awaited (self, thread->tid))
    {
      if (!thread->announced)
        {
          thread->announced = TRUE;
          notify_simple (self, self->launched ? "launched" : "attached", thread);
        }
      else if (thread->stop_requested)
        notify_simple (self, "interrupted", thread);
      thread->stop_requested = FALSE;
      return;
    }
  if (!thread_resume (self, thread, -1, &error))
    g_message ("thread %d: %s", thread->tid, error->message);
}

static void
on_breakpoint (FroggySession *self,
               Thread        *thread,
               guint64        pc)
{
  Process *process = process_lookup (self, thread->pid);
  struct user_regs_struct regs;
  g_autoptr(GError) error = NULL;
  FroggyBreakpoint *hit = NULL;
  GVariantBuilder *builder;
  gboolean rewound;

  if (!g_hash_table_contains (process->sites, &pc) && !g_hash_table_contains (process->lifted, &pc))
    {
      /* The program's own int3: it gets its SIGTRAP when it goes on. */
      builder = notification_begin (self, "signal", thread);
      g_variant_builder_add (builder, "{sv}", "signal", g_variant_new_int64 (SIGTRAP));
      g_variant_builder_add (builder, "{sv}", "name", g_variant_new_string ("SIGTRAP"));
      thread->pending_signal = SIGTRAP;
      notification_end (self, builder, thread, 0);
      return;
    }

  /* Back onto the breakpoint's address, where the original instruction
   * will run.  A thread not put back stays stopped where it is: resumed
   * past the int3, it would run the middle of an instruction. */
  rewound = froggy_device_get_regs (self->device, thread->id, &regs, &error);
  if (rewound)
    {
      regs.rip = pc;
      rewound = froggy_device_set_regs (self->device, thread->id, &regs, &error);
    }
  if (!rewound)
    {
      /* Killed as it trapped: its death record comes next. */
      if (g_error_matches (error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD))
        g_debug ("thread %d at a breakpoint is dying", thread->tid);
      else
        g_warning ("thread %d at a breakpoint: %s", thread->tid, error->message);
      return;
    }

  /* The trap of an int3 taken out since it was hit (another thread's
   * hit removed a temporary breakpoint): back on its address, the
   * instruction runs as if the int3 had never been there. */
  if (!g_hash_table_contains (process->sites, &pc))
    {
      resume_quietly (self, thread);
      return;
    }

  if (!process->followed)
    {
      if (!process_let_go (self, thread))
        resume_quietly (self, thread);
      return;
    }

  for (guint i = 0; i < self->breakpoints->len; i++)
    {
      FroggyBreakpoint *breakpoint = g_ptr_array_index (self->breakpoints, i);
      gboolean here;

      /* A child's breakpoints are at the addresses armed in it: those
       * of its copy of its parent's image after a fork, those set again
       * in its own image after an exec. */
      if (process->pid == self->pid)
        here = froggy_breakpoint_has_address (breakpoint, pc);
      else
        here = GPOINTER_TO_UINT (g_hash_table_lookup (process->armed, &pc)) == breakpoint->id;
      if (here && froggy_breakpoint_should_stop (breakpoint, thread->tid, &regs))
        {
          hit = breakpoint;
          break;
        }
    }

  if (hit != NULL && hit->auto_continue)
    {
      /* As gdb's "commands; continue; end", without the round trip:
       * reported, then on as from a hit that does not stop (a step
       * under way goes on). */
      builder = notification_begin_as (self, "breakpoint-hit", thread, FALSE);
      g_variant_builder_add (builder, "{sv}", "breakpoint", g_variant_new_int64 (hit->id));
      add_location (builder, self, thread->pid, pc);
      if (hit->temporary)
        froggy_session_remove_breakpoint (self, hit->id, NULL);
      broadcast (self, g_variant_builder_end (builder));
      g_variant_builder_unref (builder);
      hit = NULL;
    }
  if (hit != NULL)
    {
      thread_end_step (self, thread);
      builder = notification_begin (self, "breakpoint-hit", thread);
      g_variant_builder_add (builder, "{sv}", "breakpoint", g_variant_new_int64 (hit->id));
      if (hit->temporary)
        froggy_session_remove_breakpoint (self, hit->id, NULL);
      notification_end (self, builder, thread, pc);
      return;
    }

  /* The end of a step's run to a return address or a function body. */
  if (thread->stepping && thread->return_address == pc &&
      (thread->return_sp == 0 || regs.rsp > thread->return_sp))
    {
      site_unref (self, process, pc);
      thread->return_address = 0;
      if (thread->return_ends_step || thread->step_kind == FROGGY_STEP_OUT)
        {
          thread_step_done (self, thread, pc);
          return;
        }
      thread->step_prev_pc = regs.rip;
      thread->step_prev_sp = regs.rsp;
      thread_step_logic (self, thread);
      return;
    }

  resume_quietly (self, thread);
}

static void
on_step (FroggySession *self,
         Thread        *thread)
{
  g_autoptr(GError) error = NULL;

  if (thread->over_address != 0)
    {
      AfterStepOver then = thread->over_then;

      step_over_done (self, thread);
      if (then == AFTER_STEP_OVER_RESUME)
        {
          if (!thread_control (self, thread, UTRACE_CTL_RESUME, -1, &error))
            g_message ("thread %d: %s", thread->tid, error->message);
          return;
        }
    }
  if (thread->stepping)
    thread_step_logic (self, thread);
  else
    {
      /* A step nobody waits for any more (the client continued). */
      resume_quietly (self, thread);
    }
}

/* Arm @child_process's copy of its parent's breakpoints, after a fork:
 * until its exec it runs its parent's image, int3s included, so their
 * hits are its own, and disabling or removing a breakpoint takes its
 * int3 out of the child too (see breakpoint_disarm()). */
static void
process_inherit_armed (FroggySession *self,
                       Process       *parent_process,
                       Process       *child_process)
{
  if (parent_process->pid != self->pid)
    {
      address_table_add_all (child_process->armed, parent_process->armed);
      return;
    }

  for (guint i = 0; i < self->breakpoints->len; i++)
    {
      FroggyBreakpoint *breakpoint = g_ptr_array_index (self->breakpoints, i);

      if (!breakpoint->enabled)
        continue;
      for (guint j = 0; j < breakpoint->addresses->len; j++)
        {
          guint64 address = g_array_index (breakpoint->addresses, guint64, j);

          /* The first breakpoint at an address is the one that stops. */
          if (g_hash_table_contains (child_process->sites, &address) &&
              !g_hash_table_contains (child_process->armed, &address))
            g_hash_table_insert (child_process->armed, g_memdup2 (&address, sizeof address),
                                 GUINT_TO_POINTER (breakpoint->id));
        }
    }
}

/* @child is the first thread of a process forked from @parent_process.
 * It has a copy of the parent's int3s, which are its breakpoints until
 * its exec, or, sharing its memory (vfork), the very same ones, which
 * stay its parent's.  Unless forks are followed, it is let go at its
 * first stop; a vfork child at its exec (see process_let_go()).
 * @vfork_caller: the thread of the parent that waits for it in vfork(),
 * or 0. */
static void
process_inherit (FroggySession *self,
                 Process       *parent_process,
                 Thread        *child,
                 gboolean       shares_memory,
                 pid_t          vfork_caller)
{
  Process *process = process_lookup (self, child->pid);
  GHashTableIter iter;
  Site *site;

  if (shares_memory)
    {
      process->memory_of = parent_process->memory_of;
      process->vfork_caller = vfork_caller;
    }
  process->image = parent_process->image;
  g_hash_table_iter_init (&iter, parent_process->sites);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &site))
    {
      Site *copy = g_memdup2 (site, sizeof *site);

      g_hash_table_insert (process->sites, &copy->address, copy);
    }
  if (!shares_memory)
    process_inherit_armed (self, parent_process, process);
  if (!self->follow_fork)
    {
      process->followed = FALSE;
      thread_control (self, child, UTRACE_CTL_INTERRUPT, -1, NULL);
      return;
    }
  /* Those its parent was yet to get are the child's to get too. */
  if (!shares_memory)
    {
      address_table_add_all (process->pending, parent_process->pending);
      process_interrupt_to_arm (self, process);
    }
}

static void
on_clone (FroggySession                    *self,
          Thread                           *parent,
          const struct utrace_event_header *record)
{
  const struct utrace_event_clone *body = (gconstpointer) (record + 1);
  gboolean is_thread = body->flags & CLONE_THREAD;
  pid_t child_pid = is_thread ? parent->pid : body->child_tid;
  GVariantBuilder *builder;
  Thread *child;

  child = thread_lookup (self, body->child_tid);
  if (child == NULL)
    child = thread_add (self, body->child_id, body->child_tid, child_pid);
  child->id = body->child_id;
  child->announced = TRUE;

  if (is_thread)
    {
      for (guint i = 0; i < self->watchpoints->len; i++)
        {
          Watchpoint *watchpoint = g_ptr_array_index (self->watchpoints, i);

          if (watchpoint->tid == 0)
            watchpoint_set_on (self, watchpoint, child, NULL);
        }
    }
  else
    process_inherit (self, process_lookup (self, parent->pid), child,
                     (body->flags & CLONE_VM) != 0,
                     (body->flags & CLONE_VFORK) ? parent->tid : 0);
  if (is_thread || self->follow_fork)
    stop_with_parent (self, parent, child,
                      (body->child_flags & UTRACE_CLONE_STOPPED) != 0);
  /* The parent's pending breakpoints go in now that the child, whose
   * memory was copied without them, has them pending too. */
  if (parent->stopped)
    process_arm_pending (self, process_lookup (self, parent->pid));

  /* The kernel's one clone event stops for both kinds when either asks
   * to stop: the kind nobody asked to stop for goes on at once. */
  {
    const char *how = reported_as (self, is_thread ? "clone" : "fork");
    gboolean stop = g_strcmp0 (how, "stop") == 0 ||
                    (!is_thread && catch_matching (self, "fork", 0, FALSE) != NULL);

    if (!stop)
      resume_quietly (self, parent);
    if (!stop && how == NULL)
      return;
  }

  builder = notification_begin (self, is_thread ? "clone" : "fork", parent);
  if (is_thread)
    g_variant_builder_add (builder, "{sv}", "new_thread", g_variant_new_int64 (body->child_tid));
  else
    g_variant_builder_add (builder, "{sv}", "child", g_variant_new_int64 (body->child_tid));
  notification_end (self, builder, parent, 0);
}

static void
on_exec (FroggySession                    *self,
         Thread                           *thread,
         const struct utrace_event_header *record)
{
  const struct utrace_event_exec *body = (gconstpointer) (record + 1);
  const char *filename = (const char *) (body + 1);
  Process *process = process_lookup (self, thread->pid);
  gboolean first = !thread->announced;
  GVariantBuilder *builder;

  /* The old image is gone, with its breakpoints: set those by function
   * name again in the new one. */
  g_hash_table_remove_all (process->sites);
  g_hash_table_remove_all (process->lifted);
  g_hash_table_remove_all (process->armed);
  g_hash_table_remove_all (process->pending);
  process->arming = 0;
  process->memory_of = process->pid;
  process->vfork_caller = 0;
  process->image = ++self->last_image;
  if (!process->followed)
    {
      /* Its own memory now, with none of our int3s. */
      process_let_go (self, thread);
      return;
    }
  g_clear_object (&process->symbolizer);
  process->symbolizer = froggy_symbolizer_new (process->pid);
  if (process->pid != self->pid)
    for (guint i = 0; i < self->breakpoints->len; i++)
      {
        FroggyBreakpoint *breakpoint = g_ptr_array_index (self->breakpoints, i);

        if (breakpoint->by_function && breakpoint->enabled)
          breakpoint_arm_in_child (self, breakpoint, process);
      }
  if (process->pid == self->pid)
    for (guint i = 0; i < self->breakpoints->len; i++)
      {
        FroggyBreakpoint *breakpoint = g_ptr_array_index (self->breakpoints, i);
        g_autoptr(GError) error = NULL;

        if (!breakpoint->by_function || !breakpoint->enabled ||
            !resolve_breakpoint (self, breakpoint, &error) ||
            !breakpoint_arm (self, breakpoint, &error))
          {
            g_array_set_size (breakpoint->addresses, 0);
            if (error != NULL)
              g_debug ("breakpoint %u not in the new image: %s", breakpoint->id, error->message);
          }
      }

  thread->announced = TRUE;
  if (first && self->launched)
    {
      notify_simple (self, "launched", thread);
      return;
    }
  if (catch_matching (self, "exec", 0, FALSE) == NULL &&
      g_strcmp0 (reported_as (self, "exec"), "stop") != 0)
    {
      /* The kernel always stops at an exec, for the breakpoints. */
      resume_quietly (self, thread);
      if (reported_as (self, "exec") == NULL)
        return;
    }
  builder = notification_begin (self, "exec", thread);
  g_variant_builder_add (builder, "{sv}", "filename", g_variant_new_string (filename));
  notification_end (self, builder, thread, 0);
}

static void
on_syscall (FroggySession                    *self,
            Thread                           *thread,
            const struct utrace_event_header *record)
{
  const struct utrace_event_syscall *body = (gconstpointer) (record + 1);
  gboolean at_exit = record->type == UTRACE_EV_SYSCALL_EXIT;
  const char *kind = at_exit ? "syscall-exit" : "syscall-entry";
  const char *name = froggy_syscall_name (body->arch, body->nr);
  const char *abi = froggy_syscall_abi (body->arch);
  /* Catchpoints have x86_64 numbers: another ABI's call goes by name. */
  int number = body->arch == AUDIT_ARCH_X86_64 ? (int) body->nr :
               name != NULL ? froggy_syscall_number (name) : -1;
  Catchpoint *catchpoint = catch_matching (self, "syscall", number, at_exit);
  GVariantBuilder *builder;

  if (thread_unseen (self, thread) ||
      (catchpoint == NULL && reported_as (self, kind) == NULL))
    {
      resume_quietly (self, thread);
      return;
    }
  if (catchpoint == NULL && thread->stopped && g_strcmp0 (reported_as (self, kind), "stop") != 0)
    {
      /* Only reported: the thread goes on. */
      resume_quietly (self, thread);
    }

  builder = notification_begin (self, kind, thread);
  g_variant_builder_add (builder, "{sv}", "nr", g_variant_new_int64 (body->nr));
  g_variant_builder_add (builder, "{sv}", "name", g_variant_new_string (name ? name : "?"));
  g_variant_builder_add (builder, "{sv}", "abi", g_variant_new_string (abi ? abi : "?"));
  if (catchpoint != NULL)
    g_variant_builder_add (builder, "{sv}", "catchpoint", g_variant_new_int64 (catchpoint->id));
  /* An exit carries the arguments too, as its registers have them, on
   * a kernel with UTRACE_FEATURE_EXIT_ARGS (zeros before it). */
  if (!at_exit || froggy_device_has_feature (self->device, UTRACE_FEATURE_EXIT_ARGS))
    {
      GVariantBuilder args;

      g_variant_builder_init (&args, G_VARIANT_TYPE_STRING_ARRAY);
      for (guint i = 0; i < G_N_ELEMENTS (body->args); i++)
        {
          g_autofree char *text = froggy_format_word (body->args[i]);

          g_variant_builder_add (&args, "s", text);
        }
      g_variant_builder_add (builder, "{sv}", "args", g_variant_builder_end (&args));
    }
  if (at_exit)
    g_variant_builder_add (builder, "{sv}", "return", g_variant_new_int64 (body->ret));
  notification_end (self, builder, thread, 0);
}

static void
on_signal (FroggySession                    *self,
           Thread                           *thread,
           const struct utrace_event_header *record)
{
  const struct utrace_event_signal *body = (gconstpointer) (record + 1);
  Catchpoint *catchpoint = catch_matching (self, "signal", body->signo, FALSE);
  const char *how = g_hash_table_lookup (self->reported, "signal");
  GVariantBuilder *builder;
  char name[32];

  /* Signals stop by default, as in gdb; events.subscribe makes them
   * only reported ("report") or passed in silence ("off"), a catch
   * stops them whatever was subscribed. */
  if (thread_unseen (self, thread) ||
      (catchpoint == NULL &&
       (g_strcmp0 (how, "off") == 0 || (how == NULL && signal_is_quiet (body->signo)))))
    {
      resume_quietly (self, thread);
      return;
    }
  if (catchpoint == NULL && g_strcmp0 (how, "report") == 0)
    resume_quietly (self, thread);
  else
    thread_end_step (self, thread);
  builder = notification_begin (self, "signal", thread);
  g_variant_builder_add (builder, "{sv}", "signal", g_variant_new_int64 (body->signo));
  g_variant_builder_add (builder, "{sv}", "name",
                         g_variant_new_string (signal_name (body->signo, name, sizeof name)));
  g_variant_builder_add (builder, "{sv}", "code", g_variant_new_int64 (body->code));
  if (body->addr != 0)
    {
      g_autofree char *address = froggy_format_word (body->addr);

      g_variant_builder_add (builder, "{sv}", "address", g_variant_new_string (address));
    }
  notification_end (self, builder, thread, 0);
}

static void
on_watchpoint (FroggySession                    *self,
               Thread                           *thread,
               const struct utrace_event_header *record)
{
  const struct utrace_event_watch *body = (gconstpointer) (record + 1);
  GVariantBuilder *builder;
  guint id = 0;

  for (guint i = 0; i < self->watchpoints->len && id == 0; i++)
    {
      Watchpoint *watchpoint = g_ptr_array_index (self->watchpoints, i);

      for (guint j = 0; j + 1 < watchpoint->slots->len; j += 2)
        if (g_array_index (watchpoint->slots, int, j) == thread->tid &&
            g_array_index (watchpoint->slots, int, j + 1) == (int) body->slot)
          id = watchpoint->id;
    }
  if (id == 0)
    {
      resume_quietly (self, thread);
      return;
    }
  thread_end_step (self, thread);
  builder = notification_begin (self, "watchpoint", thread);
  g_variant_builder_add (builder, "{sv}", "watchpoint", g_variant_new_int64 (id));
  {
    g_autofree char *address = froggy_format_word (body->addr);

    g_variant_builder_add (builder, "{sv}", "address", g_variant_new_string (address));
  }
  notification_end (self, builder, thread, 0);
}

/* @thread is gone: with its wait status from its DEATH record, or with
 * @status NULL if that record was lost. */
static void
thread_died (FroggySession *self,
             Thread        *thread,
             const int     *status)
{
  GVariantBuilder *builder;
  pid_t tid = thread->tid;
  pid_t pid = thread->pid;
  GHashTableIter iter;
  Thread *other;
  gboolean last = TRUE;

  if (status == NULL)
    g_debug ("session %u: thread %d is gone, its death record lost", self->id, tid);
  thread_end_step (self, thread);
  thread->stopped = FALSE;

  /* Its debug registers died with it; its tid may come back as another. */
  for (guint i = 0; i < self->watchpoints->len; i++)
    {
      Watchpoint *watchpoint = g_ptr_array_index (self->watchpoints, i);

      for (guint j = 0; j + 1 < watchpoint->slots->len;)
        if (g_array_index (watchpoint->slots, int, j) == tid)
          g_array_remove_range (watchpoint->slots, j, 2);
        else
          j += 2;
    }
  if (!thread_unseen (self, thread))
    {
      builder = notification_begin (self, "exit", thread);
      if (status != NULL)
        {
          g_variant_builder_add (builder, "{sv}", "status", g_variant_new_int64 (*status));
          if (WIFEXITED (*status))
            g_variant_builder_add (builder, "{sv}", "code",
                                   g_variant_new_int64 (WEXITSTATUS (*status)));
          else if (WIFSIGNALED (*status))
            g_variant_builder_add (builder, "{sv}", "termsig",
                                   g_variant_new_int64 (WTERMSIG (*status)));
        }
      notification_end (self, builder, NULL, 0);
    }

  /* A thread paused for this one's step-over, or waited for, goes on. */
  if (thread->over_address != 0)
    step_over_done (self, thread);
  g_hash_table_remove (self->threads, GINT_TO_POINTER (tid));

  /* The process is gone with its last thread: forget it, so that kill
   * never reaches whoever gets its pid next. */
  g_hash_table_iter_init (&iter, self->threads);
  while (last && g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
    last = other->pid != pid;
  if (last)
    g_hash_table_remove (self->processes, GINT_TO_POINTER (pid));
  else
    {
      Process *process = process_lookup (self, pid);

      /* It died before the stop that was to arm its process's pending
       * breakpoints: another thread stops for them. */
      if (process->arming == tid)
        {
          process->arming = 0;
          process_interrupt_to_arm (self, process);
        }
    }
  stop_waiters_update (self, tid);
}

static void
on_death (FroggySession                    *self,
          Thread                           *thread,
          const struct utrace_event_header *record)
{
  const struct utrace_event_exit *body = (gconstpointer) (record + 1);
  int status = body->code;

  thread_died (self, thread, &status);
}

/* Adopts a thread attached to the session that it never heard of (its
 * CLONE record lost), in its process, unless it is gone already. */
static gboolean
thread_adopt (FroggySession            *self,
              const FroggyDeviceThread *attached)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", attached->tid);
  g_autofree char *status = NULL;
  pid_t pid = 0, parent_pid = 0;
  gboolean new_process;
  g_auto(GStrv) lines = NULL;
  Thread *thread;

  /* Gone already: its DEATH record ends it, or is lost too. */
  if (!g_file_get_contents (path, &status, NULL, NULL))
    return FALSE;
  lines = g_strsplit (status, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (sscanf (lines[i], "Tgid: %d", &pid) != 1)
      sscanf (lines[i], "PPid: %d", &parent_pid);
  if (pid <= 0)
    return FALSE;

  g_debug ("session %u: thread %d (id %" G_GUINT64_FORMAT ") joins, its clone record lost",
           self->id, attached->tid, attached->id);
  new_process = !g_hash_table_contains (self->processes, GINT_TO_POINTER (pid));
  thread = thread_add (self, attached->id, attached->tid, pid);
  thread->announced = TRUE;
  /* A fork child: whether it shared its parent's memory is not known. */
  if (new_process && g_hash_table_contains (self->processes, GINT_TO_POINTER (parent_pid)))
    process_inherit (self, process_lookup (self, parent_pid), thread, FALSE, 0);
  stop_with_process (self, thread);
  return TRUE;
}

/* After a loss: makes the thread table the kernel's again.  A snapshot of
 * the threads attached comes with the number of the last record queued;
 * once the records up to it are handled, a thread known before it but
 * not attached then has lost its DEATH record, and one attached then but
 * still unknown, its CLONE record. */
static void
threads_resync (FroggySession *self)
{
  g_autoptr(FroggySession) hold = g_object_ref (self);
  g_autoptr(GHashTable) attached = g_hash_table_new (NULL, NULL);
  g_autoptr(GArray) unlisted = g_array_new (FALSE, FALSE, sizeof (FroggyDeviceThread));
  g_autoptr(GArray) threads = NULL;
  g_autoptr(GError) error = NULL;
  GHashTableIter iter;
  Thread *thread;
  guint gone = 0, joined = 0;
  guint64 seq;

  threads = froggy_device_list_threads (self->device, &seq, &error);
  if (threads == NULL)
    {
      /* Closed: the session is over anyway. */
      if (!g_error_matches (error, FROGGY_ERROR, FROGGY_ERROR_NO_SESSION))
        g_warning ("session %u: cannot resync its threads: %s", self->id, error->message);
      self->resync_pending = FALSE;
      stop_waiters_settle (self);
      return;
    }
  for (guint i = 0; i < threads->len; i++)
    {
      FroggyDeviceThread *listed = &g_array_index (threads, FroggyDeviceThread, i);

      g_hash_table_insert (attached, GINT_TO_POINTER (listed->tid), listed);
    }
  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      FroggyDeviceThread *listed = g_hash_table_lookup (attached, GINT_TO_POINTER (thread->tid));

      /* (Known by tid only, until its first record, after an attach.) */
      if (listed == NULL || (thread->id != 0 && listed->id != thread->id))
        {
          FroggyDeviceThread was = { .id = thread->id, .tid = thread->tid };

          g_array_append_val (unlisted, was);
        }
    }

  froggy_device_dispatch_through (self->device, seq);
  if (self->ended)
    return;

  /* Still here with the same id (a tid can come back as another thread). */
  for (guint i = 0; i < unlisted->len; i++)
    {
      FroggyDeviceThread *was = &g_array_index (unlisted, FroggyDeviceThread, i);

      thread = thread_lookup (self, was->tid);
      if (thread != NULL && thread->id == was->id)
        {
          thread_died (self, thread, NULL);
          gone++;
        }
    }
  for (guint i = 0; i < threads->len && !self->ended; i++)
    {
      FroggyDeviceThread *listed = &g_array_index (threads, FroggyDeviceThread, i);

      if (thread_lookup (self, listed->tid) == NULL && thread_adopt (self, listed))
        joined++;
    }
  g_debug ("session %u: resynced %u threads through record %" G_GUINT64_FORMAT
           ": %u gone, %u joined", self->id, threads->len, seq, gone, joined);
  self->resync_pending = FALSE;
  stop_waiters_settle (self);
}

static gboolean
resync_timeout (gpointer user_data)
{
  FroggySession *self = user_data;

  self->resync_source = 0;
  threads_resync (self);
  /* A thread whose DEATH record was dropped is still listed for a moment
   * after the loss is read: look again while anyone waits for a stop. */
  if (!self->ended && self->waiters != NULL)
    resync_schedule (self, RESYNC_INTERVAL_MS);
  return G_SOURCE_REMOVE;
}

/* Resyncs in @delay_ms, from the main loop: never while the device is
 * handing out records. */
static void
resync_schedule (FroggySession *self,
                 guint          delay_ms)
{
  if (self->resync_source == 0 && !self->ended)
    self->resync_source = g_timeout_add (delay_ms, resync_timeout, self);
}

static void
on_lost (FroggySession                    *self,
         const struct utrace_event_header *record)
{
  const struct utrace_event_lost *body = (gconstpointer) (record + 1);
  GVariantBuilder *builder = notification_begin (self, "lost", NULL);

  g_variant_builder_add (builder, "{sv}", "count", g_variant_new_int64 (body->count));
  notification_end (self, builder, NULL, 0);

  self->records_lost = TRUE;
  self->resync_pending = TRUE;
  g_clear_handle_id (&self->resync_source, g_source_remove);
  resync_schedule (self, 0);
}

static void
froggy_session_event (FroggySession                    *self,
                      const struct utrace_event_header *record,
                      FroggyDevice                     *device)
{
  g_autoptr(FroggySession) hold = g_object_ref (self);
  gboolean stopped = record->flags & UTRACE_EVF_STOPPED;
  const struct utrace_event_pc *pc = (gconstpointer) (record + 1);
  gboolean pause_lapsed;
  Thread *thread;

  if (record->type == UTRACE_EV_LOST)
    {
      on_lost (self, record);
      return;
    }

  thread = thread_lookup (self, record->tid);
  if (thread == NULL && record->type == UTRACE_EV_DEATH)
    {
      /* Ended already when its records were lost, or never known (its
       * CLONE record lost): either way nobody awaits it now. */
      stop_waiters_update (self, record->tid);
      return;
    }
  if (record->type == UTRACE_EV_EXEC)
    {
      const struct utrace_event_exec *body = (gconstpointer) (record + 1);

      /* A thread other than the leader exec'd: it is the leader now. */
      if (body->old_tid != record->tid)
        {
          Thread *old = thread_lookup (self, body->old_tid);

          if (old != NULL)
            {
              g_hash_table_steal (self->threads, GINT_TO_POINTER (body->old_tid));
              old->tid = record->tid;
              g_hash_table_replace (self->threads, GINT_TO_POINTER (record->tid), old);
              thread = old;
            }
        }
    }
  if (thread == NULL)
    thread = thread_add (self, record->id, record->tid, record->tgid);
  thread->id = record->id;
  if (record->tid == self->pid)
    self->launch_seen = TRUE;
  if (stopped)
    thread->stopped = TRUE;
  /* Breakpoints inserted while the process ran go in now; an exec took
   * away the image they were for (see on_exec()), and at a fork they go
   * in once the child has taken its share of them (see on_clone()). */
  if (stopped && record->type != UTRACE_EV_EXEC && record->type != UTRACE_EV_CLONE)
    process_arm_pending (self, process_lookup (self, thread->pid));
  /* Any stop ends a lapsed pause: a STOP is the one it asked for, another
   * stop took its place. */
  pause_lapsed = stopped && thread->pause_lapsed;
  if (stopped)
    thread->pause_lapsed = FALSE;

  /* A step over a breakpoint cut short (a signal, a watchpoint, a
   * system call stop): put the int3 back and let the paused threads go;
   * the next resume steps over it again. */
  if (stopped && thread->over_address != 0 && record->type != UTRACE_EV_STEP)
    step_over_done (self, thread);

  switch (record->type)
    {
    case UTRACE_EV_STOP:
      if (thread->paused)
        {
          /* Paused for another's step-over: nobody else needs to know. */
          break;
        }
      if (thread_unseen (self, thread))
        {
          if (process_let_go (self, thread))
            return;
          resume_quietly (self, thread);
          break;
        }
      if (pause_lapsed)
        {
          /* Paused for a step-over that ended before this stop came: it
           * runs on, unless someone has asked for a stop since. */
          resume_quietly (self, thread);
          break;
        }
      if (!thread->announced)
        {
          thread->announced = TRUE;
          notify_simple (self, self->launched ? "launched" : "attached", thread);
        }
      else if (thread->stop_requested)
        notify_simple (self, "interrupted", thread);
      thread->stop_requested = FALSE;
      break;
    case UTRACE_EV_EXEC:
      on_exec (self, thread, record);
      break;
    case UTRACE_EV_CLONE:
      on_clone (self, thread, record);
      break;
    case UTRACE_EV_EXIT:
      if (thread_unseen (self, thread))
        {
          resume_quietly (self, thread);
          break;
        }
      {
        GVariantBuilder *builder = notification_begin (self, "exiting", thread);

        notification_end (self, builder, thread, 0);
      }
      break;
    case UTRACE_EV_DEATH:
      on_death (self, thread, record);
      return;
    case UTRACE_EV_SYSCALL_ENTRY:
    case UTRACE_EV_SYSCALL_EXIT:
      on_syscall (self, thread, record);
      break;
    case UTRACE_EV_SIGNAL:
      on_signal (self, thread, record);
      break;
    case UTRACE_EV_STEP:
      on_step (self, thread);
      break;
    case UTRACE_EV_BREAKPOINT:
      on_breakpoint (self, thread, pc->pc);
      break;
    case UTRACE_EV_WATCHPOINT:
      on_watchpoint (self, thread, record);
      break;
    default:
      if (stopped)
        resume_quietly (self, thread);
      break;
    }

  if (thread_lookup (self, record->tid) != NULL && thread->stopped)
    {
      if (thread->over_address == 0)
        sites_flush (self, process_lookup (self, thread->pid));
      stop_waiters_update (self, record->tid);
    }
}

/* Nothing is left to trace: complete every waiter and end. */
static void
froggy_session_abandon (FroggySession *self)
{
  g_autoptr(FroggySession) hold = g_object_ref (self);

  g_hash_table_remove_all (self->threads);
  stop_waiters_complete (self);
  froggy_session_end (self);
}

/* Every traced thread is gone, and every record read.  A thread still
 * known had its death record lost, after the last resync: it gets its
 * exit without a status, as a resync would have given it. */
static void
froggy_session_hangup (FroggySession *self,
                       FroggyDevice  *device)
{
  g_autoptr(FroggySession) hold = g_object_ref (self);
  g_autoptr(GList) tids = g_hash_table_get_keys (self->threads);

  for (GList *l = tids; l != NULL && !self->ended; l = l->next)
    {
      Thread *thread = thread_lookup (self, GPOINTER_TO_INT (l->data));

      if (thread != NULL)
        thread_died (self, thread, NULL);
    }
  froggy_session_abandon (self);
}

/* }}} */
