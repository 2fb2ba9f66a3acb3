/* froggy-peer.c
 *
 * A FroggyPeer is a client connection: the JsonrpcClient that reads its
 * requests, who is at the other end (SO_PEERCRED), and what we have
 * queued for it.
 *
 * Replies and notifications do not go through jsonrpc-glib's writer: its
 * JsonrpcOutputStream is not pollable, so each message it writes makes a
 * round trip through a GLib worker thread: two thread wakeups per message,
 * and a breakpoint hit is a reply and a notification.  The peer frames
 * each message as jsonrpc-glib does (Content-Length, then the JSON body),
 * sends what the socket takes without blocking, from the main loop, and
 * keeps the rest in order until the socket is writable again.
 *
 * A client that sends requests but never reads the replies would make the
 * daemon queue without bound; past FROGGY_PEER_MAX_QUEUED messages not yet
 * written, the connection is closed instead.
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
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <json-glib/json-glib.h>

#include "froggy-error.h"
#include "froggy-peer.h"

#define FROGGY_PEER_MAX_QUEUED  4096
#define FROGGY_PEER_DROP_QUEUED 1024
#define FROGGY_PEER_RESUME_QUEUED (FROGGY_PEER_DROP_QUEUED / 2)

struct _FroggyPeer
{
  GObject        parent_instance;
  JsonrpcClient *client;
  GSocket       *socket;   /* the connection's: we write to it */
  uid_t          uid;
  gid_t          gid;
  pid_t          pid;
  GQueue         outgoing; /* GBytes: framed messages not yet written whole */
  gsize          sent;     /* bytes of the head of outgoing already written */
  GSource       *writable; /* while the socket takes no more */
  GHashTable    *dropped;  /* session id -> notifications dropped */
  guint          initialized : 1;
  guint          closed : 1;
};

G_DEFINE_FINAL_TYPE (FroggyPeer, froggy_peer, G_TYPE_OBJECT)

static void
froggy_peer_discard_outgoing (FroggyPeer *self)
{
  if (self->writable != NULL)
    g_source_destroy (self->writable);
  g_clear_pointer (&self->writable, g_source_unref);
  g_queue_clear_full (&self->outgoing, (GDestroyNotify) g_bytes_unref);
  self->sent = 0;
}

static void
froggy_peer_finalize (GObject *object)
{
  FroggyPeer *self = FROGGY_PEER (object);

  froggy_peer_discard_outgoing (self);
  g_clear_object (&self->client);
  g_clear_object (&self->socket);
  g_clear_pointer (&self->dropped, g_hash_table_unref);
  G_OBJECT_CLASS (froggy_peer_parent_class)->finalize (object);
}

static void
froggy_peer_class_init (FroggyPeerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = froggy_peer_finalize;
}

static void
froggy_peer_init (FroggyPeer *self)
{
  g_queue_init (&self->outgoing);
  self->dropped = g_hash_table_new (NULL, NULL);
}

FroggyPeer *
froggy_peer_new (JsonrpcClient *client,
                 GSocket       *socket,
                 uid_t          uid,
                 gid_t          gid,
                 pid_t          pid)
{
  FroggyPeer *self;

  g_return_val_if_fail (JSONRPC_IS_CLIENT (client), NULL);
  g_return_val_if_fail (G_IS_SOCKET (socket), NULL);

  self = g_object_new (FROGGY_TYPE_PEER, NULL);
  self->client = g_object_ref (client);
  self->socket = g_object_ref (socket);
  self->uid = uid;
  self->gid = gid;
  self->pid = pid;
  return self;
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
  return self->uid;
}

gid_t
froggy_peer_get_gid (FroggyPeer *self)
{
  g_return_val_if_fail (FROGGY_IS_PEER (self), (gid_t) -1);
  return self->gid;
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
  froggy_peer_discard_outgoing (self);
  /* The client sees the end at once, and jsonrpc-glib's read loop sees
   * it from the main loop and closes the connection the usual way
   * ("client-closed").  Closing the JsonrpcClient here would release the
   * peer under the feet of whoever was writing to it. */
  g_socket_shutdown (self->socket, TRUE, TRUE, NULL);
}

static void froggy_peer_send_notification (FroggyPeer *self, GVariant *params);

/* The client has caught up: tell it what it missed, if anything,
 * session by session. */
static void
froggy_peer_report_dropped (FroggyPeer *self)
{
  g_autoptr(GHashTable) dropped = NULL;
  GHashTableIter iter;
  gpointer session, count;

  if (self->closed || g_hash_table_size (self->dropped) == 0)
    return;
  /* Sending may write, and writing reports what was dropped. */
  dropped = g_steal_pointer (&self->dropped);
  self->dropped = g_hash_table_new (NULL, NULL);
  g_hash_table_iter_init (&iter, dropped);
  while (g_hash_table_iter_next (&iter, &session, &count))
    {
      g_autoptr(GVariant) lost = NULL;
      GVariantDict params;

      g_variant_dict_init (&params, NULL);
      g_variant_dict_insert (&params, "reason", "s", "lost");
      g_variant_dict_insert (&params, "session", "x", (gint64) GPOINTER_TO_UINT (session));
      g_variant_dict_insert (&params, "count", "x", (gint64) GPOINTER_TO_UINT (count));
      lost = g_variant_ref_sink (g_variant_dict_end (&params));
      froggy_peer_send_notification (self, lost);
    }
}

static gboolean froggy_peer_socket_writable (GSocket      *socket,
                                             GIOCondition  condition,
                                             gpointer      user_data);

/* Writes what the socket takes without blocking, in order; the rest
 * waits for the socket to be writable. */
static void
froggy_peer_flush (FroggyPeer *self)
{
  while (!g_queue_is_empty (&self->outgoing))
    {
      GBytes *head = g_queue_peek_head (&self->outgoing);
      g_autoptr(GError) error = NULL;
      const char *data;
      gssize sent;
      gsize size;

      data = g_bytes_get_data (head, &size);
      sent = g_socket_send_with_blocking (self->socket, data + self->sent, size - self->sent,
                                          FALSE, NULL, &error);
      if (sent < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        {
          self->writable = g_socket_create_source (self->socket, G_IO_OUT | G_IO_ERR | G_IO_HUP, NULL);
          g_source_set_callback (self->writable, G_SOURCE_FUNC (froggy_peer_socket_writable),
                                 self, NULL);
          g_source_attach (self->writable, NULL);
          break;
        }
      if (sent < 0)
        {
          if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE) &&
              !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED))
            g_debug ("client %d: %s", self->pid, error->message);
          froggy_peer_close (self);
          return;
        }
      self->sent += sent;
      if (self->sent == size)
        {
          g_bytes_unref (g_queue_pop_head (&self->outgoing));
          self->sent = 0;
        }
    }
  if (g_queue_get_length (&self->outgoing) < FROGGY_PEER_RESUME_QUEUED)
    froggy_peer_report_dropped (self);
}

static gboolean
froggy_peer_socket_writable (GSocket      *socket,
                             GIOCondition  condition,
                             gpointer      user_data)
{
  FroggyPeer *self = user_data;

  g_clear_pointer (&self->writable, g_source_unref);
  froggy_peer_flush (self);
  return G_SOURCE_REMOVE;
}

/* Frames @message as jsonrpc-glib does, and queues it. */
static void
froggy_peer_send (FroggyPeer *self,
                  GVariant   *message)
{
  g_autoptr(GVariant) sunk = g_variant_ref_sink (message);
  g_autofree char *body = NULL;
  GString *framed;
  gsize length = 0;

  body = json_gvariant_serialize_data (sunk, &length);
  framed = g_string_sized_new (length + 32);
  g_string_printf (framed, "Content-Length: %" G_GSIZE_FORMAT "\r\n\r\n", length);
  g_string_append_len (framed, body, length);
  g_queue_push_tail (&self->outgoing, g_string_free_to_bytes (framed));
  if (self->writable == NULL)
    froggy_peer_flush (self);
}

static void
froggy_peer_send_notification (FroggyPeer *self,
                               GVariant   *params)
{
  GVariantDict message;

  g_variant_dict_init (&message, NULL);
  g_variant_dict_insert (&message, "jsonrpc", "s", "2.0");
  g_variant_dict_insert (&message, "method", "s", "event");
  g_variant_dict_insert_value (&message, "params", params);
  froggy_peer_send (self, g_variant_dict_end (&message));
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
  guint queued = g_queue_get_length (&self->outgoing);

  if (g_hash_table_size (self->dropped) > 0)
    return queued >= FROGGY_PEER_RESUME_QUEUED;
  return queued >= FROGGY_PEER_DROP_QUEUED;
}

static gboolean
froggy_peer_may_queue (FroggyPeer *self)
{
  if (self->closed)
    return FALSE;
  if (g_queue_get_length (&self->outgoing) >= FROGGY_PEER_MAX_QUEUED)
    {
      g_message ("client %d reads no replies (%u queued): closing it",
                 self->pid, g_queue_get_length (&self->outgoing));
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
  GVariantDict message;

  g_return_if_fail (FROGGY_IS_PEER (self));

  if (!froggy_peer_may_queue (self))
    return;
  g_variant_dict_init (&message, NULL);
  g_variant_dict_insert (&message, "jsonrpc", "s", "2.0");
  g_variant_dict_insert_value (&message, "id", id);
  /* No result is a JSON null. */
  g_variant_dict_insert_value (&message, "result",
                               sunk ? sunk : g_variant_new_maybe (G_VARIANT_TYPE_VARIANT, NULL));
  froggy_peer_send (self, g_variant_dict_end (&message));
}

void
froggy_peer_reply_error (FroggyPeer   *self,
                         GVariant     *id,
                         const GError *error)
{
  int code = FROGGY_ERROR_INTERNAL;
  GVariantDict message, details;

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
  g_variant_dict_init (&details, NULL);
  g_variant_dict_insert (&details, "code", "i", code);
  g_variant_dict_insert (&details, "message", "s", error->message);
  g_variant_dict_init (&message, NULL);
  g_variant_dict_insert (&message, "jsonrpc", "s", "2.0");
  g_variant_dict_insert_value (&message, "id", id);
  g_variant_dict_insert_value (&message, "error", g_variant_dict_end (&details));
  froggy_peer_send (self, g_variant_dict_end (&message));
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
                 self->pid, g_queue_get_length (&self->outgoing));
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
