/* froggy-shell-session.c: info threads, thread, detach, kill, quit
 *
 * The threads of the session and the thread selected among them, and
 * the end of the session: detached, killed, or either as gdb chooses
 * when it quits.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include "froggy-shell-private.h"

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

/* Lets go of the session, as gdb does when it quits: detaches from an
 * attached process, kills a launched one. */
void
end_session (FroggyShell *self)
{
  if (self->session == 0 || froggy_daemon_proxy_is_closed (self->daemon))
    return;
  if (self->launched)
    cmd_kill (self, "");
  else
    cmd_detach (self, "");
}

gboolean
cmd_quit (FroggyShell *self,
          const char  *args)
{
  end_session (self);
  self->quit = TRUE;
  g_main_loop_quit (self->loop);
  return TRUE;
}

const Command froggy_shell_session_commands[] = {
  { "thread", "t", cmd_thread, "thread [TID]", "Select the thread with kernel thread id TID." },
  { "detach", NULL, cmd_detach, "detach", "Let the program go on untraced." },
  { "kill", "k", cmd_kill, "kill", "Kill the program." },
  { "quit", "q exit", cmd_quit, "quit",
    "Leave froggy: an attached program is detached, a started one killed." },
  { .name = NULL }
};

const InfoCommand froggy_shell_session_info_commands[] = {
  { "threads", info_threads },
  { .name = NULL }
};
