/* froggy-shell-breakpoints.c: break, tbreak, trace, watch, rwatch,
 * catch, delete, enable, disable, info breakpoints
 *
 * Each kind is inserted in the daemon and kept as a record
 * (froggy-shell-points.c) numbered as gdb numbers them; a disabled
 * watch- or catchpoint leaves the daemon and comes back from its record.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <string.h>

#include "froggy-shell-private.h"

typedef enum
{
  BREAK_KEEP,
  BREAK_TEMPORARY,
  BREAK_TRACE,      /* reported, never stops: the daemon's auto_continue */
} BreakKind;

static gboolean
cmd_break_common (FroggyShell *self,
                  const char  *args,
                  BreakKind    kind)
{
  static const char *const kind_names[] = { "Breakpoint", "Temporary breakpoint", "Tracepoint" };
  g_autofree char *location = NULL;
  g_autofree char *condition = NULL;
  g_autoptr(JsonNode) result = NULL;
  g_auto(GStrv) words = NULL;
  JsonObject *params, *answer;
  JsonArray *addresses;
  gint64 thread = 0;
  Point *point;
  GString *text;

  if (!need_session (self))
    return FALSE;
  words = g_strsplit_set (args, " \t", -1);
  for (guint i = 0; words[i] != NULL; i++)
    {
      if (words[i][0] == '\0')
        continue;
      if (g_str_equal (words[i], "if"))
        {
          condition = g_strstrip (g_strjoinv (" ", words + i + 1));
          break;
        }
      if (g_str_equal (words[i], "thread") && words[i + 1] != NULL)
        {
          thread = g_ascii_strtoll (words[++i], NULL, 10);
          continue;
        }
      if (location != NULL)
        FAIL (self, "Junk at the end of the location: \"%s\".", words[i]);
      location = g_strdup (words[i]);
    }
  if (location == NULL)
    {
      guint64 pc;

      if (!eval_register (self, "pc", &pc))
        return FALSE;
      location = g_strdup_printf ("*0x%" G_GINT64_MODIFIER "x", pc);
    }
  else if (location[0] == '*')
    {
      guint64 address;

      if (!eval (self, location + 1, &address))
        return FALSE;
      g_free (location);
      location = g_strdup_printf ("*0x%" G_GINT64_MODIFIER "x", address);
    }

  params = session_params (self);
  json_object_set_string_member (params, "location", location);
  if (condition != NULL)
    {
      /* gdb's "$rax == 5"; the daemon wants a register it knows. */
      json_object_set_string_member (params, "condition", condition);
    }
  if (thread != 0)
    json_object_set_int_member (params, "thread", thread);
  if (kind == BREAK_TEMPORARY)
    json_object_set_boolean_member (params, "temporary", TRUE);
  if (kind == BREAK_TRACE)
    json_object_set_boolean_member (params, "auto_continue", TRUE);
  if ((result = call (self, "breakpoint.insert", params, NULL)) == NULL)
    return FALSE;

  answer = json_node_get_object (result);
  point = g_new0 (Point, 1);
  point->number = self->next_point++;
  point->kind = POINT_BREAKPOINT;
  point->daemon_id = member_int (answer, "id", 0);
  point->enabled = TRUE;
  point->temporary = kind == BREAK_TEMPORARY;
  point->tracepoint = kind == BREAK_TRACE;
  point->what = g_strdup (location);
  point->function = g_strdup (member_string (answer, "function"));
  point->file = g_strdup (member_string (answer, "file"));
  point->line = member_int (answer, "line", 0);
  point->condition = g_steal_pointer (&condition);
  point->thread = thread;
  addresses = json_object_get_array_member (answer, "addresses");
  if (addresses != NULL && json_array_get_length (addresses) > 0)
    point->address = g_strdup (json_array_get_string_element (addresses, 0));
  g_ptr_array_add (self->points, point);

  text = g_string_new (NULL);
  g_string_append_printf (text, "%s %u at %s", kind_names[kind],
                          point->number, point->address ? point->address : "?");
  if (point->file != NULL)
    {
      g_autofree char *base = g_path_get_basename (point->file);

      g_string_append_printf (text, ": file %s, line %" G_GINT64_FORMAT ".", base, point->line);
    }
  if (addresses != NULL && json_array_get_length (addresses) > 1)
    g_string_append_printf (text, " (%u locations)", json_array_get_length (addresses));
  say (self, "%s\n", text->str);
  g_string_free (text, TRUE);
  return TRUE;
}

static gboolean
cmd_break (FroggyShell *self,
           const char  *args)
{
  return cmd_break_common (self, args, BREAK_KEEP);
}

static gboolean
cmd_tbreak (FroggyShell *self,
            const char  *args)
{
  return cmd_break_common (self, args, BREAK_TEMPORARY);
}

static gboolean
cmd_trace (FroggyShell *self,
           const char  *args)
{
  return cmd_break_common (self, args, BREAK_TRACE);
}

/* Numbers of points: "1 3 5", "2-4", nothing for all. */
static GPtrArray *
points_named (FroggyShell *self,
              const char  *args)
{
  g_autoptr(GPtrArray) named = g_ptr_array_new ();
  g_auto(GStrv) words = g_strsplit_set (args, " \t", -1);

  if (is_blank (args))
    {
      for (guint i = 0; i < self->points->len; i++)
        g_ptr_array_add (named, g_ptr_array_index (self->points, i));
      return g_steal_pointer (&named);
    }
  for (guint i = 0; words[i] != NULL; i++)
    {
      char *end = NULL;
      guint64 first, last;

      if (words[i][0] == '\0')
        continue;
      first = last = g_ascii_strtoull (words[i], &end, 10);
      if (*end == '-')
        last = g_ascii_strtoull (end + 1, &end, 10);
      if (*end != '\0' || end == words[i] || first == 0 || last < first)
        {
          g_autoptr(GError) error = g_error_new (FROGGY_RPC_ERROR, 0, "Bad breakpoint number \"%s\".", words[i]);

          say_error (self, error);
          return NULL;
        }
      for (guint64 number = first; number <= last; number++)
        {
          Point *point = point_by_number (self, number);

          if (point == NULL)
            {
              g_autoptr(GError) error = g_error_new (FROGGY_RPC_ERROR, 0, "No breakpoint number %" G_GUINT64_FORMAT ".", number);

              say_error (self, error);
              return NULL;
            }
          g_ptr_array_add (named, point);
        }
    }
  return g_steal_pointer (&named);
}

static const char *
remove_method (PointKind kind)
{
  switch (kind)
    {
    case POINT_BREAKPOINT: return "breakpoint.remove";
    case POINT_WATCHPOINT: return "watchpoint.remove";
    case POINT_CATCHPOINT: return "catch.remove";
    default: g_assert_not_reached ();
    }
}

/* Takes a point out of the daemon (keeping the shell's record). */
static gboolean
point_remove_from_daemon (FroggyShell *self,
                          Point       *point)
{
  JsonObject *params;

  if (point->daemon_id == 0)
    return TRUE;
  params = session_params (self);
  json_object_set_int_member (params, "id", point->daemon_id);
  if (!call_ok (self, remove_method (point->kind), params, NULL))
    return FALSE;
  point->daemon_id = 0;
  return TRUE;
}

static gboolean point_insert_in_daemon (FroggyShell *self, Point *point);

static gboolean
cmd_delete (FroggyShell *self,
            const char  *args)
{
  g_autoptr(GPtrArray) named = NULL;
  gboolean ok = TRUE;

  if (g_str_has_prefix (args, "breakpoints"))
    args += strlen ("breakpoints");
  if ((named = points_named (self, args)) == NULL)
    return FALSE;
  for (guint i = 0; i < named->len; i++)
    {
      Point *point = g_ptr_array_index (named, i);

      if (self->session != 0 && !point_remove_from_daemon (self, point))
        ok = FALSE;
      else
        g_ptr_array_remove (self->points, point);
    }
  return ok;
}

static gboolean
set_enabled (FroggyShell *self,
             const char  *args,
             gboolean     enabled)
{
  g_autoptr(GPtrArray) named = NULL;

  if (!need_session (self) || (named = points_named (self, args)) == NULL)
    return FALSE;
  for (guint i = 0; i < named->len; i++)
    {
      Point *point = g_ptr_array_index (named, i);

      if (point->enabled == enabled)
        continue;
      if (point->kind == POINT_BREAKPOINT)
        {
          JsonObject *params = session_params (self);

          json_object_set_int_member (params, "id", point->daemon_id);
          json_object_set_boolean_member (params, "enabled", enabled);
          if (!call_ok (self, "breakpoint.enable", params, NULL))
            return FALSE;
        }
      /* The daemon's watch- and catchpoints are there or not. */
      else if (!(enabled ? point_insert_in_daemon (self, point) : point_remove_from_daemon (self, point)))
        return FALSE;
      point->enabled = enabled;
    }
  return TRUE;
}

static gboolean
cmd_enable (FroggyShell *self,
            const char  *args)
{
  return set_enabled (self, args, TRUE);
}

static gboolean
cmd_disable (FroggyShell *self,
             const char  *args)
{
  return set_enabled (self, args, FALSE);
}

static gboolean
info_breakpoints (FroggyShell *self,
                  const char  *args)
{
  g_autoptr(JsonNode) listed = NULL;
  g_autoptr(GString) text = g_string_new (NULL);

  if (self->points->len == 0)
    {
      say (self, "No breakpoints or watchpoints.\n");
      return TRUE;
    }
  if (self->session != 0)
    listed = call (self, "breakpoint.list", session_params (self), NULL);

  g_string_append (text, "Num     Type            Disp Enb Address            What\n");
  for (guint i = 0; i < self->points->len; i++)
    {
      Point *point = g_ptr_array_index (self->points, i);
      const char *type = point->tracepoint ? "tracepoint"
                         : point->kind == POINT_BREAKPOINT ? "breakpoint"
                         : point->kind == POINT_CATCHPOINT ? "catchpoint"
                         : point->watch_reads ? "acc watchpoint" : "hw watchpoint";
      gint64 hits = 0;

      g_string_append_printf (text, "%-7u %-15s %-4s %-3s ", point->number, type,
                              point->temporary ? "del" : "keep", point->enabled ? "y" : "n");
      if (point->kind == POINT_BREAKPOINT)
        {
          g_string_append_printf (text, "%-18s ", point->address ? point->address : "<pending>");
          if (point->function != NULL)
            g_string_append_printf (text, "in %s ", point->function);
          if (point->file != NULL)
            {
              g_autofree char *base = g_path_get_basename (point->file);

              g_string_append_printf (text, "at %s:%" G_GINT64_FORMAT, base, point->line);
            }
          else
            g_string_append (text, point->what);
        }
      else
        g_string_append_printf (text, "%-18s %s", "", point->what);
      g_string_append_c (text, '\n');
      if (point->condition != NULL)
        g_string_append_printf (text, "\tstop only if %s\n", point->condition);
      if (point->thread != 0)
        g_string_append_printf (text, "\tstop only in thread %" G_GINT64_FORMAT "\n", point->thread);

      for (guint j = 0; point->kind == POINT_BREAKPOINT && listed != NULL &&
                        j < json_array_get_length (json_node_get_array (listed)); j++)
        {
          JsonObject *entry = json_array_get_object_element (json_node_get_array (listed), j);

          if (member_int (entry, "id", 0) == point->daemon_id)
            hits = member_int (entry, "hits", 0);
        }
      if (hits > 0)
        g_string_append_printf (text, "\t%s already hit %" G_GINT64_FORMAT " time%s\n",
                                point->tracepoint ? "tracepoint" : "breakpoint",
                                hits, hits == 1 ? "" : "s");
    }
  say (self, "%s", text->str);
  return TRUE;
}

/* Inserts a watch- or catchpoint in the daemon, from its record. */
static gboolean
point_insert_in_daemon (FroggyShell *self,
                        Point       *point)
{
  JsonObject *params;
  g_autoptr(JsonNode) result = NULL;

  if (point->kind == POINT_WATCHPOINT)
    {
      params = session_params (self);
      set_word (params, "address", point->watch_address);
      json_object_set_int_member (params, "length", point->watch_length);
      json_object_set_string_member (params, "kind", point->watch_reads ? "readwrite" : "write");
      result = call (self, "watchpoint.insert", params, NULL);
      if (result != NULL)
        read_word (self, point->watch_address, point->watch_length, &point->old_value);
    }
  else
    {
      params = json_object_ref (point->catch_params);
      json_object_set_int_member (params, "session", self->session);
      result = call (self, "catch", params, NULL);
    }
  if (result == NULL)
    return FALSE;
  point->daemon_id = member_int (json_node_get_object (result), "id", 0);
  return TRUE;
}

/* A new watch- or catchpoint: into the daemon, then numbered and kept
 * (freed if the daemon refused it). */
static gboolean
point_add_new (FroggyShell *self,
               Point       *point)
{
  if (!point_insert_in_daemon (self, point))
    {
      point_free (point);
      return FALSE;
    }
  point->number = self->next_point++;
  g_ptr_array_add (self->points, point);
  return TRUE;
}

static gboolean
cmd_watch_common (FroggyShell *self,
                  const char  *args,
                  gboolean     reads)
{
  g_autofree char *expression = g_strstrip (g_strdup (args));
  Point *point;
  guint64 address;
  guint length;

  if (!need_stopped (self))
    return FALSE;
  if (expression[0] == '\0')
    FAIL (self, "Argument required (expression to watch).");
  if (!eval_lvalue (self, expression, &address, &length))
    return FALSE;

  point = g_new0 (Point, 1);
  point->kind = POINT_WATCHPOINT;
  point->what = g_strdup (expression);
  point->watch_address = address;
  point->watch_length = length;
  point->watch_reads = reads;
  point->enabled = TRUE;
  if (!point_add_new (self, point))
    return FALSE;
  say (self, "Hardware %swatchpoint %u: %s\n", reads ? "access (read/write) " : "", point->number,
       expression);
  return TRUE;
}

static gboolean
cmd_watch (FroggyShell *self,
           const char  *args)
{
  return cmd_watch_common (self, args, FALSE);
}

/* x86 debug registers watch reads only together with writes. */
static gboolean
cmd_rwatch (FroggyShell *self,
            const char  *args)
{
  return cmd_watch_common (self, args, TRUE);
}

static gboolean
cmd_catch (FroggyShell *self,
           const char  *args)
{
  g_auto(GStrv) words = split_words (args);
  g_autoptr(GStrvBuilder) names = g_strv_builder_new ();
  g_autoptr(GString) what = g_string_new (NULL);
  g_autoptr(JsonObject) params = json_object_new ();
  JsonArray *list = NULL;
  const char *kind = words[0];
  gboolean any = TRUE;
  Point *point;

  if (!need_session (self))
    return FALSE;
  if (kind == NULL || kind[0] == '\0' ||
      !g_strv_contains ((const char * const[]) { "syscall", "signal", "fork", "exec", "exit", NULL }, kind))
    FAIL (self, "Catch what? syscall [NAME|NUMBER...], signal [SIGNAL...], fork, exec or exit.");

  json_object_set_string_member (params, "kind", kind);
  g_string_append (what, kind);
  if (g_str_equal (kind, "syscall") || g_str_equal (kind, "signal"))
    {
      list = json_array_new ();
      for (guint i = 1; words[i] != NULL; i++)
        {
          if (words[i][0] == '\0')
            continue;
          any = FALSE;
          if (g_str_equal (kind, "signal"))
            {
              int signal = parse_signal (words[i]);

              if (signal <= 0)
                {
                  json_array_unref (list);
                  FAIL (self, "Unknown signal \"%s\".", words[i]);
                }
              json_array_add_int_element (list, signal);
              g_strv_builder_add (names, sigabbrev_np (signal) ? sigabbrev_np (signal) : words[i]);
              g_string_append_printf (what, " SIG%s", sigabbrev_np (signal));
            }
          else
            {
              if (g_ascii_isdigit (words[i][0]))
                json_array_add_int_element (list, g_ascii_strtoll (words[i], NULL, 10));
              else
                json_array_add_string_element (list, words[i]);
              g_strv_builder_add (names, words[i]);
              g_string_append_printf (what, " %s", words[i]);
            }
        }
      if (any)
        json_array_unref (list);
      else
        json_object_set_array_member (params, g_str_equal (kind, "signal") ? "signals" : "syscalls", list);
    }
  else if (words[1] != NULL && words[1][0] != '\0')
    FAIL (self, "catch %s takes no arguments.", kind);

  point = g_new0 (Point, 1);
  point->kind = POINT_CATCHPOINT;
  point->what = g_string_free (g_steal_pointer (&what), FALSE);
  point->catch_kind = g_strdup (kind);
  point->catch_names = any ? NULL : g_strv_builder_end (names);
  point->catch_params = json_object_ref (params);
  point->enabled = TRUE;
  if (!point_add_new (self, point))
    return FALSE;
  say (self, "Catchpoint %u (%s)\n", point->number, point->what);
  return TRUE;
}

const Command froggy_shell_breakpoint_commands[] = {
  { "break", "b br brea", cmd_break, "break [LOCATION] [thread N] [if $REG OP VALUE]",
    "Set a breakpoint at a function, FILE:LINE or *ADDRESS (default: here)." },
  { "tbreak", "tb", cmd_tbreak, "tbreak [LOCATION] [thread N] [if COND]",
    "Set a breakpoint that is deleted when hit." },
  { "trace", "tp", cmd_trace, "trace [LOCATION] [thread N] [if $REG OP VALUE]",
    "Set a tracepoint: each hit is shown, and the program goes on." },
  { "delete", "d", cmd_delete, "delete [N...]", "Delete breakpoints, watchpoints, catchpoints (all without N)." },
  { "disable", "dis disa", cmd_disable, "disable [N...]", "Disable breakpoints (all without N)." },
  { "enable", "en", cmd_enable, "enable [N...]", "Enable breakpoints (all without N)." },
  { "watch", NULL, cmd_watch, "watch VARIABLE | *[(TYPE *)] ADDRESS", "Stop when the value is written." },
  { "rwatch", "awatch", cmd_rwatch, "rwatch VARIABLE | *ADDRESS",
    "Stop when the value is read or written (x86 cannot watch reads alone)." },
  { "catch", NULL, cmd_catch, "catch syscall [NAME...] | signal [SIG...] | fork | exec | exit",
    "Stop at system calls, signals, forks, execs or thread exits." },
  { .name = NULL }
};

const InfoCommand froggy_shell_breakpoint_info_commands[] = {
  { "breakpoints", info_breakpoints },
  { "watchpoints", info_breakpoints },
  { .name = NULL }
};
