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
 * The shell's files stand in floors, each calling only those below it:
 *
 *   froggy-shell.c             the object: its state, events, public API
 *   froggy-terminal.c          readline, history, Ctrl-C, piped input
 *   froggy-completion.c        TAB completion
 *   froggy-shell-dispatch.c    the command tables: find, info, help
 *   froggy-shell-session.c     threads, detach, kill, quit
 *   froggy-shell-breakpoints.c, -running.c, -stack.c, -data.c
 *                              the command families, each with its table
 *   froggy-shell-eval.c, froggy-event-printer.c
 *                              values; stops and places as gdb words them
 *   froggy-shell-base.c, froggy-shell-points.c
 *                              output, daemon calls; the breakpoint records
 *
 * froggy-shell-private.h declares what they share.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <glib-unix.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "froggy-shell-private.h"

G_DEFINE_FINAL_TYPE (FroggyShell, froggy_shell, G_TYPE_OBJECT)

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

void
froggy_shell_end_session (FroggyShell *self)
{
  g_return_if_fail (FROGGY_IS_SHELL (self));

  end_session (self);
}

gboolean
froggy_shell_execute (FroggyShell *self,
                      const char  *line)
{
  g_return_val_if_fail (FROGGY_IS_SHELL (self), FALSE);

  return dispatch (self, line);
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

int
froggy_shell_run (FroggyShell *self)
{
  g_return_val_if_fail (FROGGY_IS_SHELL (self), 1);

  return froggy_terminal_run (self);
}
