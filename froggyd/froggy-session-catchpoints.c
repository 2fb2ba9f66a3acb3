/* froggy-session-catchpoints.c
 *
 * Catchpoints and event masks of a FroggySession: what the kernel is to
 * report and to stop for follows from the catchpoints (catch syscall,
 * signal, fork, exec, exit) and from the clients' subscriptions
 * (events.subscribe); every change goes to the device whole, or is undone.
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
froggy_catch_spec_free (FroggyCatchSpec *spec)
{
  if (spec == NULL)
    return;
  g_free (spec->kind);
  g_clear_pointer (&spec->numbers, g_array_unref);
  g_free (spec);
}

void
catchpoint_free (gpointer data)
{
  Catchpoint *catchpoint = data;

  froggy_catch_spec_free (catchpoint->spec);
  g_free (catchpoint);
}

/* The device's masks follow from the catchpoints and subscriptions. */
gboolean
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

Catchpoint *
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

const char *
reported_as (FroggySession *self,
             const char    *kind)
{
  const char *how = g_hash_table_lookup (self->reported, kind);

  /* "off" is only remembered for signals, which stop unless told not to. */
  return g_strcmp0 (how, "off") != 0 ? how : NULL;
}

/* Takes @spec; returns the catchpoint's id, or 0. */
guint
catch_add (FroggySession    *self,
           FroggyCatchSpec  *spec,
           GError          **error)
{
  Catchpoint *catchpoint = g_new0 (Catchpoint, 1);

  catchpoint->id = self->next_breakpoint_id++;
  catchpoint->spec = spec;
  g_ptr_array_add (self->catchpoints, catchpoint);
  if (!update_event_masks (self, error))
    {
      g_ptr_array_remove (self->catchpoints, catchpoint);
      restore_event_masks (self);
      return 0;
    }
  return catchpoint->id;
}

gboolean
catch_remove (FroggySession  *self,
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

/* @events: event kind -> "stop", "report" or "off".  Every entry is
 * checked before any is taken: a request is applied whole or not at all. */
gboolean
events_subscribe (FroggySession  *self,
                  GHashTable     *events,
                  GError        **error)
{
  static const char * const kinds[] = {
    "syscall-entry", "syscall-exit", "signal", "exec", "clone", "fork", "exit", NULL
  };
  g_autoptr(GHashTable) before = NULL;
  GHashTableIter iter;
  const char *kind, *how;

  g_hash_table_iter_init (&iter, events);
  while (g_hash_table_iter_next (&iter, (gpointer *) &kind, (gpointer *) &how))
    if (!g_strv_contains (kinds, kind) ||
        (g_strcmp0 (how, "stop") != 0 && g_strcmp0 (how, "report") != 0 &&
         g_strcmp0 (how, "off") != 0))
      {
        g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                     "events: \"%s\" is not a kind with \"stop\", \"report\" or \"off\"", kind);
        return FALSE;
      }

  before = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_foreach (self->reported, copy_string_entry, before);
  g_hash_table_foreach (events, copy_string_entry, self->reported);
  if (!update_event_masks (self, error))
    {
      g_hash_table_remove_all (self->reported);
      g_hash_table_foreach (before, copy_string_entry, self->reported);
      restore_event_masks (self);
      return FALSE;
    }
  return TRUE;
}
