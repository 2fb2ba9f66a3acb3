/* froggy-event-printer.c: stops and events, worded as gdb words them
 *
 * "Thread 55 hit Breakpoint 1, leaf () at debuggee.c:41" and the source
 * line under it, a watchpoint's old and new value, a catchpoint, a
 * step's new line, signals, exits; and the places (function, file and
 * line, or the pc) the stack and thread commands print too.  It prints;
 * what a stop does to the shell's state is froggy-shell.c's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <string.h>

#include "froggy-shell-private.h"

static const char *
source_line (FroggyShell *self,
             const char  *path,
             gint64       line)
{
  GStrv lines;

  if (path == NULL || line <= 0)
    return NULL;
  if (!g_hash_table_lookup_extended (self->sources, path, NULL, (gpointer *) &lines))
    {
      g_autofree char *contents = NULL;

      lines = NULL;
      if (g_file_get_contents (path, &contents, NULL, NULL))
        lines = g_strsplit (contents, "\n", -1);
      g_hash_table_insert (self->sources, g_strdup (path), lines);
    }
  if (lines == NULL || line > g_strv_length (lines))
    return NULL;
  return lines[line - 1];
}

/* "main () at hello.c:12", "0x7f... in write ()", "0x7f... in ?? ()". */
char *
describe_place (JsonObject *place,
                gboolean    with_address)
{
  GString *text = g_string_new (NULL);
  const char *function = member_string (place, "function");
  const char *file = member_string (place, "file");
  gint64 line = member_int (place, "line", 0);

  if (with_address || file == NULL)
    g_string_append_printf (text, "0x%016" G_GINT64_MODIFIER "x in ", member_word (place, "pc"));
  g_string_append_printf (text, "%s ()", function ? function : "??");
  if (file != NULL && line > 0)
    {
      g_autofree char *base = g_path_get_basename (file);

      g_string_append_printf (text, " at %s:%" G_GINT64_FORMAT, base, line);
    }
  return g_string_free (text, FALSE);
}

/* The source line of a place, "12\t  x = 1;\n", or its line number alone
 * when the file cannot be read. */
char *
describe_source (FroggyShell *self,
                 JsonObject  *place)
{
  const char *file = member_string (place, "file");
  gint64 line = member_int (place, "line", 0);
  const char *text = source_line (self, file, line);

  if (line <= 0)
    return g_strdup ("");
  if (text == NULL)
    {
      g_autofree char *base = g_path_get_basename (file);

      return g_strdup_printf ("%" G_GINT64_FORMAT "\tin %s\n", line, base);
    }
  return g_strdup_printf ("%" G_GINT64_FORMAT "\t%s\n", line, text);
}

static void
say_place (FroggyShell *self,
           const char  *header,
           JsonObject  *event,
           gboolean     with_address)
{
  g_autofree char *place = describe_place (event, with_address);
  g_autofree char *source = describe_source (self, event);

  say (self, "%s%s\n%s", header, place, source);
}

static void
say_exit (FroggyShell *self,
          JsonObject  *event)
{
  gint64 thread = member_int (event, "thread", 0);
  gint64 pid = member_int (event, "pid", 0);

  if (thread != pid)
    say (self, "[Thread %" G_GINT64_FORMAT " exited]\n", thread);
  else if (json_object_has_member (event, "termsig"))
    {
      int termsig = member_int (event, "termsig", 0);

      say (self, "\n[Process %" G_GINT64_FORMAT " terminated with signal SIG%s, %s]\n",
           pid, sigabbrev_np (termsig) ? sigabbrev_np (termsig) : "?", strsignal (termsig));
    }
  else if (!json_object_has_member (event, "status"))
    say (self, "[Process %" G_GINT64_FORMAT " is gone, its exit status lost]\n", pid);
  else if (member_int (event, "code", 0) == 0)
    say (self, "[Process %" G_GINT64_FORMAT " exited normally]\n", pid);
  else
    say (self, "[Process %" G_GINT64_FORMAT " exited with code %" G_GINT64_FORMAT "]\n",
         pid, member_int (event, "code", 0));
}

static void
say_watchpoint (FroggyShell *self,
                JsonObject  *event)
{
  Point *point = point_by_daemon_id (self, POINT_WATCHPOINT, member_int (event, "watchpoint", 0));
  g_autoptr(GString) header = g_string_new (NULL);
  guint64 value = 0;

  if (point == NULL)
    {
      say_place (self, "\nWatchpoint hit, ", event, FALSE);
      return;
    }
  g_string_printf (header, "\nThread %" G_GINT64_FORMAT " hit Hardware %swatchpoint %u: %s\n\n",
                   member_int (event, "thread", 0), point->watch_reads ? "access (read/write) " : "",
                   point->number, point->what);
  if (read_word (self, point->watch_address, point->watch_length, &value))
    {
      if (value != point->old_value)
        g_string_append_printf (header, "Old value = %" G_GINT64_FORMAT "\nNew value = %" G_GINT64_FORMAT "\n\n",
                                (gint64) point->old_value, (gint64) value);
      else
        g_string_append_printf (header, "Value = %" G_GINT64_FORMAT "\n\n", (gint64) value);
      point->old_value = value;
    }
  say_place (self, header->str, event, FALSE);
}

static void
say_catch (FroggyShell *self,
           JsonObject  *event,
           const char  *kind,
           const char  *name,
           const char  *what)
{
  Point *point = point_for_catch (self, kind, name);
  g_autofree char *header = g_strdup_printf ("\nThread %" G_GINT64_FORMAT " hit Catchpoint %u (%s), ",
                                             member_int (event, "thread", 0),
                                             point ? point->number : 0, what);

  say_place (self, header, event, FALSE);
}

void
say_step (FroggyShell *self,
          JsonObject  *event,
          const char  *kind)
{
  const char *function = member_string (event, "function");
  g_autofree char *source = describe_source (self, event);

  if (g_strcmp0 (kind, "out") == 0)
    say_place (self, "", event, TRUE);
  else if (g_strcmp0 (kind, "instruction") == 0 && member_int (event, "line", 0) > 0 &&
           g_strcmp0 (function, self->last_function) == 0)
    say (self, "0x%016" G_GINT64_MODIFIER "x\t%s", member_word (event, "pc"), source);
  else if (g_strcmp0 (function, self->last_function) == 0 && member_int (event, "line", 0) > 0)
    say (self, "%s", source);
  else
    say_place (self, "", event, g_strcmp0 (kind, "instruction") == 0);
}

/* Prints what happened, the way gdb words it. */
void
say_event (FroggyShell *self,
           JsonObject  *event)
{
  const char *reason = member_string (event, "reason");
  gint64 thread = member_int (event, "thread", 0);
  gint64 pid = member_int (event, "pid", 0);
  gboolean stopped = member_bool (event, "stopped");
  g_autofree char *header = NULL;

  if (g_str_equal (reason, "launched"))
    say_place (self, "Program stopped at its exec, ", event, TRUE);
  else if (g_str_equal (reason, "attached"))
    {
      if (thread == pid)
        say_place (self, "", event, TRUE);
    }
  else if (g_str_equal (reason, "breakpoint-hit") && !stopped)
    {
      Point *point = point_by_daemon_id (self, POINT_BREAKPOINT, member_int (event, "breakpoint", 0));
      g_autofree char *base = g_path_get_basename (member_string (event, "file") ?: "??");

      /* A tracepoint: one line a hit, the program runs on. */
      say (self, "[Thread %" G_GINT64_FORMAT " passed tracepoint %u, %s () at %s:%" G_GINT64_FORMAT "]\n",
           thread, point ? point->number : 0, member_string (event, "function") ?: "??",
           base, member_int (event, "line", 0));
    }
  else if (g_str_equal (reason, "breakpoint-hit"))
    {
      Point *point = point_by_daemon_id (self, POINT_BREAKPOINT, member_int (event, "breakpoint", 0));

      header = g_strdup_printf ("\nThread %" G_GINT64_FORMAT " hit %s %u, ", thread,
                                point && point->temporary ? "Temporary breakpoint" : "Breakpoint",
                                point ? point->number : 0);
      say_place (self, header, event, FALSE);
      if (point != NULL && point->temporary)
        g_ptr_array_remove (self->points, point);
    }
  else if (g_str_equal (reason, "watchpoint"))
    say_watchpoint (self, event);
  else if (g_str_equal (reason, "step-done"))
    {
      if (!self->quiet_steps)
        say_step (self, event, member_string (event, "kind"));
    }
  else if (g_str_equal (reason, "interrupted"))
    {
      header = g_strdup_printf ("\nThread %" G_GINT64_FORMAT " stopped.\n", thread);
      say_place (self, header, event, TRUE);
    }
  else if (g_str_equal (reason, "signal"))
    {
      int signal = member_int (event, "signal", 0);

      if (!stopped)
        say (self, "[Thread %" G_GINT64_FORMAT " got signal %s]\n", thread, member_string (event, "name"));
      else
        {
          header = g_strdup_printf ("\nThread %" G_GINT64_FORMAT " received signal %s, %s.\n", thread,
                                    member_string (event, "name"), strsignal (signal));
          say_place (self, header, event, TRUE);
        }
    }
  else if (g_str_equal (reason, "syscall-entry") || g_str_equal (reason, "syscall-exit"))
    {
      const char *name = member_string (event, "name");
      const char *abi = member_string (event, "abi");
      gboolean entry = g_str_equal (reason, "syscall-entry");
      /* A 64-bit program's int $0x80 call: which table its name is from. */
      g_autofree char *foreign = abi != NULL && !g_str_equal (abi, "x86_64") ?
                                 g_strdup_printf (" (%s)", abi) : NULL;
      g_autofree char *what = g_strdup_printf ("%s syscall %s%s", entry ? "call to" : "returned from",
                                               name, foreign ? foreign : "");

      if (stopped)
        say_catch (self, event, "syscall", name, what);
      else if (entry)
        say (self, "[Thread %" G_GINT64_FORMAT " %s]\n", thread, what);
      else
        say (self, "[Thread %" G_GINT64_FORMAT " %s = %" G_GINT64_FORMAT "]\n", thread, what,
             member_int (event, "return", 0));
    }
  else if (g_str_equal (reason, "fork"))
    {
      g_autofree char *what = g_strdup_printf ("forked process %" G_GINT64_FORMAT, member_int (event, "child", 0));

      if (stopped)
        say_catch (self, event, "fork", NULL, what);
      else
        say (self, "[New process %" G_GINT64_FORMAT "]\n", member_int (event, "child", 0));
    }
  else if (g_str_equal (reason, "exec"))
    {
      g_autofree char *what = g_strdup_printf ("exec'd %s", member_string (event, "filename"));

      say (self, "process %" G_GINT64_FORMAT " is executing new program: %s\n", pid,
           member_string (event, "filename"));
      if (stopped)
        say_catch (self, event, "exec", NULL, what);
    }
  else if (g_str_equal (reason, "clone"))
    say (self, "[New Thread %" G_GINT64_FORMAT "]\n", member_int (event, "new_thread", 0));
  else if (g_str_equal (reason, "exiting"))
    {
      header = g_strdup_printf ("\nThread %" G_GINT64_FORMAT " is exiting, ", thread);
      say_place (self, header, event, TRUE);
    }
  else if (g_str_equal (reason, "exit"))
    say_exit (self, event);
  else if (g_str_equal (reason, "lost"))
    say (self, "[%" G_GINT64_FORMAT " events lost]\n", member_int (event, "count", 0));
}
