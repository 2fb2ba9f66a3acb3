/* froggy-message-guard.h: what a client may send, checked before parsing
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The deepest nesting of arrays and objects a request may have. */
#define FROGGY_MESSAGE_MAX_DEPTH   64
/* The largest body, as jsonrpc-glib's own limit. */
#define FROGGY_MESSAGE_MAX_SIZE    (16 * 1024 * 1024)
/* The most header bytes before a body. */
#define FROGGY_MESSAGE_MAX_HEADERS 8192
/* The most array elements and object members a message may hold in all
 * before it is refused unparsed (see froggy-message-guard.c). */
#define FROGGY_MESSAGE_MAX_ITEMS   1024
/* The method a request without a (string) method is turned into; the
 * daemon answers it with -32600, invalid request. */
#define FROGGY_MESSAGE_INVALID_REQUEST "rpc.invalid-request"

#define FROGGY_TYPE_MESSAGE_GUARD (froggy_message_guard_get_type ())
G_DECLARE_FINAL_TYPE (FroggyMessageGuard, froggy_message_guard, FROGGY, MESSAGE_GUARD,
                      GFilterInputStream)

GInputStream *froggy_message_guard_new (GInputStream *base_stream);

G_END_DECLS
