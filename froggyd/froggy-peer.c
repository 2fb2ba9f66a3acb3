/* froggy-peer.c
 *
 * A FroggyPeer is a client connection: the JsonrpcClient, who is at the
 * other end (SO_PEERCRED), and how much we have queued for it.  A client
 * that sends requests but never reads the replies would make the daemon
 * queue without bound; past FROGGY_PEER_MAX_QUEUED messages not yet
 * written, the connection is closed instead.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include "froggy-error.h"
#include "froggy-peer.h"

#define FROGGY_PEER_MAX_QUEUED 4096

struct _FroggyPeer
{
  GObject        parent_instance;
  JsonrpcClient *client;
  GSocket       *socket;   /* the connection's, to cut it off */
  uid_t          uid;
  gid_t          gid;
  pid_t          pid;
  guint          queued;
  guint          initialized : 1;
  guint          closed : 1;
};

G_DEFINE_FINAL_TYPE (FroggyPeer, froggy_peer, G_TYPE_OBJECT)

static void
froggy_peer_finalize (GObject *object)
{
  FroggyPeer *self = FROGGY_PEER (object);

  g_clear_object (&self->client);
  g_clear_object (&self->socket);
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
}

FroggyPeer *
froggy_peer_new (JsonrpcClient *client,
                 GSocket       *socket,
                 uid_t          uid,
                 gid_t          gid,
                 pid_t          pid)
{
  FroggyPeer *self = g_object_new (FROGGY_TYPE_PEER, NULL);

  self->client = g_object_ref (client);
  self->socket = socket ? g_object_ref (socket) : NULL;
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
  jsonrpc_client_close (self->client, NULL, NULL);
  /* A stream with a write pending does not close (G_IO_ERROR_PENDING):
   * shut the socket down under it, so that the peer sees the end and
   * the pending write fails at once. */
  if (self->socket != NULL)
    g_socket_shutdown (self->socket, TRUE, TRUE, NULL);
}

/* Every write completion, whether it worked or not, ends one queued
 * message; the peer is held until then. */
static void
froggy_peer_written (FroggyPeer *self,
                     GError     *error)
{
  self->queued--;
  if (error != NULL &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("client %d: %s", self->pid, error->message);
}

static void
froggy_peer_reply_written (GObject      *object,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  g_autoptr(FroggyPeer) self = user_data;
  g_autoptr(GError) error = NULL;

  jsonrpc_client_reply_finish (JSONRPC_CLIENT (object), result, &error);
  froggy_peer_written (self, error);
}

static void
froggy_peer_error_written (GObject      *object,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  g_autoptr(FroggyPeer) self = user_data;
  g_autoptr(GError) error = NULL;

  jsonrpc_client_reply_error_finish (JSONRPC_CLIENT (object), result, &error);
  froggy_peer_written (self, error);
}

static void
froggy_peer_notification_written (GObject      *object,
                                  GAsyncResult *result,
                                  gpointer      user_data)
{
  g_autoptr(FroggyPeer) self = user_data;
  g_autoptr(GError) error = NULL;

  jsonrpc_client_send_notification_finish (JSONRPC_CLIENT (object), result, &error);
  froggy_peer_written (self, error);
}

static gboolean
froggy_peer_may_queue (FroggyPeer *self)
{
  if (self->closed)
    return FALSE;
  if (self->queued >= FROGGY_PEER_MAX_QUEUED)
    {
      g_message ("client %d reads no replies (%u queued): closing it",
                 self->pid, self->queued);
      froggy_peer_close (self);
      return FALSE;
    }
  self->queued++;
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
                              froggy_peer_reply_written, g_object_ref (self));
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
                                    froggy_peer_error_written, g_object_ref (self));
}

void
froggy_peer_notify (FroggyPeer *self,
                    GVariant   *params)
{
  g_autoptr(GVariant) sunk = g_variant_ref_sink (params);

  g_return_if_fail (FROGGY_IS_PEER (self));

  if (!froggy_peer_may_queue (self))
    return;
  jsonrpc_client_send_notification_async (self->client, "event", sunk, NULL,
                                          froggy_peer_notification_written,
                                          g_object_ref (self));
}
