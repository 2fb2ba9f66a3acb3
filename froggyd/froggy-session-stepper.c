/* froggy-session-stepper.c
 *
 * The stepper of a FroggySession: how a stopped thread goes on.  A thread
 * on one of our int3s steps over it (every other thread that runs in its
 * memory is held first, the original byte put back for one instruction,
 * then the int3); a source-level step (line, over, out) single-steps and
 * runs to return addresses until it reaches another line, and ends with a
 * "step-done" notification.
 *
 * The middle floor (see froggy-session-private.h), above the breakpoint
 * sites and the stop barrier: it uses both, and the notifications below.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include "froggy-device.h"
#include "froggy-error.h"
#include "froggy-registers.h"
#include "froggy-session-private.h"

static void step_over_paused (FroggySession *self, gpointer data);
static Site *thread_site (FroggySession *self, Thread *thread);
static gboolean thread_go (FroggySession *self, Thread *thread, guint32 action, int signo,
                           GError **error);

/* Whether a thread of process @pid is stepping over a breakpoint. */
static gboolean
process_stepping_over (FroggySession *self,
                       pid_t          pid)
{
  GHashTableIter iter;
  Thread *thread;

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    if (thread->pid == pid && thread->over_address != 0)
      return TRUE;
  return FALSE;
}

/* Whether @thread vforked a child that is stopped now, before its exec
 * (a stopping record of it came, and no exec record): then @thread runs
 * no user code until that child goes on.  It sleeps in vfork(), or is on
 * its way there, where the interrupt a hold gives a thread caught
 * running does not reach it: its stop would come only after the child's
 * exec, which a step-over waits for in vain. */
static gboolean
thread_waits_for_stopped_vfork_child (FroggySession *self,
                                      Thread        *thread)
{
  GHashTableIter iter;
  Process *process;

  g_hash_table_iter_init (&iter, self->processes);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &process))
    {
      Thread *child;

      if (process->vfork_caller != thread->tid)
        continue;
      child = thread_lookup (self, process->pid);
      if (child != NULL && child->stopped)
        return TRUE;
    }
  return FALSE;
}

/* Hold every thread that runs in @thread's memory (of its process, or of
 * a vfork child or parent sharing it): one asleep in a system call (a
 * thread waiting for a lock, a joiner, a vfork parent) is only held
 * there, not woken, and there is no stop of it to wait for.  Returns the
 * threads whose stop is to come. */
static GArray *
step_over_hold_others (FroggySession  *self,
                       Thread         *thread,
                       GError        **error)
{
  g_autoptr(GArray) others = g_array_new (FALSE, FALSE, sizeof (pid_t));
  GHashTableIter iter;
  Thread *other;

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
    {
      g_autoptr(GError) local_error = NULL;
      gboolean held;

      if (other == thread || other->stopped || !threads_share_memory (self, other, thread))
        continue;
      if (thread_waits_for_stopped_vfork_child (self, other))
        continue;
      if (!froggy_device_hold (self->device, other->id, &held, &local_error))
        {
          /* Exiting: its death record is on its way, and it runs no
           * more code to miss the breakpoint in. */
          if (g_error_matches (local_error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD))
            continue;
          g_propagate_error (error, g_steal_pointer (&local_error));
          return NULL;
        }
      other->paused = TRUE;
      other->pause_lapsed = FALSE;
      if (!held)
        g_array_append_val (others, other->tid);
    }
  return g_steal_pointer (&others);
}

/* The thread is stopped on an int3 of ours: stop every other running
 * thread of its process, then put the original byte back and step. */
static gboolean
thread_step_over (FroggySession  *self,
                  Thread         *thread,
                  AfterStepOver   then,
                  GError        **error)
{
  g_autoptr(GArray) others = NULL;

  thread->over_then = then;

  /* One step-over at a time in a process: while one is under way the
   * int3 is lifted, and a second would pause the first's thread in the
   * middle of its step.  This one starts when that one ends. */
  if (process_stepping_over (self, thread->pid))
    {
      thread->deferred = TRUE;
      return TRUE;
    }

  thread->over_address = thread_pc (self, thread);
  others = step_over_hold_others (self, thread, error);
  if (others == NULL)
    {
      /* Let go of those held so far: nothing was lifted yet. */
      step_over_done (self, thread);
      return FALSE;
    }
  stop_waiter_add (self, others, TRUE, step_over_paused, GINT_TO_POINTER (thread->tid));
  return TRUE;
}

typedef struct
{
  FroggySession *session;
  pid_t          tid;
} StepOverSync;

static void
step_over_sync_free (gpointer data)
{
  StepOverSync *sync = data;

  g_object_unref (sync->session);
  g_free (sync);
}

static gboolean
step_over_sync (gpointer user_data)
{
  StepOverSync *sync = user_data;
  FroggySession *self = sync->session;
  Thread *thread = thread_lookup (self, sync->tid);
  g_autoptr(GArray) others = NULL;
  g_autoptr(GError) error = NULL;
  Process *process;
  Site *site;

  thread->over_sync = 0;

  /* The threads we know of are stopped or held, but the records queued
   * before that may tell of others: a CLONE record waits for its batch
   * and can come after the stops.  Such a thread runs, unknown, and
   * would miss the breakpoint while the int3 is lifted: handle every
   * record queued so far, and hold whoever is new, first. */
  froggy_device_dispatch_through (self->device, G_MAXUINT64);
  thread = thread_lookup (self, sync->tid);
  if (self->ended || thread == NULL || thread->over_address == 0)
    return G_SOURCE_REMOVE;
  if (!thread->stopped)
    {
      /* Gone on by now (a record of it said so): no step to make. */
      step_over_done (self, thread);
      return G_SOURCE_REMOVE;
    }
  others = step_over_hold_others (self, thread, &error);
  if (others != NULL && others->len > 0)
    {
      g_debug ("thread %d's step-over waits for %u more threads", thread->tid, others->len);
      stop_waiter_add (self, others, TRUE, step_over_paused, GINT_TO_POINTER (thread->tid));
      return G_SOURCE_REMOVE;
    }

  /* The int3 is lifted only with every other thread held, and the step
   * made only with it lifted: else the thread would trap on it again. */
  process = process_lookup (self, thread->pid);
  site = g_hash_table_lookup (process->sites, &thread->over_address);
  if (others == NULL ||
      (site != NULL && !site_write (self, process, site->address, site->original, &error)) ||
      !thread_control (self, thread, UTRACE_CTL_SINGLESTEP, thread->over_signal, &error))
    {
      /* A thread that is gone (killed) needs no step. */
      if (g_error_matches (error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD))
        g_debug ("thread %d gone before its step-over: %s", thread->tid, error->message);
      else
        g_warning ("thread %d cannot step over the breakpoint at 0x%" G_GINT64_MODIFIER "x, "
                   "and stays there: %s", thread->tid, thread->over_address, error->message);
      step_over_done (self, thread);
    }
  thread->over_signal = -1;
  return G_SOURCE_REMOVE;
}

/* Every other thread is paused: the int3 is lifted from the main loop,
 * once the records that came with the stops are handled, never while
 * the device is handing them out. */
static void
step_over_paused (FroggySession *self,
                  gpointer       data)
{
  Thread *thread = thread_lookup (self, GPOINTER_TO_INT (data));
  StepOverSync *sync;

  if (thread == NULL || thread->over_sync != 0)
    return;
  sync = g_new0 (StepOverSync, 1);
  sync->session = g_object_ref (self);
  sync->tid = thread->tid;
  thread->over_sync = g_idle_add_full (G_PRIORITY_HIGH, step_over_sync, sync,
                                       step_over_sync_free);
}

/* Go on as asked before the thread was deferred: a step, or a resume
 * with the signal it was given (over the site, if it is on one). */
static gboolean
thread_resume_deferred (FroggySession *self,
                        Thread        *thread)
{
  if (thread->over_then == AFTER_STEP_OVER_STEP)
    return thread_single_step (self, thread, NULL);
  return thread_resume (self, thread, thread->over_signal, NULL);
}

/* The next thread left stopped on a site by a step-over steps over it in
 * turn; one at a time per process, the others wait for that to end. */
static gboolean
resume_deferred (gpointer user_data)
{
  FroggySession *self = user_data;
  GHashTableIter iter;
  Thread *thread;

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      if (!thread->deferred)
        continue;
      if (!thread->stopped)
        {
          thread->deferred = FALSE;
          continue;
        }
      if (process_stepping_over (self, thread->pid))
        continue;
      thread->deferred = FALSE;
      if (!thread_resume_deferred (self, thread))
        g_message ("thread %d could not resume after a step-over", thread->tid);
      /* A step-over started: its end calls us again for the others. */
      if (thread->over_address != 0)
        break;
      g_hash_table_iter_init (&iter, self->threads);
    }
  return G_SOURCE_REMOVE;
}

/* The step over the breakpoint is done: the int3 goes back, the threads
 * paused for it run on. */
void
step_over_done (FroggySession *self,
                Thread        *thread)
{
  Process *process = process_lookup (self, thread->pid);
  Site *site = g_hash_table_lookup (process->sites, &thread->over_address);
  Site *other_site;
  GHashTableIter iter;
  Thread *other;

  gboolean deferred = FALSE;

  g_autoptr(GError) error = NULL;

  g_clear_handle_id (&thread->over_sync, g_source_remove);
  if (site != NULL && !site_write (self, process, site->address, INT3, &error) &&
      !g_error_matches (error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD))
    g_warning ("the breakpoint at 0x%" G_GINT64_MODIFIER "x of process %d is lost: %s",
               site->address, process->pid, error->message);
  thread->over_address = 0;

  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
    {
      if (!threads_share_memory (self, other, thread))
        continue;
      if (other->deferred)
        deferred = TRUE;
      if (!other->paused)
        continue;
      other->paused = FALSE;
      /* Its stop is still to come, asked for this step-over only: the
       * record undoes it (see UTRACE_EV_STOP). */
      if (!other->stopped)
        {
          other->pause_lapsed = TRUE;
          continue;
        }
      /* One that stopped on a site of its own while paused needs a
       * step-over of its own, once this thread runs again, so that the
       * step-over pauses it too. */
      other_site = thread_site (self, other);
      if (other_site != NULL && !other_site->in_kernel)
        {
          other->deferred = deferred = TRUE;
          other->over_then = AFTER_STEP_OVER_RESUME;
          other->over_signal = -1;
        }
      else
        thread_go (self, other, UTRACE_CTL_RESUME, -1, NULL);
    }
  if (deferred)
    g_idle_add_full (G_PRIORITY_DEFAULT, resume_deferred, g_object_ref (self), g_object_unref);
}

/* The site at @thread's pc, or NULL. */
static Site *
thread_site (FroggySession *self,
             Thread        *thread)
{
  Process *process = process_lookup (self, thread->pid);
  guint64 pc = thread_pc (self, thread);

  return g_hash_table_lookup (process->sites, &pc);
}

gboolean
thread_on_site (FroggySession *self,
                Thread        *thread)
{
  return thread_site (self, thread) != NULL;
}

/* Let a stopped thread go on with @action (a resume or a step) from its
 * pc.  From an int3 of ours, through a step-over.  From a breakpoint the
 * kernel keeps, through the kernel's own step over it, which needs no
 * other thread held: at once if the thread stopped at its hit; else the
 * thread hits it first, and that hit goes on as asked here (see
 * on_breakpoint()). */
static gboolean
thread_go (FroggySession  *self,
           Thread         *thread,
           guint32         action,
           int             signo,
           GError        **error)
{
  Site *site = thread_site (self, thread);

  if (site != NULL && !site->in_kernel)
    {
      thread->over_signal = signo;
      return thread_step_over (self, thread,
                               action == UTRACE_CTL_RESUME ? AFTER_STEP_OVER_RESUME :
                                                             AFTER_STEP_OVER_STEP,
                               error);
    }
  thread->resumed_on = 0;
  if (site != NULL && site->address != thread->hit_address)
    {
      thread->resumed_on = site->address;
      thread->resumed_action = action;
    }
  return thread_control (self, thread, action, signo, error);
}

/* Let a stopped thread run, stepping over a breakpoint it sits on. */
gboolean
thread_resume (FroggySession  *self,
               Thread         *thread,
               int             signo,
               GError        **error)
{
  if (signo < 0 && thread->pending_signal)
    signo = thread->pending_signal;
  thread->pending_signal = 0;
  return thread_go (self, thread, UTRACE_CTL_RESUME, signo, error);
}

gboolean
thread_single_step (FroggySession  *self,
                    Thread         *thread,
                    GError        **error)
{
  return thread_go (self, thread, UTRACE_CTL_SINGLESTEP, -1, error);
}

void
thread_end_step (FroggySession *self,
                 Thread        *thread)
{
  if (thread->return_address != 0)
    {
      site_unref (self, process_lookup (self, thread->pid), thread->return_address);
      thread->return_address = 0;
    }
  thread->stepping = FALSE;
  g_clear_pointer (&thread->step_file, g_free);
}

void
thread_step_done (FroggySession *self,
                  Thread        *thread,
                  guint64        pc)
{
  static const char * const kinds[] = { "instruction", "line", "over", "out" };
  FroggyNotice notice;

  notice_init (self, &notice, "step-done", thread);
  notice.step_kind = kinds[thread->step_kind];
  thread_end_step (self, thread);
  notice_send (self, &notice, thread, pc);
}

/* Run to @address (the return address of a call, or a function's first
 * line), where the step goes on; @sp: only once the stack is above it. */
gboolean
thread_run_to (FroggySession  *self,
               Thread         *thread,
               guint64         address,
               guint64         sp,
               gboolean        ends_step,
               GError        **error)
{
  Process *process = process_lookup (self, thread->pid);

  if (!site_ref (self, process, address, error))
    return FALSE;
  thread->return_address = address;
  thread->return_sp = sp;
  thread->return_ends_step = ends_step;
  return thread_resume (self, thread, -1, error);
}

/* One more instruction of a line, over or out step has run. */
void
thread_step_logic (FroggySession *self,
                   Thread        *thread)
{
  Process *process = process_lookup (self, thread->pid);
  g_autoptr(FroggySymbol) symbol = NULL;
  g_autoptr(GError) error = NULL;
  struct user_regs_struct regs;
  guint64 return_address = 0;
  gboolean called = FALSE;
  gssize word;

  if (thread->step_kind == FROGGY_STEP_INSTRUCTION)
    {
      /* The next of a count, unless this one came to a breakpoint. */
      if (--thread->step_left > 0 && !thread_on_site (self, thread))
        {
          if (!thread_single_step (self, thread, &error))
            goto failed;
          return;
        }
      thread_step_done (self, thread, 0);
      return;
    }
  if (!froggy_device_get_regs (self->device, thread->id, &regs, &error))
    goto failed;

  /* A call pushed a return address just past the instruction we ran. */
  word = froggy_registers_word_size (&regs);
  if (regs.rsp == thread->step_prev_sp - word &&
      froggy_device_read_memory (self->device, thread->id, regs.rsp,
                                 &return_address, word, NULL) == word &&
      return_address > thread->step_prev_pc &&
      return_address <= thread->step_prev_pc + 15)
    called = TRUE;

  if (called)
    {
      if (thread->step_kind == FROGGY_STEP_OVER ||
          !froggy_symbolizer_has_lines (process->symbolizer, regs.rip))
        {
          if (!thread_run_to (self, thread, return_address, regs.rsp, FALSE, &error))
            goto failed;
          return;
        }
      /* Into a function with lines: stop after its prologue, as gdb. */
      symbol = froggy_symbolizer_lookup_address (process->symbolizer, regs.rip);
      if (symbol != NULL && symbol->function != NULL && symbol->offset == 0)
        {
          g_autoptr(GPtrArray) body = froggy_symbolizer_resolve_location (process->symbolizer,
                                                                          symbol->function, NULL);

          if (body != NULL && body->len > 0)
            {
              FroggySymbol *first = g_ptr_array_index (body, 0);

              if (first->address != regs.rip)
                {
                  if (!thread_run_to (self, thread, first->address, 0, TRUE, &error))
                    goto failed;
                  return;
                }
            }
        }
      thread_step_done (self, thread, regs.rip);
      return;
    }

  if (!froggy_symbolizer_has_lines (process->symbolizer, regs.rip))
    {
      /* Returned into code without lines (out of main, say): just run. */
      thread_end_step (self, thread);
      if (!thread_resume (self, thread, -1, &error))
        goto failed;
      return;
    }

  symbol = froggy_symbolizer_lookup_address (process->symbolizer, regs.rip);
  if (symbol != NULL && symbol->line > 0 &&
      (symbol->line != thread->step_line || g_strcmp0 (symbol->file, thread->step_file) != 0) &&
      froggy_symbolizer_is_line_start (process->symbolizer, regs.rip))
    {
      thread_step_done (self, thread, regs.rip);
      return;
    }

  thread->step_prev_pc = regs.rip;
  thread->step_prev_sp = regs.rsp;
  if (!thread_single_step (self, thread, &error))
    goto failed;
  return;

failed:
  g_message ("thread %d: the step ended early: %s", thread->tid, error->message);
  thread_step_done (self, thread, 0);
}

/* A stop that was asked for (an attach's, a launch's, a stop's) came:
 * the clients hear of it. */
void
thread_announce_stop (FroggySession *self,
                      Thread        *thread)
{
  if (!thread->announced)
    {
      thread->announced = TRUE;
      notify_simple (self, self->launched ? "launched" : "attached", thread);
    }
  else if (thread->stop_requested)
    notify_simple (self, "interrupted", thread);
  thread->stop_requested = FALSE;
}

void
resume_quietly (FroggySession *self,
                Thread        *thread)
{
  g_autoptr(GError) error = NULL;

  if (!thread->stopped)
    return;
  /* Paused for another's step-over: that resumes it when it ends. */
  if (thread->paused)
    return;
  /* A stop was asked of this thread (stop, attach, detach) and has not
   * come yet: this one serves, as resuming would cancel the request. */
  if (thread->stop_requested || !thread->announced || thread_awaited (self, thread->tid))
    {
      thread_announce_stop (self, thread);
      return;
    }
  if (!thread_resume (self, thread, -1, &error))
    g_message ("thread %d: %s", thread->tid, error->message);
}

/* A step of @kind starts: @count instructions, or a line, over or out. */
gboolean
thread_step_start (FroggySession   *self,
                   Thread          *thread,
                   FroggyStepKind   kind,
                   guint            count,
                   GError         **error)
{
  Process *process;
  g_autoptr(FroggySymbol) symbol = NULL;
  struct user_regs_struct regs;

  if (!froggy_device_get_regs (self->device, thread->id, &regs, error))
    return FALSE;
  process = process_lookup (self, thread->pid);

  thread_end_step (self, thread);
  thread->stepping = TRUE;
  thread->step_kind = kind;
  thread->step_left = MAX (count, 1);
  thread->step_prev_pc = regs.rip;
  thread->step_prev_sp = regs.rsp;
  symbol = froggy_symbolizer_lookup_address (process->symbolizer, regs.rip);
  if (symbol != NULL)
    {
      thread->step_file = g_strdup (symbol->file);
      thread->step_line = symbol->line;
    }

  if (kind == FROGGY_STEP_OUT)
    {
      guint64 low = 0, high = 0, return_address = 0;

      /* At the entry the return address is on top of the stack; further
       * in, the unwinder knows where it is. */
      if (froggy_symbolizer_function_bounds (process->symbolizer, regs.rip, &low, &high) &&
          low == regs.rip)
        froggy_device_read_memory (self->device, thread->id, regs.rsp, &return_address,
                                   froggy_registers_word_size (&regs), NULL);
      else
        {
          g_autoptr(GPtrArray) frames = thread_backtrace (self, thread, 2, NULL);

          if (frames != NULL && frames->len == 2)
            return_address = ((FroggySymbol *) g_ptr_array_index (frames, 1))->address;
        }
      if (return_address == 0)
        {
          thread_end_step (self, thread);
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NOT_FOUND,
                       "cannot find the caller of the function at 0x%llx", regs.rip);
          return FALSE;
        }
      if (!thread_run_to (self, thread, return_address, regs.rsp, TRUE, error))
        {
          thread_end_step (self, thread);
          return FALSE;
        }
      return TRUE;
    }

  if (!thread_single_step (self, thread, error))
    {
      thread_end_step (self, thread);
      return FALSE;
    }
  return TRUE;
}
