/* froggy-terminal.c: where the shell's lines come from
 *
 * At a terminal, readline in callback mode from the main loop: the
 * prompt, history in ~/.froggy_history, TAB completion
 * (froggy-completion.c); Ctrl-C stops the running program or drops the
 * line being typed.  From a pipe, plain lines.  An empty line repeats a
 * step or a continue, as in gdb; the end of the input quits.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <errno.h>
#include <glib-unix.h>
#include <stdio.h>
#include <readline/history.h>
#include <readline/readline.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "froggy-shell-private.h"

#define HISTORY_FILE ".froggy_history"
#define HISTORY_LINES 1000

/* Ctrl-C (SIGINT, watched from froggy_shell_new() on): stops the
 * program when it runs, or is about to; at the prompt, drops the line. */
gboolean
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
  FroggyShell *self = froggy_shell_reading ();

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
void
input_hold (FroggyShell *self)
{
  if (self->input_held++ == 0 && self->input_watch != 0)
    {
      g_source_remove (self->input_watch);
      self->input_watch = 0;
      self->input_was_watched = TRUE;
    }
}

void
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

/* froggy_shell_run(): the interactive loop, until quit or the end of
 * the input. */
int
froggy_terminal_run (FroggyShell *self)
{
  g_return_val_if_fail (froggy_shell_reading () == NULL, 1);

  if (self->quit)
    return self->status;
  froggy_shell_set_reading (self);
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
  froggy_shell_set_reading (NULL);
  return froggy_daemon_proxy_is_closed (self->daemon) ? 1 : 0;
}
