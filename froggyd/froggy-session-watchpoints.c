/* froggy-session-watchpoints.c
 *
 * The watchpoints of a FroggySession: a Watchpoint is an address and a
 * length watched through a debug register slot of every thread it covers
 * (or one thread's); threads born later get it, threads that die take
 * their slot with them.
 *
 * The middle floor (see froggy-session-private.h): device calls on the
 * thread tables, nothing else.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include "froggy-error.h"
#include "froggy-session-private.h"

void
watchpoint_free (gpointer data)
{
  Watchpoint *watchpoint = data;

  g_array_unref (watchpoint->slots);
  g_free (watchpoint);
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

void
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

/* Watch @address (1, 2, 4 or 8 bytes, aligned) in thread @tid, or in
 * every thread with @tid 0; returns the watchpoint's id, or 0. */
guint
watchpoint_insert (FroggySession  *self,
                   guint64         address,
                   guint           length,
                   gboolean        read_write,
                   pid_t           tid,
                   GError        **error)
{
  Watchpoint *watchpoint;
  GHashTableIter iter;
  Thread *thread;

  if (tid != 0 && thread_get (self, tid, FALSE, error) == NULL)
    return 0;
  if ((length != 1 && length != 2 && length != 4 && length != 8) || address % length != 0)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "a watchpoint covers 1, 2, 4 or 8 bytes at an address aligned to that");
      return 0;
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
          return 0;
        }
    }
  watchpoint->id = self->next_watchpoint_id++;
  g_ptr_array_add (self->watchpoints, watchpoint);
  return watchpoint->id;
}

gboolean
watchpoint_remove (FroggySession  *self,
                   guint           id,
                   GError        **error)
{
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

/* Every watchpoint out of every thread, for a detach. */
void
watchpoints_clear_all (FroggySession *self)
{
  for (guint i = 0; i < self->watchpoints->len; i++)
    watchpoint_clear (self, g_ptr_array_index (self->watchpoints, i));
}

/* A new thread of a process gets the watchpoints of every thread. */
void
watchpoints_follow_thread (FroggySession *self,
                           Thread        *thread)
{
  for (guint i = 0; i < self->watchpoints->len; i++)
    {
      Watchpoint *watchpoint = g_ptr_array_index (self->watchpoints, i);

      if (watchpoint->tid == 0)
        watchpoint_set_on (self, watchpoint, thread, NULL);
    }
}

/* Thread @tid is gone, and its debug registers with it; its tid may come
 * back as another thread's. */
void
watchpoints_forget_thread (FroggySession *self,
                           pid_t          tid)
{
  for (guint i = 0; i < self->watchpoints->len; i++)
    {
      Watchpoint *watchpoint = g_ptr_array_index (self->watchpoints, i);

      for (guint j = 0; j + 1 < watchpoint->slots->len;)
        if (g_array_index (watchpoint->slots, int, j) == tid)
          g_array_remove_range (watchpoint->slots, j, 2);
        else
          j += 2;
    }
}

/* The id of the watchpoint in debug register @slot of thread @tid, or 0. */
guint
watchpoint_at_slot (FroggySession *self,
                    pid_t          tid,
                    guint32        slot)
{
  for (guint i = 0; i < self->watchpoints->len; i++)
    {
      Watchpoint *watchpoint = g_ptr_array_index (self->watchpoints, i);

      for (guint j = 0; j + 1 < watchpoint->slots->len; j += 2)
        if (g_array_index (watchpoint->slots, int, j) == tid &&
            g_array_index (watchpoint->slots, int, j + 1) == (int) slot)
          return watchpoint->id;
    }
  return 0;
}
