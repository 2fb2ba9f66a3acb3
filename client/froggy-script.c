/* froggy-script.c: `froggy rpc`
 *
 * A script writes requests to our stdin, one JSON object per line, and
 * reads every response and notification from our stdout, one per line,
 * in the order the daemon sent them.  At the end of the input we wait
 * for the answers still owed, then stop: a script never has to guess
 * how long to keep the pipe open.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <string.h>

#include "froggy-script.h"

struct _FroggyScript
{
  GObject           parent_instance;
  FroggyConnection *connection;
  GDataInputStream *input;
  GOutputStream    *output;
  GMainLoop        *loop;
  GHashTable       *pending;    /* the JSON text of each unanswered id -> count */
  guint             line;
  gboolean          input_done;
  int               status;
};

G_DEFINE_FINAL_TYPE (FroggyScript, froggy_script, G_TYPE_OBJECT)

static void
froggy_script_finalize (GObject *object)
{
  FroggyScript *self = FROGGY_SCRIPT (object);

  g_clear_object (&self->connection);
  g_clear_object (&self->input);
  g_clear_object (&self->output);
  g_clear_pointer (&self->loop, g_main_loop_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  G_OBJECT_CLASS (froggy_script_parent_class)->finalize (object);
}

static void
froggy_script_class_init (FroggyScriptClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = froggy_script_finalize;
}

static void
froggy_script_init (FroggyScript *self)
{
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->loop = g_main_loop_new (NULL, FALSE);
}

static void
finish (FroggyScript *self,
        int           status)
{
  if (status > self->status)
    self->status = status;
  g_main_loop_quit (self->loop);
}

static void
maybe_done (FroggyScript *self)
{
  if (self->input_done && g_hash_table_size (self->pending) == 0)
    finish (self, 0);
}

/* A request's id as a key: 1 and "1" are different ids. */
static char *
id_key (JsonObject *message)
{
  JsonNode *id = json_object_get_member (message, "id");

  return id != NULL && !JSON_NODE_HOLDS_NULL (id) ? json_to_string (id, FALSE) : NULL;
}

static void
pending_add (FroggyScript *self,
             char         *key)
{
  guint count = GPOINTER_TO_UINT (g_hash_table_lookup (self->pending, key));

  g_hash_table_replace (self->pending, key, GUINT_TO_POINTER (count + 1));
}

static void
pending_remove (FroggyScript *self,
                const char   *key)
{
  guint count = GPOINTER_TO_UINT (g_hash_table_lookup (self->pending, key));

  if (count > 1)
    g_hash_table_replace (self->pending, g_strdup (key), GUINT_TO_POINTER (count - 1));
  else
    g_hash_table_remove (self->pending, key);
}

static gboolean
is_response (JsonObject *message)
{
  return json_object_has_member (message, "result") || json_object_has_member (message, "error");
}

static void
on_message (FroggyScript     *self,
            JsonNode         *node,
            FroggyConnection *connection)
{
  JsonObject *message = json_node_get_object (node);
  g_autofree char *text = json_to_string (node, FALSE);
  g_autofree char *key = NULL;
  g_autoptr(GError) error = NULL;

  if (!g_output_stream_write_all (self->output, text, strlen (text), NULL, NULL, &error) ||
      !g_output_stream_write_all (self->output, "\n", 1, NULL, NULL, &error) ||
      !g_output_stream_flush (self->output, NULL, &error))
    {
      g_printerr ("froggy rpc: writing the output: %s\n", error->message);
      finish (self, 1);
      return;
    }

  /* A response, not a notification: one answer less to wait for. */
  if (is_response (message) && (key = id_key (message)) != NULL)
    pending_remove (self, key);
  maybe_done (self);
}

static void
on_closed (FroggyScript     *self,
           GError           *error,
           FroggyConnection *connection)
{
  guint owed = g_hash_table_size (self->pending);

  if (error != NULL)
    g_printerr ("froggy rpc: the connection to froggyd: %s\n", error->message);
  else if (owed > 0 || !self->input_done)
    g_printerr ("froggy rpc: froggyd closed the connection%s\n",
                owed > 0 ? " with requests unanswered" : "");
  finish (self, error != NULL || owed > 0 ? 1 : 0);
}

static void read_next_line (FroggyScript *self);

static void
send_line (FroggyScript *self,
           const char   *line)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonNode *root;
  char *key;

  if (!json_parser_load_from_data (parser, line, -1, &error))
    {
      g_printerr ("froggy rpc: line %u is not JSON: %s\n", self->line, error->message);
      self->status = 1;
      return;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_printerr ("froggy rpc: line %u is not a JSON object\n", self->line);
      self->status = 1;
      return;
    }
  if (!froggy_connection_send (self->connection, root, &error))
    {
      g_printerr ("froggy rpc: sending line %u: %s\n", self->line, error->message);
      finish (self, 1);
      return;
    }
  /* Whatever has an id and is no response is owed an answer (an
   * invalid request's is an error); a notification is not. */
  if (!is_response (json_node_get_object (root)) &&
      (key = id_key (json_node_get_object (root))) != NULL)
    pending_add (self, key);
}

static void
line_read (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(FroggyScript) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (self->input, result, NULL, &error);

  if (line == NULL)
    {
      if (error != NULL)
        {
          g_printerr ("froggy rpc: reading the input: %s\n", error->message);
          self->status = 1;
        }
      self->input_done = TRUE;
      maybe_done (self);
      return;
    }
  self->line++;
  g_strstrip (line);
  if (line[0] != '\0')
    send_line (self, line);
  read_next_line (self);
}

static void
read_next_line (FroggyScript *self)
{
  g_data_input_stream_read_line_async (self->input, G_PRIORITY_DEFAULT, NULL,
                                       line_read, g_object_ref (self));
}

FroggyScript *
froggy_script_new (FroggyConnection *connection,
                   GInputStream     *input,
                   GOutputStream    *output)
{
  FroggyScript *self = g_object_new (FROGGY_TYPE_SCRIPT, NULL);

  self->connection = g_object_ref (connection);
  self->input = g_data_input_stream_new (input);
  self->output = g_object_ref (output);
  g_signal_connect_object (connection, "message", G_CALLBACK (on_message), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (connection, "closed", G_CALLBACK (on_closed), self, G_CONNECT_SWAPPED);
  return self;
}

int
froggy_script_run (FroggyScript *self)
{
  g_return_val_if_fail (FROGGY_IS_SCRIPT (self), 1);

  froggy_connection_start (self->connection);
  read_next_line (self);
  g_main_loop_run (self->loop);
  return self->status;
}
