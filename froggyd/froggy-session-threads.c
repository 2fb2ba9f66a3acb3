/* froggy-session-threads.c
 *
 * The process and thread tables of a FroggySession: a Thread for every
 * thread the device reports, a Process for every thread group, found by
 * id and made on first sight; and the device calls that change what a
 * thread is doing, which keep Thread.stopped the kernel's.
 *
 * The bottom floor (see froggy-session-private.h): nothing here notifies
 * a client or waits for a stop.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include "froggy-error.h"
#include "froggy-session-private.h"

void
thread_free (gpointer data)
{
  Thread *thread = data;

  g_clear_handle_id (&thread->over_sync, g_source_remove);
  g_free (thread->step_file);
  g_free (thread);
}

void
process_free (gpointer data)
{
  Process *process = data;

  g_clear_object (&process->symbolizer);
  g_hash_table_unref (process->sites);
  g_hash_table_unref (process->lifted);
  g_hash_table_unref (process->armed);
  g_hash_table_unref (process->pending);
  g_free (process);
}

/* A table of breakpoint addresses: guint64 address -> breakpoint id. */
GHashTable *
address_table_new (void)
{
  return g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

/* Add the addresses of @from, with their breakpoint ids, to @to. */
void
address_table_add_all (GHashTable *to,
                       GHashTable *from)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, from);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (to, g_memdup2 (key, sizeof (guint64)), value);
}

Process *
process_lookup (FroggySession *self,
                pid_t          pid)
{
  Process *process = g_hash_table_lookup (self->processes, GINT_TO_POINTER (pid));

  if (process == NULL)
    {
      process = g_new0 (Process, 1);
      process->pid = pid;
      process->symbolizer = froggy_symbolizer_new (pid);
      process->sites = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
      process->lifted = address_table_new ();
      process->armed = address_table_new ();
      process->pending = address_table_new ();
      process->memory_of = pid;
      process->followed = TRUE;
      g_hash_table_insert (self->processes, GINT_TO_POINTER (pid), process);
    }
  return process;
}

/* A vfork child, until its exec: its int3s are its parent's. */
gboolean
process_shares_memory (Process *process)
{
  return process->memory_of != process->pid;
}

/* Whether @a and @b run in one memory, int3s and all: threads of one
 * process, or of a vfork child and its parent. */
gboolean
threads_share_memory (FroggySession *self,
                      Thread        *a,
                      Thread        *b)
{
  return a->pid == b->pid ||
         process_lookup (self, a->pid)->memory_of == process_lookup (self, b->pid)->memory_of;
}

Thread *
thread_lookup (FroggySession *self,
               pid_t          tid)
{
  return g_hash_table_lookup (self->threads, GINT_TO_POINTER (tid));
}

Thread *
thread_add (FroggySession *self,
            guint64        id,
            pid_t          tid,
            pid_t          pid)
{
  Thread *thread = g_new0 (Thread, 1);

  thread->id = id;
  thread->tid = tid;
  thread->pid = pid;
  thread->over_signal = -1;
  g_hash_table_replace (self->threads, GINT_TO_POINTER (tid), thread);
  process_lookup (self, pid);
  return thread;
}

/* The thread a request names: it must exist, and be stopped if asked. */
Thread *
thread_get (FroggySession  *self,
            pid_t           tid,
            gboolean        stopped,
            GError        **error)
{
  Thread *thread = thread_lookup (self, tid);

  if (thread == NULL)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD,
                   "no thread %d in session %u", tid, self->id);
      return NULL;
    }
  if (stopped && !thread->stopped)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_RUNNING,
                   "thread %d is running: stop it first", tid);
      return NULL;
    }
  return thread;
}

/* Some stopped thread through which @pid's memory is reached: one of
 * its own, or else one of a vfork child or parent sharing that memory
 * (a vfork parent may sleep until its child execs, and never stop). */
Thread *
process_stopped_thread (FroggySession *self,
                        pid_t          pid)
{
  pid_t memory = process_lookup (self, pid)->memory_of;
  Thread *sharing = NULL;
  GHashTableIter iter;
  Thread *thread;

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      if (!thread->stopped)
        continue;
      if (thread->pid == pid)
        return thread;
      if (sharing == NULL && process_lookup (self, thread->pid)->memory_of == memory)
        sharing = thread;
    }
  return sharing;
}

GArray *
all_tids (FroggySession *self)
{
  GArray *tids = g_array_new (FALSE, FALSE, sizeof (pid_t));
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      pid_t tid = GPOINTER_TO_INT (key);

      g_array_append_val (tids, tid);
    }
  return tids;
}

guint64
thread_pc (FroggySession *self,
           Thread        *thread)
{
  struct user_regs_struct regs;

  if (!froggy_device_get_regs (self->device, thread->id, &regs, NULL))
    return 0;
  return regs.rip;
}

gboolean
thread_control (FroggySession  *self,
                Thread         *thread,
                guint32         action,
                int             signo,
                GError        **error)
{
  if (!froggy_device_control (self->device, thread->id, action, signo, error))
    return FALSE;
  if (action != UTRACE_CTL_STOP && action != UTRACE_CTL_INTERRUPT)
    thread->stopped = FALSE;
  return TRUE;
}

/* A thread of a child nobody follows: clients never hear of it. */
gboolean
thread_unseen (FroggySession *self,
               Thread        *thread)
{
  return !process_lookup (self, thread->pid)->followed;
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

/* The frames of a stopped @thread's stack, innermost first
 * (FroggySymbol: a frame's address is its pc). */
GPtrArray *
thread_backtrace (FroggySession  *self,
                  Thread         *thread,
                  guint           max_frames,
                  GError        **error)
{
  struct user_regs_struct regs;
  UnwindTarget target = { self, thread };

  if (!froggy_device_get_regs (self->device, thread->id, &regs, error))
    return NULL;
  return froggy_symbolizer_backtrace (process_lookup (self, thread->pid)->symbolizer,
                                      thread->tid, &regs, unwind_read_memory, &target,
                                      max_frames, error);
}
