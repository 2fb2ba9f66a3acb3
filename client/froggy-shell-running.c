/* froggy-shell-running.c: continue, signal, interrupt, step, next,
 * stepi, nexti, finish
 *
 * Letting the program run and waiting, as gdb does in all-stop mode,
 * for a thread to stop; then stopping the others.  Also the stops the
 * rest of the shell asks for: all threads at once (stop_all), or
 * without waiting (request_stop, for Ctrl-C).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <string.h>

#include "froggy-shell-private.h"

/* Stops every thread, quietly: the program is seen at one moment. */
void
stop_all (FroggyShell *self)
{
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(GError) error = NULL;

  if (self->session == 0)
    return;
  self->stopping_all = TRUE;
  result = froggy_daemon_proxy_call (self->daemon, "stop", session_params (self), &error);
  self->stopping_all = FALSE;
  if (result == NULL)
    {
      /* Not stopped: say why, unless the program is gone meanwhile (its
       * end was printed, and the session with it). */
      if (self->session != 0 && !g_error_matches (error, FROGGY_RPC_ERROR, FROGGY_RPC_ERROR_NO_SESSION))
        say_error (self, error);
      return;
    }
  self->running = FALSE;
}

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

/* Waits until a thread stops or the session ends; then stops the other
 * threads and selects the one that stopped.  Ctrl-C stops them all
 * meanwhile (on_interrupt_signal). */
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
void
request_stop (FroggyShell *self)
{
  froggy_daemon_proxy_call_async (self->daemon, "stop", session_params (self), NULL, NULL, NULL);
}

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

const Command froggy_shell_running_commands[] = {
  { "continue", "c cont fg", cmd_continue, "continue [SIGNAL] [&]",
    "Let the program run (with a signal to deliver; & to keep the prompt)." },
  { "signal", NULL, cmd_signal, "signal SIGNAL", "Continue, delivering SIGNAL (0: none) to this thread." },
  { "interrupt", NULL, cmd_interrupt, "interrupt", "Stop a program running in the background." },
  { "step", "s", cmd_step, "step [N]", "Step to the next source line, into calls." },
  { "next", "n", cmd_next, "next [N]", "Step to the next source line, over calls." },
  { "stepi", "si", cmd_stepi, "stepi [N]", "Step one instruction." },
  { "nexti", "ni", cmd_nexti, "nexti [N]", "Step one instruction, over calls." },
  { "finish", "fin", cmd_finish, "finish", "Run until the current function returns; print its value ($rax)." },
  { .name = NULL }
};
