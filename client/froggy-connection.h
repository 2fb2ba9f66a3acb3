/* froggy-connection.h: a connection to froggyd, framed as the protocol
 * says, carrying JSON text both ways
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define FROGGY_TYPE_CONNECTION (froggy_connection_get_type ())
G_DECLARE_FINAL_TYPE (FroggyConnection, froggy_connection, FROGGY, CONNECTION, GObject)

/* The daemon's socket when none is given: $XDG_RUNTIME_DIR/froggyd.sock. */
char             *froggy_connection_default_path (void);

/* Connects to @path; when nobody listens there and @start_daemon is
 * set, starts froggyd on it first and waits for it to listen. */
FroggyConnection *froggy_connection_open         (const char        *path,
                                                  gboolean           start_daemon,
                                                  GError           **error);

/* Sends one message (a JSON object) with its Content-Length header. */
gboolean          froggy_connection_send         (FroggyConnection  *self,
                                                  JsonNode          *message,
                                                  GError           **error);

/* Reads messages from the main loop: each one is emitted as
 * ::message (a JsonNode object); the end of the connection, or a framing
 * error, as ::closed (a GError, or NULL at a clean end). */
void              froggy_connection_start        (FroggyConnection  *self);

G_END_DECLS
