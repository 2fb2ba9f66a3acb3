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
    dispatch (self, copy);
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
