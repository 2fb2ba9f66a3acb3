/* froggy-session-private.h: what the files of a FroggySession share
 *
 * A FroggySession is one object split over files with one responsibility
 * each.  They lie in floors, and a file calls only into its own floor or
 * the ones below it, never up into the session's public API:
 *
 *   top      froggy-session.c: the object, its peers, its lifecycle and
 *            its public API; the requests and the record handlers
 *   middle   froggy-session-stop-barrier.c: what waits for threads to stop;
 *            the breakpoint sites and the stepper (still in
 *            froggy-session.c)
 *   bottom   froggy-session-threads.c: the process and thread tables
 *            froggy-session-notify.c: the notifications and their pace
 *            froggy-session-launcher.c: a program started stopped at its
 *            exec, which knows nothing of the session
 *   below    FroggyDevice, FroggySymbolizer, FroggyPeer
 *
 * Within a floor a file uses another only one way: the notifications
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

#include "froggy-device.h"
#include "froggy-peer.h"
#include "froggy-session.h"
#include "froggy-symbolizer.h"

/* How often a session that lost records and waits for stops resyncs. */
#define RESYNC_INTERVAL_MS 250

G_BEGIN_DECLS

typedef struct
{
  guint64 address;
  guint8  original;
  guint   users;      /* enabled breakpoints and internal uses */
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
G_GNUC_INTERNAL GArray *all_tids (FroggySession *self);
G_GNUC_INTERNAL guint64 thread_pc (FroggySession *self, Thread *thread);
G_GNUC_INTERNAL gboolean thread_control (FroggySession *self,
                                         Thread *thread,
                                         guint32 action,
                                         int signo,
                                         GError **error);

/* froggy-session-notify.c: the notifications and their pace (reads the tables) */
G_GNUC_INTERNAL void lossless_pace (FroggySession *self);
G_GNUC_INTERNAL void add_location (GVariantBuilder *builder,
                                   FroggySession *self,
                                   pid_t pid,
                                   guint64 pc);
G_GNUC_INTERNAL void broadcast (FroggySession *self, GVariant *params);
G_GNUC_INTERNAL GVariantBuilder *notification_begin_as (FroggySession *self,
                                                        const char *reason,
                                                        Thread *thread,
                                                        gboolean stopped);
G_GNUC_INTERNAL GVariantBuilder *notification_begin (FroggySession *self,
                                                     const char *reason,
                                                     Thread *thread);
G_GNUC_INTERNAL void notification_end (FroggySession *self,
                                       GVariantBuilder *builder,
                                       Thread *thread,
                                       guint64 pc);
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

G_END_DECLS
