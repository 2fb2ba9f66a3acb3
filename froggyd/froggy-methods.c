/* froggy-methods.c
 *
 * The methods of protocol/README.md: the table of their names, the params
 * each knows and what it needs (a session, control of it), and one
 * handler a method that reads its params, calls the session engine in C
 * terms and answers with the protocol's form of the result (see
 * froggy-encode.c).  The daemon (froggy-daemon.c) checks what the table
 * says before a handler runs: adding a method is one row and one handler.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <stdlib.h>
#include <string.h>

#include "froggy-device.h"
#include "froggy-encode.h"
#include "froggy-error.h"
#include "froggy-methods.h"
#include "froggy-params.h"
#include "froggy-registers.h"
#include "froggy-syscalls.h"

void
froggy_request_free (FroggyRequest *request)
{
  g_clear_object (&request->peer);
  g_clear_pointer (&request->id, g_variant_unref);
  g_clear_pointer (&request->params, g_variant_unref);
  g_clear_object (&request->session);
  g_free (request);
}

FroggyRequest *
froggy_request_new (FroggyDaemon *daemon,
                    FroggyPeer   *peer,
                    GVariant     *id,
                    GVariant     *params)
{
  FroggyRequest *request = g_new0 (FroggyRequest, 1);

  request->daemon = daemon;
  request->peer = g_object_ref (peer);
  request->id = g_variant_ref (id);
  request->params = params ? g_variant_ref (params) : NULL;
  return request;
}

/* A request answered later, from a callback: the copy takes over its
 * references, and the handler's own goes empty.  Read what the call
 * needs from the copy: the order in which a call's arguments are
 * evaluated is unspecified. */
static FroggyRequest *
request_take (FroggyRequest *request)
{
  FroggyRequest *taken = g_memdup2 (request, sizeof *request);

  memset (request, 0, sizeof *request);
  return taken;
}

static void
reply (FroggyRequest  *request,
       GVariant *result)
{
  froggy_peer_reply (request->peer, request->id, result);
}

void
froggy_request_reply_error (FroggyRequest *request,
                            const GError  *error)
{
  froggy_peer_reply_error (request->peer, request->id, error);
}

static void
reply_error (FroggyRequest *request,
             const GError  *error)
{
  froggy_request_reply_error (request, error);
}

/* @error is a pointer, read only after @ok (or @result) was computed:
 * the order in which arguments are evaluated is unspecified. */
static void
reply_ok_or_error (FroggyRequest  *request,
                   gboolean  ok,
                   GError  **error)
{
  if (ok)
    reply (request, NULL);
  else
    reply_error (request, *error);
}

/* {"id": @id} for a new watchpoint or catchpoint, or the error (@id 0). */
static void
reply_id_or_error (FroggyRequest  *request,
                   guint           id,
                   GError        **error)
{
  GVariantBuilder builder;

  if (id == 0)
    {
      reply_error (request, *error);
      return;
    }
  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "id", g_variant_new_int64 (id));
  reply (request, g_variant_builder_end (&builder));
}

/* The optional "thread" param, 0 when absent. */
static gboolean
get_thread (FroggyRequest  *request,
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

/* Permission {{{ */

/* If the kernel refused @peer's request about @pid (*@error is
 * FROGGY_ERROR_PERMISSION), say so, with Yama's scope when it has one,
 * the usual reason. */
static void
explain_permission (FroggyPeer  *peer,
                    pid_t        pid,
                    GError     **error)
{
  g_autoptr(GError) refused = NULL;
  g_autofree char *scope_text = NULL;
  int scope = 0;

  if (!g_error_matches (*error, FROGGY_ERROR, FROGGY_ERROR_PERMISSION))
    return;
  refused = g_steal_pointer (error);
  if (g_file_get_contents ("/proc/sys/kernel/yama/ptrace_scope", &scope_text, NULL, NULL))
    scope = atoi (scope_text);
  if (scope == 0)
    g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_PERMISSION,
                 "permission denied: the kernel does not let uid %u trace process %d (%s)",
                 froggy_peer_get_uid (peer), pid, refused->message);
  else
    g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_PERMISSION,
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
  explain_permission (peer, pid, &local_error);
  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

/* }}} */

/* The methods {{{ */

static void
handle_initialize (FroggyRequest *request)
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
handle_shutdown (FroggyRequest *request)
{
  froggy_daemon_release_peer (request->daemon, request->peer);
  reply (request, NULL);
}

static void
started_stopped (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  FroggySession *session = FROGGY_SESSION (object);
  g_autoptr(FroggyRequest) request = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) tids = froggy_session_wait_stopped_finish (session, result, &error);
  GVariantBuilder builder;

  if (tids == NULL || tids->len == 0)
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
  g_variant_builder_add (&builder, "{sv}", "threads", froggy_encode_tids (tids));
  g_variant_builder_add (&builder, "{sv}", "thread", g_variant_new_int64 (froggy_session_get_pid (session)));
  reply (request, g_variant_builder_end (&builder));
}

static void
handle_launch (FroggyRequest *request)
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

  session = froggy_daemon_new_session (request->daemon, request->peer, follow_fork, &error);
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
  froggy_session_wait_stopped_async (session, first, NULL, started_stopped, request_take (request));
}

static void
handle_attach (FroggyRequest *request)
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
  session = froggy_daemon_new_session (request->daemon, request->peer, follow_fork, &error);
  if (session == NULL ||
      (lossless && !froggy_session_set_lossless (session, &error)) ||
      !froggy_session_attach (session, pid, all_threads,
                              froggy_peer_get_credentials (request->peer), &error))
    {
      if (session != NULL)
        froggy_session_detach (session);
      explain_permission (request->peer, pid, &error);
      reply_error (request, error);
      return;
    }
  froggy_session_wait_stopped_async (session, NULL, NULL, started_stopped, request_take (request));
}

static void
detached (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(FroggyRequest) request = user_data;
  g_autoptr(GError) error = NULL;

  reply_ok_or_error (request,
                     froggy_session_detach_finish (FROGGY_SESSION (object), result, &error),
                     &error);
}

/* Answered once every tracee is let go, so that an attach right after
 * finds them untraced. */
static void
handle_detach (FroggyRequest *request)
{
  FroggyRequest *taken = request_take (request);

  froggy_session_detach_async (taken->session, detached, taken);
}

static void
handle_kill (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;

  reply_ok_or_error (request, froggy_session_kill (request->session, &error), &error);
}

static void
handle_session_list (FroggyRequest *request)
{
  g_autoptr(GList) sessions = froggy_daemon_list_sessions (request->daemon);
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
  for (GList *l = sessions; l != NULL; l = l->next)
    {
      FroggySession *session = l->data;
      GVariantBuilder one;

      /* Only what the peer could reach. */
      if (!froggy_session_has_peer (session, request->peer) &&
          !peer_may_trace (request->peer, froggy_session_get_pid (session), NULL))
        continue;
      g_variant_builder_init (&one, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&one, "{sv}", "session", g_variant_new_int64 (froggy_session_get_id (session)));
      g_variant_builder_add (&one, "{sv}", "pid", g_variant_new_int64 (froggy_session_get_pid (session)));
      g_variant_builder_add (&one, "{sv}", "controller",
                             g_variant_new_boolean (froggy_session_get_controller (session) == request->peer));
      g_variant_builder_add_value (&builder, g_variant_builder_end (&one));
    }
  reply (request, g_variant_builder_end (&builder));
}

static void
handle_session_join (FroggyRequest *request)
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
handle_session_release (FroggyRequest *request)
{
  froggy_session_set_controller (request->session, NULL);
  reply (request, NULL);
}

static void
handle_session_control (FroggyRequest *request)
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
handle_threads (FroggyRequest *request)
{
  g_autoptr(GArray) states = froggy_session_threads (request->session);
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < states->len; i++)
    {
      const FroggyThreadState *state = &g_array_index (states, FroggyThreadState, i);
      GVariantBuilder one;

      g_variant_builder_init (&one, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&one, "{sv}", "thread", g_variant_new_int64 (state->tid));
      g_variant_builder_add (&one, "{sv}", "pid", g_variant_new_int64 (state->pid));
      g_variant_builder_add (&one, "{sv}", "state",
                             g_variant_new_string (state->stopped ? "stopped" : "running"));
      if (state->has_pc)
        {
          g_autoptr(FroggySymbol) symbol = froggy_session_lookup_address (request->session,
                                                                          state->pid, state->pc);

          froggy_encode_location (&one, state->pc, symbol);
        }
      g_variant_builder_add_value (&builder, g_variant_builder_end (&one));
    }
  reply (request, g_variant_builder_end (&builder));
}

static void
stop_done (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(FroggyRequest) request = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) tids = froggy_session_wait_stopped_finish (FROGGY_SESSION (object), result, &error);
  GVariantBuilder builder;

  if (tids == NULL)
    {
      reply_error (request, error);
      return;
    }
  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "threads", froggy_encode_tids (tids));
  reply (request, g_variant_builder_end (&builder));
}

static void
handle_stop (FroggyRequest *request)
{
  FroggyRequest *taken;
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
  taken = request_take (request);
  froggy_session_wait_stopped_async (taken->session, tid == 0 ? NULL : stopping,
                                     NULL, stop_done, taken);
}

static void
handle_continue (FroggyRequest *request)
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
handle_step (FroggyRequest *request)
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
handle_registers_read (FroggyRequest *request)
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
  if (g_str_equal (regset, "fp"))
    {
      struct user_fpregs_struct fp;

      if (!froggy_session_get_fpregs (request->session, tid, &fp, &error))
        reply_error (request, error);
      else
        reply (request, froggy_registers_fp_to_variant (&fp));
    }
  else
    {
      struct user_regs_struct regs;

      if (!froggy_session_get_regs (request->session, tid, &regs, &error))
        reply_error (request, error);
      else
        reply (request, froggy_registers_general_to_variant (&regs));
    }
}

/* Only the registers named change: the others are written back as read. */
static void
handle_registers_write (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) registers = froggy_params_lookup (request->params, "registers");
  struct user_regs_struct regs;
  GVariantIter iter;
  const char *name;
  GVariant *value;
  pid_t tid = 0;

  if (!get_thread (request, TRUE, &tid, &error))
    {
      reply_error (request, error);
      return;
    }
  if (registers == NULL || !g_variant_is_of_type (registers, G_VARIANT_TYPE_VARDICT))
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "registers must be an object of name to value");
      reply_error (request, error);
      return;
    }
  if (!froggy_session_get_regs (request->session, tid, &regs, &error))
    {
      reply_error (request, error);
      return;
    }
  g_variant_iter_init (&iter, registers);
  while (g_variant_iter_next (&iter, "{&sv}", &name, &value))
    {
      g_autoptr(GVariant) boxed = value;
      unsigned long long *slot = froggy_registers_lookup (&regs, name);
      guint64 word;

      if (slot == NULL || !g_variant_is_of_type (value, G_VARIANT_TYPE_STRING) ||
          !froggy_parse_word (g_variant_get_string (value, NULL), &word))
        {
          g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                       "\"%s\": not a general register with a hex value", name);
          reply_error (request, error);
          return;
        }
      *slot = word;
    }
  reply_ok_or_error (request, froggy_session_set_regs (request->session, tid, &regs, &error), &error);
}

static void
handle_memory_read (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autofree char *address_text = NULL;
  g_autofree char *hex = NULL;
  GVariantBuilder builder;
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
  bytes = froggy_session_read_memory (request->session, tid, address, MIN (length, G_MAXSIZE), &error);
  if (bytes == NULL)
    {
      reply_error (request, error);
      return;
    }
  address_text = froggy_format_word (address);
  hex = froggy_encode_hex (bytes);
  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "address", g_variant_new_string (address_text));
  g_variant_builder_add (&builder, "{sv}", "data", g_variant_new_string (hex));
  g_variant_builder_add (&builder, "{sv}", "length", g_variant_new_int64 (g_bytes_get_size (bytes)));
  reply (request, g_variant_builder_end (&builder));
}

static void
handle_memory_write (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  GVariantBuilder builder;
  gssize written;
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
  bytes = froggy_decode_hex (data, FROGGY_MEMORY_MAX, &error);
  if (bytes == NULL ||
      (written = froggy_session_write_memory (request->session, tid, address, bytes, &error)) < 0)
    {
      reply_error (request, error);
      return;
    }
  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "length", g_variant_new_int64 (written));
  reply (request, g_variant_builder_end (&builder));
}

static void
handle_siginfo_read (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;
  siginfo_t info;
  pid_t tid = 0;

  if (!get_thread (request, TRUE, &tid, &error) ||
      !froggy_session_get_siginfo (request->session, tid, &info, &error))
    reply_error (request, error);
  else
    reply (request, froggy_encode_siginfo (&info));
}

/* The whole siginfo, as siginfo.read's "raw" has it. */
static void
handle_siginfo_write (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  const char *raw = NULL;
  siginfo_t info;
  pid_t tid = 0;

  if (!get_thread (request, TRUE, &tid, &error) ||
      !froggy_params_string (request->params, "raw", TRUE, &raw, &error) ||
      (bytes = froggy_decode_hex (raw, sizeof info, &error)) == NULL)
    {
      reply_error (request, error);
      return;
    }
  if (g_bytes_get_size (bytes) != sizeof info)
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "raw must be the %zu bytes of a siginfo", sizeof info);
      reply_error (request, error);
      return;
    }
  memcpy (&info, g_bytes_get_data (bytes, NULL), sizeof info);
  reply_ok_or_error (request, froggy_session_set_siginfo (request->session, tid, &info, &error), &error);
}

static void
handle_breakpoint_insert (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;
  const FroggyBreakpoint *breakpoint;
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
  breakpoint = froggy_session_insert_breakpoint (request->session, location, tid, condition,
                                                 ignore_count, temporary, auto_continue, &error);
  if (breakpoint == NULL)
    reply_error (request, error);
  else
    reply (request, froggy_encode_breakpoint (breakpoint));
}

static gboolean
get_id (FroggyRequest  *request,
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
handle_breakpoint_remove (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;
  guint id = 0;

  reply_ok_or_error (request,
                     get_id (request, &id, &error) &&
                     froggy_session_remove_breakpoint (request->session, id, &error),
                     &error);
}

static void
handle_breakpoint_enable (FroggyRequest *request)
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
handle_breakpoint_list (FroggyRequest *request)
{
  GPtrArray *breakpoints = froggy_session_list_breakpoints (request->session);
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < breakpoints->len; i++)
    g_variant_builder_add_value (&builder, froggy_encode_breakpoint (g_ptr_array_index (breakpoints, i)));
  reply (request, g_variant_builder_end (&builder));
}

static void
handle_watchpoint_insert (FroggyRequest *request)
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
  reply_id_or_error (request,
                     froggy_session_insert_watchpoint (request->session, address,
                                                       CLAMP (length, 0, 64),
                                                       g_str_equal (kind, "readwrite"),
                                                       tid, &error),
                     &error);
}

static void
handle_watchpoint_remove (FroggyRequest *request)
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
get_numbers (FroggyRequest     *request,
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
handle_catch (FroggyRequest *request)
{
  static const char * const kinds[] = { "syscall", "signal", "fork", "exec", "exit", NULL };
  g_autoptr(FroggyCatchSpec) spec = g_new0 (FroggyCatchSpec, 1);
  g_autoptr(GError) error = NULL;
  const char *kind = NULL;

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
  reply_id_or_error (request,
                     froggy_session_add_catch (request->session, g_steal_pointer (&spec), &error),
                     &error);
}

static void
handle_catch_remove (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;
  guint id = 0;

  reply_ok_or_error (request,
                     get_id (request, &id, &error) &&
                     froggy_session_remove_catch (request->session, id, &error),
                     &error);
}

static void
handle_events_subscribe (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GVariant) events = froggy_params_lookup (request->params, "events");
  g_autoptr(GHashTable) table = g_hash_table_new (g_str_hash, g_str_equal);
  GVariantIter iter;
  const char *kind;
  GVariant *value;

  if (events == NULL || !g_variant_is_of_type (events, G_VARIANT_TYPE_VARDICT))
    {
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "events must be an object of kind to \"stop\", \"report\" or \"off\"");
      reply_error (request, error);
      return;
    }
  /* The strings live as long as @events. */
  g_variant_iter_init (&iter, events);
  while (g_variant_iter_next (&iter, "{&sv}", &kind, &value))
    {
      g_autoptr(GVariant) boxed = value;

      g_hash_table_replace (table, (gpointer) kind,
                            (gpointer) (g_variant_is_of_type (value, G_VARIANT_TYPE_STRING)
                                        ? g_variant_get_string (value, NULL) : ""));
    }
  reply_ok_or_error (request, froggy_session_subscribe (request->session, table, &error), &error);
}

static void
handle_backtrace (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) frames = NULL;
  gint64 max_frames = 64;
  pid_t tid = 0;

  if (!get_thread (request, TRUE, &tid, &error) ||
      !froggy_params_int (request->params, "max_frames", FALSE, &max_frames, &error))
    {
      reply_error (request, error);
      return;
    }
  frames = froggy_session_backtrace (request->session, tid, CLAMP (max_frames, 1, 4096), &error);
  if (frames == NULL)
    reply_error (request, error);
  else
    reply (request, froggy_encode_frames (frames));
}

static void
handle_symbol_lookup (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FroggySymbol) symbol = NULL;
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
  symbol = froggy_session_lookup_symbol (request->session, name, by_address, address, &error);
  if (symbol == NULL)
    reply_error (request, error);
  else
    reply (request, froggy_encode_symbol (symbol, by_address));
}

static void
handle_symbol_complete (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) names = NULL;
  g_auto(GStrv) files = NULL;
  gboolean complete = FALSE;
  GVariantBuilder builder;
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
  if (!froggy_session_complete_symbol (request->session, prefix, limit, &names, &files,
                                       &complete, &error))
    {
      reply_error (request, error);
      return;
    }
  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "names", g_variant_new_strv ((const char * const *) names, -1));
  g_variant_builder_add (&builder, "{sv}", "files", g_variant_new_strv ((const char * const *) files, -1));
  g_variant_builder_add (&builder, "{sv}", "complete", g_variant_new_boolean (complete));
  reply (request, g_variant_builder_end (&builder));
}

static void
handle_source_lines (FroggyRequest *request)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) lines = NULL;
  const char *location = NULL;

  if (!froggy_params_string (request->params, "location", TRUE, &location, &error))
    {
      reply_error (request, error);
      return;
    }
  lines = froggy_session_source_lines (request->session, location, &error);
  if (lines == NULL)
    reply_error (request, error);
  else
    reply (request, froggy_encode_lines (lines));
}

/* }}} */

/* The table {{{ */

#define PARAMS(...) ((const char * const []) { __VA_ARGS__, NULL })

static const FroggyMethod methods[] = {
  { "initialize", handle_initialize, FROGGY_BEFORE_INITIALIZE, PARAMS ("protocol", "client") },
  { "shutdown", handle_shutdown, FROGGY_NEEDS_NOTHING, PARAMS (NULL) },
  { "launch", handle_launch, FROGGY_NEEDS_NOTHING,
    PARAMS ("argv", "env", "cwd", "stdio", "follow_fork", "lossless") },
  { "attach", handle_attach, FROGGY_NEEDS_NOTHING,
    PARAMS ("pid", "all_threads", "follow_fork", "lossless") },
  { "detach", handle_detach, FROGGY_NEEDS_CONTROL, PARAMS ("session") },
  { "kill", handle_kill, FROGGY_NEEDS_CONTROL, PARAMS ("session") },
  { "session.list", handle_session_list, FROGGY_NEEDS_NOTHING, PARAMS (NULL) },
  { "session.join", handle_session_join, FROGGY_NEEDS_ANY_SESSION, PARAMS ("session") },
  { "session.release", handle_session_release, FROGGY_NEEDS_CONTROL, PARAMS ("session") },
  { "session.control", handle_session_control, FROGGY_NEEDS_SESSION, PARAMS ("session") },
  { "threads", handle_threads, FROGGY_NEEDS_SESSION, PARAMS ("session") },
  { "stop", handle_stop, FROGGY_NEEDS_CONTROL, PARAMS ("session", "thread") },
  { "interrupt", handle_stop, FROGGY_NEEDS_CONTROL, PARAMS ("session", "thread") },
  { "continue", handle_continue, FROGGY_NEEDS_CONTROL, PARAMS ("session", "thread", "signal") },
  { "step", handle_step, FROGGY_NEEDS_CONTROL, PARAMS ("session", "thread", "kind", "count") },
  { "registers.read", handle_registers_read, FROGGY_NEEDS_SESSION, PARAMS ("session", "thread", "regset") },
  { "registers.write", handle_registers_write, FROGGY_NEEDS_CONTROL,
    PARAMS ("session", "thread", "registers") },
  { "memory.read", handle_memory_read, FROGGY_NEEDS_SESSION,
    PARAMS ("session", "thread", "address", "length") },
  { "memory.write", handle_memory_write, FROGGY_NEEDS_CONTROL,
    PARAMS ("session", "thread", "address", "data") },
  { "siginfo.read", handle_siginfo_read, FROGGY_NEEDS_SESSION, PARAMS ("session", "thread") },
  { "siginfo.write", handle_siginfo_write, FROGGY_NEEDS_CONTROL, PARAMS ("session", "thread", "raw") },
  { "breakpoint.insert", handle_breakpoint_insert, FROGGY_NEEDS_CONTROL,
    PARAMS ("session", "location", "thread", "condition", "ignore_count", "temporary",
            "auto_continue") },
  { "breakpoint.remove", handle_breakpoint_remove, FROGGY_NEEDS_CONTROL, PARAMS ("session", "id") },
  { "breakpoint.enable", handle_breakpoint_enable, FROGGY_NEEDS_CONTROL,
    PARAMS ("session", "id", "enabled") },
  { "breakpoint.list", handle_breakpoint_list, FROGGY_NEEDS_SESSION, PARAMS ("session") },
  { "watchpoint.insert", handle_watchpoint_insert, FROGGY_NEEDS_CONTROL,
    PARAMS ("session", "address", "length", "kind", "thread") },
  { "watchpoint.remove", handle_watchpoint_remove, FROGGY_NEEDS_CONTROL, PARAMS ("session", "id") },
  { "catch", handle_catch, FROGGY_NEEDS_CONTROL,
    PARAMS ("session", "kind", "syscalls", "signals", "entry", "exit") },
  { "catch.remove", handle_catch_remove, FROGGY_NEEDS_CONTROL, PARAMS ("session", "id") },
  { "events.subscribe", handle_events_subscribe, FROGGY_NEEDS_CONTROL, PARAMS ("session", "events") },
  { "backtrace", handle_backtrace, FROGGY_NEEDS_SESSION, PARAMS ("session", "thread", "max_frames") },
  { "symbol.lookup", handle_symbol_lookup, FROGGY_NEEDS_SESSION, PARAMS ("session", "name", "address") },
  { "symbol.complete", handle_symbol_complete, FROGGY_NEEDS_SESSION, PARAMS ("session", "prefix", "limit") },
  { "source.lines", handle_source_lines, FROGGY_NEEDS_SESSION, PARAMS ("session", "location") },
};

#undef PARAMS

/* }}} */

const FroggyMethod *
froggy_method_lookup (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    if (g_str_equal (methods[i].name, name))
      return &methods[i];
  return NULL;
}
