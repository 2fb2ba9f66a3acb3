/* froggy-params.h: reading a request's params, checked against the spec
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Every params object is checked against the names its method knows: an
 * unknown name is an error, so a misspelt option never passes unnoticed.
 * @known is a NULL-terminated list. */
gboolean froggy_params_check   (GVariant           *params,
                                const char * const *known,
                                GError            **error);

/* The getters fail with FROGGY_ERROR_INVALID_PARAMS when the member is of
 * the wrong type, or missing and @required.  A missing optional member
 * leaves *@value as it was: set the default first. */
gboolean froggy_params_int     (GVariant    *params,
                                const char  *name,
                                gboolean     required,
                                gint64      *value,
                                GError     **error);
gboolean froggy_params_bool    (GVariant    *params,
                                const char  *name,
                                gboolean     required,
                                gboolean    *value,
                                GError     **error);
gboolean froggy_params_string  (GVariant    *params,
                                const char  *name,
                                gboolean     required,
                                const char **value,
                                GError     **error);
/* A hex string "0x..." (or a plain decimal string): the protocol's form of
 * an address or machine word. */
gboolean froggy_params_address (GVariant    *params,
                                const char  *name,
                                gboolean     required,
                                guint64     *value,
                                GError     **error);
/* An array of strings (NULL-terminated, owned by the caller). */
gboolean froggy_params_strv    (GVariant    *params,
                                const char  *name,
                                gboolean     required,
                                char      ***value,
                                GError     **error);
/* The raw member: an object or array (floating reference not taken). */
GVariant *froggy_params_lookup (GVariant    *params,
                                const char  *name);

gboolean froggy_parse_word     (const char  *text,
                                guint64     *value);
char    *froggy_format_word    (guint64      value);

G_END_DECLS
