/* froggy-shell-base.c: what every file of the shell stands on
 *
 * Printing a message (around the prompt readline shows), an error as
 * one line; the daemon's JSON answers read and its methods called; a
 * command's words and the state it needs; the selected thread's
 * memory, registers and backtrace.  The ground floor: it calls no
 * other file of the shell.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <stdio.h>
#include <readline/readline.h>
#include <string.h>

#include "froggy-shell-private.h"

/* readline's callbacks carry no user data: the one shell that reads the
 * terminal is kept here, set by froggy_terminal_run() only. */
static FroggyShell *reading_shell;

FroggyShell *
froggy_shell_reading (void)
{
  return reading_shell;
}

void
froggy_shell_set_reading (FroggyShell *self)
{
  reading_shell = self;
}

/* ---- Output ---------------------------------------------------------- */

/* Prints a whole message.  When readline shows the prompt (a stop that
 * comes while the program runs in the background), the prompt and the
 * half-typed line are taken away first and put back after. */
void
say (FroggyShell *self,
     const char  *format,
     ...)
{
  g_autofree char *text = NULL;
  g_autofree char *saved_line = NULL;
  int saved_point = 0;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);

  if (self->at_prompt)
    {
      saved_point = rl_point;
      saved_line = rl_copy_text (0, rl_end);
      rl_set_prompt ("");
      rl_replace_line ("", 0);
      rl_redisplay ();
    }
  fputs (text, stdout);
  fflush (stdout);
  if (self->at_prompt)
    {
      rl_set_prompt (PROMPT);
      rl_replace_line (saved_line, 0);
      rl_point = saved_point;
      rl_redisplay ();
    }
}

/* An error is one line, and the shell goes on. */
void
say_error (FroggyShell  *self,
           const GError *error)
{
  g_autofree char *text = g_strdup (error->message);

  self->status = 1;
  g_strdelimit (text, "\n", ' ');
  say (self, "%s\n", text);
}

/* ---- JSON and the daemon's methods ---------------------------------- */

gint64
member_int (JsonObject *object,
            const char *name,
            gint64      fallback)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;

  if (node == NULL || json_node_get_value_type (node) != G_TYPE_INT64)
    return fallback;
  return json_node_get_int (node);
}

const char *
member_string (JsonObject *object,
               const char *name)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;

  if (node == NULL || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

gboolean
member_bool (JsonObject *object,
             const char *name)
{
  JsonNode *node = object ? json_object_get_member (object, name) : NULL;

  return node != NULL && json_node_get_value_type (node) == G_TYPE_BOOLEAN &&
         json_node_get_boolean (node);
}

/* "0x..." as the daemon writes machine words. */
guint64
member_word (JsonObject *object,
             const char *name)
{
  const char *text = member_string (object, name);

  return text != NULL ? g_ascii_strtoull (text, NULL, 16) : 0;
}

void
set_word (JsonObject *object,
          const char *name,
          guint64     value)
{
  g_autofree char *text = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", value);

  json_object_set_string_member (object, name, text);
}

JsonObject *
session_params (FroggyShell *self)
{
  JsonObject *params = json_object_new ();

  json_object_set_int_member (params, "session", self->session);
  return params;
}

JsonObject *
thread_params (FroggyShell *self)
{
  JsonObject *params = session_params (self);

  json_object_set_int_member (params, "thread", self->thread);
  return params;
}

/* Calls the daemon; on an error, prints it (prefixed with @what when
 * given) and returns NULL. */
JsonNode *
call (FroggyShell *self,
      const char  *method,
      JsonObject  *params,
      const char  *what)
{
  g_autoptr(GError) error = NULL;
  JsonNode *result = froggy_daemon_proxy_call (self->daemon, method, params, &error);

  if (result == NULL)
    {
      if (what != NULL)
        g_prefix_error (&error, "%s: ", what);
      say_error (self, error);
    }
  return result;
}

gboolean
call_ok (FroggyShell *self,
         const char  *method,
         JsonObject  *params,
         const char  *what)
{
  g_autoptr(JsonNode) result = call (self, method, params, what);

  return result != NULL;
}

/* ---- Command arguments ----------------------------------------------- */

/* A command's arguments are read, never changed: "info frame" hands
 * "frame" a string literal. */
gboolean
is_blank (const char *args)
{
  while (g_ascii_isspace (*args))
    args++;
  return *args == '\0';
}

/* The words of @args, split on blanks; a blank @args gives { "" }. */
GStrv
split_words (const char *args)
{
  g_autofree char *copy = g_strstrip (g_strdup (args));

  return g_strsplit_set (copy, " \t", -1);
}

/* Splits "x/4xg $sp" into "x" and "/4xg $sp". */
char *
split_command (const char  *line,
               const char **args)
{
  const char *end = line;

  while (*end && (g_ascii_isalnum (*end) || *end == '-' || *end == '_'))
    end++;
  *args = end;
  while (**args == ' ' || **args == '\t')
    (*args)++;
  return g_strndup (line, end - line);
}

/* ---- What a command needs -------------------------------------------- */

gboolean
need_session (FroggyShell *self)
{
  if (self->session == 0)
    FAIL (self, "The program is not being run.");
  return TRUE;
}

gboolean
need_stopped (FroggyShell *self)
{
  if (!need_session (self))
    return FALSE;
  if (self->running)
    FAIL (self, "The program is running: interrupt it first (Ctrl-C or \"interrupt\").");
  return TRUE;
}

/* ---- Memory, registers and the stack --------------------------------- */

GBytes *
read_memory (FroggyShell *self,
             guint64      address,
             gsize        length)
{
  JsonObject *params = thread_params (self);
  g_autoptr(JsonNode) result = NULL;
  const char *hex;
  GByteArray *bytes;

  set_word (params, "address", address);
  json_object_set_int_member (params, "length", length);
  if ((result = call (self, "memory.read", params, "reading memory")) == NULL)
    return NULL;
  hex = member_string (json_node_get_object (result), "data");
  bytes = g_byte_array_new ();
  for (gsize i = 0; hex != NULL && hex[i] && hex[i + 1]; i += 2)
    {
      guint8 byte = g_ascii_xdigit_value (hex[i]) << 4 | g_ascii_xdigit_value (hex[i + 1]);

      g_byte_array_append (bytes, &byte, 1);
    }
  return g_byte_array_free_to_bytes (bytes);
}

/* A little-endian integer of @length (at most 8) bytes at @address. */
gboolean
read_word (FroggyShell *self,
           guint64      address,
           guint        length,
           guint64     *value)
{
  g_autoptr(GBytes) bytes = read_memory (self, address, length);
  const guint8 *data;
  gsize size = 0;

  if (bytes == NULL)
    return FALSE;
  data = g_bytes_get_data (bytes, &size);
  if (size < length)
    FAIL (self, "Cannot access memory at address 0x%" G_GINT64_MODIFIER "x", address + size);
  *value = 0;
  for (guint i = 0; i < length; i++)
    *value |= (guint64) data[i] << (8 * i);
  return TRUE;
}

JsonObject *
read_registers (FroggyShell *self,
                const char  *regset)
{
  JsonObject *params = thread_params (self);
  g_autoptr(JsonNode) result = NULL;

  if (regset != NULL)
    json_object_set_string_member (params, "regset", regset);
  if ((result = call (self, "registers.read", params, NULL)) == NULL)
    return NULL;
  return json_object_ref (json_node_get_object (result));
}

gboolean
ensure_frames (FroggyShell *self)
{
  JsonObject *params;
  g_autoptr(JsonNode) result = NULL;

  if (self->frames != NULL)
    return TRUE;
  params = thread_params (self);
  json_object_set_int_member (params, "max_frames", 64);
  if ((result = call (self, "backtrace", params, NULL)) == NULL)
    return FALSE;
  self->frames = json_array_ref (json_node_get_array (result));
  return TRUE;
}
