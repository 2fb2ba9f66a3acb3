/* froggy-breakpoint.c
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <string.h>

#include "froggy-breakpoint.h"
#include "froggy-error.h"
#include "froggy-params.h"
#include "froggy-registers.h"

enum {
  OP_EQ,
  OP_NE,
  OP_LT,
  OP_LE,
  OP_GT,
  OP_GE,
};

static const char * const operators[] = {
  [OP_EQ] = "==", [OP_NE] = "!=", [OP_LT] = "<",
  [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">=",
};

FroggyBreakpoint *
froggy_breakpoint_new (guint       id,
                       const char *location)
{
  FroggyBreakpoint *self = g_new0 (FroggyBreakpoint, 1);

  self->id = id;
  self->location = g_strdup (location);
  self->addresses = g_array_new (FALSE, FALSE, sizeof (guint64));
  self->enabled = TRUE;
  return self;
}

void
froggy_breakpoint_free (FroggyBreakpoint *self)
{
  if (self == NULL)
    return;
  g_free (self->location);
  g_array_unref (self->addresses);
  g_free (self->function);
  g_free (self->file);
  g_free (self->condition);
  g_free (self->condition_register);
  g_free (self);
}

gboolean
froggy_breakpoint_set_condition (FroggyBreakpoint  *self,
                                 const char        *condition,
                                 GError           **error)
{
  g_auto(GStrv) words = g_strsplit_set (condition, " \t", -1);
  g_autoptr(GPtrArray) parts = g_ptr_array_new ();
  struct user_regs_struct probe = { 0 };
  int op = -1;

  for (guint i = 0; words[i] != NULL; i++)
    if (words[i][0] != '\0')
      g_ptr_array_add (parts, words[i]);

  if (parts->len == 3)
    for (guint i = 0; i < G_N_ELEMENTS (operators); i++)
      if (strcmp (operators[i], parts->pdata[1]) == 0)
        op = i;

  if (parts->len != 3 || op < 0 ||
      ((const char *) parts->pdata[0])[0] != '$' ||
      froggy_registers_lookup (&probe, parts->pdata[0]) == NULL ||
      !froggy_parse_word (parts->pdata[2], &self->condition_value))
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "condition \"%s\" is not \"$REGISTER OP NUMBER\" "
                   "(OP one of == != < <= > >=)", condition);
      return FALSE;
    }

  g_free (self->condition);
  g_free (self->condition_register);
  self->condition = g_strdup (condition);
  self->condition_register = g_strdup (parts->pdata[0]);
  self->condition_op = op;
  return TRUE;
}

gboolean
froggy_breakpoint_has_address (FroggyBreakpoint *self,
                               guint64           address)
{
  for (guint i = 0; i < self->addresses->len; i++)
    if (g_array_index (self->addresses, guint64, i) == address)
      return TRUE;
  return FALSE;
}

static gboolean
froggy_breakpoint_condition_holds (FroggyBreakpoint        *self,
                                   struct user_regs_struct *regs)
{
  guint64 value;

  if (self->condition == NULL)
    return TRUE;
  value = *froggy_registers_lookup (regs, self->condition_register);
  switch (self->condition_op)
    {
    case OP_EQ: return value == self->condition_value;
    case OP_NE: return value != self->condition_value;
    case OP_LT: return value < self->condition_value;
    case OP_LE: return value <= self->condition_value;
    case OP_GT: return value > self->condition_value;
    case OP_GE: return value >= self->condition_value;
    default: g_assert_not_reached ();
    }
}

gboolean
froggy_breakpoint_should_stop (FroggyBreakpoint        *self,
                               pid_t                    tid,
                               struct user_regs_struct *regs)
{
  if (!self->enabled)
    return FALSE;
  if (self->thread != 0 && self->thread != tid)
    return FALSE;
  if (!froggy_breakpoint_condition_holds (self, regs))
    return FALSE;
  /* As gdb counts them: every hit whose condition holds, ignored or not. */
  self->hits++;
  if (self->ignore_count > 0)
    {
      self->ignore_count--;
      return FALSE;
    }
  return TRUE;
}

