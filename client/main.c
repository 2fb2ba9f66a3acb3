/* main.c: froggy, the Froggy command-line client
 *
 * usage: froggy [--socket PATH] rpc
 *        froggy --version | --help
 *
 * `froggy rpc` is the scripting interface: JSON-RPC requests on stdin,
 * one JSON object per line; every response and notification on stdout,
 * one per line.  The daemon is started when none listens on the socket.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <locale.h>
#include <stdlib.h>

#include "froggy-connection.h"
#include "froggy-script.h"

#define SUMMARY \
  "Commands:\n" \
  "  rpc     JSON-RPC requests from stdin, one per line; every response\n" \
  "          and notification to stdout, one per line (protocol/README.md)\n"

static int
run_rpc (const char *socket_path,
         gboolean    start_daemon)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(FroggyConnection) connection = froggy_connection_open (socket_path, start_daemon, &error);
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autoptr(FroggyScript) script = NULL;

  if (connection == NULL)
    {
      g_printerr ("froggy: %s\n", error->message);
      return EXIT_FAILURE;
    }
  input = g_unix_input_stream_new (0, FALSE);
  output = g_unix_output_stream_new (1, FALSE);
  script = froggy_script_new (connection, input, output);
  return froggy_script_run (script);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *socket_path = NULL;
  gboolean version = FALSE;
  gboolean no_start = FALSE;
  const GOptionEntry entries[] = {
    { "socket", 's', 0, G_OPTION_ARG_FILENAME, &socket_path,
      "The daemon's socket (default: $XDG_RUNTIME_DIR/froggyd.sock)", "PATH" },
    { "no-start", 0, 0, G_OPTION_ARG_NONE, &no_start,
      "Do not start froggyd when none listens", NULL },
    { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
    { NULL }
  };

  setlocale (LC_ALL, "");
  context = g_option_context_new ("COMMAND - the Froggy debugger client");
  g_option_context_set_summary (context, SUMMARY);
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("froggy: %s\n", error->message);
      return EXIT_FAILURE;
    }
  if (version)
    {
      g_print ("froggy %s (protocol 1)\n", FROGGY_VERSION);
      return EXIT_SUCCESS;
    }
  if (socket_path == NULL)
    socket_path = froggy_connection_default_path ();

  if (argc == 2 && g_str_equal (argv[1], "rpc"))
    return run_rpc (socket_path, !no_start);

  if (argc < 2)
    g_printerr ("froggy: which command?\n");
  else
    g_printerr ("froggy: unknown command or arguments: %s\n", argv[1]);
  g_printerr ("%s", SUMMARY);
  return EXIT_FAILURE;
}
