/* froggy-shell.c: the gdb-like shell
 *
 * Commands run one at a time, as gdb's do in all-stop mode: a command
 * calls the daemon and waits for the answer (froggy_daemon_proxy_call()
 * iterates the main context meanwhile, so events and Ctrl-C are still
 * seen), and `continue` and the steps wait for the program to stop again.
 * When one thread stops, the shell stops the others, so that what it
 * shows is the whole process at one moment.  `continue &` runs the
 * program in the background instead: the prompt stays, and stops are
 * printed over it as they come.
 *
 * At a terminal the line is read with readline in callback mode, from the
 * main loop: history in ~/.froggy_history, completion of command names,
 * locations and symbols (asked of the daemon).  From a pipe, plain lines.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <errno.h>
#include <glib-unix.h>
#include <readline/history.h>
#include <readline/readline.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "froggy-shell-private.h"

#define HISTORY_FILE ".froggy_history"
#define HISTORY_LINES 1000

G_DEFINE_FINAL_TYPE (FroggyShell, froggy_shell, G_TYPE_OBJECT)

/* readline's callbacks carry no user data: the one shell that reads the
 * terminal is kept here, set in froggy_shell_run() only. */
static FroggyShell *reading_shell;

static void
froggy_shell_finalize (GObject *object)
{
  FroggyShell *self = FROGGY_SHELL (object);

  if (self->daemon != NULL)
    g_signal_handlers_disconnect_by_data (self->daemon, self);
  g_clear_object (&self->daemon);
  g_clear_handle_id (&self->interrupt_source, g_source_remove);
  if (self->pending_input != NULL)
    g_string_free (self->pending_input, TRUE);
  g_free (self->repeatable);
  g_clear_pointer (&self->stop_event, json_object_unref);
  g_clear_pointer (&self->points, g_ptr_array_unref);
  g_clear_pointer (&self->sources, g_hash_table_unref);
  g_clear_pointer (&self->frames, json_array_unref);
  g_clear_pointer (&self->loop, g_main_loop_unref);
  g_clear_pointer (&self->completions, g_strfreev);
  g_free (self->last_function);
  g_free (self->history_path);
  G_OBJECT_CLASS (froggy_shell_parent_class)->finalize (object);
}

static void
froggy_shell_class_init (FroggyShellClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = froggy_shell_finalize;
}

static void
froggy_shell_init (FroggyShell *self)
{
  self->points = g_ptr_array_new_with_free_func ((GDestroyNotify) point_free);
  self->next_point = 1;
  self->sources = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify) g_strfreev);
  self->loop = g_main_loop_new (NULL, FALSE);
}

static void stop_all (FroggyShell *self);
static void input_hold (FroggyShell *self);
static void input_release (FroggyShell *self);

static void
on_event (FroggyDaemonProxy *daemon,
          JsonNode          *node,
          FroggyShell       *self)
{
  JsonObject *event = json_node_get_object (node);
  const char *reason = member_string (event, "reason");
  gboolean held;

  if (reason == NULL)
    return;
  /* The first stop of a launch or attach comes before its answer. */
  if (self->session == 0 && self->starting &&
      (g_str_equal (reason, "launched") || g_str_equal (reason, "attached")))
    self->session = member_int (event, "session", 0);
  if (member_int (event, "session", 0) != self->session || self->session == 0)
    return;

  if (g_str_equal (reason, "session-ended"))
    {
      self->session = 0;
      self->running = FALSE;
      g_ptr_array_set_size (self->points, 0);
      if (!self->waiting && self->at_prompt)
        say (self, "[Session ended]\n");
      return;
    }
  /* The other threads, stopped because one did (or by the same Ctrl-C):
   * no news. */
  if (g_str_equal (reason, "interrupted") &&
      (self->stopping_all || (self->waiting && self->stop_event != NULL)))
    return;

  if (member_bool (event, "stopped"))
    {
      g_clear_pointer (&self->frames, json_array_unref);
      self->selected_frame = 0;
    }
  /* What follows may wait for the daemon: no command typed at the prompt
   * may start meanwhile.  (During a command, the input's source is the
   * one being dispatched: GLib does not dispatch it again.) */
  held = self->at_prompt;
  if (held)
    input_hold (self);
  say_event (self, event);
  if (member_bool (event, "stopped"))
    {
      g_free (self->last_function);
      self->last_function = g_strdup (member_string (event, "function"));
      if (self->waiting && self->stop_event == NULL)
        self->stop_event = json_object_ref (event);
      else if (!self->waiting && !self->stopping_all)
        {
          /* A stop while the program ran in the background (continue &):
           * all-stop, as in the foreground. */
          self->thread = member_int (event, "thread", self->thread);
          if (self->running)
            stop_all (self);
        }
    }
  if (held)
    input_release (self);
}

static void
on_closed (FroggyDaemonProxy *daemon,
           GError            *error,
           FroggyShell       *self)
{
  say (self, "froggy: the daemon closed the connection%s%s\n",
       error ? ": " : "", error ? error->message : "");
  self->session = 0;
  self->quit = TRUE;
  self->status = 1;
  g_main_loop_quit (self->loop);
}

/* Stops every thread, quietly: the program is seen at one moment. */
static void
stop_all (FroggyShell *self)
{
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(GError) error = NULL;

  if (self->session == 0)
    return;
  self->stopping_all = TRUE;
  result = froggy_daemon_proxy_call (self->daemon, "stop", session_params (self), &error);
  self->stopping_all = FALSE;
  self->running = FALSE;
}

/* Waits until a thread stops or the session ends; then stops the other
 * threads and selects the one that stopped.  Ctrl-C stops them all
 * meanwhile (on_interrupt_signal). */
/* Before the request that lets the program run: a stop that comes
 * before its answer is the one waited for. */
static void
expect_stop (FroggyShell *self)
{
  g_clear_pointer (&self->stop_event, json_object_unref);
  self->waiting = TRUE;
  self->running = TRUE;
  g_clear_pointer (&self->frames, json_array_unref);
}

/* The request failed: nothing runs. */
static void
expect_no_stop (FroggyShell *self)
{
  self->waiting = FALSE;
  self->running = FALSE;
}

static gboolean
wait_for_stop (FroggyShell *self)
{
  self->waiting = TRUE;
  while (self->stop_event == NULL && self->session != 0 &&
         !froggy_daemon_proxy_is_closed (self->daemon))
    g_main_context_iteration (NULL, TRUE);
  self->waiting = FALSE;
  if (self->stop_event == NULL)
    return FALSE;
  self->thread = member_int (self->stop_event, "thread", self->thread);
  stop_all (self);
  return TRUE;
}

/* Ctrl-C: stop every thread, without waiting; the stops are events. */
static void
request_stop (FroggyShell *self)
{
  froggy_daemon_proxy_call_async (self->daemon, "stop", session_params (self), NULL, NULL, NULL);
}

static gboolean
on_interrupt_signal (gpointer user_data)
{
  FroggyShell *self = user_data;

  if (self->session != 0 && (self->running || self->waiting))
    {
      request_stop (self);
      return G_SOURCE_CONTINUE;
    }
  /* A command on its way to letting the program run: it stops it once
   * it runs (resume()). */
  if (self->session != 0 && !self->at_prompt)
    {
      self->interrupt_pending = TRUE;
      return G_SOURCE_CONTINUE;
    }
  if (self->at_prompt)
    {
      /* As a shell does: drop the line, a fresh prompt. */
      rl_replace_line ("", 0);
      rl_crlf ();
      rl_on_new_line ();
      rl_redisplay ();
    }
  return G_SOURCE_CONTINUE;
}

/* ---- Breakpoints, watchpoints and catchpoints ------------------------ */

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

/* ---- Running --------------------------------------------------------- */

static gboolean
resume (FroggyShell *self,
        JsonObject  *with_signal,
        gboolean     background)
{
  expect_stop (self);
  self->waiting = !background;
  if ((with_signal != NULL && !call_ok (self, "continue", with_signal, NULL)) ||
      !call_ok (self, "continue", session_params (self), NULL))
    {
      expect_no_stop (self);
      return FALSE;
    }
  if (self->interrupt_pending)
    {
      self->interrupt_pending = FALSE;
      request_stop (self);
    }
  if (background)
    return TRUE;
  wait_for_stop (self);
  return TRUE;
}

static gboolean
cmd_continue (FroggyShell *self,
              const char  *args)
{
  g_autofree char *rest = g_strstrip (g_strdup (args));
  gboolean background = g_str_has_suffix (rest, "&");
  JsonObject *with_signal = NULL;

  if (!need_stopped (self))
    return FALSE;
  if (background)
    rest[strlen (rest) - 1] = '\0';
  g_strstrip (rest);
  if (rest[0] != '\0')
    {
      int signal = parse_signal (rest);

      if (signal < 0)
        FAIL (self, "Unknown signal \"%s\" (continue takes a signal to deliver, or nothing).", rest);
      if (signal != 0)
        say (self, "Continuing with signal SIG%s.\n", sigabbrev_np (signal));
      else
        say (self, "Continuing with no signal.\n");
      with_signal = thread_params (self);
      json_object_set_int_member (with_signal, "signal", signal);
    }
  else
    say (self, "Continuing.\n");
  return resume (self, with_signal, background);
}

static gboolean
cmd_signal (FroggyShell *self,
            const char  *args)
{
  if (is_blank (args))
    FAIL (self, "Argument required (signal number or name).");
  return cmd_continue (self, args);
}

static gboolean
cmd_interrupt (FroggyShell *self,
               const char  *args)
{
  if (!need_session (self))
    return FALSE;
  if (!self->running)
    FAIL (self, "The program is not running.");
  self->waiting = TRUE;
  g_clear_pointer (&self->stop_event, json_object_unref);
  if (!call_ok (self, "stop", session_params (self), NULL))
    {
      self->waiting = FALSE;
      return FALSE;
    }
  self->waiting = FALSE;
  self->running = FALSE;
  if (self->stop_event != NULL)
    self->thread = member_int (self->stop_event, "thread", self->thread);
  return TRUE;
}

/* The most instructions one step request takes (protocol/README.md). */
#define STEP_MAX_COUNT 1000000

/* One step request; @count > 1 only for instructions. */
static gboolean
step_count (FroggyShell *self,
            const char  *kind,
            guint64      count)
{
  JsonObject *params;

  if (!need_stopped (self))
    return FALSE;
  params = thread_params (self);
  json_object_set_string_member (params, "kind", kind);
  if (count > 1)
    json_object_set_int_member (params, "count", count);
  expect_stop (self);
  if (!call_ok (self, "step", params, NULL))
    {
      expect_no_stop (self);
      return FALSE;
    }
  wait_for_stop (self);
  return TRUE;
}

static gboolean
step (FroggyShell *self,
      const char  *kind)
{
  return step_count (self, kind, 1);
}

static gboolean
stopped_by_step (FroggyShell *self)
{
  return self->session != 0 && self->stop_event != NULL &&
         g_strcmp0 (member_string (self->stop_event, "reason"), "step-done") == 0;
}

/* step N, next N, ...: N steps, fewer when something else stops it. */
static gboolean
step_times (FroggyShell *self,
            const char  *args,
            const char  *kind)
{
  guint64 count = 1;

  if (!is_blank (args) && !eval (self, args, &count))
    return FALSE;
  for (guint64 i = 0; i < count; i++)
    if (!step (self, kind) || !stopped_by_step (self))
      break;
  return TRUE;
}

static gboolean
cmd_step (FroggyShell *self,
          const char  *args)
{
  return step_times (self, args, "line");
}

static gboolean
cmd_next (FroggyShell *self,
          const char  *args)
{
  return step_times (self, args, "over");
}

/* stepi N: N instructions in one request (the daemon counts them, and
 * stops early at a breakpoint), a million at a time; gdb too shows only
 * where it ends. */
static gboolean
cmd_stepi (FroggyShell *self,
           const char  *args)
{
  guint64 count = 1;

  if (!is_blank (args) && !eval (self, args, &count))
    return FALSE;
  while (count > 0)
    {
      guint64 chunk = MIN (count, STEP_MAX_COUNT);

      if (!step_count (self, "instruction", chunk) || !stopped_by_step (self))
        break;
      count -= chunk;
    }
  return TRUE;
}

/* One instruction, over calls: step it, quietly; when that entered a
 * function (the stack grew by a return address just past the old pc),
 * run until it returns.  Then say where we are, as stepi does. */
static gboolean
nexti_once (FroggyShell *self)
{
  guint64 pc, sp, new_sp, return_address;
  gboolean ok;

  if (!need_stopped (self) || !eval_register (self, "pc", &pc) || !eval_register (self, "sp", &sp))
    return FALSE;
  self->quiet_steps = TRUE;
  ok = step (self, "instruction");
  if (ok && stopped_by_step (self) && eval_register (self, "sp", &new_sp) && new_sp == sp - 8 &&
      read_word (self, new_sp, 8, &return_address) && return_address > pc && return_address <= pc + 15)
    ok = step (self, "out");
  self->quiet_steps = FALSE;
  if (ok && stopped_by_step (self))
    say_step (self, self->stop_event, "instruction");
  return ok;
}

static gboolean
cmd_nexti (FroggyShell *self,
           const char  *args)
{
  guint64 count = 1;

  if (!is_blank (args) && !eval (self, args, &count))
    return FALSE;
  for (guint64 i = 0; i < count; i++)
    if (!nexti_once (self) || !stopped_by_step (self))
      break;
  return TRUE;
}

static gboolean
cmd_finish (FroggyShell *self,
            const char  *args)
{
  g_autofree char *place = NULL;
  guint64 value;

  if (!need_stopped (self) || !ensure_frames (self))
    return FALSE;
  if (json_array_get_length (self->frames) < 2)
    FAIL (self, "\"finish\" not meaningful in the outermost frame.");
  place = describe_place (json_array_get_object_element (self->frames, 0), FALSE);
  say (self, "Run till exit from #0  %s\n", place);
  if (!step (self, "out"))
    return FALSE;
  if (stopped_by_step (self) && eval_register (self, "rax", &value))
    say (self, "Value returned is $%u = %" G_GINT64_FORMAT "\n", ++self->values, (gint64) value);
  return TRUE;
}

/* ---- The stack ------------------------------------------------------- */

static char *
describe_frame (JsonObject *frame)
{
  g_autofree char *place = NULL;
  gint64 level = member_int (frame, "level", 0);
  const char *module = member_string (frame, "module");

  /* gdb leaves out the pc of frame 0 when it is at a known line. */
  place = describe_place (frame, level > 0 || member_string (frame, "file") == NULL);
  if (member_string (frame, "file") == NULL && module != NULL)
    return g_strdup_printf ("#%-2" G_GINT64_FORMAT " %s from %s", level, place, module);
  return g_strdup_printf ("#%-2" G_GINT64_FORMAT " %s", level, place);
}

static gboolean
cmd_backtrace (FroggyShell *self,
               const char  *args)
{
  g_autoptr(GString) text = g_string_new (NULL);
  guint64 limit = G_MAXUINT64;
  guint length;

  if (!need_stopped (self))
    return FALSE;
  if (!is_blank (args) && !eval (self, args, &limit))
    return FALSE;
  if (!ensure_frames (self))
    return FALSE;
  length = json_array_get_length (self->frames);
  for (guint i = 0; i < length && i < limit; i++)
    {
      g_autofree char *line = describe_frame (json_array_get_object_element (self->frames, i));

      g_string_append_printf (text, "%s\n", line);
    }
  if (limit < length)
    g_string_append (text, "(More stack frames follow...)\n");
  say (self, "%s", text->str);
  return TRUE;
}

static gboolean
select_frame (FroggyShell *self,
              gint64       level)
{
  JsonObject *frame;
  g_autofree char *line = NULL;
  g_autofree char *source = NULL;

  if (!need_stopped (self) || !ensure_frames (self))
    return FALSE;
  if (level < 0 || level >= json_array_get_length (self->frames))
    FAIL (self, "No frame at level %" G_GINT64_FORMAT ".", level);
  self->selected_frame = level;
  frame = json_array_get_object_element (self->frames, level);
  line = describe_frame (frame);
  source = describe_source (self, frame);
  say (self, "%s\n%s", line, source);
  return TRUE;
}

static gboolean
cmd_frame (FroggyShell *self,
           const char  *args)
{
  guint64 level = self->selected_frame;

  if (!is_blank (args) && !eval (self, args, &level))
    return FALSE;
  return select_frame (self, level);
}

static gboolean
cmd_up (FroggyShell *self,
        const char  *args)
{
  guint64 count = 1;

  if (!is_blank (args) && !eval (self, args, &count))
    return FALSE;
  return select_frame (self, self->selected_frame + count);
}

static gboolean
cmd_down (FroggyShell *self,
          const char  *args)
{
  guint64 count = 1;

  if (!is_blank (args) && !eval (self, args, &count))
    return FALSE;
  if (self->selected_frame - (gint64) count < 0)
    FAIL (self, "Bottom (innermost) frame selected; you cannot go down.");
  return select_frame (self, self->selected_frame - count);
}

/* ---- Data ------------------------------------------------------------ */

static const char * const general_registers[] = {
  "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
  "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
  "rip", "eflags", "cs", "ss", "ds", "es", "fs", "gs", "fs_base", "gs_base",
};

static gboolean
is_pointer_register (const char *name)
{
  return g_str_equal (name, "rip") || g_str_equal (name, "rsp") || g_str_equal (name, "rbp") ||
         g_str_equal (name, "pc") || g_str_equal (name, "sp") || g_str_equal (name, "fp");
}

static char *
describe_eflags (guint64 value)
{
  static const char * const flags[] = {
    [0] = "CF", [2] = "PF", [4] = "AF", [6] = "ZF", [7] = "SF", [8] = "TF",
    [9] = "IF", [10] = "DF", [11] = "OF",
  };
  GString *text = g_string_new ("[ ");

  for (guint bit = 0; bit < G_N_ELEMENTS (flags); bit++)
    if (flags[bit] != NULL && (value & (1ull << bit)))
      g_string_append_printf (text, "%s ", flags[bit]);
  g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

static void
append_register (GString    *text,
                 const char *name,
                 const char *hex)
{
  guint64 value = g_ascii_strtoull (hex, NULL, 16);
  g_autofree char *natural = NULL;

  if (g_str_equal (name, "eflags"))
    natural = describe_eflags (value);
  else if (is_pointer_register (name) || strlen (hex) > 18)
    natural = g_strdup (hex);
  else
    natural = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) value);
  g_string_append_printf (text, "%-15s%-19s%s\n", name, hex, natural);
}

static gboolean
info_registers_common (FroggyShell *self,
                       const char  *args,
                       gboolean     all)
{
  g_autoptr(JsonObject) general = NULL;
  g_autoptr(JsonObject) fp = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_auto(GStrv) names = split_words (args);

  if (!need_stopped (self) || (general = read_registers (self, NULL)) == NULL)
    return FALSE;
  if (names[0] == NULL || names[0][0] == '\0')
    {
      for (guint i = 0; i < G_N_ELEMENTS (general_registers); i++)
        if (member_string (general, general_registers[i]) != NULL)
          append_register (text, general_registers[i], member_string (general, general_registers[i]));
      if (all && (fp = read_registers (self, "fp")) != NULL)
        {
          g_autoptr(GList) members = json_object_get_members (fp);

          for (GList *l = members; l != NULL; l = l->next)
            append_register (text, l->data, member_string (fp, l->data));
        }
      say (self, "%s", text->str);
      return TRUE;
    }
  for (guint i = 0; names[i] != NULL; i++)
    {
      const char *name = names[i][0] == '$' ? names[i] + 1 : names[i];
      guint64 value;

      if (name[0] == '\0')
        continue;
      if (!eval_register (self, name, &value))
        return FALSE;
      {
        g_autofree char *hex = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", value);

        append_register (text, name, hex);
      }
    }
  say (self, "%s", text->str);
  return TRUE;
}

static gboolean
info_registers (FroggyShell *self,
                const char  *args)
{
  return info_registers_common (self, args, FALSE);
}

static gboolean
info_all_registers (FroggyShell *self,
                    const char  *args)
{
  return info_registers_common (self, args, TRUE);
}

/* "/x", "/4xg": count, format letter, unit letter. */
static gboolean
parse_format (FroggyShell *self,
              const char **args,
              guint64     *count,
              char        *format,
              char        *unit)
{
  const char *text = *args;

  if (*text != '/')
    return TRUE;
  text++;
  if (g_ascii_isdigit (*text))
    *count = g_ascii_strtoull (text, (char **) &text, 10);
  while (*text && !g_ascii_isspace (*text))
    {
      if (strchr ("xducsit", *text))
        *format = *text;
      else if (strchr ("bhwg", *text))
        *unit = *text;
      else
        FAIL (self, "Undefined output format \"%c\".", *text);
      text++;
    }
  *args = text;
  return TRUE;
}

static char *
format_value (guint64 value,
              guint   size,
              char    format)
{
  guint64 mask = size >= 8 ? G_MAXUINT64 : (1ull << (8 * size)) - 1;
  gint64 sign = size >= 8 ? (gint64) value : (gint64) (value << (64 - 8 * size)) >> (64 - 8 * size);

  value &= mask;
  switch (format)
    {
    case 'x': return g_strdup_printf ("0x%0*" G_GINT64_MODIFIER "x", (int) size * 2, value);
    case 'u': return g_strdup_printf ("%" G_GUINT64_FORMAT, value);
    case 'c': return g_strdup_printf ("%" G_GINT64_FORMAT " '%c'", sign, g_ascii_isprint (value) ? (char) value : '.');
    case 't':
      {
        GString *bits = g_string_new (NULL);

        for (int bit = 8 * size - 1; bit >= 0; bit--)
          if (bits->len > 0 || (value >> bit) & 1 || bit == 0)
            g_string_append_c (bits, (value >> bit) & 1 ? '1' : '0');
        return g_string_free (bits, FALSE);
      }
    default: return g_strdup_printf ("%" G_GINT64_FORMAT, sign);
    }
}

/* print EXPR: a variable (its value, read as an integer of its size, or
 * the words of a larger one: the daemon gives no types), a register, or
 * an expression of numbers, registers and addresses. */
static gboolean
cmd_print (FroggyShell *self,
           const char  *args)
{
  guint64 count = 1, value = 0;
  char format = 0, unit = 0;
  g_autofree char *expression = NULL;
  g_autofree char *text = NULL;

  if (!parse_format (self, &args, &count, &format, &unit))
    return FALSE;
  expression = g_strstrip (g_strdup (args));
  if (expression[0] == '\0')
    FAIL (self, "Argument required (expression to print).");

  if (is_identifier (expression))
    {
      guint64 address;
      gint64 size = 0;

      if (!need_stopped (self) || !lookup_symbol (self, expression, &address, &size))
        return FALSE;
      if (size == 1 || size == 2 || size == 4 || size == 8)
        {
          if (!read_word (self, address, size, &value))
            return FALSE;
          text = format_value (value, size, format ? format : 'd');
        }
      else if (size > 8 && size % 8 == 0 && size <= 1024)
        {
          GString *items = g_string_new ("{");

          for (gint64 offset = 0; offset < size; offset += 8)
            {
              g_autofree char *item = NULL;

              if (!read_word (self, address + offset, 8, &value))
                {
                  g_string_free (items, TRUE);
                  return FALSE;
                }
              item = format_value (value, 8, format ? format : 'd');
              g_string_append_printf (items, "%s%s", offset ? ", " : "", item);
            }
          g_string_append_c (items, '}');
          text = g_string_free (items, FALSE);
        }
      else
        text = g_strdup_printf ("<%s at 0x%" G_GINT64_MODIFIER "x, %" G_GINT64_FORMAT " bytes>",
                                expression, address, size);
    }
  else
    {
      if (!eval (self, expression, &value))
        return FALSE;
      if (format == 0)
        format = expression[0] == '$' && is_pointer_register (expression + 1) ? 'x' : 'd';
      text = format == 'x' ? g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", value) : format_value (value, 8, format);
    }
  say (self, "$%u = %s\n", ++self->values, text);
  return TRUE;
}

static gboolean
examine_strings (FroggyShell *self,
                 guint64      address,
                 guint64      count)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint64 i = 0; i < count; i++)
    {
      g_autoptr(GBytes) bytes = read_memory (self, address, 256);
      const char *data;
      gsize size = 0, length;
      g_autofree char *escaped = NULL;
      g_autofree char *string = NULL;

      if (bytes == NULL)
        return FALSE;
      data = g_bytes_get_data (bytes, &size);
      length = strnlen (data, size);
      string = g_strndup (data, length);
      escaped = g_strescape (string, NULL);
      g_string_append_printf (out, "0x%" G_GINT64_MODIFIER "x:\t\"%s\"%s\n", address, escaped,
                              length == size ? "..." : "");
      address += length + 1;
    }
  say (self, "%s", out->str);
  return TRUE;
}

/* x/NFU ADDRESS */
static gboolean
cmd_examine (FroggyShell *self,
             const char  *args)
{
  guint64 count = 1, address;
  char format = 'x', unit = 'w';
  guint size, per_line;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  const guint8 *data;
  gsize length = 0;

  if (!parse_format (self, &args, &count, &format, &unit))
    return FALSE;
  if (is_blank (args))
    FAIL (self, "Argument required (starting display address).");
  if (!need_stopped (self) || !eval (self, args, &address))
    return FALSE;
  if (count == 0 || count > 65536)
    FAIL (self, "Bad count %" G_GUINT64_FORMAT " (1 to 65536).", count);
  if (format == 's')
    return examine_strings (self, address, count);
  if (format == 'i')
    {
      /* No disassembler here: the bytes, 8 to a line, undecoded. */
      say (self, "(froggy has no disassembler: x/i shows raw bytes, not instructions)\n");
      format = 'x';
      unit = 'b';
      count *= 8;
    }
  size = unit == 'b' ? 1 : unit == 'h' ? 2 : unit == 'g' ? 8 : 4;
  if (format == 'c')
    size = 1;
  per_line = size == 8 ? 2 : size == 4 ? 4 : 8;

  if ((bytes = read_memory (self, address, count * size)) == NULL)
    return FALSE;
  data = g_bytes_get_data (bytes, &length);
  for (guint64 i = 0; i < count; i++)
    {
      guint64 value = 0;
      g_autofree char *item = NULL;

      if ((i + 1) * size > length)
        {
          g_string_append_printf (out, "%sCannot access memory at address 0x%" G_GINT64_MODIFIER "x\n",
                                  i % per_line ? "\n" : "", address + i * size);
          say (self, "%s", out->str);
          self->status = 1;
          return FALSE;
        }
      for (guint b = 0; b < size; b++)
        value |= (guint64) data[i * size + b] << (8 * b);
      if (i % per_line == 0)
        g_string_append_printf (out, "0x%" G_GINT64_MODIFIER "x:", address + i * size);
      item = format_value (value, size, format);
      g_string_append_printf (out, "\t%s", item);
      if (i % per_line == per_line - 1 || i == count - 1)
        g_string_append_c (out, '\n');
    }
  say (self, "%s", out->str);
  return TRUE;
}

static gboolean
write_memory (FroggyShell *self,
              guint64      address,
              guint64      value,
              guint        length)
{
  JsonObject *params = thread_params (self);
  g_autoptr(GString) hex = g_string_new (NULL);

  for (guint i = 0; i < length; i++)
    g_string_append_printf (hex, "%02x", (guint) (value >> (8 * i)) & 0xff);
  set_word (params, "address", address);
  json_object_set_string_member (params, "data", hex->str);
  return call_ok (self, "memory.write", params, "writing memory");
}

/* set $REG = V, set var NAME = V, set NAME = V, set *[(TYPE *)] ADDR = V;
 * gdb's "set confirm off" and the like are taken and ignored. */
static gboolean
cmd_set (FroggyShell *self,
         const char  *args)
{
  g_autofree char *line = g_strstrip (g_strdup (args));
  char *equals = strchr (line, '=');
  char *target, *value_text;
  guint64 value, address;
  guint length;

  if (equals == NULL)
    {
      static const char * const settings[] = { "confirm", "pagination", "height", "width", "print", "verbose", NULL };
      g_auto(GStrv) words = g_strsplit (line, " ", 2);

      if (words[0] != NULL && g_strv_contains (settings, words[0]))
        return TRUE;
      FAIL (self, "set what? $REGISTER = VALUE, VARIABLE = VALUE or *ADDRESS = VALUE.");
    }
  *equals = '\0';
  target = g_strstrip (line);
  value_text = g_strstrip (equals + 1);
  if (g_str_has_prefix (target, "var "))
    target = g_strstrip (target + 4);
  if (!need_stopped (self) || !eval (self, value_text, &value))
    return FALSE;

  if (target[0] == '$')
    {
      JsonObject *params, *registers;
      guint64 mask;
      const char *name = register_name (target + 1, &mask);

      if (mask != G_MAXUINT64)
        FAIL (self, "Set the whole 64-bit register, $%s.", name);
      params = thread_params (self);
      registers = json_object_new ();
      set_word (registers, name, value);
      json_object_set_object_member (params, "registers", registers);
      return call_ok (self, "registers.write", params, NULL);
    }
  if (!eval_lvalue (self, target, &address, &length))
    return FALSE;
  return write_memory (self, address, value, length);
}

/* ---- Threads and the session ----------------------------------------- */

static gboolean
info_threads (FroggyShell *self,
              const char  *args)
{
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(GString) text = g_string_new ("  Id        Process   Frame\n");
  JsonArray *threads;

  if (!need_session (self) || (result = call (self, "threads", session_params (self), NULL)) == NULL)
    return FALSE;
  threads = json_node_get_array (result);
  for (guint i = 0; i < json_array_get_length (threads); i++)
    {
      JsonObject *thread = json_array_get_object_element (threads, i);
      gint64 id = member_int (thread, "thread", 0);

      g_string_append_printf (text, "%c %-9" G_GINT64_FORMAT " %-9" G_GINT64_FORMAT " ",
                              id == self->thread ? '*' : ' ', id, member_int (thread, "pid", 0));
      if (g_strcmp0 (member_string (thread, "state"), "stopped") == 0)
        {
          g_autofree char *place = describe_place (thread, TRUE);

          g_string_append_printf (text, "%s\n", place);
        }
      else
        g_string_append (text, "(running)\n");
    }
  say (self, "%s", text->str);
  return TRUE;
}

static gboolean
cmd_thread (FroggyShell *self,
            const char  *args)
{
  g_autoptr(JsonNode) result = NULL;
  JsonArray *threads;
  guint64 wanted;

  if (!need_session (self))
    return FALSE;
  if (is_blank (args))
    {
      say (self, "[Current thread is %" G_GINT64_FORMAT " (process %" G_GINT64_FORMAT ")]\n",
           self->thread, self->pid);
      return TRUE;
    }
  if (!eval (self, args, &wanted) || (result = call (self, "threads", session_params (self), NULL)) == NULL)
    return FALSE;
  threads = json_node_get_array (result);
  for (guint i = 0; i < json_array_get_length (threads); i++)
    {
      JsonObject *thread = json_array_get_object_element (threads, i);

      if (member_int (thread, "thread", 0) != (gint64) wanted)
        continue;
      self->thread = wanted;
      self->selected_frame = 0;
      g_clear_pointer (&self->frames, json_array_unref);
      say (self, "[Switching to thread %" G_GINT64_FORMAT "]\n", self->thread);
      if (g_strcmp0 (member_string (thread, "state"), "stopped") == 0)
        return select_frame (self, 0);
      return TRUE;
    }
  FAIL (self, "Invalid thread ID: %" G_GUINT64_FORMAT " (see \"info threads\").", wanted);
}

static gboolean
cmd_detach (FroggyShell *self,
            const char  *args)
{
  gint64 pid = self->pid;

  if (!need_session (self) || !call_ok (self, "detach", session_params (self), NULL))
    return FALSE;
  self->session = 0;
  self->running = FALSE;
  g_ptr_array_set_size (self->points, 0);
  say (self, "[Detached from process %" G_GINT64_FORMAT "]\n", pid);
  return TRUE;
}

static gboolean
cmd_kill (FroggyShell *self,
          const char  *args)
{
  gint64 pid = self->pid;

  if (!need_session (self) || !call_ok (self, "kill", session_params (self), NULL))
    return FALSE;
  /* The exit notifications end the session. */
  self->waiting = TRUE;
  while (self->session != 0 && !froggy_daemon_proxy_is_closed (self->daemon))
    g_main_context_iteration (NULL, TRUE);
  self->waiting = FALSE;
  self->running = FALSE;
  say (self, "[Process %" G_GINT64_FORMAT " killed]\n", pid);
  return TRUE;
}

void
froggy_shell_end_session (FroggyShell *self)
{
  g_return_if_fail (FROGGY_IS_SHELL (self));

  if (self->session == 0 || froggy_daemon_proxy_is_closed (self->daemon))
    return;
  if (self->launched)
    cmd_kill (self, "");
  else
    cmd_detach (self, "");
}

static gboolean
cmd_quit (FroggyShell *self,
          const char  *args)
{
  froggy_shell_end_session (self);
  self->quit = TRUE;
  g_main_loop_quit (self->loop);
  return TRUE;
}

static gboolean cmd_help (FroggyShell *self, const char *args);
static gboolean cmd_info (FroggyShell *self, const char *args);

typedef gboolean (*CommandFunc) (FroggyShell *self,
                                 const char  *args);

typedef struct
{
  const char  *name;
  const char  *aliases;   /* space separated, gdb's */
  CommandFunc  func;
  const char  *usage;
  const char  *help;
} Command;

static const Command commands[] = {
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
  { "continue", "c cont fg", cmd_continue, "continue [SIGNAL] [&]",
    "Let the program run (with a signal to deliver; & to keep the prompt)." },
  { "signal", NULL, cmd_signal, "signal SIGNAL", "Continue, delivering SIGNAL (0: none) to this thread." },
  { "interrupt", NULL, cmd_interrupt, "interrupt", "Stop a program running in the background." },
  { "step", "s", cmd_step, "step [N]", "Step to the next source line, into calls." },
  { "next", "n", cmd_next, "next [N]", "Step to the next source line, over calls." },
  { "stepi", "si", cmd_stepi, "stepi [N]", "Step one instruction." },
  { "nexti", "ni", cmd_nexti, "nexti [N]", "Step one instruction, over calls." },
  { "finish", "fin", cmd_finish, "finish", "Run until the current function returns; print its value ($rax)." },
  { "backtrace", "bt where", cmd_backtrace, "backtrace [N]", "Print the stack, innermost frame first." },
  { "frame", "f", cmd_frame, "frame [N]", "Select and print stack frame N." },
  { "up", NULL, cmd_up, "up [N]", "Select the frame N levels out (calling)." },
  { "down", "do", cmd_down, "down [N]", "Select the frame N levels in (called)." },
  { "info", "i", cmd_info, "info breakpoints|registers [REG...]|all-registers|threads|frame",
    "Describe the program's state." },
  { "print", "p inspect", cmd_print, "print[/FMT] EXPRESSION",
    "Print a variable, $register or value (FMT: x d u c t)." },
  { "x", NULL, cmd_examine, "x/NFU ADDRESS",
    "Examine memory: N units, format x d u c s i t, unit b h w g." },
  { "set", NULL, cmd_set, "set $REG = V | [var] VARIABLE = V | *[(TYPE *)] ADDRESS = V",
    "Change a register or memory (*ADDRESS writes an int, 4 bytes, unless cast)." },
  { "thread", "t", cmd_thread, "thread [TID]", "Select the thread with kernel thread id TID." },
  { "detach", NULL, cmd_detach, "detach", "Let the program go on untraced." },
  { "kill", "k", cmd_kill, "kill", "Kill the program." },
  { "quit", "q exit", cmd_quit, "quit",
    "Leave froggy: an attached program is detached, a started one killed." },
  { "help", "h", cmd_help, "help [COMMAND]", "List the commands, or describe one." },
};

typedef struct
{
  const char  *name;
  CommandFunc  func;
} InfoCommand;

static gboolean
info_frame (FroggyShell *self,
            const char  *args)
{
  return cmd_frame (self, "");
}

static const InfoCommand info_commands[] = {
  { "breakpoints", info_breakpoints },
  { "watchpoints", info_breakpoints },
  { "registers", info_registers },
  { "all-registers", info_all_registers },
  { "threads", info_threads },
  { "frame", info_frame },
};

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

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (commands[i].name, word) || has_alias (commands[i].aliases, word))
      return &commands[i];
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_has_prefix (commands[i].name, word))
      {
        found = &commands[i];
        matches++;
        g_string_append_printf (candidates, " %s", commands[i].name);
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
  for (guint i = 0; i < G_N_ELEMENTS (info_commands); i++)
    if (g_str_has_prefix (info_commands[i].name, word))
      {
        if (found == NULL || found->func != info_commands[i].func)
          matches++;
        found = found ? found : &info_commands[i];
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
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    g_string_append_printf (text, "  %-10s %s\n", commands[i].name, commands[i].help);
  g_string_append (text, "Locations: FUNCTION, FILE:LINE, *ADDRESS.  Values: numbers, $registers, symbols,\n"
                         "added or subtracted.  Ctrl-C stops the running program.\n");
  say (self, "%s", text->str);
  return TRUE;
}

gboolean
froggy_shell_execute (FroggyShell *self,
                      const char  *line)
{
  g_autofree char *copy = NULL;
  g_autofree char *word = NULL;
  const Command *command;
  const char *args;

  g_return_val_if_fail (FROGGY_IS_SHELL (self), FALSE);

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

gboolean
froggy_shell_quit_requested (FroggyShell *self)
{
  return self->quit;
}

gboolean
froggy_shell_source (FroggyShell *self,
                     const char  *path)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean ok = TRUE;

  if (!g_file_get_contents (path, &contents, NULL, &error))
    {
      say_error (self, error);
      return FALSE;
    }
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL && !self->quit; i++)
    if (!froggy_shell_execute (self, lines[i]))
      ok = FALSE;
  return ok;
}

/* ---- Starting ---------------------------------------------------------- */

FroggyShell *
froggy_shell_new (FroggyDaemonProxy *daemon)
{
  FroggyShell *self;

  g_return_val_if_fail (FROGGY_IS_DAEMON_PROXY (daemon), NULL);

  self = g_object_new (FROGGY_TYPE_SHELL, NULL);
  self->daemon = g_object_ref (daemon);
  g_signal_connect (daemon, "event", G_CALLBACK (on_event), self);
  g_signal_connect (daemon, "closed", G_CALLBACK (on_closed), self);
  self->interrupt_source = g_unix_signal_add (SIGINT, on_interrupt_signal, self);
  return self;
}

/* The session's first stop: the attached or launched notification comes
 * before the answer that names the session. */
static gboolean
start_session (FroggyShell  *self,
               const char   *method,
               JsonObject   *params,
               GError      **error)
{
  g_autoptr(JsonNode) result = NULL;
  JsonObject *answer;

  self->starting = TRUE;
  result = froggy_daemon_proxy_call (self->daemon, method, params, error);
  self->starting = FALSE;
  if (result == NULL)
    return FALSE;
  answer = json_node_get_object (result);
  self->session = member_int (answer, "session", 0);
  self->pid = member_int (answer, "pid", 0);
  self->thread = member_int (answer, "thread", self->pid);
  self->running = FALSE;
  return TRUE;
}

gboolean
froggy_shell_attach (FroggyShell  *self,
                     gint64        pid,
                     GError      **error)
{
  JsonObject *params = json_object_new ();
  g_autoptr(GError) local_error = NULL;

  g_return_val_if_fail (FROGGY_IS_SHELL (self), FALSE);

  json_object_set_int_member (params, "pid", pid);
  say (self, "Attaching to process %" G_GINT64_FORMAT "\n", pid);
  self->pid = pid;
  if (!start_session (self, "attach", params, &local_error))
    {
      if (g_error_matches (local_error, FROGGY_RPC_ERROR, FROGGY_RPC_ERROR_PERMISSION))
        g_set_error (error, FROGGY_RPC_ERROR, FROGGY_RPC_ERROR_PERMISSION,
                     "cannot attach to process %" G_GINT64_FORMAT ": permission denied (%s)",
                     pid, local_error->message);
      else
        g_set_error (error, local_error->domain, local_error->code,
                     "cannot attach to process %" G_GINT64_FORMAT ": %s", pid, local_error->message);
      self->pid = 0;
      return FALSE;
    }
  self->launched = FALSE;
  return TRUE;
}

gboolean
froggy_shell_launch (FroggyShell         *self,
                     const char * const  *argv,
                     GError             **error)
{
  JsonObject *params = json_object_new ();
  JsonArray *arguments = json_array_new ();
  JsonArray *environment = json_array_new ();
  g_auto(GStrv) environ_copy = g_get_environ ();
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *joined = g_strjoinv (" ", (char **) argv);
  g_autofree char *stdio = NULL;
  g_autofree char *program = NULL;

  g_return_val_if_fail (FROGGY_IS_SHELL (self), FALSE);
  g_return_val_if_fail (argv != NULL && argv[0] != NULL, FALSE);

  /* The daemon has its own working directory and PATH: name the
   * program as we find it, from ours. */
  if (strchr (argv[0], '/') != NULL)
    program = g_canonicalize_filename (argv[0], cwd);
  else
    program = g_find_program_in_path (argv[0]);
  json_array_add_string_element (arguments, program ? program : argv[0]);
  for (guint i = 1; argv[i] != NULL; i++)
    json_array_add_string_element (arguments, argv[i]);
  for (guint i = 0; environ_copy[i] != NULL; i++)
    json_array_add_string_element (environment, environ_copy[i]);
  json_object_set_array_member (params, "argv", arguments);
  json_object_set_array_member (params, "env", environment);
  json_object_set_string_member (params, "cwd", cwd);
  /* The program writes where we write: our terminal, or our output. */
  if (isatty (STDOUT_FILENO) && ttyname (STDOUT_FILENO) != NULL)
    stdio = g_strdup (ttyname (STDOUT_FILENO));
  else
    stdio = g_strdup_printf ("/proc/%d/fd/%d", getpid (), STDOUT_FILENO);
  json_object_set_string_member (params, "stdio", stdio);

  say (self, "Starting program: %s\n", joined);
  if (!start_session (self, "launch", params, error))
    {
      g_prefix_error (error, "cannot run %s: ", argv[0]);
      return FALSE;
    }
  self->launched = TRUE;
  return TRUE;
}

/* ---- The terminal ------------------------------------------------------ */

static char *
complete_from_list (const char *text,
                    int         state)
{
  static guint index;
  FroggyShell *self = reading_shell;

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

static char **
complete_line (const char *text,
               int         start,
               int         end)
{
  FroggyShell *self = reading_shell;
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
    {
      for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
        g_strv_builder_add (builder, commands[i].name);
    }
  else if (text[0] == '$')
    {
      for (guint i = 0; i < G_N_ELEMENTS (general_registers); i++)
        {
          g_autofree char *name = g_strconcat ("$", general_registers[i], NULL);

          g_strv_builder_add (builder, name);
        }
      g_strv_builder_add_many (builder, "$pc", "$sp", "$fp", NULL);
    }
  else if ((g_str_equal (word, "info") || g_str_equal (word, "i")) && args[0] == '\0')
    {
      for (guint i = 0; i < G_N_ELEMENTS (info_commands); i++)
        g_strv_builder_add (builder, info_commands[i].name);
    }
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

static void
run_line (FroggyShell *self,
          const char  *line)
{
  gboolean blank = line[strspn (line, " \t")] == '\0';

  /* An empty line repeats a step or a continue, as in gdb. */
  if (blank && self->repeatable != NULL)
    line = self->repeatable;
  else if (!blank)
    {
      g_autofree char *word = NULL;
      const char *args;

      word = split_command (line, &args);
      g_clear_pointer (&self->repeatable, g_free);
      if (g_strv_contains ((const char * const[]) { "s", "step", "n", "next", "si", "stepi", "ni",
                                                    "nexti", "c", "continue", NULL }, word))
        self->repeatable = g_strdup (line);
    }
  {
    g_autofree char *copy = g_strdup (line);

    self->interrupt_pending = FALSE;
    froggy_shell_execute (self, copy);
  }
  if (self->quit)
    g_main_loop_quit (self->loop);
}

static void
on_readline_line (char *line)
{
  FroggyShell *self = reading_shell;

  self->at_prompt = FALSE;
  if (line == NULL)
    {
      /* Ctrl-D */
      fputs ("quit\n", stdout);
      cmd_quit (self, "");
    }
  else
    {
      if (line[strspn (line, " \t")] != '\0')
        add_history (line);
      run_line (self, line);
      free (line);
    }
  if (self->quit)
    rl_callback_handler_remove ();
  else
    self->at_prompt = TRUE;
}

static gboolean on_piped_input (int fd, GIOCondition condition, gpointer user_data);
static gboolean on_terminal_input (int fd, GIOCondition condition, gpointer user_data);

/* Stops reading the input while an event is handled at the prompt: a
 * line typed meanwhile waits its turn. */
static void
input_hold (FroggyShell *self)
{
  if (self->input_held++ == 0 && self->input_watch != 0)
    {
      g_source_remove (self->input_watch);
      self->input_watch = 0;
      self->input_was_watched = TRUE;
    }
}

static void
input_release (FroggyShell *self)
{
  g_assert (self->input_held > 0);
  if (--self->input_held == 0 && self->input_was_watched)
    {
      self->input_was_watched = FALSE;
      self->input_watch = g_unix_fd_add (STDIN_FILENO, G_IO_IN | G_IO_HUP | G_IO_ERR,
                                         self->interactive ? on_terminal_input : on_piped_input,
                                         self);
    }
}

static gboolean
on_terminal_input (int          fd,
                   GIOCondition condition,
                   gpointer     user_data)
{
  rl_callback_read_char ();
  return G_SOURCE_CONTINUE;
}

/* Not a terminal: whole lines, echoed after the prompt as gdb does not,
 * so a transcript reads like a session. */
static gboolean
on_piped_input (int          fd,
                GIOCondition condition,
                gpointer     user_data)
{
  FroggyShell *self = user_data;
  char buffer[4096];
  ssize_t done = read (fd, buffer, sizeof buffer);
  char *newline;

  if (done < 0 && (errno == EINTR || errno == EAGAIN))
    return G_SOURCE_CONTINUE;
  if (done <= 0)
    {
      if (self->pending_input->len > 0)
        run_line (self, self->pending_input->str);
      if (!self->quit)
        cmd_quit (self, "");
      self->input_watch = 0;
      return G_SOURCE_REMOVE;
    }
  g_string_append_len (self->pending_input, buffer, done);
  while (!self->quit && (newline = strchr (self->pending_input->str, '\n')) != NULL)
    {
      g_autofree char *line = g_strndup (self->pending_input->str, newline - self->pending_input->str);

      g_string_erase (self->pending_input, 0, newline - self->pending_input->str + 1);
      run_line (self, line);
    }
  if (self->quit)
    {
      self->input_watch = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

int
froggy_shell_run (FroggyShell *self)
{
  g_return_val_if_fail (FROGGY_IS_SHELL (self), 1);
  g_return_val_if_fail (reading_shell == NULL, 1);

  if (self->quit)
    return self->status;
  reading_shell = self;
  self->interactive = isatty (STDIN_FILENO);
  if (self->interactive)
    {
      self->history_path = g_build_filename (g_get_home_dir (), HISTORY_FILE, NULL);
      rl_readline_name = "froggy";
      rl_catch_signals = 0;
      rl_catch_sigwinch = 1;
      rl_attempted_completion_function = complete_line;
      rl_basic_word_break_characters = " \t\n=+-";
      using_history ();
      stifle_history (HISTORY_LINES);
      read_history (self->history_path);
      rl_callback_handler_install (PROMPT, on_readline_line);
      self->at_prompt = TRUE;
      self->input_watch = g_unix_fd_add (STDIN_FILENO, G_IO_IN | G_IO_HUP | G_IO_ERR, on_terminal_input, self);
    }
  else
    {
      self->pending_input = g_string_new (NULL);
      self->input_watch = g_unix_fd_add (STDIN_FILENO, G_IO_IN | G_IO_HUP | G_IO_ERR, on_piped_input, self);
    }

  g_main_loop_run (self->loop);

  if (self->interactive)
    {
      self->at_prompt = FALSE;
      rl_callback_handler_remove ();
      if (write_history (self->history_path) != 0)
        g_debug ("cannot write %s", self->history_path);
    }
  g_clear_handle_id (&self->input_watch, g_source_remove);
  reading_shell = NULL;
  return froggy_daemon_proxy_is_closed (self->daemon) ? 1 : 0;
}
