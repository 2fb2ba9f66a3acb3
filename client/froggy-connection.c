/* froggy-connection.c: a connection to froggyd
 *
 * The client keeps the daemon's JSON as JSON (json-glib nodes) rather
 * than going through GVariant: `froggy rpc` must hand on exactly what was
 * sent, numbers as numbers and ids as the script wrote them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <errno.h>
#include <gio/gunixsocketaddress.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "froggy-connection.h"

/* As froggyd refuses, so do we: a body larger than this is a broken peer. */
#define FROGGY_MAX_MESSAGE (16 << 20)

struct _FroggyConnection
{
  GObject            parent_instance;
  GSocketConnection *socket;
  GDataInputStream  *input;
  GOutputStream     *output;
  GCancellable      *cancellable;
  gsize              length;    /* of the body being read; 0 in the headers */
  guint8            *body;
};

G_DEFINE_FINAL_TYPE (FroggyConnection, froggy_connection, G_TYPE_OBJECT)

enum { MESSAGE, CLOSED, N_SIGNALS };
static guint signals[N_SIGNALS];

static void
froggy_connection_dispose (GObject *object)
{
  FroggyConnection *self = FROGGY_CONNECTION (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->input);
  g_clear_object (&self->socket);
  G_OBJECT_CLASS (froggy_connection_parent_class)->dispose (object);
}

static void
froggy_connection_finalize (GObject *object)
{
  FroggyConnection *self = FROGGY_CONNECTION (object);

  g_clear_object (&self->cancellable);
  g_free (self->body);
  G_OBJECT_CLASS (froggy_connection_parent_class)->finalize (object);
}

static void
froggy_connection_class_init (FroggyConnectionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = froggy_connection_dispose;
  object_class->finalize = froggy_connection_finalize;

  /**
   * FroggyConnection::message:
   * @node: the message, a JSON object
   */
  signals[MESSAGE] = g_signal_new ("message", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 1, JSON_TYPE_NODE);
  /**
   * FroggyConnection::closed:
   * @error: (nullable): why, or %NULL when the daemon ended it cleanly
   */
  signals[CLOSED] = g_signal_new ("closed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
froggy_connection_init (FroggyConnection *self)
{
  self->cancellable = g_cancellable_new ();
}

char *
froggy_connection_default_path (void)
{
  return g_build_filename (g_get_user_runtime_dir (), "froggyd.sock", NULL);
}

/* froggyd beside us in the build tree, or installed beside us, or on
 * PATH. */
static char *
find_daemon (void)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = self ? g_path_get_dirname (self) : NULL;
  const char *candidates[] = { "../froggyd/froggyd", "froggyd" };

  for (guint i = 0; dir != NULL && i < G_N_ELEMENTS (candidates); i++)
    {
      g_autofree char *path = g_build_filename (dir, candidates[i], NULL);

      if (g_file_test (path, G_FILE_TEST_IS_EXECUTABLE) && !g_file_test (path, G_FILE_TEST_IS_DIR))
        return g_steal_pointer (&path);
    }
  return g_find_program_in_path ("froggyd");
}

static GSocketConnection *
connect_to (const char  *path,
            GError     **error)
{
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (path);

  return g_socket_client_connect (client, G_SOCKET_CONNECTABLE (address), NULL, error);
}

/* In the daemon, before its exec: a session of its own, so that the
 * Ctrl-C typed at our terminal (which stops the program being debugged)
 * never reaches it. */
static void
leave_our_session (gpointer user_data)
{
  setsid ();
}

/* Nobody listens on @path: start froggyd there, in the background (GLib
 * double-forks, so it outlives us), and wait for it to listen. */
static GSocketConnection *
start_daemon_and_connect (const char  *path,
                          GError     **error)
{
  g_autofree char *daemon = find_daemon ();
  g_autoptr(GError) local_error = NULL;
  const char *argv[] = { daemon, "--socket", path, NULL };

  if (daemon == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "no daemon listens on %s, and froggyd is not installed", path);
      return NULL;
    }
  if (!g_spawn_async (NULL, (char **) argv, NULL,
                      G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                      leave_our_session, NULL, NULL, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "starting %s: %s", daemon, local_error->message);
      return NULL;
    }

  for (guint attempt = 0; attempt < 200; attempt++)
    {
      GSocketConnection *connection;

      g_clear_error (&local_error);
      if ((connection = connect_to (path, &local_error)) != NULL)
        return connection;
      g_usleep (50 * G_TIME_SPAN_MILLISECOND);
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
               "started %s, but it does not listen on %s: %s", daemon, path, local_error->message);
  return NULL;
}

FroggyConnection *
froggy_connection_open (const char  *path,
                        gboolean     start_daemon,
                        GError     **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autoptr(GSocketConnection) socket = NULL;
  FroggyConnection *self;

  g_return_val_if_fail (path != NULL, NULL);

  socket = connect_to (path, &local_error);
  if (socket == NULL && start_daemon &&
      (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
       g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED)))
    {
      g_clear_error (&local_error);
      socket = start_daemon_and_connect (path, &local_error);
    }
  if (socket == NULL)
    {
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error),
                                  "cannot connect to froggyd at %s: ", path);
      return NULL;
    }

  self = g_object_new (FROGGY_TYPE_CONNECTION, NULL);
  self->socket = g_steal_pointer (&socket);
  self->input = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (self->socket)));
  g_data_input_stream_set_newline_type (self->input, G_DATA_STREAM_NEWLINE_TYPE_CR_LF);
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (self->input), FALSE);
  self->output = g_io_stream_get_output_stream (G_IO_STREAM (self->socket));
  return self;
}

gboolean
froggy_connection_send (FroggyConnection  *self,
                        JsonNode          *message,
                        GError           **error)
{
  g_autofree char *body = NULL;
  g_autofree char *header = NULL;
  gsize length;

  g_return_val_if_fail (FROGGY_IS_CONNECTION (self), FALSE);

  body = json_to_string (message, FALSE);
  length = strlen (body);
  header = g_strdup_printf ("Content-Length: %" G_GSIZE_FORMAT "\r\n\r\n", length);
  /* Small messages, written whole: a request waits for nothing else. */
  return g_output_stream_write_all (self->output, header, strlen (header), NULL, NULL, error) &&
         g_output_stream_write_all (self->output, body, length, NULL, NULL, error) &&
         g_output_stream_flush (self->output, NULL, error);
}

static void read_header (FroggyConnection *self);

static void
closed (FroggyConnection *self,
        GError           *error)
{
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_signal_emit (self, signals[CLOSED], 0, error);
}

static void
body_read (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(FroggyConnection) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  gsize done = 0;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (object), result, &done, &error))
    {
      closed (self, error);
      return;
    }
  if (done < self->length)
    {
      g_set_error (&error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT, "the daemon ended a message half-way");
      closed (self, error);
      return;
    }
  if (!json_parser_load_from_data (parser, (const char *) self->body, self->length, &error) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      if (error == NULL)
        g_set_error (&error, JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_DATA, "not a JSON object");
      g_prefix_error (&error, "a message from the daemon: ");
      closed (self, error);
      return;
    }
  self->length = 0;
  /* Read on before a handler runs: one that waits for an answer (a
   * nested main loop) must see it come. */
  read_header (self);
  g_signal_emit (self, signals[MESSAGE], 0, json_parser_get_root (parser));
}

static void
header_read (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(FroggyConnection) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_data_input_stream_read_line_finish (self->input, result, NULL, &error);

  if (line == NULL)
    {
      closed (self, error);
      return;
    }
  if (g_ascii_strncasecmp (line, "Content-Length:", strlen ("Content-Length:")) == 0)
    {
      const char *value = line + strlen ("Content-Length:");
      char *end = NULL;
      guint64 length = g_ascii_strtoull (value, &end, 10);

      if (end == value || *end != '\0' || length == 0 || length > FROGGY_MAX_MESSAGE)
        {
          g_set_error (&error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "a bad header from the daemon: %s", line);
          closed (self, error);
          return;
        }
      self->length = length;
    }
  else if (line[0] == '\0' && self->length > 0)
    {
      self->body = g_realloc (self->body, self->length);
      g_input_stream_read_all_async (G_INPUT_STREAM (self->input), self->body, self->length,
                                     G_PRIORITY_DEFAULT, self->cancellable, body_read,
                                     g_object_ref (self));
      return;
    }
  read_header (self);
}

static void
read_header (FroggyConnection *self)
{
  g_data_input_stream_read_line_async (self->input, G_PRIORITY_DEFAULT, self->cancellable,
                                       header_read, g_object_ref (self));
}

void
froggy_connection_start (FroggyConnection *self)
{
  g_return_if_fail (FROGGY_IS_CONNECTION (self));

  read_header (self);
}
