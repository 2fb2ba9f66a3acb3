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

/* gdb spells them -ex and -batch; GOption wants --ex and --batch.  Only
 * froggy's own words are translated: the scan ends at "--", or at the
 * program of "run", whose arguments are its own. */
static void
translate_gdb_options (int    argc,
                       char **argv)
{
  const char *command = NULL;

  for (int i = 1; i < argc; i++)
    {
      const char *word = argv[i];

      if (g_str_equal (word, "--"))
        break;
      if (g_str_equal (word, "-ex"))
        argv[i] = (char *) "--ex";
      else if (g_str_equal (word, "-batch"))
        argv[i] = (char *) "--batch";
      if (g_str_equal (argv[i], "--ex") || g_str_equal (word, "-x") || g_str_equal (word, "--command") ||
          g_str_equal (word, "-s") || g_str_equal (word, "--socket"))
        i++;
      else if (word[0] != '-')
        {
          if (command != NULL && g_str_equal (command, "run"))
            break;
          if (command == NULL)
            command = word;
        }
    }
}

/* @strict: the parse ends at the first operand (the command, or the
 * program of "run"); else options and operands mix ("attach PID -x
 * FILE"). */
static gboolean
parse_options (GOptionContext  *context,
               char          ***argv,
               gboolean         strict)
{
  g_autoptr(GError) error = NULL;

  g_option_context_set_strict_posix (context, strict);
  if (!g_option_context_parse_strv (context, argv, &error))
    {
      g_printerr ("froggy: %s\n", error->message);
      return FALSE;
    }
  return TRUE;
}

static int
usage_error (const char *message)
{
  g_printerr ("froggy: %s\n%s\n", message, SUMMARY);
  return EXIT_FAILURE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GOptionContext) command_context = NULL;
  g_autoptr(GPtrArray) startup = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *socket_path = NULL;
  g_auto(GStrv) words = NULL;
  g_auto(GStrv) command_words = NULL;
  g_auto(GStrv) operands = NULL;
  Options options = { .startup = startup };
  const char *command;
  const GOptionEntry startup_entries[] = {
    { "command", 'x', 0, G_OPTION_ARG_CALLBACK, add_startup,
      "Run the shell commands in FILE first", "FILE" },
    { "ex", 0, 0, G_OPTION_ARG_CALLBACK, add_startup,
      "Run one shell command first (also -ex; may be repeated)", "COMMAND" },
    { "batch", 0, 0, G_OPTION_ARG_NONE, &options.batch,
      "Leave after the -x and -ex commands (the program is detached, or killed if started)", NULL },
    { NULL }
  };
  const GOptionEntry global_entries[] = {
    { "socket", 's', 0, G_OPTION_ARG_FILENAME, &socket_path,
      "The daemon's socket (default: $XDG_RUNTIME_DIR/froggyd.sock)", "PATH" },
    { "no-start", 0, 0, G_OPTION_ARG_NONE, &options.no_start,
      "Do not start froggyd when none listens", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &options.version, "Print the version and exit", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &command_words, NULL, NULL },
    { NULL }
  };
  const GOptionEntry command_entries[] = {
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &operands, NULL, NULL },
    { NULL }
  };
  GOptionGroup *group;

  setlocale (LC_ALL, "");
  translate_gdb_options (argc, argv);
  words = g_strdupv (argv);

  /* froggy [OPTIONS] COMMAND ...: the options before the command, then
   * the command's own, each parse ending at the first operand. */
  context = g_option_context_new ("attach PID | run [--] PROGRAM [ARGS...] | rpc");
  g_option_context_set_summary (context, "The Froggy debugger client.");
  g_option_context_set_description (context, SUMMARY);
  group = g_option_group_new (NULL, NULL, NULL, &options, NULL);
  g_option_group_add_entries (group, global_entries);
  g_option_group_add_entries (group, startup_entries);
  g_option_context_set_main_group (context, group);
  if (!parse_options (context, &words, TRUE))
    return EXIT_FAILURE;
  if (options.version)
    {
      g_print ("froggy %s (protocol 1)\n", FROGGY_VERSION);
      return EXIT_SUCCESS;
    }
  if (command_words == NULL || command_words[0] == NULL)
    return usage_error ("which command?");
  command = g_intern_string (command_words[0]);
  if (!g_str_equal (command, "attach") && !g_str_equal (command, "run") && !g_str_equal (command, "rpc"))
    {
      g_autofree char *message = g_strdup_printf ("unknown command: %s", command);

      return usage_error (message);
    }

  command_context = g_option_context_new (g_str_equal (command, "attach") ? "attach PID" :
                                          g_str_equal (command, "run") ? "run [--] PROGRAM [ARGS...]" : "rpc");
  group = g_option_group_new (NULL, NULL, NULL, &options, NULL);
  if (!g_str_equal (command, "rpc"))
    g_option_group_add_entries (group, startup_entries);
  g_option_group_add_entries (group, command_entries);
  g_option_context_set_main_group (command_context, group);
  if (!parse_options (command_context, &command_words, g_str_equal (command, "run")))
    return EXIT_FAILURE;
  if (socket_path == NULL)
    socket_path = froggy_connection_default_path ();
  options.socket_path = socket_path;

  if (g_str_equal (command, "rpc"))
    {
      if (operands != NULL)
        return usage_error ("rpc takes no arguments");
      return run_rpc (&options);
    }
  if (g_str_equal (command, "run"))
    {
      if (operands == NULL || operands[0] == NULL)
        return usage_error ("run what? froggy run [--] PROGRAM [ARGUMENTS...]");
      return run_shell (&options, 0, (const char * const *) operands);
    }

  {
    char *end = NULL;
    gint64 pid = operands != NULL && g_strv_length (operands) == 1 ? g_ascii_strtoll (operands[0], &end, 10) : 0;

    if (pid <= 0 || end == NULL || *end != '\0')
      return usage_error ("attach to what? froggy attach PID");
    return run_shell (&options, pid, NULL);
  }
}
