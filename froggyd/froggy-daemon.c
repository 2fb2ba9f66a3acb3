/* froggy-daemon.c
 *
 * The FroggyDaemon listens on the UNIX socket, turns each connection into
 * a FroggyPeer served by jsonrpc-glib, keeps the sessions, and dispatches
 * each call to its method (froggy-methods.c).  It checks what the method
 * table says before anything reaches a session: initialized, the params'
 * names, the session exists and the peer may act on it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <errno.h>
#include <gio/gunixsocketaddress.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "froggy-daemon.h"
#include "froggy-device.h"
#include "froggy-error.h"
#include "froggy-message-guard.h"
#include "froggy-methods.h"
#include "froggy-params.h"
#include "froggy-peer.h"
#include "froggy-session.h"
#include "froggy-syscalls.h"

struct _FroggyDaemon
{
  GObject           parent_instance;
  char             *socket_path;
  GSocketService   *service;
  JsonrpcServer    *server;
  GSocketConnection *accepting; /* set while jsonrpc-glib accepts it */
  GHashTable       *peers;      /* JsonrpcClient -> FroggyPeer */
  GHashTable       *sessions;   /* id -> FroggySession */
  guint             next_session_id;
  gboolean          stopping;
};

G_DEFINE_FINAL_TYPE (FroggyDaemon, froggy_daemon, G_TYPE_OBJECT)

enum {
  STOPPED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Session lifecycle {{{ */

static void froggy_daemon_session_ended (FroggyDaemon  *self,
                                         FroggySession *session);

/* A new session, whose first client (its controller) is @owner. */
FroggySession *
froggy_daemon_new_session (FroggyDaemon  *self,
                           FroggyPeer    *owner,
                           gboolean       follow_fork,
                           GError       **error)
{
  FroggySession *session = froggy_session_new (self->next_session_id, follow_fork, error);

  g_return_val_if_fail (FROGGY_IS_DAEMON (self), NULL);

  if (session == NULL)
    return NULL;
  self->next_session_id++;
  froggy_session_add_peer (session, owner);
  g_signal_connect_swapped (session, "ended", G_CALLBACK (froggy_daemon_session_ended), self);
  g_hash_table_insert (self->sessions, GUINT_TO_POINTER (froggy_session_get_id (session)), session);
  return session;
}

/* Every session (FroggySession), the daemon's own. */
GList *
froggy_daemon_list_sessions (FroggyDaemon *self)
{
  g_return_val_if_fail (FROGGY_IS_DAEMON (self), NULL);

  return g_hash_table_get_values (self->sessions);
}
static void
froggy_daemon_session_ended (FroggyDaemon  *self,
                             FroggySession *session)
{
  g_debug ("session %u ended", froggy_session_get_id (session));
  g_signal_handlers_disconnect_by_data (session, self);
  g_hash_table_remove (self->sessions, GUINT_TO_POINTER (froggy_session_get_id (session)));
  if (self->stopping && g_hash_table_size (self->sessions) == 0)
    g_signal_emit (self, signals[STOPPED], 0);
}

/* A peer leaves: the sessions it was alone in are detached. */
void
froggy_daemon_release_peer (FroggyDaemon *self,
                            FroggyPeer   *peer)
{
  g_autoptr(GPtrArray) alone = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  FroggySession *session;

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    if (froggy_session_has_peer (session, peer) && !froggy_session_remove_peer (session, peer))
      g_ptr_array_add (alone, g_object_ref (session));
  for (guint i = 0; i < alone->len; i++)
    froggy_session_detach (g_ptr_array_index (alone, i));
}

/* }}} */

/* Dispatch {{{ */

/* The session named by the request's "session" param: one @peer has
 * joined (and controls, with FROGGY_NEEDS_CONTROL), or any with
 * FROGGY_NEEDS_ANY_SESSION (session.join). */
static FroggySession *
request_session (FroggyDaemon       *self,
                 FroggyPeer         *peer,
                 GVariant           *params,
                 FroggyMethodNeeds   needs,
                 GError            **error)
{
  FroggySession *session;
  gint64 session_id = 0;

  if (!froggy_params_int (params, "session", TRUE, &session_id, error))
    return NULL;
  session = session_id > 0 && session_id <= G_MAXUINT32
            ? g_hash_table_lookup (self->sessions, GUINT_TO_POINTER (session_id))
            : NULL;
  if (session != NULL && (needs & FROGGY_NEEDS_ANY_SESSION))
    return session;
  if (session == NULL && (needs & FROGGY_NEEDS_ANY_SESSION))
    g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NO_SESSION,
                 "no session %" G_GINT64_FORMAT, session_id);
  else if (session == NULL || !froggy_session_has_peer (session, peer))
    g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NO_SESSION,
                 "no session %" G_GINT64_FORMAT " (joined by this client)", session_id);
  else if ((needs & FROGGY_NEEDS_CONTROL) && froggy_session_get_controller (session) != peer)
    g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NOT_CONTROLLER,
                 "this client observes session %" G_GINT64_FORMAT ": it does not control it",
                 session_id);
  else
    return session;
  return NULL;
}

/* Every call comes here: what the method table says is checked (known
 * method, initialized, the params' names, the session), then the
 * method's handler answers, now or later. */
static gboolean
froggy_daemon_handle_call (FroggyDaemon  *self,
                           JsonrpcClient *client,
                           const char    *method_name,
                           GVariant      *id,
                           GVariant      *params,
                           JsonrpcServer *server)
{
  g_autoptr(FroggyRequest) request = NULL;
  g_autoptr(GError) error = NULL;
  FroggyPeer *peer = g_hash_table_lookup (self->peers, client);
  const FroggyMethod *method = froggy_method_lookup (method_name);

  if (peer == NULL)
    return FALSE;
  request = froggy_request_new (self, peer, id, params);

  if (g_str_equal (method_name, FROGGY_MESSAGE_INVALID_REQUEST))
    {
      const char *reason = "an invalid request";

      /* What FroggyMessageGuard made of a request without a method. */
      if (params != NULL && g_variant_is_of_type (params, G_VARIANT_TYPE_VARDICT))
        g_variant_lookup (params, "reason", "&s", &reason);
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_REQUEST, "invalid request: %s", reason);
    }
  else if (method == NULL)
    g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_UNKNOWN_METHOD, "unknown method \"%s\"", method_name);
  else if (!(method->needs & FROGGY_BEFORE_INITIALIZE) && !froggy_peer_get_initialized (peer))
    g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_NOT_INITIALIZED, "call initialize first");
  else if (froggy_params_check (params, method->params, &error) &&
           (method->needs & (FROGGY_NEEDS_SESSION | FROGGY_NEEDS_CONTROL | FROGGY_NEEDS_ANY_SESSION)))
    {
      FroggySession *session = request_session (self, peer, params, method->needs, &error);

      if (session != NULL)
        request->session = g_object_ref (session);
    }

  if (error != NULL)
    froggy_request_reply_error (request, error);
  else
    method->handler (request);
  return TRUE;
}

static void
froggy_daemon_client_accepted (FroggyDaemon  *self,
                               JsonrpcClient *client,
                               JsonrpcServer *server)
{
  FroggyCredentials *credentials = NULL;
  g_autoptr(GError) error = NULL;
  GSocket *socket = self->accepting ? g_socket_connection_get_socket (self->accepting) : NULL;

  /* JsonrpcClient does not give its stream back, so the connection
   * being accepted is parked on self by froggy_daemon_incoming(). */
  if (socket != NULL)
    credentials = froggy_credentials_new_from_socket (socket, &error);
  if (credentials == NULL)
    {
      g_message ("a client without credentials (%s): it may reach nothing",
                 error ? error->message : "not a socket");
      credentials = froggy_credentials_new_unknown ();
    }

  g_debug ("client %d (uid %d) connected", froggy_credentials_get_pid (credentials),
           froggy_credentials_get_uid (credentials));
  g_hash_table_insert (self->peers, client, froggy_peer_new (client, socket, credentials));
}

static void
froggy_daemon_client_closed (FroggyDaemon  *self,
                             JsonrpcClient *client,
                             JsonrpcServer *server)
{
  g_autoptr(FroggyPeer) peer = NULL;

  if (!g_hash_table_steal_extended (self->peers, client, NULL, (gpointer *) &peer))
    return;
  g_debug ("client %d disconnected", froggy_peer_get_pid (peer));
  froggy_daemon_release_peer (self, peer);
}

static gboolean
froggy_daemon_incoming (FroggyDaemon      *self,
                        GSocketConnection *connection,
                        GObject           *source_object,
                        GSocketService    *service)
{
  GIOStream *io_stream = G_IO_STREAM (connection);
  g_autoptr(GInputStream) guarded = froggy_message_guard_new (g_io_stream_get_input_stream (io_stream));
  g_autoptr(GIOStream) stream = g_simple_io_stream_new (guarded, g_io_stream_get_output_stream (io_stream));

  /* Disposing of a connection closes it: it lives as long as its stream. */
  g_object_set_data_full (G_OBJECT (stream), "froggy-connection",
                          g_object_ref (connection), g_object_unref);
  /* "client-accepted" is emitted from inside the accept call. */
  self->accepting = connection;
  jsonrpc_server_accept_io_stream (self->server, stream);
  self->accepting = NULL;
  return TRUE;
}

/* }}} */

static void
froggy_daemon_finalize (GObject *object)
{
  FroggyDaemon *self = FROGGY_DAEMON (object);

  if (self->service != NULL)
    g_socket_service_stop (self->service);
  g_clear_object (&self->service);
  g_clear_object (&self->server);
  g_hash_table_unref (self->sessions);
  g_hash_table_unref (self->peers);
  if (self->socket_path != NULL)
    unlink (self->socket_path);
  g_free (self->socket_path);
  G_OBJECT_CLASS (froggy_daemon_parent_class)->finalize (object);
}

static void
froggy_daemon_class_init (FroggyDaemonClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = froggy_daemon_finalize;

  /**
   * FroggyDaemon::stopped:
   *
   * froggy_daemon_stop() is done: every session is detached.
   */
  signals[STOPPED] = g_signal_new ("stopped", G_TYPE_FROM_CLASS (klass),
                                   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
}

static void
froggy_daemon_init (FroggyDaemon *self)
{
  self->peers = g_hash_table_new_full (NULL, NULL, NULL, g_object_unref);
  self->sessions = g_hash_table_new_full (NULL, NULL, NULL, g_object_unref);
  self->next_session_id = 1;
  self->server = jsonrpc_server_new ();
  g_signal_connect_swapped (self->server, "handle-call", G_CALLBACK (froggy_daemon_handle_call), self);
  g_signal_connect_swapped (self->server, "client-accepted",
                            G_CALLBACK (froggy_daemon_client_accepted), self);
  g_signal_connect_swapped (self->server, "client-closed",
                            G_CALLBACK (froggy_daemon_client_closed), self);
}

FroggyDaemon *
froggy_daemon_new (void)
{
  return g_object_new (FROGGY_TYPE_DAEMON, NULL);
}

gboolean
froggy_daemon_listen (FroggyDaemon  *self,
                      const char    *socket_path,
                      gboolean       shared,
                      GError       **error)
{
  g_autoptr(GSocketAddress) address = NULL;
  g_autofree char *staging = NULL;
  mode_t old_umask;
  gboolean ok;

  g_return_val_if_fail (FROGGY_IS_DAEMON (self), FALSE);

  /* A socket left by a daemon that died: nobody answers on it. */
  if (g_file_test (socket_path, G_FILE_TEST_EXISTS))
    {
      g_autoptr(GSocketClient) probe = g_socket_client_new ();
      g_autoptr(GSocketAddress) existing = g_unix_socket_address_new (socket_path);
      g_autoptr(GSocketConnection) connection =
        g_socket_client_connect (probe, G_SOCKET_CONNECTABLE (existing), NULL, NULL);

      if (connection != NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE,
                       "a daemon already listens on %s", socket_path);
          return FALSE;
        }
      unlink (socket_path);
    }

  /* Bound and listening under another name first, then renamed: a
   * client that sees the socket can connect to it (between bind() and
   * listen() it would be refused). */
  staging = g_strdup_printf ("%s.%d", socket_path, getpid ());
  unlink (staging);
  self->service = g_socket_service_new ();
  address = g_unix_socket_address_new (staging);
  old_umask = umask (0077);
  ok = g_socket_listener_add_address (G_SOCKET_LISTENER (self->service), address,
                                      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
                                      NULL, NULL, error);
  umask (old_umask);
  if (!ok)
    return FALSE;
  /* Shared: anyone connects, and SO_PEERCRED limits what they reach. */
  if (chmod (staging, shared ? 0666 : 0600) < 0 || rename (staging, socket_path) < 0)
    {
      int errsv = errno;

      unlink (staging);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   "putting the socket in place: %s", g_strerror (errsv));
      return FALSE;
    }
  self->socket_path = g_strdup (socket_path);
  g_signal_connect_swapped (self->service, "incoming", G_CALLBACK (froggy_daemon_incoming), self);
  g_socket_service_start (self->service);
  return TRUE;
}

gboolean
froggy_daemon_listen_fd (FroggyDaemon  *self,
                         int            fd,
                         GError       **error)
{
  g_autoptr(GSocket) socket = NULL;

  g_return_val_if_fail (FROGGY_IS_DAEMON (self), FALSE);

  socket = g_socket_new_from_fd (fd, error);
  if (socket == NULL)
    return FALSE;
  self->service = g_socket_service_new ();
  if (!g_socket_listener_add_socket (G_SOCKET_LISTENER (self->service), socket, NULL, error))
    return FALSE;
  g_signal_connect_swapped (self->service, "incoming", G_CALLBACK (froggy_daemon_incoming), self);
  g_socket_service_start (self->service);
  return TRUE;
}

void
froggy_daemon_stop (FroggyDaemon *self)
{
  g_autoptr(GPtrArray) sessions = NULL;
  GHashTableIter iter;
  FroggySession *session;

  g_return_if_fail (FROGGY_IS_DAEMON (self));

  self->stopping = TRUE;
  if (self->service != NULL)
    g_socket_service_stop (self->service);
  if (g_hash_table_size (self->sessions) == 0)
    {
      g_signal_emit (self, signals[STOPPED], 0);
      return;
    }
  sessions = g_ptr_array_new_with_free_func (g_object_unref);
  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    g_ptr_array_add (sessions, g_object_ref (session));
  for (guint i = 0; i < sessions->len; i++)
    froggy_session_detach (g_ptr_array_index (sessions, i));
}
