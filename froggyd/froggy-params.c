/* froggy-params.c
 *
 * jsonrpc-glib hands a request's params over as the GVariant that
 * json-glib makes of the JSON: an object is a{sv}, a number x (or d), a
 * string s, an array av.  These helpers read it with the protocol's rules.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <errno.h>
#include <string.h>
#include <stdlib.h>

#include "froggy-error.h"
#include "froggy-params.h"

static GVariant *
unboxed (GVariant *value)
{
  if (value != NULL && g_variant_is_of_type (value, G_VARIANT_TYPE_VARIANT))
    return g_variant_get_variant (value);
  return value != NULL ? g_variant_ref (value) : NULL;
}

GVariant *
froggy_params_lookup (GVariant   *params,
                      const char *name)
{
  g_autoptr(GVariant) value = NULL;

  if (params == NULL || !g_variant_is_of_type (params, G_VARIANT_TYPE_VARDICT))
    return NULL;
  value = g_variant_lookup_value (params, name, NULL);
  return unboxed (value);
}

gboolean
froggy_params_check (GVariant           *params,
                     const char * const *known,
                     GError            **error)
{
  GVariantIter iter;
  const char *name;

  if (params == NULL || g_variant_is_of_type (params, G_VARIANT_TYPE ("mv")))
    return TRUE;
  if (!g_variant_is_of_type (params, G_VARIANT_TYPE_VARDICT))
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "params must be an object");
      return FALSE;
    }

  g_variant_iter_init (&iter, params);
  while (g_variant_iter_next (&iter, "{&sv}", &name, NULL))
    {
      if (!g_strv_contains (known, name))
        {
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                       "unknown parameter \"%s\"", name);
          return FALSE;
        }
    }
  return TRUE;
}

static GVariant *
member (GVariant      *params,
        const char    *name,
        gboolean       required,
        const char    *what,
        GError       **error)
{
  GVariant *value = froggy_params_lookup (params, name);

  if (value == NULL && required)
    g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                 "missing parameter \"%s\" (%s)", name, what);
  return value;
}

static gboolean
wrong_type (const char  *name,
            const char  *what,
            GError     **error)
{
  g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
               "parameter \"%s\" must be %s", name, what);
  return FALSE;
}

/* JSON numbers with a fraction or an exponent arrive as doubles: a
 * whole one in range is an integer.  Converting one out of range is
 * undefined behaviour, so the range is checked first: [-2^63, 2^63). */
static gboolean
double_is_int64 (double number)
{
  return number >= -9223372036854775808.0 && number < 9223372036854775808.0 &&
         number == (double) (gint64) number;
}

gboolean
froggy_params_int (GVariant    *params,
                   const char  *name,
                   gboolean     required,
                   gint64      *value,
                   GError     **error)
{
  g_autoptr(GVariant) v = member (params, name, required, "a number", error);

  if (v == NULL)
    return !required;
  if (g_variant_is_of_type (v, G_VARIANT_TYPE_INT64))
    *value = g_variant_get_int64 (v);
  else if (g_variant_is_of_type (v, G_VARIANT_TYPE_INT32))
    *value = g_variant_get_int32 (v);
  else if (g_variant_is_of_type (v, G_VARIANT_TYPE_UINT32))
    *value = g_variant_get_uint32 (v);
  else if (g_variant_is_of_type (v, G_VARIANT_TYPE_DOUBLE) &&
           double_is_int64 (g_variant_get_double (v)))
    *value = (gint64) g_variant_get_double (v);
  else
    return wrong_type (name, "an integer", error);
  return TRUE;
}

gboolean
froggy_params_bool (GVariant    *params,
                    const char  *name,
                    gboolean     required,
                    gboolean    *value,
                    GError     **error)
{
  g_autoptr(GVariant) v = member (params, name, required, "a boolean", error);

  if (v == NULL)
    return !required;
  if (!g_variant_is_of_type (v, G_VARIANT_TYPE_BOOLEAN))
    return wrong_type (name, "a boolean", error);
  *value = g_variant_get_boolean (v);
  return TRUE;
}

/* The string stays valid as long as @params: lookups of a string member of
 * an a{sv} point into the parent's serialised data. */
gboolean
froggy_params_string (GVariant    *params,
                      const char  *name,
                      gboolean     required,
                      const char **value,
                      GError     **error)
{
  g_autoptr(GVariant) v = member (params, name, required, "a string", error);

  if (v == NULL)
    return !required;
  if (!g_variant_is_of_type (v, G_VARIANT_TYPE_STRING))
    return wrong_type (name, "a string", error);
  *value = g_variant_get_string (v, NULL);
  return TRUE;
}

gboolean
froggy_parse_word (const char *text,
                   guint64    *value)
{
  const char *start = text;
  char *end = NULL;

  if (text == NULL || *text == '\0' || *text == '-' || *text == ' ')
    return FALSE;
  /* 0x hex, or decimal: never octal, "010" is ten. */
  errno = 0;
  if (g_ascii_strncasecmp (text, "0x", 2) == 0)
    text += 2;
  if (!g_ascii_isxdigit (*text))
    return FALSE;
  *value = g_ascii_strtoull (text, &end, text != start ? 16 : 10);
  return errno == 0 && end != NULL && *end == '\0';
}

char *
froggy_format_word (guint64 value)
{
  return g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", value);
}

gboolean
froggy_params_address (GVariant    *params,
                       const char  *name,
                       gboolean     required,
                       guint64     *value,
                       GError     **error)
{
  const char *text = NULL;

  if (!froggy_params_string (params, name, required, &text, error))
    return FALSE;
  if (text == NULL)
    return TRUE;
  /* Hex with its 0x, always: "4198400" is refused, not read as decimal. */
  if (g_ascii_strncasecmp (text, "0x", 2) != 0 || text[2] == '\0' ||
      strspn (text + 2, "0123456789abcdefABCDEF") != strlen (text + 2) ||
      !froggy_parse_word (text, value))
    return wrong_type (name, "a hex string like \"0x401136\"", error);
  return TRUE;
}

gboolean
froggy_params_strv (GVariant    *params,
                    const char  *name,
                    gboolean     required,
                    char      ***value,
                    GError     **error)
{
  g_autoptr(GVariant) v = member (params, name, required, "an array of strings", error);
  g_autoptr(GPtrArray) strings = NULL;
  GVariantIter iter;
  GVariant *item;

  if (v == NULL)
    return !required;
  if (g_variant_is_of_type (v, G_VARIANT_TYPE_STRING_ARRAY))
    {
      *value = g_variant_dup_strv (v, NULL);
      return TRUE;
    }
  if (!g_variant_is_of_type (v, G_VARIANT_TYPE ("av")))
    return wrong_type (name, "an array of strings", error);

  strings = g_ptr_array_new_with_free_func (g_free);
  g_variant_iter_init (&iter, v);
  while ((item = g_variant_iter_next_value (&iter)))
    {
      g_autoptr(GVariant) boxed = item;
      g_autoptr(GVariant) inner = unboxed (boxed);

      if (!g_variant_is_of_type (inner, G_VARIANT_TYPE_STRING))
        return wrong_type (name, "an array of strings", error);
      g_ptr_array_add (strings, g_variant_dup_string (inner, NULL));
    }
  g_ptr_array_add (strings, NULL);
  *value = (char **) g_ptr_array_free (g_steal_pointer (&strings), FALSE);
  return TRUE;
}
