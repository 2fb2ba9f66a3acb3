/* main.c: froggyd, the Froggy debugger daemon
 *
 * usage: froggyd [--socket PATH] [--verbose]
 *
 * Serves protocol/README.md on a UNIX socket, $XDG_RUNTIME_DIR/froggyd.sock
 * by default, in the foreground.  Started by systemd with a listening
 * socket (LISTEN_FDS=1), it serves that one.  SIGTERM and SIGINT detach
 * every traced process, then the daemon exits.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <glib-unix.h>
#include <locale.h>
#include <stdlib.h>
#include <unistd.h>

#include "froggy-daemon.h"

#define SD_LISTEN_FDS_START 3

typedef struct
{
  GMainLoop    *loop;
  FroggyDaemon *daemon;
  guint         signals_seen;
} Froggyd;

static gboolean
on_quit_signal (gpointer user_data)
{
  Froggyd *froggyd = user_data;

  /* A second signal does not wait for the detach. */
  if (froggyd->signals_seen++ > 0)
    g_main_loop_quit (froggyd->loop);
  else
    froggy_daemon_stop (froggyd->daemon);
  return G_SOURCE_CONTINUE;
}

static void
on_stopped (FroggyDaemon *daemon,
            GMainLoop    *loop)
{
  g_main_loop_quit (loop);
}

/* jsonrpc-glib warns about what a peer sent ("Unhandled RPC from
 * peer!"): a client's mistake, which the client is told of, not the
 * daemon's.  Those go out as debug messages of their own domain. */
static GLogWriterOutput
write_log (GLogLevelFlags   log_level,
           const GLogField *fields,
           gsize            n_fields,
           gpointer         user_data)
{
  if (log_level & G_LOG_LEVEL_WARNING)
    for (gsize i = 0; i < n_fields; i++)
      if (g_str_equal (fields[i].key, "GLIB_DOMAIN") && fields[i].length < 0 &&
          g_str_has_prefix (fields[i].value, "jsonrpc-"))
        {
          log_level = G_LOG_LEVEL_DEBUG;
          break;
        }
  return g_log_writer_default (log_level, fields, n_fields, user_data);
}

/* A socket from systemd: LISTEN_PID is us and LISTEN_FDS is 1. */
static int
activation_fd (void)
{
  const char *listen_pid = g_getenv ("LISTEN_PID");
  const char *listen_fds = g_getenv ("LISTEN_FDS");

  if (listen_pid == NULL || listen_fds == NULL ||
      atoi (listen_pid) != getpid () || atoi (listen_fds) != 1)
    return -1;
  return SD_LISTEN_FDS_START;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(FroggyDaemon) daemon = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *socket_path = NULL;
  gboolean verbose = FALSE;
  gboolean shared = FALSE;
  gboolean version = FALSE;
  Froggyd froggyd = { 0 };
  int fd;
  const GOptionEntry entries[] = {
    { "socket", 's', 0, G_OPTION_ARG_FILENAME, &socket_path,
      "Listen on PATH (default: $XDG_RUNTIME_DIR/froggyd.sock)", "PATH" },
    { "shared", 0, 0, G_OPTION_ARG_NONE, &shared,
      "Let every user connect (mode 0666); each reaches only what it could ptrace", NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Log debug messages", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { NULL }
  };

  setlocale (LC_ALL, "");
  context = g_option_context_new ("- the Froggy debugger daemon");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("froggyd: %s\n", error->message);
      return EXIT_FAILURE;
    }
  if (version)
    {
      g_print ("froggyd %s (protocol 1)\n", FROGGY_VERSION);
      return EXIT_SUCCESS;
    }
  if (verbose)
    g_setenv ("G_MESSAGES_DEBUG", "froggyd jsonrpc-client jsonrpc-server", TRUE);
  g_log_set_writer_func (write_log, NULL, NULL);
  /* libdw would fetch missing debuginfo over the network, from the main
   * loop: the daemon makes do with what is installed. */
  g_unsetenv ("DEBUGINFOD_URLS");

  loop = g_main_loop_new (NULL, FALSE);
  daemon = froggy_daemon_new ();
  /* Before the socket exists: whoever sees it may send SIGTERM at once. */
  froggyd.loop = loop;
  froggyd.daemon = daemon;
  g_signal_connect (daemon, "stopped", G_CALLBACK (on_stopped), loop);
  g_unix_signal_add (SIGTERM, on_quit_signal, &froggyd);
  g_unix_signal_add (SIGINT, on_quit_signal, &froggyd);
  fd = activation_fd ();
  if (fd >= 0)
    {
      if (!froggy_daemon_listen_fd (daemon, fd, &error))
        {
          g_printerr ("froggyd: the activation socket: %s\n", error->message);
          return EXIT_FAILURE;
        }
    }
  else
    {
      if (socket_path == NULL)
        socket_path = g_build_filename (g_get_user_runtime_dir (), "froggyd.sock", NULL);
      if (!froggy_daemon_listen (daemon, socket_path, shared, &error))
        {
          g_printerr ("froggyd: %s: %s\n", socket_path, error->message);
          return EXIT_FAILURE;
        }
      g_debug ("listening on %s", socket_path);
    }

  g_main_loop_run (loop);
  return EXIT_SUCCESS;
}
