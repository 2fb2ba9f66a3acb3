/* froggy-daemon.c
 *
 * The FroggyDaemon listens on the UNIX socket, turns each connection into
 * a FroggyPeer served by jsonrpc-glib, and dispatches the methods of
 * protocol/README.md to the sessions.  It checks what the protocol says
 * before anything reaches a session: initialized, the params' names and
 * types, the session exists and the peer may act on it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <errno.h>
#include <gio/gunixsocketaddress.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "froggy-daemon.h"
#include "froggy-device.h"
#include "froggy-error.h"
#include "froggy-message-guard.h"
#include "froggy-params.h"
#include "froggy-peer.h"
#include "froggy-session.h"
#include "froggy-syscalls.h"

struct _FroggyDaemon
{
  GObject           parent_instance;
  char             *socket_path;
  GSocketService   *service;
  JsonrpcServer    *server;
  GSocketConnection *accepting; /* set while jsonrpc-glib accepts it */
  GHashTable       *peers;      /* JsonrpcClient -> FroggyPeer */
  GHashTable       *sessions;   /* id -> FroggySession */
  guint             next_session_id;
  gboolean          stopping;
};

G_DEFINE_FINAL_TYPE (FroggyDaemon, froggy_daemon, G_TYPE_OBJECT)

enum {
  STOPPED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* What a request needs before it reaches its handler. */
typedef enum
{
  NEEDS_NOTHING = 0,
  NEEDS_SESSION = 1 << 0,   /* a "session" param the peer is in */
  NEEDS_CONTROL = 1 << 1,   /* ... and controls */
} Needs;

typedef struct
{
  FroggyDaemon  *self;
  FroggyPeer    *peer;
  GVariant      *id;
  GVariant      *params;
  FroggySession *session;
} Request;

typedef void (*Handler) (Request *request);

typedef struct
{
  const char         *method;
  Handler             handler;
  Needs               needs;
  const char * const *params;
} Method;

static void
request_free (Request *request)
{
  g_clear_object (&request->peer);
  g_clear_pointer (&request->id, g_variant_unref);
  g_clear_pointer (&request->params, g_variant_unref);
  g_clear_object (&request->session);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Request, request_free)

static void
reply (Request  *request,
       GVariant *result)
{
  froggy_peer_reply (request->peer, request->id, result);
}

static void
reply_error (Request      *request,
             const GError *error)
{
  froggy_peer_reply_error (request->peer, request->id, error);
}

/* @error is a pointer, read only after @ok (or @result) was computed:
 * the order in which arguments are evaluated is unspecified. */
static void
reply_ok_or_error (Request  *request,
                   gboolean  ok,
                   GError  **error)
{
  if (ok)
    reply (request, NULL);
  else
    reply_error (request, *error);
}

static void
reply_result_or_error (Request  *request,
                       GVariant *result,
                       GError  **error)
{
  if (result != NULL)
    reply (request, result);
  else
    reply_error (request, *error);
}

/* The optional "thread" param, 0 when absent. */
static gboolean
get_thread (Request  *request,
            gboolean  required,
            pid_t    *tid,
            GError  **error)
{
  gint64 value = 0;

  if (!froggy_params_int (request->params, "thread", required, &value, error))
    return FALSE;
  if (value < 0 || value > G_MAXINT32)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS, "thread out of range");
      return FALSE;
    }
  *tid = value;
  return TRUE;
}

/* Session lifecycle {{{ */

static void froggy_daemon_session_ended (FroggyDaemon  *self,
                                         FroggySession *session);

static FroggySession *
new_session (FroggyDaemon  *self,
             Request       *request,
             gboolean       follow_fork,
             GError       **error)
{
  FroggySession *session = froggy_session_new (self->next_session_id, follow_fork, error);

  if (session == NULL)
    return NULL;
  self->next_session_id++;
  froggy_session_add_peer (session, request->peer);
  g_signal_connect_swapped (session, "ended", G_CALLBACK (froggy_daemon_session_ended), self);
  g_hash_table_insert (self->sessions, GUINT_TO_POINTER (froggy_session_get_id (session)), session);
  return session;
}

static void
froggy_daemon_session_ended (FroggyDaemon  *self,
                             FroggySession *session)
{
  g_debug ("session %u ended", froggy_session_get_id (session));
  g_signal_handlers_disconnect_by_data (session, self);
  g_hash_table_remove (self->sessions, GUINT_TO_POINTER (froggy_session_get_id (session)));
  if (self->stopping && g_hash_table_size (self->sessions) == 0)
    g_signal_emit (self, signals[STOPPED], 0);
}

/* A peer leaves: the sessions it was alone in are detached. */
static void
release_peer (FroggyDaemon *self,
              FroggyPeer   *peer)
{
  g_autoptr(GPtrArray) alone = g_ptr_array_new_with_free_func (g_object_unref);
  GHashTableIter iter;
  FroggySession *session;

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    if (froggy_session_has_peer (session, peer) && !froggy_session_remove_peer (session, peer))
      g_ptr_array_add (alone, g_object_ref (session));
  for (guint i = 0; i < alone->len; i++)
    froggy_session_detach (g_ptr_array_index (alone, i));
}

/* }}} */

/* Permission {{{ */

/* The kernel refused @peer's request about @pid: say so, with Yama's
 * scope when it has one, the usual reason. */
static GError *
permission_denied (FroggyPeer   *peer,
                   pid_t         pid,
                   const GError *refused)
{
  g_autofree char *scope_text = NULL;
  int scope = 0;

  if (g_file_get_contents ("/proc/sys/kernel/yama/ptrace_scope", &scope_text, NULL, NULL))
    scope = atoi (scope_text);
  if (scope == 0)
    return g_error_new (FROGGY_ERROR, FROGGY_ERROR_PERMISSION,
                        "permission denied: the kernel does not let uid %u trace process %d (%s)",
                        froggy_peer_get_uid (peer), pid, refused->message);
  return g_error_new (FROGGY_ERROR, FROGGY_ERROR_PERMISSION,
                      "permission denied: the kernel does not let uid %u trace process %d "
                      "under Yama ptrace_scope %d (%s)",
                      froggy_peer_get_uid (peer), pid, scope, refused->message);
}

/* Whether @peer may trace process @pid, as the kernel judges it (see
 * froggy-credentials.c); a daemon that is not root serves its own user. */
static gboolean
peer_may_trace (FroggyPeer  *peer,
                pid_t        pid,
                GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  if (froggy_device_may_attach_as (froggy_peer_get_credentials (peer), pid, &local_error))
    return TRUE;
  if (g_error_matches (local_error, FROGGY_ERROR, FROGGY_ERROR_PERMISSION))
    g_propagate_error (error, permission_denied (peer, pid, local_error));
  else
    g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

/* }}} */

/* Methods {{{ */

static void
handle_initialize (Request *request)
{
  static const char * const capabilities[] = {
    "launch", "attach", "breakpoints", "watchpoints", "catch", "step",
    "backtrace", "symbols", "observers", "nonstop", "auto-continue", "lossless", NULL
  };
  g_autoptr(GError) error = NULL;
  gint64 version = FROGGY_PROTOCOL_VERSION;
  const char *name = NULL;
  GVariantBuilder builder;

  if (!froggy_params_int (request->params, "protocol", FALSE, &version, &error) ||
      !froggy_params_string (request->params, "client", FALSE, &name, &error))
    {
      reply_error (request, error);
      return;
    }
  if (version != FROGGY_PROTOCOL_VERSION)
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_VERSION,
                   "protocol %" G_GINT64_FORMAT " is not supported: this daemon speaks %d",
                   version, FROGGY_PROTOCOL_VERSION);
      reply_error (request, error);
      return;
    }

  froggy_peer_set_initialized (request->peer);
  g_debug ("client %d (%s) initialized", froggy_peer_get_pid (request->peer), name ? name : "?");
  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "protocol", g_variant_new_int64 (FROGGY_PROTOCOL_VERSION));
  g_variant_builder_add (&builder, "{sv}", "server", g_variant_new_string ("froggyd " FROGGY_VERSION));
  g_variant_builder_add (&builder, "{sv}", "capabilities", g_variant_new_strv (capabilities, -1));
  reply (request, g_variant_builder_end (&builder));
}

static void
handle_shutdown (Request *request)
{
  release_peer (request->self, request->peer);
  reply (request, NULL);
}

static void
started_stopped (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  FroggySession *session = FROGGY_SESSION (object);
  g_autoptr(Request) request = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) tids = froggy_session_wait_stopped_finish (session, result, &error);
  GVariantBuilder builder;

  if (tids == NULL || g_variant_n_children (tids) == 0)
    {
      const GError *launch_error = froggy_session_get_launch_error (session);

      if (error == NULL && launch_error != NULL)
        error = g_error_copy (launch_error);
      if (error == NULL)
        g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD,
                     "the process was gone before it stopped");
      reply_error (request, error);
      return;
    }

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "session", g_variant_new_int64 (froggy_session_get_id (session)));
  g_variant_builder_add (&builder, "{sv}", "pid", g_variant_new_int64 (froggy_session_get_pid (session)));
  g_variant_builder_add (&builder, "{sv}", "threads", tids);
  g_variant_builder_add (&builder, "{sv}", "thread", g_variant_new_int64 (froggy_session_get_pid (session)));
  reply (request, g_variant_builder_end (&builder));
}

static void
handle_launch (Request *request)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) argv = NULL;
  g_auto(GStrv) env = NULL;
  g_autoptr(GArray) first = g_array_new (FALSE, FALSE, sizeof (pid_t));
  const char *cwd = NULL, *stdio = NULL;
  gboolean follow_fork = TRUE, lossless = FALSE;
  FroggySession *session;
  pid_t pid;

  if (!froggy_params_strv (request->params, "argv", TRUE, &argv, &error) ||
      !froggy_params_strv (request->params, "env", FALSE, &env, &error) ||
      !froggy_params_string (request->params, "cwd", FALSE, &cwd, &error) ||
      !froggy_params_string (request->params, "stdio", FALSE, &stdio, &error) ||
      !froggy_params_bool (request->params, "follow_fork", FALSE, &follow_fork, &error) ||
      !froggy_params_bool (request->params, "lossless", FALSE, &lossless, &error))
    {
      reply_error (request, error);
      return;
    }
  if (argv[0] == NULL)
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS, "argv is empty");
      reply_error (request, error);
      return;
    }

  session = new_session (request->self, request, follow_fork, &error);
  if (session == NULL ||
      (lossless && !froggy_session_set_lossless (session, &error)) ||
      !froggy_session_launch (session, (const char * const *) argv, (const char * const *) env,
                              cwd, stdio, request->peer, &error))
    {
      if (session != NULL)
        froggy_session_detach (session);
      reply_error (request, error);
      return;
    }

  pid = froggy_session_get_pid (session);
  g_array_append_val (first, pid);
  froggy_session_wait_stopped_async (session, first, NULL, started_stopped,
                                     g_memdup2 (request, sizeof *request));
  /* The copy owns the references now. */
  memset (request, 0, sizeof *request);
}

static void
handle_attach (Request *request)
{
  g_autoptr(GError) error = NULL;
  gboolean all_threads = TRUE, follow_fork = TRUE, lossless = FALSE;
  FroggySession *session;
  gint64 pid = 0;

  if (!froggy_params_int (request->params, "pid", TRUE, &pid, &error) ||
      !froggy_params_bool (request->params, "all_threads", FALSE, &all_threads, &error) ||
      !froggy_params_bool (request->params, "follow_fork", FALSE, &follow_fork, &error) ||
      !froggy_params_bool (request->params, "lossless", FALSE, &lossless, &error))
    {
      reply_error (request, error);
      return;
    }
  if (pid <= 0 || pid > G_MAXINT32)
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS, "pid out of range");
      reply_error (request, error);
      return;
    }
  /* The attach is the client's own request: the kernel judges it. */
  session = new_session (request->self, request, follow_fork, &error);
  if (session == NULL ||
      (lossless && !froggy_session_set_lossless (session, &error)) ||
      !froggy_session_attach (session, pid, all_threads,
                              froggy_peer_get_credentials (request->peer), &error))
    {
      if (session != NULL)
        froggy_session_detach (session);
      if (g_error_matches (error, FROGGY_ERROR, FROGGY_ERROR_PERMISSION))
        {
          g_autoptr(GError) refused = g_steal_pointer (&error);

          error = permission_denied (request->peer, pid, refused);
        }
      reply_error (request, error);
      return;
    }
  froggy_session_wait_stopped_async (session, NULL, NULL, started_stopped,
                                     g_memdup2 (request, sizeof *request));
  memset (request, 0, sizeof *request);
}

static void
detached (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(Request) request = user_data;
  g_autoptr(GError) error = NULL;

  reply_ok_or_error (request,
                     froggy_session_detach_finish (FROGGY_SESSION (object), result, &error),
                     &error);
}

/* Answered once every tracee is let go, so that an attach right after
 * finds them untraced. */
static void
handle_detach (Request *request)
{
  froggy_session_detach_async (request->session, detached, g_memdup2 (request, sizeof *request));
  /* The copy owns the references now. */
  memset (request, 0, sizeof *request);
}

static void
handle_kill (Request *request)
{
  g_autoptr(GError) error = NULL;

  reply_ok_or_error (request, froggy_session_kill (request->session, &error), &error);
}

static void
handle_session_list (Request *request)
{
  GVariantBuilder builder;
  GHashTableIter iter;
  FroggySession *session;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
  g_hash_table_iter_init (&iter, request->self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    {
      /* Only what the peer could reach. */
      if (!froggy_session_has_peer (session, request->peer) &&
          !peer_may_trace (request->peer, froggy_session_get_pid (session), NULL))
        continue;
      g_variant_builder_add_value (&builder, froggy_session_describe (session, request->peer));
    }
  reply (request, g_variant_builder_end (&builder));
}

static void
handle_session_join (Request *request)
{
  g_autoptr(GError) error = NULL;

  if (!peer_may_trace (request->peer, froggy_session_get_pid (request->session), &error))
    {
      reply_error (request, error);
      return;
    }
  froggy_session_add_peer (request->session, request->peer);
  reply (request, NULL);
}

static void
handle_session_release (Request *request)
{
  froggy_session_set_controller (request->session, NULL);
  reply (request, NULL);
}

static void
handle_session_control (Request *request)
{
  g_autoptr(GError) error = NULL;
  FroggyPeer *controller = froggy_session_get_controller (request->session);

  if (controller != NULL && controller != request->peer)
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_NOT_CONTROLLER,
                   "another client controls session %u", froggy_session_get_id (request->session));
      reply_error (request, error);
      return;
    }
  froggy_session_set_controller (request->session, request->peer);
  reply (request, NULL);
}

static void
handle_threads (Request *request)
{
  reply (request, froggy_session_threads (request->session));
}

static void
stop_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(Request) request = user_data;
  g_autoptr(GError) error = NULL;
  GVariant *tids = froggy_session_wait_stopped_finish (FROGGY_SESSION (object), result, &error);
  GVariantBuilder builder;

  if (tids == NULL)
    {
      reply_error (request, error);
      return;
    }
  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "threads", tids);
  reply (request, g_variant_builder_end (&builder));
  g_variant_unref (tids);
}

static void
handle_stop (Request *request)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) stopping = NULL;
  pid_t tid = 0;

  if (!get_thread (request, FALSE, &tid, &error) ||
      !froggy_session_stop (request->session, tid, &stopping, &error))
    {
      reply_error (request, error);
      return;
    }
  /* Stopping every thread waits for the threads born meanwhile, too. */
  froggy_session_wait_stopped_async (request->session, tid == 0 ? NULL : stopping,
                                     NULL, stop_done,
                                     g_memdup2 (request, sizeof *request));
  memset (request, 0, sizeof *request);
}

static void
handle_continue (Request *request)
{
  g_autoptr(GError) error = NULL;
  gint64 signo = -1;
  pid_t tid = 0;

  if (!get_thread (request, FALSE, &tid, &error) ||
      !froggy_params_int (request->params, "signal", FALSE, &signo, &error))
    {
      reply_error (request, error);
      return;
    }
  if (signo > 64 || signo < -1)
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS, "no signal %" G_GINT64_FORMAT, signo);
      reply_error (request, error);
      return;
    }
  reply_ok_or_error (request, froggy_session_continue (request->session, tid, signo, &error), &error);
}

static void
handle_step (Request *request)
{
  static const char * const kinds[] = { "instruction", "line", "over", "out", NULL };
  g_autoptr(GError) error = NULL;
  const char *kind = "instruction";
  gint64 count = 1;
  pid_t tid = 0;
  guint i;

  if (!get_thread (request, TRUE, &tid, &error) ||
      !froggy_params_string (request->params, "kind", FALSE, &kind, &error) ||
      !froggy_params_int (request->params, "count", FALSE, &count, &error))
    {
      reply_error (request, error);
      return;
    }
  for (i = 0; kinds[i] != NULL; i++)
    if (g_str_equal (kinds[i], kind))
      break;
  if (kinds[i] == NULL)
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "kind must be instruction, line, over or out");
      reply_error (request, error);
      return;
    }
  if (count < 1 || count > FROGGY_STEP_MAX_COUNT || (count > 1 && i != FROGGY_STEP_INSTRUCTION))
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "count must be 1 to %d, and more than 1 only for instructions",
                   FROGGY_STEP_MAX_COUNT);
      reply_error (request, error);
      return;
    }
  reply_ok_or_error (request, froggy_session_step (request->session, tid, i, count, &error), &error);
}

static void
handle_registers_read (Request *request)
{
  g_autoptr(GError) error = NULL;
  const char *regset = "general";
  pid_t tid = 0;

  if (!get_thread (request, TRUE, &tid, &error) ||
      !froggy_params_string (request->params, "regset", FALSE, &regset, &error))
    {
      reply_error (request, error);
      return;
    }
  if (!g_str_equal (regset, "general") && !g_str_equal (regset, "fp"))
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS, "regset must be general or fp");
      reply_error (request, error);
      return;
    }
  reply_result_or_error (request,
                         froggy_session_read_registers (request->session, tid, regset, &error),
                         &error);
}

static void
handle_registers_write (Request *request)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) registers = froggy_params_lookup (request->params, "registers");
  pid_t tid = 0;

  if (!get_thread (request, TRUE, &tid, &error))
    {
      reply_error (request, error);
      return;
    }
  reply_ok_or_error (request,
                     froggy_session_write_registers (request->session, tid, registers, &error),
                     &error);
}

static void
handle_memory_read (Request *request)
{
  g_autoptr(GError) error = NULL;
  guint64 address = 0;
  gint64 length = 0;
  pid_t tid = 0;

  if (!get_thread (request, FALSE, &tid, &error) ||
      !froggy_params_address (request->params, "address", TRUE, &address, &error) ||
      !froggy_params_int (request->params, "length", TRUE, &length, &error))
    {
      reply_error (request, error);
      return;
    }
  if (length < 0)
    length = 0;
  reply_result_or_error (request,
                         froggy_session_read_memory (request->session, tid, address, length, &error),
                         &error);
}

static void
handle_memory_write (Request *request)
{
  g_autoptr(GError) error = NULL;
  const char *data = NULL;
  guint64 address = 0;
  pid_t tid = 0;

  if (!get_thread (request, FALSE, &tid, &error) ||
      !froggy_params_address (request->params, "address", TRUE, &address, &error) ||
      !froggy_params_string (request->params, "data", TRUE, &data, &error))
    {
      reply_error (request, error);
      return;
    }
  reply_result_or_error (request,
                         froggy_session_write_memory (request->session, tid, address, data, &error),
                         &error);
}

static void
handle_breakpoint_insert (Request *request)
{
  g_autoptr(GError) error = NULL;
  const char *location = NULL, *condition = NULL;
  gboolean temporary = FALSE, auto_continue = FALSE;
  gint64 ignore_count = 0;
  pid_t tid = 0;

  if (!froggy_params_string (request->params, "location", TRUE, &location, &error) ||
      !get_thread (request, FALSE, &tid, &error) ||
      !froggy_params_string (request->params, "condition", FALSE, &condition, &error) ||
      !froggy_params_int (request->params, "ignore_count", FALSE, &ignore_count, &error) ||
      !froggy_params_bool (request->params, "temporary", FALSE, &temporary, &error) ||
      !froggy_params_bool (request->params, "auto_continue", FALSE, &auto_continue, &error))
    {
      reply_error (request, error);
      return;
    }
  if (ignore_count < 0 || ignore_count > G_MAXUINT32)
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS, "ignore_count out of range");
      reply_error (request, error);
      return;
    }
  reply_result_or_error (request,
                         froggy_session_insert_breakpoint (request->session, location, tid, condition,
                                                           ignore_count, temporary, auto_continue,
                                                           &error),
                         &error);
}

static gboolean
get_id (Request  *request,
        guint    *id,
        GError  **error)
{
  gint64 value = 0;

  if (!froggy_params_int (request->params, "id", TRUE, &value, error))
    return FALSE;
  if (value <= 0 || value > G_MAXUINT32)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NO_BREAKPOINT, "no breakpoint %" G_GINT64_FORMAT, value);
      return FALSE;
    }
  *id = value;
  return TRUE;
}

static void
handle_breakpoint_remove (Request *request)
{
  g_autoptr(GError) error = NULL;
  guint id = 0;

  reply_ok_or_error (request,
                     get_id (request, &id, &error) &&
                     froggy_session_remove_breakpoint (request->session, id, &error),
                     &error);
}

static void
handle_breakpoint_enable (Request *request)
{
  g_autoptr(GError) error = NULL;
  gboolean enabled = TRUE;
  guint id = 0;

  reply_ok_or_error (request,
                     get_id (request, &id, &error) &&
                     froggy_params_bool (request->params, "enabled", TRUE, &enabled, &error) &&
                     froggy_session_enable_breakpoint (request->session, id, enabled, &error),
                     &error);
}

static void
handle_breakpoint_list (Request *request)
{
  reply (request, froggy_session_list_breakpoints (request->session));
}

static void
handle_watchpoint_insert (Request *request)
{
  g_autoptr(GError) error = NULL;
  const char *kind = "write";
  guint64 address = 0;
  gint64 length = 0;
  pid_t tid = 0;

  if (!froggy_params_address (request->params, "address", TRUE, &address, &error) ||
      !froggy_params_int (request->params, "length", TRUE, &length, &error) ||
      !froggy_params_string (request->params, "kind", FALSE, &kind, &error) ||
      !get_thread (request, FALSE, &tid, &error))
    {
      reply_error (request, error);
      return;
    }
  if (!g_str_equal (kind, "write") && !g_str_equal (kind, "readwrite"))
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS, "kind must be write or readwrite");
      reply_error (request, error);
      return;
    }
  reply_result_or_error (request,
                         froggy_session_insert_watchpoint (request->session, address,
                                                           CLAMP (length, 0, 64),
                                                           g_str_equal (kind, "readwrite"),
                                                           tid, &error),
                         &error);
}

static void
handle_watchpoint_remove (Request *request)
{
  g_autoptr(GError) error = NULL;
  guint id = 0;

  reply_ok_or_error (request,
                     get_id (request, &id, &error) &&
                     froggy_session_remove_watchpoint (request->session, id, &error),
                     &error);
}

/* "syscalls": names or numbers; "signals": numbers. */
static gboolean
get_numbers (Request     *request,
             const char  *name,
             gboolean     syscalls,
             GArray     **numbers,
             GError     **error)
{
  g_autoptr(GVariant) list = froggy_params_lookup (request->params, name);
  g_autoptr(GArray) result = g_array_new (FALSE, FALSE, sizeof (int));
  GVariantIter iter;
  GVariant *item;

  if (list == NULL)
    {
      *numbers = g_steal_pointer (&result);
      return TRUE;
    }
  if (!g_variant_is_of_type (list, G_VARIANT_TYPE ("av")))
    goto wrong;
  g_variant_iter_init (&iter, list);
  while ((item = g_variant_iter_next_value (&iter)))
    {
      g_autoptr(GVariant) boxed = item;
      g_autoptr(GVariant) value = g_variant_get_variant (boxed);
      int number;

      if (g_variant_is_of_type (value, G_VARIANT_TYPE_INT64))
        number = g_variant_get_int64 (value);
      else if (syscalls && g_variant_is_of_type (value, G_VARIANT_TYPE_STRING))
        {
          number = froggy_syscall_number (g_variant_get_string (value, NULL));
          if (number < 0)
            {
              g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                           "no system call \"%s\"", g_variant_get_string (value, NULL));
              return FALSE;
            }
        }
      else
        goto wrong;
      g_array_append_val (result, number);
    }
  *numbers = g_steal_pointer (&result);
  return TRUE;

wrong:
  g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
               "%s must be an array of %s", name, syscalls ? "names or numbers" : "numbers");
  return FALSE;
}

static void
handle_catch (Request *request)
{
  static const char * const kinds[] = { "syscall", "signal", "fork", "exec", "exit", NULL };
  g_autoptr(FroggyCatchSpec) spec = g_new0 (FroggyCatchSpec, 1);
  g_autoptr(GError) error = NULL;
  const char *kind = NULL;
  GVariant *result;

  spec->entry = TRUE;
  spec->exit = TRUE;
  if (!froggy_params_string (request->params, "kind", TRUE, &kind, &error) ||
      !froggy_params_bool (request->params, "entry", FALSE, &spec->entry, &error) ||
      !froggy_params_bool (request->params, "exit", FALSE, &spec->exit, &error))
    {
      reply_error (request, error);
      return;
    }
  if (!g_strv_contains (kinds, kind))
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "kind must be syscall, signal, fork, exec or exit");
      reply_error (request, error);
      return;
    }
  spec->kind = g_strdup (kind);
  if (!get_numbers (request, g_str_equal (kind, "signal") ? "signals" : "syscalls",
                    g_str_equal (kind, "syscall"), &spec->numbers, &error))
    {
      reply_error (request, error);
      return;
    }
  result = froggy_session_add_catch (request->session, g_steal_pointer (&spec), &error);
  reply_result_or_error (request, result, &error);
}

static void
handle_catch_remove (Request *request)
{
  g_autoptr(GError) error = NULL;
  guint id = 0;

  reply_ok_or_error (request,
                     get_id (request, &id, &error) &&
                     froggy_session_remove_catch (request->session, id, &error),
                     &error);
}

static void
handle_events_subscribe (Request *request)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) events = froggy_params_lookup (request->params, "events");

  reply_ok_or_error (request, froggy_session_subscribe (request->session, events, &error), &error);
}

static void
handle_backtrace (Request *request)
{
  g_autoptr(GError) error = NULL;
  gint64 max_frames = 64;
  pid_t tid = 0;

  if (!get_thread (request, TRUE, &tid, &error) ||
      !froggy_params_int (request->params, "max_frames", FALSE, &max_frames, &error))
    {
      reply_error (request, error);
      return;
    }
  reply_result_or_error (request,
                         froggy_session_backtrace (request->session, tid, CLAMP (max_frames, 1, 4096),
                                                   &error),
                         &error);
}

static void
handle_symbol_lookup (Request *request)
{
  g_autoptr(GError) error = NULL;
  const char *name = NULL;
  guint64 address = 0;
  gboolean by_address;

  if (!froggy_params_string (request->params, "name", FALSE, &name, &error) ||
      !froggy_params_address (request->params, "address", FALSE, &address, &error))
    {
      reply_error (request, error);
      return;
    }
  {
    g_autoptr(GVariant) address_param = froggy_params_lookup (request->params, "address");

    by_address = address_param != NULL;
  }
  if (by_address == (name != NULL))
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS, "give either name or address");
      reply_error (request, error);
      return;
    }
  reply_result_or_error (request,
                         froggy_session_lookup_symbol (request->session, name, by_address, address, &error),
                         &error);
}

static void
handle_symbol_complete (Request *request)
{
  g_autoptr(GError) error = NULL;
  const char *prefix = NULL;
  gint64 limit = 200;

  if (!froggy_params_string (request->params, "prefix", TRUE, &prefix, &error) ||
      !froggy_params_int (request->params, "limit", FALSE, &limit, &error))
    {
      reply_error (request, error);
      return;
    }
  if (limit < 1 || limit > 10000)
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS, "limit must be 1 to 10000");
      reply_error (request, error);
      return;
    }
  reply_result_or_error (request,
                         froggy_session_complete_symbol (request->session, prefix, limit, &error),
                         &error);
}

static void
handle_source_lines (Request *request)
{
  g_autoptr(GError) error = NULL;
  const char *location = NULL;

  if (!froggy_params_string (request->params, "location", TRUE, &location, &error))
    {
      reply_error (request, error);
      return;
    }
  reply_result_or_error (request,
                         froggy_session_source_lines (request->session, location, &error),
                         &error);
}

#define PARAMS(...) ((const char * const []) { __VA_ARGS__, NULL })

static const Method methods[] = {
  { "initialize", handle_initialize, NEEDS_NOTHING, PARAMS ("protocol", "client") },
  { "shutdown", handle_shutdown, NEEDS_NOTHING, PARAMS (NULL) },
  { "launch", handle_launch, NEEDS_NOTHING,
    PARAMS ("argv", "env", "cwd", "stdio", "follow_fork", "lossless") },
  { "attach", handle_attach, NEEDS_NOTHING,
    PARAMS ("pid", "all_threads", "follow_fork", "lossless") },
  { "detach", handle_detach, NEEDS_CONTROL, PARAMS ("session") },
  { "kill", handle_kill, NEEDS_CONTROL, PARAMS ("session") },
  { "session.list", handle_session_list, NEEDS_NOTHING, PARAMS (NULL) },
  { "session.join", handle_session_join, NEEDS_NOTHING, PARAMS ("session") },
  { "session.release", handle_session_release, NEEDS_CONTROL, PARAMS ("session") },
  { "session.control", handle_session_control, NEEDS_SESSION, PARAMS ("session") },
  { "threads", handle_threads, NEEDS_SESSION, PARAMS ("session") },
  { "stop", handle_stop, NEEDS_CONTROL, PARAMS ("session", "thread") },
  { "interrupt", handle_stop, NEEDS_CONTROL, PARAMS ("session", "thread") },
  { "continue", handle_continue, NEEDS_CONTROL, PARAMS ("session", "thread", "signal") },
  { "step", handle_step, NEEDS_CONTROL, PARAMS ("session", "thread", "kind", "count") },
  { "registers.read", handle_registers_read, NEEDS_SESSION, PARAMS ("session", "thread", "regset") },
  { "registers.write", handle_registers_write, NEEDS_CONTROL,
    PARAMS ("session", "thread", "registers") },
  { "memory.read", handle_memory_read, NEEDS_SESSION,
    PARAMS ("session", "thread", "address", "length") },
  { "memory.write", handle_memory_write, NEEDS_CONTROL,
    PARAMS ("session", "thread", "address", "data") },
  { "breakpoint.insert", handle_breakpoint_insert, NEEDS_CONTROL,
    PARAMS ("session", "location", "thread", "condition", "ignore_count", "temporary",
            "auto_continue") },
  { "breakpoint.remove", handle_breakpoint_remove, NEEDS_CONTROL, PARAMS ("session", "id") },
  { "breakpoint.enable", handle_breakpoint_enable, NEEDS_CONTROL,
    PARAMS ("session", "id", "enabled") },
  { "breakpoint.list", handle_breakpoint_list, NEEDS_SESSION, PARAMS ("session") },
  { "watchpoint.insert", handle_watchpoint_insert, NEEDS_CONTROL,
    PARAMS ("session", "address", "length", "kind", "thread") },
  { "watchpoint.remove", handle_watchpoint_remove, NEEDS_CONTROL, PARAMS ("session", "id") },
  { "catch", handle_catch, NEEDS_CONTROL,
    PARAMS ("session", "kind", "syscalls", "signals", "entry", "exit") },
  { "catch.remove", handle_catch_remove, NEEDS_CONTROL, PARAMS ("session", "id") },
  { "events.subscribe", handle_events_subscribe, NEEDS_CONTROL, PARAMS ("session", "events") },
  { "backtrace", handle_backtrace, NEEDS_SESSION, PARAMS ("session", "thread", "max_frames") },
  { "symbol.lookup", handle_symbol_lookup, NEEDS_SESSION, PARAMS ("session", "name", "address") },
  { "symbol.complete", handle_symbol_complete, NEEDS_SESSION, PARAMS ("session", "prefix", "limit") },
  { "source.lines", handle_source_lines, NEEDS_SESSION, PARAMS ("session", "location") },
};

#undef PARAMS

/* }}} */

/* Dispatch {{{ */

static gboolean
froggy_daemon_handle_call (FroggyDaemon  *self,
                           JsonrpcClient *client,
                           const char    *method_name,
                           GVariant      *id,
                           GVariant      *params,
                           JsonrpcServer *server)
{
  g_autoptr(Request) request = g_new0 (Request, 1);
  g_autoptr(GError) error = NULL;
  const Method *method = NULL;
  FroggyPeer *peer = g_hash_table_lookup (self->peers, client);

  if (peer == NULL)
    return FALSE;

  request->self = self;
  request->peer = g_object_ref (peer);
  request->id = g_variant_ref (id);
  request->params = params ? g_variant_ref (params) : NULL;

  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    if (g_str_equal (methods[i].method, method_name))
      method = &methods[i];

  if (g_str_equal (method_name, FROGGY_MESSAGE_INVALID_REQUEST))
    {
      const char *reason = "an invalid request";

      /* What FroggyMessageGuard made of a request without a method. */
      if (params != NULL && g_variant_is_of_type (params, G_VARIANT_TYPE_VARDICT))
        g_variant_lookup (params, "reason", "&s", &reason);
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_REQUEST, "invalid request: %s", reason);
    }
  else if (method == NULL)
    g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_UNKNOWN_METHOD, "unknown method \"%s\"", method_name);
  else if (method->handler != handle_initialize && !froggy_peer_get_initialized (peer))
    g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_NOT_INITIALIZED, "call initialize first");
  else
    froggy_params_check (params, method->params, &error);

  if (error == NULL && (method->needs & (NEEDS_SESSION | NEEDS_CONTROL)))
    {
      gint64 session_id = 0;

      if (froggy_params_int (params, "session", TRUE, &session_id, &error))
        {
          FroggySession *session = session_id > 0 && session_id <= G_MAXUINT32
                                   ? g_hash_table_lookup (self->sessions, GUINT_TO_POINTER (session_id))
                                   : NULL;

          if (session == NULL || !froggy_session_has_peer (session, peer))
            g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_NO_SESSION,
                         "no session %" G_GINT64_FORMAT " (joined by this client)", session_id);
          else if ((method->needs & NEEDS_CONTROL) && froggy_session_get_controller (session) != peer)
            g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_NOT_CONTROLLER,
                         "this client observes session %" G_GINT64_FORMAT ": it does not control it",
                         session_id);
          else
            request->session = g_object_ref (session);
        }
    }
  else if (error == NULL && method->handler == handle_session_join)
    {
      gint64 session_id = 0;

      if (froggy_params_int (params, "session", TRUE, &session_id, &error))
        {
          FroggySession *session = session_id > 0 && session_id <= G_MAXUINT32
                                   ? g_hash_table_lookup (self->sessions, GUINT_TO_POINTER (session_id))
                                   : NULL;

          if (session == NULL)
            g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_NO_SESSION,
                         "no session %" G_GINT64_FORMAT, session_id);
          else
            request->session = g_object_ref (session);
        }
    }

  if (error != NULL)
    reply_error (request, error);
  else
    method->handler (request);
  return TRUE;
}

static void
froggy_daemon_client_accepted (FroggyDaemon  *self,
                               JsonrpcClient *client,
                               JsonrpcServer *server)
{
  FroggyCredentials *credentials = NULL;
  g_autoptr(GError) error = NULL;
  GSocket *socket = self->accepting ? g_socket_connection_get_socket (self->accepting) : NULL;

  /* JsonrpcClient does not give its stream back, so the connection
   * being accepted is parked on self by froggy_daemon_incoming(). */
  if (socket != NULL)
    credentials = froggy_credentials_new_from_socket (socket, &error);
  if (credentials == NULL)
    {
      g_message ("a client without credentials (%s): it may reach nothing",
                 error ? error->message : "not a socket");
      credentials = froggy_credentials_new_unknown ();
    }

  g_debug ("client %d (uid %d) connected", froggy_credentials_get_pid (credentials),
           froggy_credentials_get_uid (credentials));
  g_hash_table_insert (self->peers, client, froggy_peer_new (client, socket, credentials));
}

static void
froggy_daemon_client_closed (FroggyDaemon  *self,
                             JsonrpcClient *client,
                             JsonrpcServer *server)
{
  g_autoptr(FroggyPeer) peer = NULL;

  if (!g_hash_table_steal_extended (self->peers, client, NULL, (gpointer *) &peer))
    return;
  g_debug ("client %d disconnected", froggy_peer_get_pid (peer));
  release_peer (self, peer);
}

static gboolean
froggy_daemon_incoming (FroggyDaemon      *self,
                        GSocketConnection *connection,
                        GObject           *source_object,
                        GSocketService    *service)
{
  GIOStream *io_stream = G_IO_STREAM (connection);
  g_autoptr(GInputStream) guarded = froggy_message_guard_new (g_io_stream_get_input_stream (io_stream));
  g_autoptr(GIOStream) stream = g_simple_io_stream_new (guarded, g_io_stream_get_output_stream (io_stream));

  /* Disposing of a connection closes it: it lives as long as its stream. */
  g_object_set_data_full (G_OBJECT (stream), "froggy-connection",
                          g_object_ref (connection), g_object_unref);
  /* "client-accepted" is emitted from inside the accept call. */
  self->accepting = connection;
  jsonrpc_server_accept_io_stream (self->server, stream);
  self->accepting = NULL;
  return TRUE;
}

/* }}} */

static void
froggy_daemon_finalize (GObject *object)
{
  FroggyDaemon *self = FROGGY_DAEMON (object);

  if (self->service != NULL)
    g_socket_service_stop (self->service);
  g_clear_object (&self->service);
  g_clear_object (&self->server);
  g_hash_table_unref (self->sessions);
  g_hash_table_unref (self->peers);
  if (self->socket_path != NULL)
    unlink (self->socket_path);
  g_free (self->socket_path);
  G_OBJECT_CLASS (froggy_daemon_parent_class)->finalize (object);
}

static void
froggy_daemon_class_init (FroggyDaemonClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = froggy_daemon_finalize;

  /**
   * FroggyDaemon::stopped:
   *
   * froggy_daemon_stop() is done: every session is detached.
   */
  signals[STOPPED] = g_signal_new ("stopped", G_TYPE_FROM_CLASS (klass),
                                   G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                   G_TYPE_NONE, 0);
}

static void
froggy_daemon_init (FroggyDaemon *self)
{
  self->peers = g_hash_table_new_full (NULL, NULL, NULL, g_object_unref);
  self->sessions = g_hash_table_new_full (NULL, NULL, NULL, g_object_unref);
  self->next_session_id = 1;
  self->server = jsonrpc_server_new ();
  g_signal_connect_swapped (self->server, "handle-call", G_CALLBACK (froggy_daemon_handle_call), self);
  g_signal_connect_swapped (self->server, "client-accepted",
                            G_CALLBACK (froggy_daemon_client_accepted), self);
  g_signal_connect_swapped (self->server, "client-closed",
                            G_CALLBACK (froggy_daemon_client_closed), self);
}

FroggyDaemon *
froggy_daemon_new (void)
{
  return g_object_new (FROGGY_TYPE_DAEMON, NULL);
}

gboolean
froggy_daemon_listen (FroggyDaemon  *self,
                      const char    *socket_path,
                      gboolean       shared,
                      GError       **error)
{
  g_autoptr(GSocketAddress) address = NULL;
  g_autofree char *staging = NULL;
  mode_t old_umask;
  gboolean ok;

  g_return_val_if_fail (FROGGY_IS_DAEMON (self), FALSE);

  /* A socket left by a daemon that died: nobody answers on it. */
  if (g_file_test (socket_path, G_FILE_TEST_EXISTS))
    {
      g_autoptr(GSocketClient) probe = g_socket_client_new ();
      g_autoptr(GSocketAddress) existing = g_unix_socket_address_new (socket_path);
      g_autoptr(GSocketConnection) connection =
        g_socket_client_connect (probe, G_SOCKET_CONNECTABLE (existing), NULL, NULL);

      if (connection != NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE,
                       "a daemon already listens on %s", socket_path);
          return FALSE;
        }
      unlink (socket_path);
    }

  /* Bound and listening under another name first, then renamed: a
   * client that sees the socket can connect to it (between bind() and
   * listen() it would be refused). */
  staging = g_strdup_printf ("%s.%d", socket_path, getpid ());
  unlink (staging);
  self->service = g_socket_service_new ();
  address = g_unix_socket_address_new (staging);
  old_umask = umask (0077);
  ok = g_socket_listener_add_address (G_SOCKET_LISTENER (self->service), address,
                                      G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
                                      NULL, NULL, error);
  umask (old_umask);
  if (!ok)
    return FALSE;
  /* Shared: anyone connects, and SO_PEERCRED limits what they reach. */
  if (chmod (staging, shared ? 0666 : 0600) < 0 || rename (staging, socket_path) < 0)
    {
      int errsv = errno;

      unlink (staging);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   "putting the socket in place: %s", g_strerror (errsv));
      return FALSE;
    }
  self->socket_path = g_strdup (socket_path);
  g_signal_connect_swapped (self->service, "incoming", G_CALLBACK (froggy_daemon_incoming), self);
  g_socket_service_start (self->service);
  return TRUE;
}

gboolean
froggy_daemon_listen_fd (FroggyDaemon  *self,
                         int            fd,
                         GError       **error)
{
  g_autoptr(GSocket) socket = NULL;

  g_return_val_if_fail (FROGGY_IS_DAEMON (self), FALSE);

  socket = g_socket_new_from_fd (fd, error);
  if (socket == NULL)
    return FALSE;
  self->service = g_socket_service_new ();
  if (!g_socket_listener_add_socket (G_SOCKET_LISTENER (self->service), socket, NULL, error))
    return FALSE;
  g_signal_connect_swapped (self->service, "incoming", G_CALLBACK (froggy_daemon_incoming), self);
  g_socket_service_start (self->service);
  return TRUE;
}

void
froggy_daemon_stop (FroggyDaemon *self)
{
  g_autoptr(GPtrArray) sessions = NULL;
  GHashTableIter iter;
  FroggySession *session;

  g_return_if_fail (FROGGY_IS_DAEMON (self));

  self->stopping = TRUE;
  if (self->service != NULL)
    g_socket_service_stop (self->service);
  if (g_hash_table_size (self->sessions) == 0)
    {
      g_signal_emit (self, signals[STOPPED], 0);
      return;
    }
  sessions = g_ptr_array_new_with_free_func (g_object_unref);
  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &session))
    g_ptr_array_add (sessions, g_object_ref (session));
  for (guint i = 0; i < sessions->len; i++)
    froggy_session_detach (g_ptr_array_index (sessions, i));
}
