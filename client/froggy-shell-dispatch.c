/* froggy-shell-dispatch.c: a command line to its command
 *
 * The command families register their tables (froggy-shell-private.h);
 * this file walks them, in the order help lists them, to find a command
 * by name, alias or unique prefix as gdb does, and holds the two
 * commands about the others: info and help.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include "froggy-shell-private.h"

static gboolean cmd_help (FroggyShell *self, const char *args);
static gboolean cmd_info (FroggyShell *self, const char *args);

static const Command info_command[] = {
  { "info", "i", cmd_info, "info breakpoints|registers [REG...]|all-registers|threads|frame",
    "Describe the program's state." },
  { .name = NULL }
};

static const Command help_command[] = {
  { "help", "h", cmd_help, "help [COMMAND]", "List the commands, or describe one." },
  { .name = NULL }
};

/* Every command, in the order help lists them (and completion offers
 * them): the families' tables, info and help where help always had them. */
static const Command * const command_tables[] = {
  froggy_shell_breakpoint_commands,
  froggy_shell_running_commands,
  froggy_shell_stack_commands,
  info_command,
  froggy_shell_data_commands,
  froggy_shell_session_commands,
  help_command,
};

static const InfoCommand * const info_command_tables[] = {
  froggy_shell_breakpoint_info_commands,
  froggy_shell_data_info_commands,
  froggy_shell_session_info_commands,
  froggy_shell_stack_info_commands,
};

#define FOR_EACH_COMMAND(command) \
  for (guint table_ = 0; table_ < G_N_ELEMENTS (command_tables); table_++) \
    for (const Command *command = command_tables[table_]; command->name != NULL; command++)

#define FOR_EACH_INFO_COMMAND(info) \
  for (guint table_ = 0; table_ < G_N_ELEMENTS (info_command_tables); table_++) \
    for (const InfoCommand *info = info_command_tables[table_]; info->name != NULL; info++)

static gboolean
has_alias (const char *aliases,
           const char *word)
{
  g_auto(GStrv) list = g_strsplit (aliases ? aliases : "", " ", -1);

  return g_strv_contains ((const char * const *) list, word);
}

/* By name, alias or unique prefix, as gdb finds them. */
static const Command *
find_command (FroggyShell *self,
              const char  *word)
{
  const Command *found = NULL;
  g_autoptr(GString) candidates = g_string_new (NULL);
  guint matches = 0;

  FOR_EACH_COMMAND (command)
    if (g_str_equal (command->name, word) || has_alias (command->aliases, word))
      return command;
  FOR_EACH_COMMAND (command)
    if (g_str_has_prefix (command->name, word))
      {
        found = command;
        matches++;
        g_string_append_printf (candidates, " %s", command->name);
      }
  if (matches == 1)
    return found;
  if (matches == 0)
    {
      g_autoptr(GError) error = g_error_new (FROGGY_RPC_ERROR, 0, "Undefined command: \"%s\".  Try \"help\".", word);

      say_error (self, error);
    }
  else
    {
      g_autoptr(GError) error = g_error_new (FROGGY_RPC_ERROR, 0, "Ambiguous command \"%s\":%s.", word, candidates->str);

      say_error (self, error);
    }
  return NULL;
}

static gboolean
cmd_info (FroggyShell *self,
          const char  *args)
{
  const char *rest;
  g_autofree char *word = split_command (args, &rest);
  const InfoCommand *found = NULL;
  guint matches = 0;

  if (word[0] == '\0')
    FAIL (self, "info what? breakpoints, registers, all-registers, threads or frame.");
  FOR_EACH_INFO_COMMAND (info)
    if (g_str_has_prefix (info->name, word))
      {
        if (found == NULL || found->func != info->func)
          matches++;
        found = found ? found : info;
      }
  if (matches != 1)
    FAIL (self, "%s info command: \"%s\".  Try \"help info\".", matches ? "Ambiguous" : "Undefined", word);
  return found->func (self, rest);
}

static gboolean
cmd_help (FroggyShell *self,
          const char  *args)
{
  g_autoptr(GString) text = g_string_new (NULL);

  if (!is_blank (args))
    {
      const Command *command = find_command (self, args);

      if (command == NULL)
        return FALSE;
      say (self, "%s\n%s\n", command->usage, command->help);
      return TRUE;
    }
  g_string_append (text, "Commands (gdb's names and abbreviations):\n");
  FOR_EACH_COMMAND (command)
    g_string_append_printf (text, "  %-10s %s\n", command->name, command->help);
  g_string_append (text, "Locations: FUNCTION, FILE:LINE, *ADDRESS.  Values: numbers, $registers, symbols,\n"
                         "added or subtracted.  Ctrl-C stops the running program.\n");
  say (self, "%s", text->str);
  return TRUE;
}

/* The names completion offers, in help's order. */
void
list_command_names (GStrvBuilder *builder)
{
  FOR_EACH_COMMAND (command)
    g_strv_builder_add (builder, command->name);
}

void
list_info_command_names (GStrvBuilder *builder)
{
  FOR_EACH_INFO_COMMAND (info)
    g_strv_builder_add (builder, info->name);
}

/* Runs one command line (froggy_shell_execute() without its checks). */
gboolean
dispatch (FroggyShell *self,
          const char  *line)
{
  g_autofree char *copy = NULL;
  g_autofree char *word = NULL;
  const Command *command;
  const char *args;

  copy = g_strstrip (g_strdup (line));
  if (copy[0] == '\0' || copy[0] == '#')
    return TRUE;
  word = split_command (copy, &args);
  if (word[0] == '\0')
    {
      g_autoptr(GError) error = g_error_new (FROGGY_RPC_ERROR, 0, "Undefined command: \"%s\".  Try \"help\".", copy);

      say_error (self, error);
      return FALSE;
    }
  if ((command = find_command (self, word)) == NULL)
    return FALSE;
  return command->func (self, args) && !self->quit;
}
