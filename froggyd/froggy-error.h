/* froggy-error.h: the protocol's error codes, as a GError domain
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define FROGGY_PROTOCOL_VERSION 1

/* The JSON-RPC error codes of protocol/README.md.  A FROGGY_ERROR GError's
 * code is sent as is, so the values are the wire values. */
typedef enum
{
  FROGGY_ERROR_INVALID_REQUEST   = -32600,
  FROGGY_ERROR_UNKNOWN_METHOD    = -32601,
  FROGGY_ERROR_INVALID_PARAMS    = -32602,
  FROGGY_ERROR_INTERNAL          = -32603,
  FROGGY_ERROR_NO_SESSION        = -32000,
  FROGGY_ERROR_NO_THREAD         = -32001,
  FROGGY_ERROR_NOT_INITIALIZED   = -32002,
  FROGGY_ERROR_PERMISSION        = -32003,
  FROGGY_ERROR_RUNNING           = -32004,
  FROGGY_ERROR_NOT_CONTROLLER    = -32005,
  FROGGY_ERROR_NO_BREAKPOINT     = -32006,
  FROGGY_ERROR_NOT_FOUND         = -32007,
  FROGGY_ERROR_KERNEL            = -32008,
  FROGGY_ERROR_BUSY              = -32009,
  FROGGY_ERROR_VERSION           = -32010,
  FROGGY_ERROR_NO_ROOM           = -32011,
} FroggyError;

#define FROGGY_ERROR (froggy_error_quark ())
GQuark froggy_error_quark (void);

/* An errno from the device, as the error a client gets. */
GError *froggy_error_from_errno (int errsv, const char *what);

G_END_DECLS
