/* froggy-daemon-proxy.c: method calls and events over a FroggyConnection
 *
 * Requests get increasing numeric ids; each waits, as a GTask, for the
 * response with its id.  Notifications ("method": "event") are emitted as
 * ::event with their params.  When the connection ends, every call still
 * waiting fails with G_IO_ERROR_CLOSED and ::closed is emitted once.
 *
 * Not jsonrpc-glib's JsonrpcClient, which the daemon's server side uses:
 * Debian 12's jsonrpc-glib (3.42) loses the code of an error answer.  It
 * looks "code" up as a plain int64 where its own JSON parser left a
 * boxed one, and fails the call with G_IO_ERROR_FAILED and the printed
 * error object; the shell words its errors by their codes.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include "froggy-daemon-proxy.h"

struct _FroggyDaemonProxy
{
  GObject           parent_instance;
  FroggyConnection *connection;
  GHashTable       *pending;      /* request id -> GTask */
  gint64            next_id;
  gboolean          closed;
};

G_DEFINE_FINAL_TYPE (FroggyDaemonProxy, froggy_daemon_proxy, G_TYPE_OBJECT)
G_DEFINE_QUARK (froggy-rpc-error-quark, froggy_rpc_error)

enum { EVENT, CLOSED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
fail_pending (FroggyDaemonProxy *self,
              const GError      *error)
{
  g_autoptr(GHashTable) pending = g_steal_pointer (&self->pending);
  GHashTableIter iter;
  gpointer task;

  self->pending = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_object_unref);
  g_hash_table_iter_init (&iter, pending);
  while (g_hash_table_iter_next (&iter, NULL, &task))
    g_task_return_error (task, g_error_copy (error));
}

static void
froggy_daemon_proxy_dispose (GObject *object)
{
  FroggyDaemonProxy *self = FROGGY_DAEMON_PROXY (object);

  if (self->connection != NULL)
    g_signal_handlers_disconnect_by_data (self->connection, self);
  g_clear_object (&self->connection);
  G_OBJECT_CLASS (froggy_daemon_proxy_parent_class)->dispose (object);
}

static void
froggy_daemon_proxy_finalize (GObject *object)
{
  FroggyDaemonProxy *self = FROGGY_DAEMON_PROXY (object);

  g_clear_pointer (&self->pending, g_hash_table_unref);
  G_OBJECT_CLASS (froggy_daemon_proxy_parent_class)->finalize (object);
}

static void
froggy_daemon_proxy_class_init (FroggyDaemonProxyClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = froggy_daemon_proxy_dispose;
  object_class->finalize = froggy_daemon_proxy_finalize;

  /**
   * FroggyDaemonProxy::event:
   * @params: the notification's params, a JSON object
   */
  signals[EVENT] = g_signal_new ("event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                 0, NULL, NULL, NULL, G_TYPE_NONE, 1, JSON_TYPE_NODE);
  /**
   * FroggyDaemonProxy::closed:
   * @error: (nullable): why the connection ended
   */
  signals[CLOSED] = g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
froggy_daemon_proxy_init (FroggyDaemonProxy *self)
{
  self->pending = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_object_unref);
  self->next_id = 1;
}

static void
take_response (FroggyDaemonProxy *self,
               JsonObject        *message)
{
  JsonNode *id = json_object_get_member (message, "id");
  gint64 key;
  GTask *task;

  if (id == NULL || json_node_get_value_type (id) != G_TYPE_INT64)
    return;
  key = json_node_get_int (id);
  task = g_hash_table_lookup (self->pending, &key);
  if (task == NULL)
    return;
  g_object_ref (task);
  g_hash_table_remove (self->pending, &key);

  if (json_object_has_member (message, "error"))
    {
      JsonObject *error = json_object_get_object_member (message, "error");
      gint64 code = error ? json_object_get_int_member_with_default (error, "code", -32603) : -32603;
      const char *text = error ? json_object_get_string_member_with_default (error, "message", NULL) : NULL;

      g_task_return_new_error (task, FROGGY_RPC_ERROR, code, "%s", text ? text : "unknown error");
    }
  else
    {
      JsonNode *result = json_object_get_member (message, "result");

      g_task_return_pointer (task, result ? json_node_copy (result) : json_node_new (JSON_NODE_NULL),
                             (GDestroyNotify) json_node_unref);
    }
  g_object_unref (task);
}

static void
on_message (FroggyConnection  *connection,
            JsonNode          *node,
            FroggyDaemonProxy *self)
{
  JsonObject *message = json_node_get_object (node);
  const char *method = json_object_get_string_member_with_default (message, "method", NULL);

  if (method == NULL)
    take_response (self, message);
  else if (g_str_equal (method, "event") && json_object_has_member (message, "params"))
    g_signal_emit (self, signals[EVENT], 0, json_object_get_member (message, "params"));
}

static void
on_closed (FroggyConnection  *connection,
           GError            *error,
           FroggyDaemonProxy *self)
{
  g_autoptr(GError) closed_error = g_error_new (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                                "the daemon closed the connection%s%s",
                                                error ? ": " : "", error ? error->message : "");

  self->closed = TRUE;
  fail_pending (self, closed_error);
  g_signal_emit (self, signals[CLOSED], 0, error);
}

FroggyDaemonProxy *
froggy_daemon_proxy_new (FroggyConnection *connection)
{
  FroggyDaemonProxy *self;

  g_return_val_if_fail (FROGGY_IS_CONNECTION (connection), NULL);

  self = g_object_new (FROGGY_TYPE_DAEMON_PROXY, NULL);
  self->connection = g_object_ref (connection);
  g_signal_connect (connection, "message", G_CALLBACK (on_message), self);
  g_signal_connect (connection, "closed", G_CALLBACK (on_closed), self);
  froggy_connection_start (connection);
  return self;
}

gboolean
froggy_daemon_proxy_is_closed (FroggyDaemonProxy *self)
{
  g_return_val_if_fail (FROGGY_IS_DAEMON_PROXY (self), TRUE);

  return self->closed;
}

void
froggy_daemon_proxy_call_async (FroggyDaemonProxy  *self,
                                const char         *method,
                                JsonObject         *params,
                                GCancellable       *cancellable,
                                GAsyncReadyCallback callback,
                                gpointer            user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonObject) request = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(GError) error = NULL;
  gint64 id;

  g_return_if_fail (FROGGY_IS_DAEMON_PROXY (self));
  g_return_if_fail (method != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, froggy_daemon_proxy_call_async);
  if (params == NULL)
    params = json_object_new ();
  if (self->closed)
    {
      json_object_unref (params);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CLOSED, "the daemon closed the connection");
      return;
    }

  id = self->next_id++;
  json_object_set_string_member (request, "jsonrpc", "2.0");
  json_object_set_int_member (request, "id", id);
  json_object_set_string_member (request, "method", method);
  json_object_set_object_member (request, "params", params);
  json_node_set_object (node, request);
  if (!froggy_connection_send (self->connection, node, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_hash_table_insert (self->pending, g_memdup2 (&id, sizeof id), g_steal_pointer (&task));
}

JsonNode *
froggy_daemon_proxy_call_finish (FroggyDaemonProxy  *self,
                                 GAsyncResult       *result,
                                 GError            **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
call_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  GAsyncResult **slot = user_data;

  *slot = g_object_ref (result);
  g_main_context_wakeup (g_main_context_get_thread_default ());
}

JsonNode *
froggy_daemon_proxy_call (FroggyDaemonProxy  *self,
                          const char         *method,
                          JsonObject         *params,
                          GError            **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  g_return_val_if_fail (FROGGY_IS_DAEMON_PROXY (self), NULL);

  froggy_daemon_proxy_call_async (self, method, params, NULL, call_done, &result);
  while (result == NULL)
    g_main_context_iteration (g_main_context_get_thread_default (), TRUE);
  return froggy_daemon_proxy_call_finish (self, result, error);
}
