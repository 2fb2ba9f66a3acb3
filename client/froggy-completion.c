/* froggy-completion.c: TAB completion at the prompt
 *
 * Command names (after nothing or help), info's subcommands, $registers,
 * and otherwise whatever the daemon's symbol.complete offers: function
 * and variable names, and source files as "FILE:".  readline calls it
 * (froggy-terminal.c installs it).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <stdio.h>
#include <readline/readline.h>
#include <stdlib.h>
#include <string.h>

#include "froggy-shell-private.h"

static char *
complete_from_list (const char *text,
                    int         state)
{
  static guint index;
  FroggyShell *self = froggy_shell_reading ();

  if (state == 0)
    index = 0;
  while (self->completions != NULL && self->completions[index] != NULL)
    {
      const char *candidate = self->completions[index++];

      if (g_str_has_prefix (candidate, text))
        return strdup (candidate);
    }
  return NULL;
}

static void
complete_from_daemon (FroggyShell *self,
                      const char  *text)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *params, *answer;
  JsonArray *names, *files;
  gboolean was_at_prompt = self->at_prompt;

  if (self->session == 0)
    return;
  params = session_params (self);
  json_object_set_string_member (params, "prefix", text);
  json_object_set_int_member (params, "limit", 500);
  /* Whatever comes meanwhile is printed plainly, not around the prompt
   * readline is busy with. */
  self->at_prompt = FALSE;
  result = froggy_daemon_proxy_call (self->daemon, "symbol.complete", params, &error);
  self->at_prompt = was_at_prompt;
  if (result == NULL)
    return;
  answer = json_node_get_object (result);
  names = json_object_get_array_member (answer, "names");
  files = json_object_get_array_member (answer, "files");
  for (guint i = 0; names != NULL && i < json_array_get_length (names); i++)
    g_strv_builder_add (builder, json_array_get_string_element (names, i));
  for (guint i = 0; files != NULL && i < json_array_get_length (files); i++)
    {
      g_autofree char *location = g_strconcat (json_array_get_string_element (files, i), ":", NULL);

      g_strv_builder_add (builder, location);
    }
  g_clear_pointer (&self->completions, g_strfreev);
  self->completions = g_strv_builder_end (builder);
}

char **
complete_line (const char *text,
               int         start,
               int         end)
{
  FroggyShell *self = froggy_shell_reading ();
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autofree char *before = g_strndup (rl_line_buffer, start);
  g_autofree char *word = NULL;
  /* "*main", "&watched": the symbol after the sign */
  const char *prefix = text[0] == '*' || text[0] == '&' ? text + 1 : text;
  gboolean asks_daemon = FALSE;
  const char *args;
  char **matches;

  rl_attempted_completion_over = 1;
  g_strchug (before);
  word = split_command (before, &args);
  if (word[0] == '\0' || g_str_equal (word, "help") || g_str_equal (word, "h"))
    list_command_names (builder);
  else if (text[0] == '$')
    {
      for (guint i = 0; general_registers[i] != NULL; i++)
        {
          g_autofree char *name = g_strconcat ("$", general_registers[i], NULL);

          g_strv_builder_add (builder, name);
        }
      g_strv_builder_add_many (builder, "$pc", "$sp", "$fp", NULL);
    }
  else if ((g_str_equal (word, "info") || g_str_equal (word, "i")) && args[0] == '\0')
    list_info_command_names (builder);
  else
    asks_daemon = TRUE;

  if (asks_daemon)
    complete_from_daemon (self, prefix);
  else
    {
      g_clear_pointer (&self->completions, g_strfreev);
      self->completions = g_strv_builder_end (builder);
    }
  matches = rl_completion_matches (prefix, complete_from_list);
  /* "debuggee.c:" waits for its line number. */
  rl_completion_suppress_append = matches != NULL && matches[1] == NULL && g_str_has_suffix (matches[0], ":");
  return matches;
}
