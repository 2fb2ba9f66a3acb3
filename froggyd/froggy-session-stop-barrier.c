/* froggy-session-stop-barrier.c
 *
 * The stop barrier of a FroggySession: what must wait for threads to be
 * stopped (a stop of every thread, a detach, a step over a breakpoint
 * while other threads run) adds a StopWaiter, and the records complete
 * it as the threads stop or die.  Nothing here waits on a tracee.
 *
 * The middle floor (see froggy-session-private.h): it reads the thread
 * tables and interrupts threads through them.  The resyncs a loss of
 * records calls for are the record handlers', a floor above: the
 * barrier asks for one through self->resync_schedule.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include "froggy-session-private.h"

void
stop_waiter_free (StopWaiter *waiter)
{
  g_hash_table_unref (waiter->pending);
  g_array_unref (waiter->tids);
  g_free (waiter);
}

static gint
waiter_pending_count (gconstpointer waiter,
                      gconstpointer unused)
{
  return g_hash_table_size (((const StopWaiter *) waiter)->pending);
}

/* Completes the waiters with nothing pending, unless records were lost
 * and the session does not know yet which threads it has.  A waiter's
 * callback may add waiters, complete the others (a detach) or drop the
 * last reference to the session (its end): the list is searched anew
 * after each one, with the session held. */
void
stop_waiters_settle (FroggySession *self)
{
  g_autoptr(FroggySession) hold = g_object_ref (self);
  GList *l;

  while (!self->resync_pending &&
         (l = g_list_find_custom (self->waiters, NULL, waiter_pending_count)) != NULL)
    {
      StopWaiter *waiter = l->data;

      self->waiters = g_list_delete_link (self->waiters, l);
      waiter->done (self, waiter->data);
      stop_waiter_free (waiter);
    }
}

void
stop_waiters_update (FroggySession *self,
                     pid_t          tid)
{
  for (GList *l = self->waiters; l != NULL; l = l->next)
    {
      StopWaiter *waiter = l->data;

      g_hash_table_remove (waiter->pending, GINT_TO_POINTER (tid));
    }
  stop_waiters_settle (self);
}

/* Nothing will stop any more: whoever waited is done. */
void
stop_waiters_complete (FroggySession *self)
{
  GList *waiters = g_steal_pointer (&self->waiters);

  for (GList *l = waiters; l != NULL; l = l->next)
    {
      StopWaiter *waiter = l->data;

      waiter->done (self, waiter->data);
      stop_waiter_free (waiter);
    }
  g_list_free (waiters);
}

/* Whether someone waits for @tid to stop. */
gboolean
thread_awaited (FroggySession *self,
                pid_t          tid)
{
  for (GList *l = self->waiters; l != NULL; l = l->next)
    {
      StopWaiter *waiter = l->data;

      if (g_hash_table_contains (waiter->pending, GINT_TO_POINTER (tid)))
        return TRUE;
    }
  return FALSE;
}

/* Calls @done once every thread of @tids is stopped or gone: at once if
 * they already are.  With @with_clones, a thread born of one still
 * pending is stopped and waited for as well (see stop_with_parent()). */
void
stop_waiter_add (FroggySession  *self,
                 GArray         *tids,
                 gboolean        with_clones,
                 StopWaiterDone  done,
                 gpointer        data)
{
  g_autoptr(FroggySession) hold = g_object_ref (self);
  StopWaiter *waiter = g_new0 (StopWaiter, 1);

  waiter->pending = g_hash_table_new (NULL, NULL);
  waiter->tids = g_array_ref (tids);
  waiter->with_clones = with_clones;
  waiter->done = done;
  waiter->data = data;
  for (guint i = 0; i < tids->len; i++)
    {
      pid_t tid = g_array_index (tids, pid_t, i);
      Thread *thread = thread_lookup (self, tid);

      if (thread == NULL || !thread->stopped)
        g_hash_table_add (waiter->pending, GINT_TO_POINTER (tid));
    }
  self->waiters = g_list_append (self->waiters, waiter);
  stop_waiters_settle (self);
  if (self->records_lost && self->waiters != NULL)
    self->resync_schedule (self, RESYNC_INTERVAL_MS);
}

/* @thread, awaited by a waiter now, is stopped as @like was: for the user
 * or paused for a step-over. */
static void
stop_like (FroggySession *self,
           Thread        *like,
           Thread        *thread)
{
  if (thread->stopped)
    return;
  /* Exiting already: its death record answers the waiters. */
  if (!thread_control (self, thread, UTRACE_CTL_INTERRUPT, -1, NULL))
    return;
  thread->stop_requested = like->stop_requested;
  thread->paused = like->paused;
  thread->pause_lapsed = FALSE;
}

/* A thread born while its parent was being stopped, by a stop of every
 * thread or a step-over's pause: it is stopped alike, and whoever waits
 * for the parent waits for it too.  Else a stop of every thread would
 * answer with one running, or a new thread run past the breakpoint a
 * step-over has lifted.
 *
 * @stopping: the kernel stops the child already (UTRACE_CLONE_STOPPED),
 * as its parent had a stop pending when it cloned.  That is how a parent
 * held asleep in the clone for a step-over, which nobody waits for, has
 * a child that runs no code while the int3 is lifted. */
void
stop_with_parent (FroggySession *self,
                  Thread        *parent,
                  Thread        *child,
                  gboolean       stopping)
{
  gboolean awaited = FALSE;

  for (GList *l = self->waiters; l != NULL; l = l->next)
    {
      StopWaiter *waiter = l->data;

      if (!waiter->with_clones ||
          !g_hash_table_contains (waiter->pending, GINT_TO_POINTER (parent->tid)) ||
          g_hash_table_contains (waiter->pending, GINT_TO_POINTER (child->tid)))
        continue;
      g_hash_table_add (waiter->pending, GINT_TO_POINTER (child->tid));
      g_array_append_val (waiter->tids, child->tid);
      awaited = TRUE;
    }
  if (awaited)
    stop_like (self, parent, child);
  else if (stopping)
    {
      /* Its stop record is taken as its parent's would be: a pause, a
       * stop asked for, or one nobody wants any more, to run on from. */
      child->paused = parent->paused;
      child->stop_requested = parent->stop_requested;
      child->pause_lapsed = !parent->paused && !parent->stop_requested;
    }
}

/* @thread joins without a CLONE record (see threads_resync()): stopped and
 * awaited like the threads of its process that a waiter stops with their
 * clones, if any. */
void
stop_with_process (FroggySession *self,
                   Thread        *thread)
{
  Thread *like = NULL;

  for (GList *l = self->waiters; l != NULL; l = l->next)
    {
      StopWaiter *waiter = l->data;

      if (!waiter->with_clones)
        continue;
      for (guint i = 0; i < waiter->tids->len; i++)
        {
          Thread *other = thread_lookup (self, g_array_index (waiter->tids, pid_t, i));

          if (other != NULL && other != thread && other->pid == thread->pid)
            {
              g_hash_table_add (waiter->pending, GINT_TO_POINTER (thread->tid));
              g_array_append_val (waiter->tids, thread->tid);
              like = other;
              break;
            }
        }
    }
  if (like != NULL)
    stop_like (self, like, thread);
}
