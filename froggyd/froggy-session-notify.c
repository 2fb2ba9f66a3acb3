/* froggy-session-notify.c
 *
 * The notifications of a FroggySession: a FroggyNotice (the reason, the
 * session, the thread, where a stopped thread is, what the reason adds),
 * encoded by froggy_encode_notice() and sent to every client of the
 * session; and the pace of a lossless session, which reads
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

/* Where the thread of @notice, of process @pid, is: at @pc. */
void
notice_locate (FroggySession *self,
               FroggyNotice  *notice,
               pid_t          pid,
               guint64        pc)
{
  Process *process = process_lookup (self, pid);

  notice->has_location = TRUE;
  notice->pc = pc;
  notice->location = froggy_symbolizer_lookup_address (process->symbolizer, pc);
}

/* Every client of the session gets @notice (its location is freed). */
void
notice_broadcast (FroggySession *self,
                  FroggyNotice  *notice)
{
  g_autoptr(GVariant) params = g_variant_ref_sink (froggy_encode_notice (notice));

  g_clear_pointer ((FroggySymbol **) &notice->location, froggy_symbol_free);
  for (guint i = 0; i < self->peers->len; i++)
    {
      FroggyPeer *peer = g_ptr_array_index (self->peers, i);

      if (self->lossless)
        froggy_peer_notify_lossless (peer, params);
      else
        froggy_peer_notify (peer, params);
    }
  lossless_pace (self);
}

/* A notice of @reason about @thread (NULL: the session). */
void
notice_init_as (FroggySession *self,
                FroggyNotice  *notice,
                const char    *reason,
                Thread        *thread,
                gboolean       stopped)
{
  *notice = (FroggyNotice) {
    .reason = reason,
    .session = self->id,
  };
  if (thread != NULL)
    {
      notice->thread = thread->tid;
      notice->pid = thread->pid;
      notice->stopped = stopped;
    }
}

void
notice_init (FroggySession *self,
             FroggyNotice  *notice,
             const char    *reason,
             Thread        *thread)
{
  notice_init_as (self, notice, reason, thread, thread != NULL && thread->stopped);
}

/* Sends @notice; a stopped @thread is located at @pc (0: its own pc). */
void
notice_send (FroggySession *self,
             FroggyNotice  *notice,
             Thread        *thread,
             guint64        pc)
{
  /* Stopped for the user now, not for someone's step-over: it waits
   * for a continue. */
  if (thread != NULL && thread->stopped)
    {
      thread->paused = FALSE;
      thread->deferred = FALSE;
      notice_locate (self, notice, thread->pid, pc ? pc : thread_pc (self, thread));
    }
  notice_broadcast (self, notice);
}

void
notify_simple (FroggySession *self,
               const char    *reason,
               Thread        *thread)
{
  FroggyNotice notice;

  notice_init (self, &notice, reason, thread);
  notice_send (self, &notice, thread, 0);
}
