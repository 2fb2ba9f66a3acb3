/* froggy-shell-points.c: the shell's breakpoint records
 *
 * Breakpoints, watchpoints and catchpoints as the shell numbers them
 * (one sequence, as gdb has), found by that number, by the daemon's id
 * or by the stop a catchpoint caused.  What they do is
 * froggy-shell-breakpoints.c's; this floor holds only the records.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include "froggy-shell-private.h"

void
point_free (Point *point)
{
  g_free (point->what);
  g_free (point->address);
  g_free (point->function);
  g_free (point->file);
  g_free (point->condition);
  g_free (point->catch_kind);
  g_strfreev (point->catch_names);
  g_clear_pointer (&point->catch_params, json_object_unref);
  g_free (point);
}

Point *
point_by_number (FroggyShell *self,
                 guint        number)
{
  for (guint i = 0; i < self->points->len; i++)
    {
      Point *point = g_ptr_array_index (self->points, i);

      if (point->number == number)
        return point;
    }
  return NULL;
}

Point *
point_by_daemon_id (FroggyShell *self,
                    PointKind    kind,
                    gint64       id)
{
  for (guint i = 0; i < self->points->len; i++)
    {
      Point *point = g_ptr_array_index (self->points, i);

      if (point->kind == kind && point->daemon_id == id)
        return point;
    }
  return NULL;
}

/* The catchpoint a catch stop came from: the first enabled one of that
 * kind that names @name, or names nothing. */
Point *
point_for_catch (FroggyShell *self,
                 const char  *kind,
                 const char  *name)
{
  Point *any = NULL;

  for (guint i = 0; i < self->points->len; i++)
    {
      Point *point = g_ptr_array_index (self->points, i);

      if (point->kind != POINT_CATCHPOINT || !point->enabled || !g_str_equal (point->catch_kind, kind))
        continue;
      if (point->catch_names == NULL || (name != NULL && g_strv_contains ((const char * const *) point->catch_names, name)))
        return point;
      if (any == NULL)
        any = point;
    }
  /* Caught by number, not by name. */
  return any;
}
