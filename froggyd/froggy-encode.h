/* froggy-encode.h: the protocol's form of the engine's values
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>
#include <signal.h>

#include "froggy-breakpoint.h"
#include "froggy-notice.h"
#include "froggy-symbolizer.h"

G_BEGIN_DECLS

/* "pc", and the "function", "file" and "line" of @symbol when known
 * (@symbol may be NULL), added to a vardict being built. */
void      froggy_encode_location   (GVariantBuilder        *builder,
                                    guint64                 pc,
                                    const FroggySymbol     *symbol);
/* @name: @value as the protocol writes a machine word ("0x..."). */
void      froggy_encode_add_word   (GVariantBuilder        *builder,
                                    const char             *name,
                                    guint64                 value);
/* symbol.lookup's result; @with_offset: the offset into its function. */
GVariant *froggy_encode_symbol     (const FroggySymbol     *symbol,
                                    gboolean                with_offset);
/* backtrace's result: FroggySymbol frames, innermost first. */
GVariant *froggy_encode_frames     (GPtrArray              *frames);
/* source.lines' result: FroggySymbol with address, file and line. */
GVariant *froggy_encode_lines      (GPtrArray              *lines);
GVariant *froggy_encode_breakpoint (const FroggyBreakpoint *breakpoint);
/* A notification's params. */
GVariant *froggy_encode_notice     (const FroggyNotice     *notice);
/* An array of thread ids (pid_t) as "ax". */
GVariant *froggy_encode_tids       (GArray                 *tids);
/* Bytes as pairs of lowercase hex digits. */
char     *froggy_encode_hex        (GBytes                 *bytes);
/* Pairs of hex digits as bytes, or NULL (FROGGY_ERROR_INVALID_PARAMS). */
GBytes   *froggy_decode_hex        (const char             *hex,
                                    gsize                   max_length,
                                    GError                **error);
/* siginfo.read's result: the members @info's layout has, and its bytes. */
GVariant *froggy_encode_siginfo    (const siginfo_t        *info);

G_END_DECLS
