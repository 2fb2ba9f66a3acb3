/* froggy-shell-eval.c: the values a command takes
 *
 * froggy has no C expression evaluator: a value is a number, a
 * $register (gdb's names, the 32-bit halves too), a symbol's address,
 * added or subtracted; an lvalue is a variable or *[(TYPE *)] ADDRESS;
 * a signal is a name or a number.  Used by every command family.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <signal.h>
#include <string.h>

#include "froggy-shell-private.h"

/* gdb's names for the stack and frame registers, and the 32-bit halves. */
const char *
register_name (const char *name,
               guint64    *mask)
{
  static const char * const aliases[][2] = {
    { "pc", "rip" }, { "sp", "rsp" }, { "fp", "rbp" }, { "eip", "rip" },
    { "eax", "rax" }, { "ebx", "rbx" }, { "ecx", "rcx" }, { "edx", "rdx" },
    { "esi", "rsi" }, { "edi", "rdi" }, { "ebp", "rbp" }, { "esp", "rsp" },
  };

  *mask = G_MAXUINT64;
  for (guint i = 0; i < G_N_ELEMENTS (aliases); i++)
    if (g_str_equal (name, aliases[i][0]))
      {
        if (name[0] == 'e')
          *mask = G_MAXUINT32;
        return aliases[i][1];
      }
  return name;
}

/* $NAME: a register of the selected thread (the pc of the selected frame
 * for $pc). */
gboolean
eval_register (FroggyShell *self,
               const char  *name,
               guint64     *value)
{
  g_autoptr(JsonObject) registers = NULL;
  guint64 mask;
  const char *full = register_name (name, &mask);

  if (!need_stopped (self))
    return FALSE;
  if (g_str_equal (full, "rip") && self->selected_frame > 0 && self->frames != NULL)
    {
      JsonObject *frame = json_array_get_object_element (self->frames, self->selected_frame);

      *value = member_word (frame, "pc");
      return TRUE;
    }
  if ((registers = read_registers (self, NULL)) == NULL)
    return FALSE;
  if (member_string (registers, full) == NULL)
    {
      g_clear_pointer (&registers, json_object_unref);
      if ((registers = read_registers (self, "fp")) == NULL)
        return FALSE;
      if (member_string (registers, full) == NULL)
        FAIL (self, "No register named \"%s\".", name);
    }
  *value = member_word (registers, full) & mask;
  return TRUE;
}

/* A symbol's address, and its size when the daemon knows it. */
gboolean
lookup_symbol (FroggyShell *self,
               const char  *name,
               guint64     *address,
               gint64      *size)
{
  JsonObject *params = session_params (self);
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(GError) error = NULL;

  json_object_set_string_member (params, "name", name);
  result = froggy_daemon_proxy_call (self->daemon, "symbol.lookup", params, &error);
  if (result == NULL)
    {
      if (g_error_matches (error, FROGGY_RPC_ERROR, FROGGY_RPC_ERROR_NOT_FOUND))
        FAIL (self, "No symbol \"%s\" in the program.", name);
      say_error (self, error);
      return FALSE;
    }
  *address = member_word (json_node_get_object (result), "address");
  if (size != NULL)
    *size = member_int (json_node_get_object (result), "size", 0);
  return TRUE;
}

gboolean
is_identifier (const char *text)
{
  if (text[0] == '\0' || !(g_ascii_isalpha (text[0]) || text[0] == '_'))
    return FALSE;
  for (const char *c = text; *c; c++)
    if (!g_ascii_isalnum (*c) && *c != '_')
      return FALSE;
  return TRUE;
}

/* One term: a number, $register, &symbol or symbol (its address). */
static gboolean
eval_term (FroggyShell *self,
           const char  *term,
           guint64     *value)
{
  char *end = NULL;

  if (term[0] == '\0')
    FAIL (self, "A value is missing.");
  if (term[0] == '$')
    return eval_register (self, term + 1, value);
  if (g_ascii_isdigit (term[0]))
    {
      *value = g_ascii_strtoull (term, &end, 0);
      if (*end != '\0')
        FAIL (self, "Invalid number \"%s\".", term);
      return TRUE;
    }
  if (term[0] == '&')
    term++;
  if (!is_identifier (term))
    FAIL (self, "Cannot evaluate \"%s\": froggy takes numbers, $registers and symbols, added or subtracted.", term);
  if (!need_session (self))
    return FALSE;
  return lookup_symbol (self, term, value, NULL);
}

/* TERM [+|- TERM]...; a leading '-' negates. */
gboolean
eval (FroggyShell *self,
      const char  *text,
      guint64     *value)
{
  g_autofree char *copy = g_strstrip (g_strdup (text));
  gboolean negate = FALSE;
  char *term = copy;
  guint64 total = 0;

  if (*term == '-')
    {
      negate = TRUE;
      term++;
    }
  for (;;)
    {
      char *op = term + strcspn (term, "+-");
      char next = *op;
      guint64 part;

      *op = '\0';
      if (!eval_term (self, g_strstrip (term), &part))
        return FALSE;
      total = negate ? total - part : total + part;
      if (next == '\0')
        break;
      negate = next == '-';
      term = op + 1;
    }
  *value = total;
  return TRUE;
}

/* "(long *) EXPR" -> 8, and EXPR after it; no cast -> @fallback. */
static guint
parse_pointer_cast (const char  *text,
                    const char **rest,
                    guint        fallback)
{
  static const struct { const char *type; guint size; } types[] = {
    { "char", 1 }, { "short", 2 }, { "int", 4 }, { "long", 8 },
    { "uint8_t", 1 }, { "uint16_t", 2 }, { "uint32_t", 4 }, { "uint64_t", 8 },
  };

  *rest = text;
  if (text[0] != '(')
    return fallback;
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autofree char *cast = g_strdup_printf ("(%s *)", types[i].type);
      g_autofree char *tight = g_strdup_printf ("(%s*)", types[i].type);

      if (g_str_has_prefix (text, cast))
        *rest = text + strlen (cast);
      else if (g_str_has_prefix (text, tight))
        *rest = text + strlen (tight);
      else
        continue;
      return types[i].size;
    }
  return 0;
}

/* A watch expression or assignment target: a variable, or *ADDR with an
 * optional pointer cast. */
gboolean
eval_lvalue (FroggyShell *self,
             const char  *text,
             guint64     *address,
             guint       *length)
{
  gint64 size = 0;

  if (text[0] == '*')
    {
      const char *rest;

      *length = parse_pointer_cast (g_strchug ((char *) text + 1), &rest, 4);
      if (*length == 0)
        FAIL (self, "Unknown type in \"%s\": froggy knows char, short, int and long pointers.", text);
      return eval (self, rest, address);
    }
  if (!is_identifier (text))
    FAIL (self, "Cannot watch or assign \"%s\": give a variable or *ADDRESS.", text);
  if (!lookup_symbol (self, text, address, &size))
    return FALSE;
  if (size != 1 && size != 2 && size != 4 && size != 8)
    FAIL (self, "\"%s\" is %" G_GINT64_FORMAT " bytes: give *(long *) ADDRESS to pick a part of it.", text, size);
  *length = size;
  return TRUE;
}

int
parse_signal (const char *text)
{
  const char *name = g_str_has_prefix (text, "SIG") ? text + 3 : text;
  char *end = NULL;
  gint64 number;

  if (g_ascii_isdigit (text[0]))
    {
      number = g_ascii_strtoll (text, &end, 10);
      return *end == '\0' && number >= 0 && number < NSIG ? number : -1;
    }
  for (int signal = 1; signal < NSIG; signal++)
    if (sigabbrev_np (signal) != NULL && g_ascii_strcasecmp (sigabbrev_np (signal), name) == 0)
      return signal;
  return -1;
}
