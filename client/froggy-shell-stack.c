/* froggy-shell-stack.c: backtrace, frame, up, down, info frame
 *
 * The selected thread's backtrace, asked of the daemon once a stop
 * (ensure_frames()), and the frame selected in it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include "froggy-shell-private.h"

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

gboolean
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

static gboolean
info_frame (FroggyShell *self,
            const char  *args)
{
  return cmd_frame (self, "");
}

const Command froggy_shell_stack_commands[] = {
  { "backtrace", "bt where", cmd_backtrace, "backtrace [N]", "Print the stack, innermost frame first." },
  { "frame", "f", cmd_frame, "frame [N]", "Select and print stack frame N." },
  { "up", NULL, cmd_up, "up [N]", "Select the frame N levels out (calling)." },
  { "down", "do", cmd_down, "down [N]", "Select the frame N levels in (called)." },
  { .name = NULL }
};

const InfoCommand froggy_shell_stack_info_commands[] = {
  { "frame", info_frame },
  { .name = NULL }
};
