/* froggy-session-records.c
 *
 * The record handlers of a FroggySession: every record the device reads
 * for the session ends here (session_record()).  A record either ends in a
 * notification to the clients, with the thread left stopped for them, or
 * is handled here and the thread goes on (a breakpoint whose condition is
 * false, a step of a source-level step, an event nobody asked to see).
 *
 * The kernel drops non-stopping records when the session falls 4096
 * behind (a LOST record counts them): CLONE and DEATH records among them.
 * After a loss the session resyncs from the kernel's list of the threads
 * attached (threads_resync()): one that is gone ends as if its DEATH had
 * come, one never heard of joins, and no stop is answered before that.
 *
 * The top floor (see froggy-session-private.h), under the session's
 * public API: it uses every floor below, and the session's end is here,
 * where the last record says it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <elf.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include <linux/audit.h>

#include "froggy-breakpoint.h"
#include "froggy-error.h"
#include "froggy-params.h"
#include "froggy-session-private.h"
#include "froggy-syscalls.h"

/* Signals a debugger lets through unseen, as gdb does by default. */
static gboolean
signal_is_quiet (int signo)
{
  switch (signo)
    {
    case SIGALRM:
    case SIGURG:
    case SIGCHLD:
    case SIGWINCH:
    case SIGIO:
    case SIGVTALRM:
    case SIGPROF:
      return TRUE;
    default:
      return FALSE;
    }
}

/* A breakpoint stopped @thread at @pc: the trap of an int3 of ours
 * (@in_kernel FALSE; the pc is past it), or the hit of one the kernel
 * keeps (UTRACE_EV_BREAKPOINT_HIT; the pc is on it, and the kernel steps
 * the instruction when the thread goes on). */
static void
on_breakpoint (FroggySession *self,
               Thread        *thread,
               guint64        pc,
               gboolean       in_kernel)
{
  Process *process = process_lookup (self, thread->pid);
  struct user_regs_struct regs;
  g_autoptr(GError) error = NULL;
  FroggyBreakpoint *hit = NULL;
  FroggyNotice notice;
  gboolean rewound;

  /* Resumed from its address without a stop at its hit: this hit is
   * that resume's, which the kernel's step over it now makes. */
  if (in_kernel && thread->resumed_on == pc)
    {
      thread->resumed_on = 0;
      if (thread->resumed_action == UTRACE_CTL_RESUME)
        resume_quietly (self, thread);
      else if (!thread_single_step (self, thread, &error))
        g_message ("thread %d: %s", thread->tid, error->message);
      return;
    }
  /* One taken out since: the thread runs the instruction as if it was
   * never there. */
  if (in_kernel && !g_hash_table_contains (process->sites, &pc))
    {
      resume_quietly (self, thread);
      return;
    }
  if (!in_kernel && !g_hash_table_contains (process->sites, &pc) &&
      !g_hash_table_contains (process->lifted, &pc))
    {
      /* The program's own int3: it gets its SIGTRAP when it goes on. */
      notice_init (self, &notice, "signal", thread);
      notice.signo = SIGTRAP;
      thread->pending_signal = SIGTRAP;
      notice_send (self, &notice, thread, 0);
      return;
    }

  /* Back onto the breakpoint's address, where the original instruction
   * will run.  A thread not put back stays stopped where it is: resumed
   * past the int3, it would run the middle of an instruction. */
  rewound = froggy_device_get_regs (self->device, thread->id, &regs, &error);
  if (rewound && !in_kernel)
    {
      regs.rip = pc;
      rewound = froggy_device_set_regs (self->device, thread->id, &regs, &error);
    }
  if (!rewound)
    {
      /* Killed as it trapped: its death record comes next. */
      if (g_error_matches (error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD))
        g_debug ("thread %d at a breakpoint is dying", thread->tid);
      else
        g_warning ("thread %d at a breakpoint: %s", thread->tid, error->message);
      return;
    }

  /* The trap of an int3 taken out since it was hit (another thread's
   * hit removed a temporary breakpoint): back on its address, the
   * instruction runs as if the int3 had never been there. */
  if (!g_hash_table_contains (process->sites, &pc))
    {
      resume_quietly (self, thread);
      return;
    }

  if (!process->followed)
    {
      if (!process_let_go (self, thread))
        resume_quietly (self, thread);
      return;
    }

  for (guint i = 0; i < self->breakpoints->len; i++)
    {
      FroggyBreakpoint *breakpoint = g_ptr_array_index (self->breakpoints, i);
      gboolean here;

      /* A child's breakpoints are at the addresses armed in it: those
       * of its copy of its parent's image after a fork, those set again
       * in its own image after an exec. */
      if (process->pid == self->pid)
        here = froggy_breakpoint_has_address (breakpoint, pc);
      else
        here = GPOINTER_TO_UINT (g_hash_table_lookup (process->armed, &pc)) == breakpoint->id;
      if (here && froggy_breakpoint_should_stop (breakpoint, thread->tid, &regs))
        {
          hit = breakpoint;
          break;
        }
    }

  if (hit != NULL && hit->auto_continue)
    {
      /* As gdb's "commands; continue; end", without the round trip:
       * reported, then on as from a hit that does not stop (a step
       * under way goes on). */
      notice_init_as (self, &notice, "breakpoint-hit", thread, FALSE);
      notice.breakpoint = hit->id;
      notice_locate (self, &notice, thread->pid, pc);
      if (hit->temporary)
        breakpoint_remove (self, hit->id, NULL);
      notice_broadcast (self, &notice);
      hit = NULL;
    }
  if (hit != NULL)
    {
      thread_end_step (self, thread);
      notice_init (self, &notice, "breakpoint-hit", thread);
      notice.breakpoint = hit->id;
      if (hit->temporary)
        breakpoint_remove (self, hit->id, NULL);
      notice_send (self, &notice, thread, pc);
      return;
    }

  /* The end of a step's run to a return address or a function body. */
  if (thread->stepping && thread->return_address == pc &&
      (thread->return_sp == 0 || regs.rsp > thread->return_sp))
    {
      site_unref (self, process, pc);
      thread->return_address = 0;
      if (thread->return_ends_step || thread->step_kind == FROGGY_STEP_OUT)
        {
          thread_step_done (self, thread, pc);
          return;
        }
      thread->step_prev_pc = regs.rip;
      thread->step_prev_sp = regs.rsp;
      thread_step_logic (self, thread);
      return;
    }

  resume_quietly (self, thread);
}

static void
on_step (FroggySession *self,
         Thread        *thread)
{
  g_autoptr(GError) error = NULL;

  if (thread->over_address != 0)
    {
      AfterStepOver then = thread->over_then;

      step_over_done (self, thread);
      if (then == AFTER_STEP_OVER_RESUME)
        {
          if (!thread_control (self, thread, UTRACE_CTL_RESUME, -1, &error))
            g_message ("thread %d: %s", thread->tid, error->message);
          return;
        }
    }
  if (thread->stepping)
    thread_step_logic (self, thread);
  else
    {
      /* A step nobody waits for any more (the client continued). */
      resume_quietly (self, thread);
    }
}

static void
on_clone (FroggySession                    *self,
          Thread                           *parent,
          const struct utrace_event_header *record)
{
  const struct utrace_event_clone *body = (gconstpointer) (record + 1);
  gboolean is_thread = body->flags & CLONE_THREAD;
  pid_t child_pid = is_thread ? parent->pid : body->child_tid;
  FroggyNotice notice;
  Thread *child;

  child = thread_lookup (self, body->child_tid);
  if (child == NULL)
    child = thread_add (self, body->child_id, body->child_tid, child_pid);
  child->id = body->child_id;
  child->announced = TRUE;

  if (is_thread)
    watchpoints_follow_thread (self, child);
  else
    process_inherit (self, process_lookup (self, parent->pid), child,
                     (body->flags & CLONE_VM) != 0,
                     (body->flags & CLONE_VFORK) ? parent->tid : 0);
  if (is_thread || self->follow_fork)
    stop_with_parent (self, parent, child,
                      (body->child_flags & UTRACE_CLONE_STOPPED) != 0);
  /* The parent's pending breakpoints go in now that the child, whose
   * memory was copied without them, has them pending too. */
  if (parent->stopped)
    process_arm_pending (self, process_lookup (self, parent->pid));

  /* The kernel's one clone event stops for both kinds when either asks
   * to stop: the kind nobody asked to stop for goes on at once. */
  {
    const char *how = reported_as (self, is_thread ? "clone" : "fork");
    gboolean stop = g_strcmp0 (how, "stop") == 0 ||
                    (!is_thread && catch_matching (self, "fork", 0, FALSE) != NULL);

    if (!stop)
      resume_quietly (self, parent);
    if (!stop && how == NULL)
      return;
  }

  notice_init (self, &notice, is_thread ? "clone" : "fork", parent);
  if (is_thread)
    notice.new_thread = body->child_tid;
  else
    notice.child = body->child_tid;
  notice_send (self, &notice, parent, 0);
}

static void
on_exec (FroggySession                    *self,
         Thread                           *thread,
         const struct utrace_event_header *record)
{
  const struct utrace_event_exec *body = (gconstpointer) (record + 1);
  const char *filename = (const char *) (body + 1);
  Process *process = process_lookup (self, thread->pid);
  gboolean first = !thread->announced;
  FroggyNotice notice;

  /* The old image is gone, with its breakpoints: set those by function
   * name again in the new one. */
  g_hash_table_remove_all (process->sites);
  g_hash_table_remove_all (process->lifted);
  g_hash_table_remove_all (process->armed);
  g_hash_table_remove_all (process->pending);
  process->arming = 0;
  process->memory_of = process->pid;
  process->vfork_caller = 0;
  process->image = ++self->last_image;
  if (!process->followed)
    {
      /* Its own memory now, with none of our int3s. */
      process_let_go (self, thread);
      return;
    }
  g_clear_object (&process->symbolizer);
  process->symbolizer = froggy_symbolizer_new (process->pid);
  if (process->pid != self->pid)
    for (guint i = 0; i < self->breakpoints->len; i++)
      {
        FroggyBreakpoint *breakpoint = g_ptr_array_index (self->breakpoints, i);

        if (breakpoint->by_function && breakpoint->enabled)
          breakpoint_arm_in_child (self, breakpoint, process);
      }
  if (process->pid == self->pid)
    for (guint i = 0; i < self->breakpoints->len; i++)
      {
        FroggyBreakpoint *breakpoint = g_ptr_array_index (self->breakpoints, i);
        g_autoptr(GError) error = NULL;

        if (!breakpoint->by_function || !breakpoint->enabled ||
            !resolve_breakpoint (self, breakpoint, &error) ||
            !breakpoint_arm (self, breakpoint, &error))
          {
            g_array_set_size (breakpoint->addresses, 0);
            if (error != NULL)
              g_debug ("breakpoint %u not in the new image: %s", breakpoint->id, error->message);
          }
      }

  thread->announced = TRUE;
  if (first && self->launched)
    {
      notify_simple (self, "launched", thread);
      return;
    }
  if (catch_matching (self, "exec", 0, FALSE) == NULL &&
      g_strcmp0 (reported_as (self, "exec"), "stop") != 0)
    {
      /* The kernel always stops at an exec, for the breakpoints. */
      resume_quietly (self, thread);
      if (reported_as (self, "exec") == NULL)
        return;
    }
  notice_init (self, &notice, "exec", thread);
  notice.filename = filename;
  notice_send (self, &notice, thread, 0);
}

static void
on_syscall (FroggySession                    *self,
            Thread                           *thread,
            const struct utrace_event_header *record)
{
  const struct utrace_event_syscall *body = (gconstpointer) (record + 1);
  gboolean at_exit = record->type == UTRACE_EV_SYSCALL_EXIT;
  const char *kind = at_exit ? "syscall-exit" : "syscall-entry";
  const char *name = froggy_syscall_name (body->arch, body->nr);
  const char *abi = froggy_syscall_abi (body->arch);
  /* Catchpoints have x86_64 numbers: another ABI's call goes by name. */
  int number = body->arch == AUDIT_ARCH_X86_64 ? (int) body->nr :
               name != NULL ? froggy_syscall_number (name) : -1;
  Catchpoint *catchpoint = catch_matching (self, "syscall", number, at_exit);
  FroggyNotice notice;

  if (thread_unseen (self, thread) ||
      (catchpoint == NULL && reported_as (self, kind) == NULL))
    {
      resume_quietly (self, thread);
      return;
    }
  if (catchpoint == NULL && thread->stopped && g_strcmp0 (reported_as (self, kind), "stop") != 0)
    {
      /* Only reported: the thread goes on. */
      resume_quietly (self, thread);
    }

  notice_init (self, &notice, kind, thread);
  notice.is_syscall = TRUE;
  notice.syscall_nr = body->nr;
  notice.syscall_name = name;
  notice.syscall_abi = abi;
  notice.catchpoint = catchpoint != NULL ? catchpoint->id : 0;
  /* An exit carries the arguments too, as its registers have them, on
   * a kernel with UTRACE_FEATURE_EXIT_ARGS (zeros before it). */
  if (!at_exit || froggy_device_has_feature (self->device, UTRACE_FEATURE_EXIT_ARGS))
    {
      G_STATIC_ASSERT (G_N_ELEMENTS (notice.args) == G_N_ELEMENTS (body->args));
      notice.has_args = TRUE;
      memcpy (notice.args, body->args, sizeof notice.args);
    }
  notice.has_return = at_exit;
  notice.ret = body->ret;
  notice_send (self, &notice, thread, 0);
}

static void
on_signal (FroggySession                    *self,
           Thread                           *thread,
           const struct utrace_event_header *record)
{
  const struct utrace_event_signal *body = (gconstpointer) (record + 1);
  Catchpoint *catchpoint = catch_matching (self, "signal", body->signo, FALSE);
  const char *how = g_hash_table_lookup (self->reported, "signal");
  FroggyNotice notice;

  /* Signals stop by default, as in gdb; events.subscribe makes them
   * only reported ("report") or passed in silence ("off"), a catch
   * stops them whatever was subscribed. */
  if (thread_unseen (self, thread) ||
      (catchpoint == NULL &&
       (g_strcmp0 (how, "off") == 0 || (how == NULL && signal_is_quiet (body->signo)))))
    {
      resume_quietly (self, thread);
      return;
    }
  if (catchpoint == NULL && g_strcmp0 (how, "report") == 0)
    resume_quietly (self, thread);
  else
    thread_end_step (self, thread);
  notice_init (self, &notice, "signal", thread);
  notice.signo = body->signo;
  notice.has_code = TRUE;
  notice.code = body->code;
  notice.has_address = body->addr != 0;
  notice.address = body->addr;
  notice_send (self, &notice, thread, 0);
}

static void
on_watchpoint (FroggySession                    *self,
               Thread                           *thread,
               const struct utrace_event_header *record)
{
  const struct utrace_event_watch *body = (gconstpointer) (record + 1);
  guint id = watchpoint_at_slot (self, thread->tid, body->slot);
  FroggyNotice notice;

  if (id == 0)
    {
      resume_quietly (self, thread);
      return;
    }
  thread_end_step (self, thread);
  notice_init (self, &notice, "watchpoint", thread);
  notice.watchpoint = id;
  notice.has_address = TRUE;
  notice.address = body->addr;
  notice_send (self, &notice, thread, 0);
}

/* @thread is gone: with its wait status from its DEATH record, or with
 * @status NULL if that record was lost. */
static void
thread_died (FroggySession *self,
             Thread        *thread,
             const int     *status)
{
  FroggyNotice notice;
  pid_t tid = thread->tid;
  pid_t pid = thread->pid;
  GHashTableIter iter;
  Thread *other;
  gboolean last = TRUE;

  if (status == NULL)
    g_debug ("session %u: thread %d is gone, its death record lost", self->id, tid);
  thread_end_step (self, thread);
  thread->stopped = FALSE;

  watchpoints_forget_thread (self, tid);
  if (!thread_unseen (self, thread))
    {
      notice_init (self, &notice, "exit", thread);
      notice.has_status = status != NULL;
      notice.status = status != NULL ? *status : 0;
      notice_send (self, &notice, NULL, 0);
    }

  /* A thread paused for this one's step-over, or waited for, goes on. */
  if (thread->over_address != 0)
    step_over_done (self, thread);
  g_hash_table_remove (self->threads, GINT_TO_POINTER (tid));

  /* The process is gone with its last thread: forget it, so that kill
   * never reaches whoever gets its pid next. */
  g_hash_table_iter_init (&iter, self->threads);
  while (last && g_hash_table_iter_next (&iter, NULL, (gpointer *) &other))
    last = other->pid != pid;
  if (last)
    g_hash_table_remove (self->processes, GINT_TO_POINTER (pid));
  else
    {
      Process *process = process_lookup (self, pid);

      /* It died before the stop that was to arm its process's pending
       * breakpoints: another thread stops for them. */
      if (process->arming == tid)
        {
          process->arming = 0;
          process_interrupt_to_arm (self, process);
        }
    }
  stop_waiters_update (self, tid);
}

static void
on_death (FroggySession                    *self,
          Thread                           *thread,
          const struct utrace_event_header *record)
{
  const struct utrace_event_exit *body = (gconstpointer) (record + 1);
  int status = body->code;

  thread_died (self, thread, &status);
}

/* Adopts a thread attached to the session that it never heard of (its
 * CLONE record lost), in its process, unless it is gone already. */
static gboolean
thread_adopt (FroggySession            *self,
              const FroggyDeviceThread *attached)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", attached->tid);
  g_autofree char *status = NULL;
  pid_t pid = 0, parent_pid = 0;
  gboolean new_process;
  g_auto(GStrv) lines = NULL;
  Thread *thread;

  /* Gone already: its DEATH record ends it, or is lost too. */
  if (!g_file_get_contents (path, &status, NULL, NULL))
    return FALSE;
  lines = g_strsplit (status, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (sscanf (lines[i], "Tgid: %d", &pid) != 1)
      sscanf (lines[i], "PPid: %d", &parent_pid);
  if (pid <= 0)
    return FALSE;

  g_debug ("session %u: thread %d (id %" G_GUINT64_FORMAT ") joins, its clone record lost",
           self->id, attached->tid, attached->id);
  new_process = !g_hash_table_contains (self->processes, GINT_TO_POINTER (pid));
  thread = thread_add (self, attached->id, attached->tid, pid);
  thread->announced = TRUE;
  /* A fork child: whether it shared its parent's memory is not known. */
  if (new_process && g_hash_table_contains (self->processes, GINT_TO_POINTER (parent_pid)))
    process_inherit (self, process_lookup (self, parent_pid), thread, FALSE, 0);
  stop_with_process (self, thread);
  return TRUE;
}

/* After a loss: makes the thread table the kernel's again.  A snapshot of
 * the threads attached comes with the number of the last record queued;
 * once the records up to it are handled, a thread known before it but
 * not attached then has lost its DEATH record, and one attached then but
 * still unknown, its CLONE record. */
void
threads_resync (FroggySession *self)
{
  g_autoptr(FroggySession) hold = g_object_ref (self);
  g_autoptr(GHashTable) attached = g_hash_table_new (NULL, NULL);
  g_autoptr(GArray) unlisted = g_array_new (FALSE, FALSE, sizeof (FroggyDeviceThread));
  g_autoptr(GArray) threads = NULL;
  g_autoptr(GError) error = NULL;
  GHashTableIter iter;
  Thread *thread;
  guint gone = 0, joined = 0;
  guint64 seq;

  threads = froggy_device_list_threads (self->device, &seq, &error);
  if (threads == NULL)
    {
      /* Closed: the session is over anyway. */
      if (!g_error_matches (error, FROGGY_ERROR, FROGGY_ERROR_NO_SESSION))
        g_warning ("session %u: cannot resync its threads: %s", self->id, error->message);
      self->resync_pending = FALSE;
      stop_waiters_settle (self);
      return;
    }
  for (guint i = 0; i < threads->len; i++)
    {
      FroggyDeviceThread *listed = &g_array_index (threads, FroggyDeviceThread, i);

      g_hash_table_insert (attached, GINT_TO_POINTER (listed->tid), listed);
    }
  g_hash_table_iter_init (&iter, self->threads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &thread))
    {
      FroggyDeviceThread *listed = g_hash_table_lookup (attached, GINT_TO_POINTER (thread->tid));

      /* (Known by tid only, until its first record, after an attach.) */
      if (listed == NULL || (thread->id != 0 && listed->id != thread->id))
        {
          FroggyDeviceThread was = { .id = thread->id, .tid = thread->tid };

          g_array_append_val (unlisted, was);
        }
    }

  froggy_device_dispatch_through (self->device, seq);
  if (self->ended)
    return;

  /* Still here with the same id (a tid can come back as another thread). */
  for (guint i = 0; i < unlisted->len; i++)
    {
      FroggyDeviceThread *was = &g_array_index (unlisted, FroggyDeviceThread, i);

      thread = thread_lookup (self, was->tid);
      if (thread != NULL && thread->id == was->id)
        {
          thread_died (self, thread, NULL);
          gone++;
        }
    }
  for (guint i = 0; i < threads->len && !self->ended; i++)
    {
      FroggyDeviceThread *listed = &g_array_index (threads, FroggyDeviceThread, i);

      if (thread_lookup (self, listed->tid) == NULL && thread_adopt (self, listed))
        joined++;
    }
  g_debug ("session %u: resynced %u threads through record %" G_GUINT64_FORMAT
           ": %u gone, %u joined", self->id, threads->len, seq, gone, joined);
  self->resync_pending = FALSE;
  stop_waiters_settle (self);
}

static gboolean
resync_timeout (gpointer user_data)
{
  FroggySession *self = user_data;

  self->resync_source = 0;
  threads_resync (self);
  /* A thread whose DEATH record was dropped is still listed for a moment
   * after the loss is read: look again while anyone waits for a stop. */
  if (!self->ended && self->waiters != NULL)
    resync_schedule (self, RESYNC_INTERVAL_MS);
  return G_SOURCE_REMOVE;
}

/* Resyncs in @delay_ms, from the main loop: never while the device is
 * handing out records. */
void
resync_schedule (FroggySession *self,
                 guint          delay_ms)
{
  if (self->resync_source == 0 && !self->ended)
    self->resync_source = g_timeout_add (delay_ms, resync_timeout, self);
}

static void
on_lost (FroggySession                    *self,
         const struct utrace_event_header *record)
{
  const struct utrace_event_lost *body = (gconstpointer) (record + 1);
  FroggyNotice notice;

  notice_init (self, &notice, "lost", NULL);
  notice.has_count = TRUE;
  notice.count = body->count;
  notice_send (self, &notice, NULL, 0);

  self->records_lost = TRUE;
  self->resync_pending = TRUE;
  g_clear_handle_id (&self->resync_source, g_source_remove);
  resync_schedule (self, 0);
}

void
session_record (FroggySession                    *self,
                      const struct utrace_event_header *record,
                      FroggyDevice                     *device)
{
  g_autoptr(FroggySession) hold = g_object_ref (self);
  gboolean stopped = record->flags & UTRACE_EVF_STOPPED;
  const struct utrace_event_pc *pc = (gconstpointer) (record + 1);
  gboolean pause_lapsed;
  Thread *thread;

  if (record->type == UTRACE_EV_LOST)
    {
      on_lost (self, record);
      return;
    }

  thread = thread_lookup (self, record->tid);
  if (thread == NULL && record->type == UTRACE_EV_DEATH)
    {
      /* Ended already when its records were lost, or never known (its
       * CLONE record lost): either way nobody awaits it now. */
      stop_waiters_update (self, record->tid);
      return;
    }
  if (record->type == UTRACE_EV_EXEC)
    {
      const struct utrace_event_exec *body = (gconstpointer) (record + 1);

      /* A thread other than the leader exec'd: it is the leader now. */
      if (body->old_tid != record->tid)
        {
          Thread *old = thread_lookup (self, body->old_tid);

          if (old != NULL)
            {
              g_hash_table_steal (self->threads, GINT_TO_POINTER (body->old_tid));
              old->tid = record->tid;
              g_hash_table_replace (self->threads, GINT_TO_POINTER (record->tid), old);
              thread = old;
            }
        }
    }
  if (thread == NULL)
    thread = thread_add (self, record->id, record->tid, record->tgid);
  thread->id = record->id;
  if (record->tid == self->pid)
    self->launch_seen = TRUE;
  if (stopped)
    thread->stopped = TRUE;
  /* Breakpoints inserted while the process ran go in now; an exec took
   * away the image they were for (see on_exec()), and at a fork they go
   * in once the child has taken its share of them (see on_clone()). */
  if (stopped && record->type != UTRACE_EV_EXEC && record->type != UTRACE_EV_CLONE)
    process_arm_pending (self, process_lookup (self, thread->pid));
  /* Any stop ends a lapsed pause: a STOP is the one it asked for, another
   * stop took its place. */
  pause_lapsed = stopped && thread->pause_lapsed;
  if (stopped)
    thread->pause_lapsed = FALSE;

  /* A step over a breakpoint cut short (a signal, a watchpoint, a
   * system call stop): put the int3 back and let the paused threads go;
   * the next resume steps over it again. */
  if (stopped && thread->over_address != 0 && record->type != UTRACE_EV_STEP)
    step_over_done (self, thread);
  /* At a kernel's breakpoint, or not; another stop than a resume's hit
   * (a signal, a stop) ends that resume. */
  if (stopped)
    {
      thread->hit_address = record->type == UTRACE_EV_BREAKPOINT_HIT ? pc->pc : 0;
      if (record->type != UTRACE_EV_BREAKPOINT_HIT || thread->resumed_on != pc->pc)
        thread->resumed_on = 0;
    }

  switch (record->type)
    {
    case UTRACE_EV_STOP:
      if (thread->paused)
        {
          /* Paused for another's step-over: nobody else needs to know. */
          break;
        }
      if (thread_unseen (self, thread))
        {
          if (process_let_go (self, thread))
            return;
          resume_quietly (self, thread);
          break;
        }
      if (pause_lapsed)
        {
          /* Paused for a step-over that ended before this stop came: it
           * runs on, unless someone has asked for a stop since. */
          resume_quietly (self, thread);
          break;
        }
      thread_announce_stop (self, thread);
      break;
    case UTRACE_EV_EXEC:
      on_exec (self, thread, record);
      break;
    case UTRACE_EV_CLONE:
      on_clone (self, thread, record);
      break;
    case UTRACE_EV_EXIT:
      if (thread_unseen (self, thread))
        {
          resume_quietly (self, thread);
          break;
        }
      notify_simple (self, "exiting", thread);
      break;
    case UTRACE_EV_DEATH:
      on_death (self, thread, record);
      return;
    case UTRACE_EV_SYSCALL_ENTRY:
    case UTRACE_EV_SYSCALL_EXIT:
      on_syscall (self, thread, record);
      break;
    case UTRACE_EV_SIGNAL:
      on_signal (self, thread, record);
      break;
    case UTRACE_EV_STEP:
      on_step (self, thread);
      break;
    case UTRACE_EV_BREAKPOINT:
      on_breakpoint (self, thread, pc->pc, FALSE);
      break;
    case UTRACE_EV_BREAKPOINT_HIT:
      on_breakpoint (self, thread, pc->pc, TRUE);
      break;
    case UTRACE_EV_WATCHPOINT:
      on_watchpoint (self, thread, record);
      break;
    default:
      if (stopped)
        resume_quietly (self, thread);
      break;
    }

  if (thread_lookup (self, record->tid) != NULL && thread->stopped)
    {
      if (thread->over_address == 0)
        sites_flush (self, process_lookup (self, thread->pid));
      stop_waiters_update (self, record->tid);
    }
}

void
session_end (FroggySession *self)
{
  g_autoptr(GPtrArray) detach_tasks = NULL;

  if (self->ended)
    return;
  self->ended = TRUE;
  stop_waiters_complete (self);
  notify_simple (self, "session-ended", NULL);
  /* Closing the device detaches every engine before close() returns. */
  if (self->device != NULL)
    froggy_device_close (self->device);
  detach_tasks = g_steal_pointer (&self->detach_tasks);
  for (guint i = 0; detach_tasks != NULL && i < detach_tasks->len; i++)
    g_task_return_boolean (g_ptr_array_index (detach_tasks, i), TRUE);
  g_signal_emit_by_name (self, "ended");
}

/* Nothing is left to trace: complete every waiter and end. */
void
session_abandon (FroggySession *self)
{
  g_autoptr(FroggySession) hold = g_object_ref (self);

  g_hash_table_remove_all (self->threads);
  stop_waiters_complete (self);
  session_end (self);
}

/* Every traced thread is gone, and every record read.  A thread still
 * known had its death record lost, after the last resync: it gets its
 * exit without a status, as a resync would have given it. */
void
session_hangup (FroggySession *self,
                       FroggyDevice  *device)
{
  g_autoptr(FroggySession) hold = g_object_ref (self);
  g_autoptr(GList) tids = g_hash_table_get_keys (self->threads);

  for (GList *l = tids; l != NULL && !self->ended; l = l->next)
    {
      Thread *thread = thread_lookup (self, GPOINTER_TO_INT (l->data));

      if (thread != NULL)
        thread_died (self, thread, NULL);
    }
  session_abandon (self);
}
