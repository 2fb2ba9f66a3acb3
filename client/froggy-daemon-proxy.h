/* froggy-daemon-proxy.h: froggyd as the shell sees it: method calls that
 * answer, and a stream of events
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "froggy-connection.h"

G_BEGIN_DECLS

/* Errors the daemon answered: the code is the JSON-RPC error code
 * (protocol/README.md, "Errors"), the message the daemon's. */
#define FROGGY_RPC_ERROR (froggy_rpc_error_quark ())
GQuark froggy_rpc_error_quark (void);

enum
{
  FROGGY_RPC_ERROR_INVALID_PARAMS = -32602,
  FROGGY_RPC_ERROR_NO_SESSION = -32000,
  FROGGY_RPC_ERROR_NO_SUCH_THREAD = -32001,
  FROGGY_RPC_ERROR_PERMISSION = -32003,
  FROGGY_RPC_ERROR_RUNNING = -32004,
  FROGGY_RPC_ERROR_NOT_FOUND = -32007,
  FROGGY_RPC_ERROR_ALREADY_TRACED = -32009,
};

#define FROGGY_TYPE_DAEMON_PROXY (froggy_daemon_proxy_get_type ())
G_DECLARE_FINAL_TYPE (FroggyDaemonProxy, froggy_daemon_proxy, FROGGY, DAEMON_PROXY, GObject)

/* Takes over @connection and starts reading from it. */
FroggyDaemonProxy *froggy_daemon_proxy_new          (FroggyConnection   *connection);

/* Sends a request; @params (an object, or NULL for {}) is consumed. */
void               froggy_daemon_proxy_call_async   (FroggyDaemonProxy  *self,
                                                     const char         *method,
                                                     JsonObject         *params,
                                                     GCancellable       *cancellable,
                                                     GAsyncReadyCallback callback,
                                                     gpointer            user_data);
/* The result (any JSON value, null included), or NULL and the error. */
JsonNode          *froggy_daemon_proxy_call_finish  (FroggyDaemonProxy  *self,
                                                     GAsyncResult       *result,
                                                     GError            **error);

/* The same, waiting for the answer in the thread-default main context:
 * events that come meanwhile are emitted as they come.  For the shell,
 * whose commands run one at a time, as gdb's do. */
JsonNode          *froggy_daemon_proxy_call         (FroggyDaemonProxy  *self,
                                                     const char         *method,
                                                     JsonObject         *params,
                                                     GError            **error);

gboolean           froggy_daemon_proxy_is_closed    (FroggyDaemonProxy  *self);

G_END_DECLS
