/* froggy-session-notify.c
 *
 * The notifications of a FroggySession: built as a vardict (the reason,
 * the session, the thread, where a stopped thread is), then sent to every
 * client of the session; and the pace of a lossless session, which reads
 * its events no faster than its slowest client takes them.
 *
 * The bottom floor (see froggy-session-private.h): it reads the thread
 * tables and the symbolizer, and calls nothing that handles a record.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include "froggy-encode.h"
#include "froggy-params.h"
#include "froggy-session-private.h"

static gboolean
any_peer_lags (FroggySession *self)
{
  for (guint i = 0; i < self->peers->len; i++)
    if (froggy_peer_lags (g_ptr_array_index (self->peers, i)))
      return TRUE;
  return FALSE;
}

/* A lossless session reads its events at the pace of its slowest client. */
void
lossless_pace (FroggySession *self)
{
  gboolean lags;

  if (!self->lossless || self->ended)
    return;
  lags = any_peer_lags (self);
  if (lags && !froggy_device_is_paused (self->device))
    {
      g_debug ("session %u: a client lags: the tracee waits for it", self->id);
      froggy_device_pause_reading (self->device);
    }
  else if (!lags && froggy_device_is_paused (self->device))
    {
      g_debug ("session %u: its clients caught up", self->id);
      froggy_device_resume_reading (self->device);
    }
}

void
add_location (GVariantBuilder *builder,
              FroggySession   *self,
              pid_t            pid,
              guint64          pc)
{
  Process *process = process_lookup (self, pid);
  g_autoptr(FroggySymbol) symbol = froggy_symbolizer_lookup_address (process->symbolizer, pc);

  froggy_encode_location (builder, pc, symbol);
}

void
broadcast (FroggySession *self,
           GVariant      *params)
{
  g_autoptr(GVariant) sunk = g_variant_ref_sink (params);

  for (guint i = 0; i < self->peers->len; i++)
    {
      FroggyPeer *peer = g_ptr_array_index (self->peers, i);

      if (self->lossless)
        froggy_peer_notify_lossless (peer, sunk);
      else
        froggy_peer_notify (peer, sunk);
    }
  lossless_pace (self);
}

GVariantBuilder *
notification_begin_as (FroggySession *self,
                       const char    *reason,
                       Thread        *thread,
                       gboolean       stopped)
{
  GVariantBuilder *builder = g_variant_builder_new (G_VARIANT_TYPE_VARDICT);

  g_variant_builder_add (builder, "{sv}", "reason", g_variant_new_string (reason));
  g_variant_builder_add (builder, "{sv}", "session", g_variant_new_int64 (self->id));
  if (thread != NULL)
    {
      g_variant_builder_add (builder, "{sv}", "thread", g_variant_new_int64 (thread->tid));
      g_variant_builder_add (builder, "{sv}", "pid", g_variant_new_int64 (thread->pid));
      g_variant_builder_add (builder, "{sv}", "stopped", g_variant_new_boolean (stopped));
    }
  return builder;
}

GVariantBuilder *
notification_begin (FroggySession *self,
                    const char    *reason,
                    Thread        *thread)
{
  return notification_begin_as (self, reason, thread, thread != NULL && thread->stopped);
}

void
notification_end (FroggySession   *self,
                  GVariantBuilder *builder,
                  Thread          *thread,
                  guint64          pc)
{
  /* Stopped for the user now, not for someone's step-over: it waits
   * for a continue. */
  if (thread != NULL && thread->stopped)
    {
      thread->paused = FALSE;
      thread->deferred = FALSE;
      add_location (builder, self, thread->pid, pc ? pc : thread_pc (self, thread));
    }
  broadcast (self, g_variant_builder_end (builder));
  g_variant_builder_unref (builder);
}

void
notify_simple (FroggySession *self,
               const char    *reason,
               Thread        *thread)
{
  notification_end (self, notification_begin (self, reason, thread), thread, 0);
}
