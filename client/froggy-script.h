/* froggy-script.h: `froggy rpc`, JSON-RPC lines in, every message out
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "froggy-connection.h"

G_BEGIN_DECLS

#define FROGGY_TYPE_SCRIPT (froggy_script_get_type ())
G_DECLARE_FINAL_TYPE (FroggyScript, froggy_script, FROGGY, SCRIPT, GObject)

/* Requests come from @input, one JSON object per line; every response and
 * notification goes to @output, one per line, in the order they come. */
FroggyScript *froggy_script_new  (FroggyConnection  *connection,
                                  GInputStream      *input,
                                  GOutputStream     *output);

/* Runs until the input ends and every request is answered, or the
 * connection ends.  Returns the exit status: 0 when every line was a
 * JSON object and the daemon stayed until the last answer. */
int           froggy_script_run  (FroggyScript      *self);

G_END_DECLS
