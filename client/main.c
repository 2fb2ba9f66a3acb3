/* main.c: froggy, the Froggy command-line client
 *
 * usage: froggy [OPTIONS] attach PID
 *        froggy [OPTIONS] run [--] PROGRAM [ARGUMENTS...]
 *        froggy [OPTIONS] rpc
 *        froggy --version | --help
 *
 * attach and run open the gdb-like shell (froggy-shell.c) on the
 * process; -x FILE and -ex COMMAND run commands first, and --batch (or
 * input that is not a terminal) leaves after them.  `froggy rpc` is the
 * scripting interface: JSON-RPC requests on stdin, one JSON object per
 * line; every response and notification on stdout, one per line.  The
 * daemon is started when none listens on the socket.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "froggy-connection.h"
#include "froggy-daemon-proxy.h"
#include "froggy-script.h"
#include "froggy-shell.h"

#define SUMMARY \
  "Commands:\n" \
  "  attach PID           attach to every thread of process PID, open the shell\n" \
  "  run [--] PROG ARGS   start PROG stopped at its exec, open the shell\n" \
  "  rpc                  JSON-RPC requests from stdin, one per line; every response\n" \
  "                       and notification to stdout, one per line (protocol/README.md)\n" \
  "\n" \
  "In the shell, \"help\" lists the commands (gdb's names)."

typedef struct
{
  char      *socket_path;
  gboolean   version;
  gboolean   no_start;
  gboolean   batch;
  GPtrArray *startup;   /* "-x FILE" and "-ex COMMAND", in order, as "x:FILE" / "ex:COMMAND" */
} Options;

/* -x FILE and --ex COMMAND, kept in the order given. */
static gboolean
add_startup (const char  *name,
             const char  *value,
             gpointer     data,
             GError     **error)
{
  Options *options = data;

  g_ptr_array_add (options->startup,
                   g_strconcat (g_str_equal (name, "--ex") ? "ex:" : "x:", value, NULL));
  return TRUE;
}

static FroggyConnection *
connect_or_complain (Options *options)
{
  g_autoptr(GError) error = NULL;
  FroggyConnection *connection = froggy_connection_open (options->socket_path, !options->no_start, &error);

  if (connection == NULL)
    g_printerr ("froggy: %s\n", error->message);
  return connection;
}

static int
run_rpc (Options *options)
{
  g_autoptr(FroggyConnection) connection = connect_or_complain (options);
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autoptr(FroggyScript) script = NULL;

  if (connection == NULL)
    return EXIT_FAILURE;
  input = g_unix_input_stream_new (0, FALSE);
  output = g_unix_output_stream_new (1, FALSE);
  script = froggy_script_new (connection, input, output);
  return froggy_script_run (script);
}

/* attach or run: the shell, on a process.  @pid > 0 attaches, else
 * @argv is started. */
static int
run_shell (Options            *options,
           gint64              pid,
           const char * const *argv)
{
  g_autoptr(FroggyConnection) connection = connect_or_complain (options);
  g_autoptr(FroggyDaemonProxy) daemon = NULL;
  g_autoptr(FroggyShell) shell = NULL;
  g_autoptr(JsonNode) hello = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *params = json_object_new ();
  gboolean ok = TRUE;
  int status;

  if (connection == NULL)
    {
      json_object_unref (params);
      return EXIT_FAILURE;
    }
  daemon = froggy_daemon_proxy_new (connection);
  json_object_set_int_member (params, "protocol", 1);
  json_object_set_string_member (params, "client", "froggy");
  if ((hello = froggy_daemon_proxy_call (daemon, "initialize", params, &error)) == NULL)
    {
      g_printerr ("froggy: the daemon would not talk: %s\n", error->message);
      return EXIT_FAILURE;
    }

  shell = froggy_shell_new (daemon);
  if (pid > 0 ? !froggy_shell_attach (shell, pid, &error) : !froggy_shell_launch (shell, argv, &error))
    {
      g_printerr ("froggy: %s\n", error->message);
      return EXIT_FAILURE;
    }

  for (guint i = 0; i < options->startup->len && !froggy_shell_quit_requested (shell); i++)
    {
      const char *item = g_ptr_array_index (options->startup, i);

      if (g_str_has_prefix (item, "x:"))
        ok &= froggy_shell_source (shell, item + 2);
      else
        ok &= froggy_shell_execute (shell, item + 3) || froggy_shell_quit_requested (shell);
    }

  if (options->batch || (options->startup->len > 0 && !isatty (STDIN_FILENO)) ||
      froggy_shell_quit_requested (shell))
    {
      froggy_shell_end_session (shell);
      return ok ? EXIT_SUCCESS : EXIT_FAILURE;
    }
  status = froggy_shell_run (shell);
  froggy_shell_end_session (shell);
  return status;
}

/* gdb spells it -ex; GOption wants --ex. */
static void
translate_gdb_options (int    argc,
                       char **argv)
{
  for (int i = 1; i < argc; i++)
    {
      if (g_str_equal (argv[i], "--"))
        break;
      if (g_str_equal (argv[i], "-ex"))
        argv[i] = (char *) "--ex";
      else if (g_str_equal (argv[i], "-batch"))
        argv[i] = (char *) "--batch";
    }
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) startup = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) option_argv = g_ptr_array_new ();
  g_autofree char *socket_path = NULL;
  Options options = { .startup = startup };
  const char *command = NULL;
  char **program = NULL;
  char **rest;
  int rest_count;
  const GOptionEntry entries[] = {
    { "socket", 's', 0, G_OPTION_ARG_FILENAME, &options.socket_path,
      "The daemon's socket (default: $XDG_RUNTIME_DIR/froggyd.sock)", "PATH" },
    { "no-start", 0, 0, G_OPTION_ARG_NONE, &options.no_start,
      "Do not start froggyd when none listens", NULL },
    { "command", 'x', 0, G_OPTION_ARG_CALLBACK, add_startup,
      "Run the shell commands in FILE first", "FILE" },
    { "ex", 0, 0, G_OPTION_ARG_CALLBACK, add_startup,
      "Run one shell command first (also -ex; may be repeated)", "COMMAND" },
    { "batch", 0, 0, G_OPTION_ARG_NONE, &options.batch,
      "Leave after the -x and -ex commands (the program is detached, or killed if started)", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &options.version, "Print the version and exit", NULL },
    { NULL }
  };
  GOptionGroup *group;

  setlocale (LC_ALL, "");
  translate_gdb_options (argc, argv);

  /* Everything after "run" that is not an option before "--" is the
   * program and its arguments. */
  for (int i = 1; i < argc; i++)
    {
      if (command == NULL && argv[i][0] != '-' && i > 0 &&
          !(i > 1 && (g_str_equal (argv[i - 1], "--socket") || g_str_equal (argv[i - 1], "-s") ||
                      g_str_equal (argv[i - 1], "-x") || g_str_equal (argv[i - 1], "--command") ||
                      g_str_equal (argv[i - 1], "--ex"))))
        {
          command = argv[i];
          if (g_str_equal (command, "run"))
            {
              int j = i + 1;

              while (j < argc && argv[j][0] == '-' && !g_str_equal (argv[j], "--"))
                g_ptr_array_add (option_argv, argv[j++]);
              if (j < argc && g_str_equal (argv[j], "--"))
                j++;
              program = argv + j;
              break;
            }
          continue;
        }
      g_ptr_array_add (option_argv, argv[i]);
    }
  g_ptr_array_insert (option_argv, 0, argv[0]);
  g_ptr_array_add (option_argv, NULL);
  rest = (char **) option_argv->pdata;
  rest_count = option_argv->len - 1;

  context = g_option_context_new ("attach PID | run [--] PROGRAM [ARGS...] | rpc");
  g_option_context_set_summary (context, "The Froggy debugger client.");
  g_option_context_set_description (context, SUMMARY);
  group = g_option_group_new (NULL, NULL, NULL, &options, NULL);
  g_option_group_add_entries (group, entries);
  g_option_context_set_main_group (context, group);
  if (!g_option_context_parse (context, &rest_count, &rest, &error))
    {
      g_printerr ("froggy: %s\n", error->message);
      return EXIT_FAILURE;
    }
  socket_path = options.socket_path;
  if (options.version)
    {
      g_print ("froggy %s (protocol 1)\n", FROGGY_VERSION);
      return EXIT_SUCCESS;
    }
  if (options.socket_path == NULL)
    options.socket_path = socket_path = froggy_connection_default_path ();

  if (command != NULL && g_str_equal (command, "rpc") && rest_count == 1)
    return run_rpc (&options);
  if (command != NULL && g_str_equal (command, "run"))
    {
      if (program == NULL || program[0] == NULL)
        {
          g_printerr ("froggy: run what? froggy run [--] PROGRAM [ARGUMENTS...]\n");
          return EXIT_FAILURE;
        }
      return run_shell (&options, 0, (const char * const *) program);
    }
  if (command != NULL && g_str_equal (command, "attach"))
    {
      char *end = NULL;
      gint64 pid = rest_count == 2 ? g_ascii_strtoll (rest[1], &end, 10) : 0;

      if (pid <= 0 || end == NULL || *end != '\0')
        {
          g_printerr ("froggy: attach to what? froggy attach PID\n");
          return EXIT_FAILURE;
        }
      return run_shell (&options, pid, NULL);
    }

  if (command == NULL)
    g_printerr ("froggy: which command?\n");
  else
    g_printerr ("froggy: unknown command or arguments: %s\n", command);
  g_printerr ("%s\n", SUMMARY);
  return EXIT_FAILURE;
}
