/* froggy-peer.c
 *
 * A FroggyPeer is a client connection: the JsonrpcClient, who is at the
 * other end (SO_PEERCRED), and how much we have queued for it.  A client
 * that sends requests but never reads the replies would make the daemon
 * queue without bound; past FROGGY_PEER_MAX_QUEUED messages not yet
 * written, or FROGGY_PEER_MAX_QUEUED_BYTES (a 1 MiB memory.read answers
 * 2 MiB of hex: 4096 of those would be 8 GiB), the connection is closed
 * instead, and what was queued for it is dropped at once.
 *
 * A client that reads, but slower than a tracee makes events (threads
 * created and ended by the thousand), is not cut off for it: past
 * FROGGY_PEER_DROP_QUEUED, a notification of a thread that did not stop
 * for it is dropped and counted, as the kernel drops non-stopping events,
 * until the client is below FROGGY_PEER_RESUME_QUEUED; then a "lost"
 * notification says how many of each session's it missed, before
 * anything newer.  (Without that margin a client that reads about as fast
 * as the tracee floods would get a "lost" for every few it reads.)  What
 * needs an answer (a stop, a reply) and what ends a process or a session
 * is never dropped.
 *
 * A lossless session drops nothing (froggy_peer_notify_lossless()): it
 * stops reading its tracee's records while one of its clients lags
 * (froggy_peer_lags()) and reads on at ::caught-up, so that the tracee
 * goes at the pace of its slowest client, as under strace.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <string.h>

#include "froggy-error.h"
#include "froggy-peer.h"

#define FROGGY_PEER_MAX_QUEUED  4096
#define FROGGY_PEER_MAX_QUEUED_BYTES (64 * 1024 * 1024)
#define FROGGY_PEER_DROP_QUEUED 1024
#define FROGGY_PEER_RESUME_QUEUED (FROGGY_PEER_DROP_QUEUED / 2)

struct _FroggyPeer
{
  GObject        parent_instance;
  JsonrpcClient *client;
  GSocket       *socket;   /* the connection's, to cut it off */
  FroggyCredentials *credentials;
  pid_t          pid;
  guint          queued;
  gsize          queued_bytes;  /* of the messages' GVariants, about their JSON */
  GHashTable    *dropped;  /* session id -> notifications dropped */
  guint          initialized : 1;
  guint          closed : 1;
  guint          write_failed : 1;
};

enum {
  CAUGHT_UP,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* A message queued for the client, until its write completes. */
typedef struct
{
  FroggyPeer *peer;
  gsize       size;
} Queued;

G_DEFINE_FINAL_TYPE (FroggyPeer, froggy_peer, G_TYPE_OBJECT)

static void
froggy_peer_finalize (GObject *object)
{
  FroggyPeer *self = FROGGY_PEER (object);

  g_clear_object (&self->client);
  g_clear_object (&self->socket);
  g_clear_pointer (&self->credentials, froggy_credentials_free);
  g_clear_pointer (&self->dropped, g_hash_table_unref);
  G_OBJECT_CLASS (froggy_peer_parent_class)->finalize (object);
}

static void
froggy_peer_class_init (FroggyPeerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = froggy_peer_finalize;

  /**
   * FroggyPeer::caught-up:
   *
   * The client has read enough of what was queued for it to be well
   * under the mark where it lags again (or its connection is gone).
   */
  signals[CAUGHT_UP] = g_signal_new ("caught-up", G_TYPE_FROM_CLASS (klass),
                                     G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                     G_TYPE_NONE, 0);
}

static void
froggy_peer_init (FroggyPeer *self)
{
  self->dropped = g_hash_table_new (NULL, NULL);
}

FroggyPeer *
froggy_peer_new (JsonrpcClient     *client,
                 GSocket           *socket,
                 FroggyCredentials *credentials)
{
  FroggyPeer *self = g_object_new (FROGGY_TYPE_PEER, NULL);

  self->client = g_object_ref (client);
  self->socket = socket ? g_object_ref (socket) : NULL;
  self->credentials = credentials;
  self->pid = froggy_credentials_get_pid (credentials);
  return self;
}

const FroggyCredentials *
froggy_peer_get_credentials (FroggyPeer *self)
{
  g_return_val_if_fail (FROGGY_IS_PEER (self), NULL);
  return self->credentials;
}

JsonrpcClient *
froggy_peer_get_client (FroggyPeer *self)
{
  g_return_val_if_fail (FROGGY_IS_PEER (self), NULL);
  return self->client;
}

uid_t
froggy_peer_get_uid (FroggyPeer *self)
{
  g_return_val_if_fail (FROGGY_IS_PEER (self), (uid_t) -1);
  return froggy_credentials_get_uid (self->credentials);
}

gid_t
froggy_peer_get_gid (FroggyPeer *self)
{
  g_return_val_if_fail (FROGGY_IS_PEER (self), (gid_t) -1);
  return froggy_credentials_get_gid (self->credentials);
}

pid_t
froggy_peer_get_pid (FroggyPeer *self)
{
  g_return_val_if_fail (FROGGY_IS_PEER (self), 0);
  return self->pid;
}

gboolean
froggy_peer_get_initialized (FroggyPeer *self)
{
  g_return_val_if_fail (FROGGY_IS_PEER (self), FALSE);
  return self->initialized;
}

void
froggy_peer_set_initialized (FroggyPeer *self)
{
  g_return_if_fail (FROGGY_IS_PEER (self));
  self->initialized = TRUE;
}

gboolean
froggy_peer_is_closed (FroggyPeer *self)
{
  g_return_val_if_fail (FROGGY_IS_PEER (self), TRUE);
  return self->closed;
}

void
froggy_peer_close (FroggyPeer *self)
{
  g_return_if_fail (FROGGY_IS_PEER (self));

  if (self->closed)
    return;
  self->closed = TRUE;
  jsonrpc_client_close (self->client, NULL, NULL);
  /* A stream with a write pending does not close (G_IO_ERROR_PENDING):
   * shut the socket down under it, so that the peer sees the end and
   * the pending write fails at once. */
  if (self->socket != NULL)
    g_socket_shutdown (self->socket, TRUE, TRUE, NULL);
}

static void froggy_peer_send_notification (FroggyPeer *self, GVariant *params);

/* A message of about @size bytes counted as queued; what its write's
 * completion takes back. */
static Queued *
froggy_peer_queue (FroggyPeer *self,
                   gsize       size)
{
  Queued *queued = g_new (Queued, 1);

  queued->peer = g_object_ref (self);
  queued->size = size;
  self->queued++;
  self->queued_bytes += queued->size;
  return queued;
}

/* The client has caught up: tell it what it missed, if anything,
 * session by session. */
static void
froggy_peer_report_dropped (FroggyPeer *self)
{
  GHashTableIter iter;
  gpointer session, count;

  if (self->closed)
    return;
  g_hash_table_iter_init (&iter, self->dropped);
  while (g_hash_table_iter_next (&iter, &session, &count))
    {
      g_autoptr(GVariant) lost = NULL;
      GVariantDict params;

      g_variant_dict_init (&params, NULL);
      g_variant_dict_insert (&params, "reason", "s", "lost");
      g_variant_dict_insert (&params, "session", "x", (gint64) GPOINTER_TO_UINT (session));
      g_variant_dict_insert (&params, "count", "x", (gint64) GPOINTER_TO_UINT (count));
      g_hash_table_iter_remove (&iter);
      lost = g_variant_ref_sink (g_variant_dict_end (&params));
      froggy_peer_send_notification (self, lost);
    }
}

/* Every write completion, whether it worked or not, ends one queued
 * message; the peer is held until then.  Once the connection is closed,
 * jsonrpc-glib fails every write still queued at once: thousands, for a
 * client cut off for reading nothing, which go by without a word. */
static void
froggy_peer_written (Queued *queued,
                     GError *error)
{
  g_autoptr(FroggyPeer) self = queued->peer;

  self->queued--;
  self->queued_bytes -= queued->size;
  g_free (queued);
  /* A client that went away with thousands queued fails them all at
   * once too: said once. */
  if (error != NULL && !self->closed && !self->write_failed &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_debug ("client %d: %s (%u more queued)", self->pid, error->message, self->queued);
      self->write_failed = TRUE;
    }
  if (self->queued < FROGGY_PEER_RESUME_QUEUED)
    froggy_peer_report_dropped (self);
  if (self->queued == FROGGY_PEER_RESUME_QUEUED - 1)
    g_signal_emit (self, signals[CAUGHT_UP], 0);
}

static void
froggy_peer_reply_written (GObject      *object,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  jsonrpc_client_reply_finish (JSONRPC_CLIENT (object), result, &error);
  froggy_peer_written (user_data, error);
}

static void
froggy_peer_error_written (GObject      *object,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  jsonrpc_client_reply_error_finish (JSONRPC_CLIENT (object), result, &error);
  froggy_peer_written (user_data, error);
}

static void
froggy_peer_notification_written (GObject      *object,
                                  GAsyncResult *result,
                                  gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  jsonrpc_client_send_notification_finish (JSONRPC_CLIENT (object), result, &error);
  froggy_peer_written (user_data, error);
}

static void
froggy_peer_send_notification (FroggyPeer *self,
                               GVariant   *params)
{
  jsonrpc_client_send_notification_async (self->client, "event", params, NULL,
                                          froggy_peer_notification_written,
                                          froggy_peer_queue (self, g_variant_get_size (params)));
}

/* Whether a notification may be dropped for a client that lags: one of
 * a thread that runs on (it needs no continue), but not the end of a
 * process or of a session, nor a count of what was lost. */
static gboolean
froggy_peer_may_drop (GVariant *params)
{
  const char *reason = NULL;
  gboolean stopped = FALSE;
  gint64 thread = 0, pid = -1;

  if (!g_variant_lookup (params, "reason", "&s", &reason) ||
      !g_variant_lookup (params, "thread", "x", &thread))
    return FALSE;
  g_variant_lookup (params, "stopped", "b", &stopped);
  g_variant_lookup (params, "pid", "x", &pid);
  if (stopped || g_strcmp0 (reason, "lost") == 0)
    return FALSE;
  return !(g_strcmp0 (reason, "exit") == 0 && thread == pid);
}

/* Past the mark, or not yet back well under it since dropping began. */
static gboolean
froggy_peer_dropping (FroggyPeer *self)
{
  if (g_hash_table_size (self->dropped) > 0)
    return self->queued >= FROGGY_PEER_RESUME_QUEUED;
  return self->queued >= FROGGY_PEER_DROP_QUEUED;
}

/**
 * froggy_peer_lags:
 *
 * Whether the client is so far behind that a lossless session must stop
 * reading events for it; ::caught-up tells when it no longer is.
 */
gboolean
froggy_peer_lags (FroggyPeer *self)
{
  g_return_val_if_fail (FROGGY_IS_PEER (self), FALSE);

  return !self->closed && self->queued >= FROGGY_PEER_DROP_QUEUED;
}

/* Whether one more message may be queued: not past either mark, past
 * which the client is cut off. */
static gboolean
froggy_peer_may_queue (FroggyPeer *self)
{
  if (self->closed)
    return FALSE;
  if (self->queued >= FROGGY_PEER_MAX_QUEUED ||
      self->queued_bytes >= FROGGY_PEER_MAX_QUEUED_BYTES)
    {
      g_message ("client %d reads no replies (%u queued, %" G_GSIZE_FORMAT " bytes): "
                 "closing it", self->pid, self->queued, self->queued_bytes);
      froggy_peer_close (self);
      return FALSE;
    }
  return TRUE;
}

void
froggy_peer_reply (FroggyPeer *self,
                   GVariant   *id,
                   GVariant   *result)
{
  g_autoptr(GVariant) sunk = result ? g_variant_ref_sink (result) : NULL;

  g_return_if_fail (FROGGY_IS_PEER (self));

  if (!froggy_peer_may_queue (self))
    return;
  jsonrpc_client_reply_async (self->client, id, sunk, NULL,
                              froggy_peer_reply_written, froggy_peer_queue (self, sunk ? g_variant_get_size (sunk) : 0));
}

void
froggy_peer_reply_error (FroggyPeer   *self,
                         GVariant     *id,
                         const GError *error)
{
  int code = FROGGY_ERROR_INTERNAL;

  g_return_if_fail (FROGGY_IS_PEER (self));
  g_return_if_fail (error != NULL);

  if (error->domain == FROGGY_ERROR)
    code = error->code;
  else if (error->domain == JSONRPC_CLIENT_ERROR)
    code = error->code;
  else
    g_debug ("internal error: %s", error->message);

  if (!froggy_peer_may_queue (self))
    return;
  jsonrpc_client_reply_error_async (self->client, id, code, error->message, NULL,
                                    froggy_peer_error_written, froggy_peer_queue (self, strlen (error->message)));
}

void
froggy_peer_notify (FroggyPeer *self,
                    GVariant   *params)
{
  g_autoptr(GVariant) sunk = g_variant_ref_sink (params);

  g_return_if_fail (FROGGY_IS_PEER (self));

  if (froggy_peer_dropping (self) && froggy_peer_may_drop (sunk))
    {
      gint64 session = 0;
      gpointer key;
      guint count;

      if (g_hash_table_size (self->dropped) == 0)
        g_debug ("client %d lags %u messages behind: dropping notifications of running threads",
                 self->pid, self->queued);
      g_variant_lookup (sunk, "session", "x", &session);
      key = GUINT_TO_POINTER ((guint) session);
      count = GPOINTER_TO_UINT (g_hash_table_lookup (self->dropped, key));
      g_hash_table_insert (self->dropped, key, GUINT_TO_POINTER (count + 1));
      return;
    }
  /* The count of what was dropped goes first. */
  froggy_peer_report_dropped (self);
  if (!froggy_peer_may_queue (self))
    return;
  froggy_peer_send_notification (self, sunk);
}

/**
 * froggy_peer_notify_lossless:
 *
 * Like froggy_peer_notify(), but never dropped, however far the client
 * lags: for a lossless session, which stops reading its tracee's events
 * while any of its clients lags, and so bounds what it queues.
 */
void
froggy_peer_notify_lossless (FroggyPeer *self,
                             GVariant   *params)
{
  g_autoptr(GVariant) sunk = g_variant_ref_sink (params);

  g_return_if_fail (FROGGY_IS_PEER (self));

  froggy_peer_report_dropped (self);
  if (self->closed)
    return;
  froggy_peer_send_notification (self, sunk);
}
