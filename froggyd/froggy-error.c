/* froggy-error.c
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <errno.h>

#include "froggy-error.h"

G_DEFINE_QUARK (froggy-error-quark, froggy_error)

GError *
froggy_error_from_errno (int         errsv,
                         const char *what)
{
  FroggyError code;

  switch (errsv)
    {
    case ESRCH:
      code = FROGGY_ERROR_NO_THREAD;
      break;
    case EPERM:
    case EACCES:
      code = FROGGY_ERROR_PERMISSION;
      break;
    case EBUSY:
      code = FROGGY_ERROR_BUSY;
      break;
    case ENOSPC:
      code = FROGGY_ERROR_NO_ROOM;
      break;
    default:
      code = FROGGY_ERROR_KERNEL;
      break;
    }

  /* jsonrpc-glib sends no error data: the errno goes in the message. */
  return g_error_new (FROGGY_ERROR, code, "%s: %s (errno %d)",
                      what, g_strerror (errsv), errsv);
}
