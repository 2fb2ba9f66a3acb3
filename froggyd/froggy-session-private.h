/* froggy-session-private.h: what the files of a FroggySession share
 *
 * A FroggySession is one object split over files with one responsibility
 * each.  They lie in floors, and a file calls only into its own floor or
 * the ones below it, never up into the session's public API:
 *
 *   top      froggy-session.c: the object, its clients, its lifecycle and
 *            its public API
 *            froggy-session-records.c: the record handlers, the resync
 *            after lost records, and the session's end
 *   middle   froggy-session-stepper.c: how a stopped thread goes on: the
 *            step over a breakpoint, source-level steps
 *            froggy-session-sites.c: the breakpoint sites, the int3s
 *            froggy-session-stop-barrier.c: what waits for threads to stop
 *            froggy-session-watchpoints.c: the debug register slots
 *            froggy-session-catchpoints.c: catchpoints and event masks
 *   bottom   froggy-session-threads.c: the process and thread tables
 *            froggy-session-notify.c: the notifications and their pace
 *            froggy-session-launcher.c: a program started stopped at its
 *            exec, which knows nothing of the session
 *   below    FroggyDevice, FroggySymbolizer, FroggyPeer
 *
 * Within a floor a file uses another only one way: the public API
 * calls the record handlers (a stop resyncs, a detach ends the session),
 * never the reverse; the stepper uses the sites and the stop barrier,
 * the sites let threads go through the stop barrier; the notifications
 * read the thread tables (where a stopped thread is), never the reverse.
 * What a lower floor needs the session to do it asks through a callback
 * (the stop barrier's self->resync_schedule) or leaves to its caller (the
 * launcher's child watch is the session's).
 *
 * The functions shared here keep the short names they had as statics of
 * froggy-session.c (process_lookup(), notify_simple(), ...): they are the
 * session's private vocabulary, not an API, and the code that calls them
 * reads as it did.  They are G_GNUC_INTERNAL, hidden in the executable,
 * so that no library can ever bind to one; a clash between two of
 * froggyd's own files is a link error.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <sys/types.h>

#include "froggy-breakpoint.h"
#include "froggy-device.h"
#include "froggy-notice.h"
#include "froggy-peer.h"
#include "froggy-session.h"
#include "froggy-symbolizer.h"

/* What the kernel always reports to us, and which of it never stops. */
#define BASE_EVENTS (UTRACE_EVMASK (UTRACE_EV_EXEC) | \
                     UTRACE_EVMASK (UTRACE_EV_CLONE) | \
                     UTRACE_EVMASK (UTRACE_EV_DEATH) | \
                     UTRACE_EVMASK (UTRACE_EV_SIGNAL) | \
                     UTRACE_EVMASK (UTRACE_EV_BREAKPOINT) | \
                     UTRACE_EVMASK (UTRACE_EV_WATCHPOINT))
#define BASE_NONSTOP (UTRACE_EVMASK (UTRACE_EV_CLONE) | \
                      UTRACE_EVMASK (UTRACE_EV_DEATH))

#define INT3 0xcc

/* How often a session that lost records and waits for stops resyncs. */
#define RESYNC_INTERVAL_MS 250

G_BEGIN_DECLS

typedef struct
{
  guint64 address;
  guint8  original;
  guint   users;      /* enabled breakpoints and internal uses */
  gboolean in_kernel; /* a uprobe the kernel keeps (UTRACE_IOC_INSERT_BREAKPOINT)
                       * and steps over; else an int3 we wrote */
} Site;

typedef struct
{
  pid_t             pid;
  FroggySymbolizer *symbolizer;
  GHashTable       *sites;      /* guint64 address -> Site */
  GHashTable       *lifted;     /* guint64 addresses of sites taken out: a
                                 * trap from one was on its way meanwhile */
  GHashTable       *armed;      /* a child's image: guint64 address -> breakpoint id */
  GHashTable       *pending;    /* a running child's breakpoints to arm at its next
                                 * stop: guint64 address -> breakpoint id */
  pid_t             arming;     /* the thread interrupted for that stop, or 0 */
  pid_t             memory_of;  /* whose memory it runs in: its own pid, or
                                 * a CLONE_VM (vfork) child's parent's */
  pid_t             vfork_caller; /* a vfork child's: the parent thread that
                                   * sleeps in vfork() until its exec or death */
  guint             image;      /* the program image it runs: numbered by
                                 * exec, a fork's copy keeps its parent's */
  gboolean          followed;   /* FALSE: a child to let go at its first stop */
} Process;

typedef enum
{
  AFTER_STEP_OVER_RESUME,
  AFTER_STEP_OVER_STEP,
} AfterStepOver;

typedef struct
{
  guint64        id;            /* the device's */
  pid_t          tid;
  pid_t          pid;
  gboolean       stopped;
  gboolean       announced;     /* the first stop was reported */
  gboolean       stop_requested;
  gboolean       paused;        /* stopped by us, for another's step-over */
  gboolean       pause_lapsed;  /* that step-over ended before it stopped */
  gboolean       deferred;      /* paused on a site: resumes after that step-over */
  int            pending_signal; /* to inject on continue (a program's int3) */
  int            over_signal;    /* for the step-over's step: -1 the held one, 0 none */

  /* The kernel's breakpoint it stopped at (UTRACE_EV_BREAKPOINT_HIT),
   * which it steps over itself when resumed, or 0. */
  guint64        hit_address;
  /* Resumed or stepped from this kernel breakpoint's address without a
   * stop at its hit: the hit that comes next is that resume's, made
   * again, as an int3 of ours is stepped over (see thread_go()). */
  guint64        resumed_on;
  guint32        resumed_action;

  /* stepping over the breakpoint at over_address */
  guint64        over_address;
  AfterStepOver  over_then;
  guint          over_sync;      /* idle: records read before the int3 is lifted */

  /* a source-level step */
  gboolean       stepping;
  FroggyStepKind step_kind;
  guint          step_left;      /* instructions still to step */
  char          *step_file;
  int            step_line;
  guint64        step_prev_pc;
  guint64        step_prev_sp;
  guint64        return_address; /* an internal breakpoint, or 0 */
  guint64        return_sp;      /* hit only with rsp above this */
  gboolean       return_ends_step;
} Thread;

typedef struct
{
  guint    id;
  guint64  address;
  guint    length;
  gboolean read_write;
  pid_t    tid;          /* 0: every thread */
  GArray  *slots;        /* (tid, slot) pairs as two ints */
} Watchpoint;

typedef struct
{
  guint            id;
  FroggyCatchSpec *spec;
} Catchpoint;

typedef void (*StopWaiterDone) (FroggySession *self,
                                gpointer       data);

typedef struct
{
  GHashTable     *pending;    /* tids */
  GArray         *tids;
  gboolean        with_clones; /* threads born of pending ones join */
  StopWaiterDone  done;
  gpointer        data;
} StopWaiter;

struct _FroggySession
{
  GObject       parent_instance;
  guint         id;
  FroggyDevice *device;
  pid_t         pid;
  gboolean      follow_fork;
  gboolean      lossless;     /* UTRACE_ATTACH_LOSSLESS, and no client drops */
  gboolean      launched;
  gboolean      detaching;
  gboolean      ended;
  gboolean      launch_seen;  /* the launched child's first event came */
  GError       *launch_error; /* why the launched child died before its exec */

  GHashTable   *threads;      /* tid -> Thread */
  GHashTable   *processes;    /* pid -> Process */
  GPtrArray    *breakpoints;  /* FroggyBreakpoint */
  GPtrArray    *watchpoints;  /* Watchpoint */
  GPtrArray    *catchpoints;  /* Catchpoint */
  GList        *waiters;      /* StopWaiter */
  /* The stop barrier's way to ask the record handlers, above it, for a
   * resync of the threads in @delay_ms: while records are lost, the
   * threads a waiter waits for may be gone unseen. */
  void        (*resync_schedule) (FroggySession *self,
                                  guint          delay_ms);
  gboolean      records_lost;   /* the kernel dropped records */
  gboolean      resync_pending; /* since the last loss: waiters wait */
  guint         resync_source;
  guint         next_breakpoint_id;
  guint         next_watchpoint_id;
  guint         last_image;   /* Process.image of the latest exec */
  guint64       events;
  guint64       nonstop;
  GHashTable   *reported;     /* notification kind -> "report" or "stop" */

  GPtrArray    *peers;        /* FroggyPeer, observers and controller */
  FroggyPeer   *controller;
  GPtrArray    *detach_tasks; /* GTask, completed when the session has ended */
};

/* froggy-session-threads.c: the process and thread tables */
G_GNUC_INTERNAL void thread_free (gpointer data);
G_GNUC_INTERNAL void process_free (gpointer data);
G_GNUC_INTERNAL GHashTable *address_table_new (void);
G_GNUC_INTERNAL void address_table_add_all (GHashTable *to, GHashTable *from);
G_GNUC_INTERNAL Process *process_lookup (FroggySession *self, pid_t pid);
G_GNUC_INTERNAL gboolean process_shares_memory (Process *process);
G_GNUC_INTERNAL gboolean threads_share_memory (FroggySession *self, Thread *a, Thread *b);
G_GNUC_INTERNAL Thread *thread_lookup (FroggySession *self, pid_t tid);
G_GNUC_INTERNAL Thread *thread_add (FroggySession *self, guint64 id, pid_t tid, pid_t pid);
G_GNUC_INTERNAL Thread *thread_get (FroggySession *self,
                                    pid_t tid,
                                    gboolean stopped,
                                    GError **error);
G_GNUC_INTERNAL Thread *process_stopped_thread (FroggySession *self, pid_t pid);
G_GNUC_INTERNAL gboolean thread_unseen (FroggySession *self, Thread *thread);
G_GNUC_INTERNAL GPtrArray *thread_backtrace (FroggySession *self,
                                             Thread *thread,
                                             guint max_frames,
                                             GError **error);
G_GNUC_INTERNAL GArray *all_tids (FroggySession *self);
G_GNUC_INTERNAL guint64 thread_pc (FroggySession *self, Thread *thread);
G_GNUC_INTERNAL gboolean thread_control (FroggySession *self,
                                         Thread *thread,
                                         guint32 action,
                                         int signo,
                                         GError **error);

/* froggy-session-notify.c: the notifications and their pace (reads the tables) */
G_GNUC_INTERNAL void lossless_pace (FroggySession *self);
G_GNUC_INTERNAL void notice_init_as (FroggySession *self,
                                     FroggyNotice *notice,
                                     const char *reason,
                                     Thread *thread,
                                     gboolean stopped);
G_GNUC_INTERNAL void notice_init (FroggySession *self,
                                  FroggyNotice *notice,
                                  const char *reason,
                                  Thread *thread);
G_GNUC_INTERNAL void notice_locate (FroggySession *self,
                                    FroggyNotice *notice,
                                    pid_t pid,
                                    guint64 pc);
G_GNUC_INTERNAL void notice_send (FroggySession *self,
                                  FroggyNotice *notice,
                                  Thread *thread,
                                  guint64 pc);
G_GNUC_INTERNAL void notice_broadcast (FroggySession *self, FroggyNotice *notice);
G_GNUC_INTERNAL void notify_simple (FroggySession *self, const char *reason, Thread *thread);

/* froggy-session-launcher.c: a program started stopped at its exec;
 * what it is attached with. */
typedef struct
{
  int   fd;
  const FroggyCredentials *client;
  guint64 events;
  guint64 nonstop;
  guint32 flags;
} LaunchSetup;

G_GNUC_INTERNAL pid_t launch_program (const LaunchSetup *setup,
                                      const char * const *argv,
                                      const char * const *env,
                                      const char *cwd,
                                      const char *stdio,
                                      GError **error);
G_GNUC_INTERNAL GError *launch_exit_error (int status);

/* froggy-session-stop-barrier.c: waiting for threads to stop (middle floor) */
G_GNUC_INTERNAL void stop_waiter_free (StopWaiter *waiter);
G_GNUC_INTERNAL void stop_waiters_settle (FroggySession *self);
G_GNUC_INTERNAL void stop_waiters_update (FroggySession *self, pid_t tid);
G_GNUC_INTERNAL void stop_waiters_complete (FroggySession *self);
G_GNUC_INTERNAL gboolean thread_awaited (FroggySession *self, pid_t tid);
G_GNUC_INTERNAL void stop_waiter_add (FroggySession *self,
                                      GArray *tids,
                                      gboolean with_clones,
                                      StopWaiterDone done,
                                      gpointer data);
G_GNUC_INTERNAL void stop_with_parent (FroggySession *self,
                                       Thread *parent,
                                       Thread *child,
                                       gboolean stopping);
G_GNUC_INTERNAL void stop_with_process (FroggySession *self, Thread *thread);

/* froggy-session-sites.c: breakpoint sites (middle floor) */
G_GNUC_INTERNAL gboolean site_write (FroggySession *self,
                                     Process *process,
                                     guint64 address,
                                     guint8 byte,
                                     GError **error);
G_GNUC_INTERNAL gboolean site_ref (FroggySession *self,
                                   Process *process,
                                   guint64 address,
                                   GError **error);
G_GNUC_INTERNAL void site_unref (FroggySession *self, Process *process, guint64 address);
G_GNUC_INTERNAL void sites_flush (FroggySession *self, Process *process);
G_GNUC_INTERNAL void process_remove_sites (FroggySession *self, Process *process);
G_GNUC_INTERNAL gboolean process_has_int3s (Process *process);
G_GNUC_INTERNAL gboolean process_let_go (FroggySession *self, Thread *thread);
G_GNUC_INTERNAL void process_interrupt_to_arm (FroggySession *self, Process *process);
G_GNUC_INTERNAL void process_arm_pending (FroggySession *self, Process *process);
G_GNUC_INTERNAL void process_inherit (FroggySession *self,
                                      Process *parent_process,
                                      Thread *child,
                                      gboolean shares_memory,
                                      pid_t vfork_caller);
G_GNUC_INTERNAL gboolean resolve_breakpoint (FroggySession *self,
                                             FroggyBreakpoint *breakpoint,
                                             GError **error);
G_GNUC_INTERNAL gboolean breakpoint_arm (FroggySession *self,
                                         FroggyBreakpoint *breakpoint,
                                         GError **error);
G_GNUC_INTERNAL void breakpoint_arm_in_child (FroggySession *self,
                                              FroggyBreakpoint *breakpoint,
                                              Process *process);
G_GNUC_INTERNAL void breakpoint_arm_in_children (FroggySession *self, FroggyBreakpoint *breakpoint);
G_GNUC_INTERNAL void breakpoint_disarm (FroggySession *self, FroggyBreakpoint *breakpoint);
G_GNUC_INTERNAL FroggyBreakpoint *breakpoint_get (FroggySession *self, guint id, GError **error);
G_GNUC_INTERNAL gboolean breakpoint_remove (FroggySession *self, guint id, GError **error);

/* froggy-session-watchpoints.c: watchpoints (middle floor) */
G_GNUC_INTERNAL void watchpoint_free (gpointer data);
G_GNUC_INTERNAL void watchpoint_clear (FroggySession *self, Watchpoint *watchpoint);
G_GNUC_INTERNAL guint watchpoint_insert (FroggySession *self,
                                         guint64 address,
                                         guint length,
                                         gboolean read_write,
                                         pid_t tid,
                                         GError **error);
G_GNUC_INTERNAL gboolean watchpoint_remove (FroggySession *self, guint id, GError **error);
G_GNUC_INTERNAL void watchpoints_clear_all (FroggySession *self);
G_GNUC_INTERNAL void watchpoints_follow_thread (FroggySession *self, Thread *thread);
G_GNUC_INTERNAL void watchpoints_forget_thread (FroggySession *self, pid_t tid);
G_GNUC_INTERNAL guint watchpoint_at_slot (FroggySession *self, pid_t tid, guint32 slot);

/* froggy-session-catchpoints.c: catchpoints and event masks (middle floor) */
G_GNUC_INTERNAL void catchpoint_free (gpointer data);
G_GNUC_INTERNAL gboolean update_event_masks (FroggySession *self, GError **error);
G_GNUC_INTERNAL guint catch_add (FroggySession *self, FroggyCatchSpec *spec, GError **error);
G_GNUC_INTERNAL gboolean catch_remove (FroggySession *self, guint id, GError **error);
G_GNUC_INTERNAL gboolean events_subscribe (FroggySession *self, GHashTable *events, GError **error);
G_GNUC_INTERNAL Catchpoint *catch_matching (FroggySession *self,
                                            const char *kind,
                                            int number,
                                            gboolean at_exit);
G_GNUC_INTERNAL const char *reported_as (FroggySession *self, const char *kind);

/* froggy-session-stepper.c: how a stopped thread goes on (middle floor,
 * above the sites and the stop barrier) */
G_GNUC_INTERNAL gboolean thread_on_site (FroggySession *self, Thread *thread);
G_GNUC_INTERNAL gboolean thread_resume (FroggySession *self,
                                        Thread *thread,
                                        int signo,
                                        GError **error);
G_GNUC_INTERNAL gboolean thread_single_step (FroggySession *self, Thread *thread, GError **error);
G_GNUC_INTERNAL void step_over_done (FroggySession *self, Thread *thread);
G_GNUC_INTERNAL void thread_announce_stop (FroggySession *self, Thread *thread);
G_GNUC_INTERNAL void resume_quietly (FroggySession *self, Thread *thread);
G_GNUC_INTERNAL gboolean thread_run_to (FroggySession *self,
                                        Thread *thread,
                                        guint64 address,
                                        guint64 sp,
                                        gboolean ends_step,
                                        GError **error);
G_GNUC_INTERNAL void thread_end_step (FroggySession *self, Thread *thread);
G_GNUC_INTERNAL void thread_step_done (FroggySession *self, Thread *thread, guint64 pc);
G_GNUC_INTERNAL void thread_step_logic (FroggySession *self, Thread *thread);
G_GNUC_INTERNAL gboolean thread_step_start (FroggySession *self,
                                            Thread *thread,
                                            FroggyStepKind kind,
                                            guint count,
                                            GError **error);

/* froggy-session-records.c: the record handlers (top floor, under the
 * public API); the session's end */
G_GNUC_INTERNAL void session_record (FroggySession *self,
                                     const struct utrace_event_header *record,
                                     FroggyDevice *device);
G_GNUC_INTERNAL void session_hangup (FroggySession *self, FroggyDevice *device);
G_GNUC_INTERNAL void threads_resync (FroggySession *self);
G_GNUC_INTERNAL void resync_schedule (FroggySession *self, guint delay_ms);
G_GNUC_INTERNAL void session_abandon (FroggySession *self);
G_GNUC_INTERNAL void session_end (FroggySession *self);

G_END_DECLS
