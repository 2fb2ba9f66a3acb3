/* froggy-session-sites.c
 *
 * Breakpoint sites: the breakpoints of a FroggySession in each process it
 * traces.  A Site is one breakpoint in one process, shared by the
 * breakpoints at its address and the daemon's own uses (a step's return
 * address); it keeps the byte memory reads show in its place.  It is the
 * kernel's (a uprobe, UTRACE_IOC_INSERT_BREAKPOINT) wherever the kernel
 * can put one: inserted with no thread stopped, stepped over by the
 * kernel, and copied into a followed fork child by the kernel.  Elsewhere
 * (code outside a file's mapping, or a kernel without them) it is an int3
 * we write, and the stepper steps threads over it.  A breakpoint is armed
 * in the first process at its resolved addresses; a forked child has a
 * copy of its parent's breakpoints until its exec, and a followed child
 * that ran when an int3 was set gets it at its next stop
 * (Process.pending).
 *
 * The middle floor (see froggy-session-private.h): it writes through the
 * stopped threads of the thread tables and leaves the threads it lets go
 * to the stop barrier; it notifies nobody.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <string.h>

#include "froggy-breakpoint.h"
#include "froggy-error.h"
#include "froggy-session-private.h"

gboolean
site_write (FroggySession  *self,
            Process        *process,
            guint64         address,
            guint8          byte,
            GError        **error)
{
  Thread *thread = process_stopped_thread (self, process->pid);

  if (thread == NULL)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_RUNNING,
                   "no thread of process %d is stopped: stop one first", process->pid);
      return FALSE;
    }
  return froggy_device_write_memory (self->device, thread->id, address, &byte, 1, error) == 1;
}

/* A thread of @process itself (not of a vfork relative sharing its
 * memory, whose exec would take the kernel's breakpoints with it), a
 * stopped one if it has one; NULL if none is known yet. */
static Thread *
process_thread (FroggySession *self,
                Process       *process)
{
  GHashTableIter iter;
  Thread *thread, *found = NULL;

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      if (thread->pid != process->pid || thread->id == 0)
        continue;
      if (thread->stopped)
        return thread;
      found = thread;
    }
  return found;
}

/* Put a breakpoint at @address of @process through the kernel's uprobes
 * (UTRACE_IOC_INSERT_BREAKPOINT), which needs no thread stopped.  FALSE
 * where the kernel has none, or cannot take that place (code outside a
 * file's mapping, a JIT's say): an int3 of ours goes there instead. */
static gboolean
site_insert_in_kernel (FroggySession  *self,
                       Process        *process,
                       guint64         address,
                       guint8         *original,
                       GError        **error)
{
  Thread *thread = process_thread (self, process);

  if (!froggy_device_has_feature (self->device, UTRACE_FEATURE_BREAKPOINTS) ||
      thread == NULL || process_shares_memory (process))
    return FALSE;
  return froggy_device_insert_breakpoint (self->device, thread->id, address, original, error);
}

gboolean
site_ref (FroggySession  *self,
          Process        *process,
          guint64         address,
          GError        **error)
{
  Site *site = g_hash_table_lookup (process->sites, &address);
  g_autoptr(GError) kernel_error = NULL;
  gboolean in_kernel;
  Thread *thread;
  guint8 original, int3 = INT3;

  if (site != NULL)
    {
      site->users++;
      return TRUE;
    }

  in_kernel = site_insert_in_kernel (self, process, address, &original, &kernel_error);
  if (!in_kernel)
    {
      thread = process_stopped_thread (self, process->pid);
      if (thread == NULL)
        {
          if (kernel_error != NULL)
            g_propagate_error (error, g_steal_pointer (&kernel_error));
          else
            g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_RUNNING,
                         "no thread of process %d is stopped: stop one first", process->pid);
          return FALSE;
        }
      if (kernel_error != NULL)
        g_debug ("process %d: an int3 at 0x%" G_GINT64_MODIFIER "x: %s",
                 process->pid, address, kernel_error->message);
      if (froggy_device_read_memory (self->device, thread->id, address, &original, 1, error) != 1)
        return FALSE;
      if (froggy_device_write_memory (self->device, thread->id, address, &int3, 1, error) != 1)
        return FALSE;
    }

  site = g_new0 (Site, 1);
  site->address = address;
  site->original = original;
  site->users = 1;
  site->in_kernel = in_kernel;
  g_hash_table_insert (process->sites, &site->address, site);
  g_hash_table_remove (process->lifted, &address);
  return TRUE;
}

/* Take the kernel's breakpoint at @site out of @process (a fork child's
 * copy is its own, found by its address).  One that is gone already went
 * with its process's exec or death, or goes with the session: logged. */
static void
site_remove_from_kernel (FroggySession *self,
                         Process       *process,
                         Site          *site)
{
  Thread *thread = process_thread (self, process);
  g_autoptr(GError) error = NULL;

  if (thread == NULL)
    g_debug ("process %d: the breakpoint at 0x%" G_GINT64_MODIFIER "x: no thread left",
             process->pid, site->address);
  else if (!froggy_device_remove_breakpoint (self->device, thread->id, site->address, &error))
    g_debug ("process %d: the breakpoint at 0x%" G_GINT64_MODIFIER "x: %s",
             process->pid, site->address, error->message);
}

/* @site's int3 is out: a thread that trapped on it before, its record
 * not read yet, is to run the instruction as if it never was there. */
static void
site_lifted (Process *process,
             Site    *site)
{
  if (site->original != INT3)
    g_hash_table_add (process->lifted, g_memdup2 (&site->address, sizeof site->address));
}

void
site_unref (FroggySession *self,
            Process       *process,
            guint64        address)
{
  Site *site = g_hash_table_lookup (process->sites, &address);
  g_autoptr(GError) error = NULL;

  if (site == NULL || --site->users > 0)
    return;
  if (site->in_kernel)
    {
      site_remove_from_kernel (self, process, site);
      g_hash_table_remove (process->sites, &address);
      return;
    }
  /* Nothing stopped to write through: the int3 stays, and the site with
   * it, unused, so that a thread that reaches it steps over it unseen;
   * it goes at the process's next stop (sites_flush()). */
  if (!site_write (self, process, address, site->original, &error))
    {
      g_debug ("process %d: the int3 at 0x%" G_GINT64_MODIFIER "x goes at its next stop: %s",
               process->pid, address, error->message);
      return;
    }
  site_lifted (process, site);
  g_hash_table_remove (process->sites, &address);
}

/* Take out the int3s of sites nobody uses any more (site_unref() could
 * not): a thread of @process is stopped now. */
void
sites_flush (FroggySession *self,
             Process       *process)
{
  GHashTableIter iter;
  Site *site;

  g_hash_table_iter_init (&iter, process->sites);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &site))
    if (site->users == 0 && site_write (self, process, site->address, site->original, NULL))
      {
        site_lifted (process, site);
        g_hash_table_iter_remove (&iter);
      }
}

/* Every int3 out of @process, for a detach or an unfollowed fork child. */
void
process_remove_sites (FroggySession *self,
                      Process       *process)
{
  GHashTableIter iter;
  Site *site;

  g_hash_table_iter_init (&iter, process->sites);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &site))
    {
      g_autoptr(GError) error = NULL;

      /* Taking them out of a vfork child would take them out of its
       * parent, which still has them. */
      if (process_shares_memory (process))
        {
          g_hash_table_iter_remove (&iter);
          continue;
        }
      if (site->in_kernel)
        site_remove_from_kernel (self, process, site);
      else if (!site_write (self, process, site->address, site->original, &error))
        g_warning ("process %d keeps a breakpoint at 0x%" G_GINT64_MODIFIER "x: %s",
                   process->pid, site->address, error->message);
      g_hash_table_iter_remove (&iter);
    }
}

/* Whether @process has int3s of ours, which only a stopped thread of it
 * can take out. */
gboolean
process_has_int3s (Process *process)
{
  GHashTableIter iter;
  Site *site;

  g_hash_table_iter_init (&iter, process->sites);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &site))
    if (!site->in_kernel)
      return TRUE;
  return FALSE;
}

/* A stopped thread of a child nobody follows: take our int3s out of its
 * memory and let it go, out of the session.  A vfork child runs in its
 * parent's memory, int3s included, until it execs or dies: it stays till
 * then, unseen, stepping over them, and FALSE says so. */
gboolean
process_let_go (FroggySession *self,
                Thread        *thread)
{
  Process *process = process_lookup (self, thread->pid);
  pid_t tid = thread->tid;

  if (process_shares_memory (process))
    return FALSE;
  process_remove_sites (self, process);
  froggy_device_detach (self->device, thread->id, NULL);
  g_hash_table_remove (self->threads, GINT_TO_POINTER (tid));
  /* Gone from the session: nobody waits for it any more. */
  stop_waiters_update (self, tid);
  return TRUE;
}

gboolean
breakpoint_arm (FroggySession     *self,
                FroggyBreakpoint  *breakpoint,
                GError           **error)
{
  Process *process = process_lookup (self, self->pid);

  for (guint i = 0; i < breakpoint->addresses->len; i++)
    {
      if (!site_ref (self, process, g_array_index (breakpoint->addresses, guint64, i), error))
        {
          while (i-- > 0)
            site_unref (self, process, g_array_index (breakpoint->addresses, guint64, i));
          return FALSE;
        }
    }
  return TRUE;
}

/* Interrupt a thread of @process, a child with breakpoints pending and
 * none of its threads stopped to write them through: its stop arms them
 * (see process_arm_pending()), and it runs on as a lapsed pause does,
 * unless a stop was asked of it meanwhile.  One that sleeps in a system
 * call is woken for it, as by a stop, and the call restarts where Linux
 * restarts calls after a stop.  A thread that steps is left alone: the
 * stop at its step's end serves. */
void
process_interrupt_to_arm (FroggySession *self,
                          Process       *process)
{
  GHashTableIter iter;
  Thread *thread;

  if (process->arming != 0 || g_hash_table_size (process->pending) == 0)
    return;
  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      if (thread->pid != process->pid || thread->id == 0 || thread->paused ||
          thread->stepping || thread->over_address != 0)
        continue;
      /* Exiting already: another thread may serve. */
      if (!thread_control (self, thread, UTRACE_CTL_INTERRUPT, -1, NULL))
        continue;
      thread->pause_lapsed = TRUE;
      process->arming = thread->tid;
      return;
    }
  g_debug ("process %d: no thread to stop for its %u pending breakpoints",
           process->pid, g_hash_table_size (process->pending));
}

/* Arm breakpoint @id at @address of @process, a child, unless another
 * breakpoint is armed there.  With no thread of it stopped, it is armed
 * at the child's next stop, which an interrupt brings about; one that
 * cannot be written goes without (logged). */
static void
process_arm_at (FroggySession *self,
                Process       *process,
                guint64        address,
                guint          id)
{
  g_autoptr(GError) error = NULL;

  if (g_hash_table_contains (process->armed, &address) ||
      g_hash_table_contains (process->pending, &address))
    return;
  /* The kernel inserts breakpoints in a running process; an int3 of
   * ours goes in through a stopped thread. */
  if (!froggy_device_has_feature (self->device, UTRACE_FEATURE_BREAKPOINTS) &&
      process_stopped_thread (self, process->pid) == NULL)
    {
      g_hash_table_insert (process->pending, g_memdup2 (&address, sizeof address),
                           GUINT_TO_POINTER (id));
      process_interrupt_to_arm (self, process);
      return;
    }
  if (!site_ref (self, process, address, &error))
    {
      g_debug ("breakpoint %u not set in process %d: %s",
               id, process->pid, error->message);
      return;
    }
  g_hash_table_insert (process->armed, g_memdup2 (&address, sizeof address),
                       GUINT_TO_POINTER (id));
}

/* A thread of @process is stopped now: its pending breakpoints go in. */
void
process_arm_pending (FroggySession *self,
                     Process       *process)
{
  g_autoptr(GHashTable) pending = NULL;
  GHashTableIter iter;
  gpointer key, value;

  process->arming = 0;
  if (g_hash_table_size (process->pending) == 0)
    return;
  /* A detach takes every int3 out: none goes in now. */
  if (self->detaching)
    {
      g_hash_table_remove_all (process->pending);
      return;
    }
  pending = g_steal_pointer (&process->pending);
  process->pending = address_table_new ();
  g_hash_table_iter_init (&iter, pending);
  while (g_hash_table_iter_next (&iter, &key, &value))
    process_arm_at (self, process, *(guint64 *) key, GPOINTER_TO_UINT (value));
}

/* A breakpoint set by function name, in the new image of a followed
 * child that exec'd: its addresses there are the child's own. */
void
breakpoint_arm_in_child (FroggySession    *self,
                         FroggyBreakpoint *breakpoint,
                         Process          *process)
{
  g_autoptr(GPtrArray) symbols = NULL;

  symbols = froggy_symbolizer_resolve_location (process->symbolizer, breakpoint->location, NULL);
  for (guint i = 0; symbols != NULL && i < symbols->len; i++)
    {
      FroggySymbol *symbol = g_ptr_array_index (symbols, i);

      process_arm_at (self, process, symbol->address, breakpoint->id);
    }
}

/* A breakpoint inserted or enabled after forks goes into every followed
 * child with memory of its own, as it would have been copied there had
 * it been set before: at its addresses in a copy of the first process's
 * image, by function name in another image.  A child whose threads all
 * run gets it at its next stop: until then, it may run past it. */
void
breakpoint_arm_in_children (FroggySession    *self,
                            FroggyBreakpoint *breakpoint)
{
  Process *first = process_lookup (self, self->pid);
  GHashTableIter iter;
  Process *process;

  g_hash_table_iter_init (&iter, self->processes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &process))
    {
      if (process == first || !process->followed || process_shares_memory (process))
        continue;
      if (process->image != first->image)
        {
          if (breakpoint->by_function)
            breakpoint_arm_in_child (self, breakpoint, process);
          continue;
        }
      for (guint i = 0; i < breakpoint->addresses->len; i++)
        process_arm_at (self, process, g_array_index (breakpoint->addresses, guint64, i),
                        breakpoint->id);
    }
}

static gboolean
pending_is_breakpoint (gpointer key,
                       gpointer value,
                       gpointer id)
{
  return value == id;
}

void
breakpoint_disarm (FroggySession    *self,
                   FroggyBreakpoint *breakpoint)
{
  Process *process = process_lookup (self, self->pid);
  GHashTableIter iter;
  gpointer key, value;

  for (guint i = 0; i < breakpoint->addresses->len; i++)
    site_unref (self, process, g_array_index (breakpoint->addresses, guint64, i));

  /* And wherever children armed it. */
  g_hash_table_iter_init (&iter, self->processes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &process))
    {
      GHashTableIter armed;

      g_hash_table_iter_init (&armed, process->armed);
      while (g_hash_table_iter_next (&armed, &key, &value))
        {
          if (GPOINTER_TO_UINT (value) != breakpoint->id)
            continue;
          site_unref (self, process, *(guint64 *) key);
          g_hash_table_iter_remove (&armed);
        }
      g_hash_table_foreach_remove (process->pending, pending_is_breakpoint,
                                   GUINT_TO_POINTER (breakpoint->id));
    }
}

gboolean
resolve_breakpoint (FroggySession     *self,
                    FroggyBreakpoint  *breakpoint,
                    GError           **error)
{
  Process *process = process_lookup (self, self->pid);
  g_autoptr(GPtrArray) symbols = NULL;

  symbols = froggy_symbolizer_resolve_location (process->symbolizer, breakpoint->location, NULL);
  if (symbols == NULL)
    {
      froggy_symbolizer_refresh (process->symbolizer, NULL);
      symbols = froggy_symbolizer_resolve_location (process->symbolizer, breakpoint->location, NULL);
    }
  if (symbols == NULL || symbols->len == 0)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NOT_FOUND,
                   "no code at \"%s\"", breakpoint->location);
      return FALSE;
    }

  g_array_set_size (breakpoint->addresses, 0);
  for (guint i = 0; i < symbols->len; i++)
    {
      FroggySymbol *symbol = g_ptr_array_index (symbols, i);

      g_array_append_val (breakpoint->addresses, symbol->address);
      if (i == 0)
        {
          g_free (breakpoint->function);
          g_free (breakpoint->file);
          breakpoint->function = g_strdup (symbol->function);
          breakpoint->file = g_strdup (symbol->file);
          breakpoint->line = symbol->line;
        }
    }
  return TRUE;
}

FroggyBreakpoint *
breakpoint_get (FroggySession  *self,
                guint           id,
                GError        **error)
{
  for (guint i = 0; i < self->breakpoints->len; i++)
    {
      FroggyBreakpoint *breakpoint = g_ptr_array_index (self->breakpoints, i);

      if (breakpoint->id == id)
        return breakpoint;
    }
  g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NO_BREAKPOINT, "no breakpoint %u", id);
  return NULL;
}

/* Arm @child_process's copy of its parent's breakpoints, after a fork:
 * until its exec it runs its parent's image, int3s included, so their
 * hits are its own, and disabling or removing a breakpoint takes its
 * int3 out of the child too (see breakpoint_disarm()). */
static void
process_inherit_armed (FroggySession *self,
                       Process       *parent_process,
                       Process       *child_process)
{
  if (parent_process->pid != self->pid)
    {
      address_table_add_all (child_process->armed, parent_process->armed);
      return;
    }

  for (guint i = 0; i < self->breakpoints->len; i++)
    {
      FroggyBreakpoint *breakpoint = g_ptr_array_index (self->breakpoints, i);

      if (!breakpoint->enabled)
        continue;
      for (guint j = 0; j < breakpoint->addresses->len; j++)
        {
          guint64 address = g_array_index (breakpoint->addresses, guint64, j);

          /* The first breakpoint at an address is the one that stops. */
          if (g_hash_table_contains (child_process->sites, &address) &&
              !g_hash_table_contains (child_process->armed, &address))
            g_hash_table_insert (child_process->armed, g_memdup2 (&address, sizeof address),
                                 GUINT_TO_POINTER (breakpoint->id));
        }
    }
}

/* @child is the first thread of a process forked from @parent_process.
 * It has a copy of the parent's int3s, which are its breakpoints until
 * its exec, or, sharing its memory (vfork), the very same ones, which
 * stay its parent's.  Unless forks are followed, it is let go at its
 * first stop; a vfork child at its exec (see process_let_go()).
 * @vfork_caller: the thread of the parent that waits for it in vfork(),
 * or 0. */
void
process_inherit (FroggySession *self,
                 Process       *parent_process,
                 Thread        *child,
                 gboolean       shares_memory,
                 pid_t          vfork_caller)
{
  Process *process = process_lookup (self, child->pid);
  GHashTableIter iter;
  Site *site;

  if (shares_memory)
    {
      process->memory_of = parent_process->memory_of;
      process->vfork_caller = vfork_caller;
    }
  process->image = parent_process->image;
  g_hash_table_iter_init (&iter, parent_process->sites);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &site))
    {
      Site *copy = g_memdup2 (site, sizeof *site);

      g_hash_table_insert (process->sites, &copy->address, copy);
    }
  if (!shares_memory)
    process_inherit_armed (self, parent_process, process);
  if (!self->follow_fork)
    {
      process->followed = FALSE;
      thread_control (self, child, UTRACE_CTL_INTERRUPT, -1, NULL);
      return;
    }
  /* Those its parent was yet to get are the child's to get too. */
  if (!shares_memory)
    {
      address_table_add_all (process->pending, parent_process->pending);
      process_interrupt_to_arm (self, process);
    }
}

/* Breakpoint @id out of every process, and forgotten. */
gboolean
breakpoint_remove (FroggySession  *self,
                   guint           id,
                   GError        **error)
{
  FroggyBreakpoint *breakpoint = breakpoint_get (self, id, error);

  if (breakpoint == NULL)
    return FALSE;
  if (breakpoint->enabled)
    breakpoint_disarm (self, breakpoint);
  g_ptr_array_remove (self->breakpoints, breakpoint);
  return TRUE;
}
