/* froggy-message-guard.c
 *
 * A FroggyMessageGuard sits between a client's socket and jsonrpc-glib.
 * It follows the Content-Length framing of what comes in, holds each
 * message until it is whole, and hands jsonrpc-glib that message, framed
 * anew.  It fails the read, which ends that one connection, on what
 * jsonrpc-glib would otherwise take in whole or hand to a parser that
 * cannot bear it:
 *
 * - JSON nested deeper than FROGGY_MESSAGE_MAX_DEPTH: json-glib parses
 *   by recursion, and a 16 MiB body of "[" overflows the daemon's stack;
 * - header lines without end: jsonrpc-glib reads a line however long;
 * - a Content-Length over FROGGY_MESSAGE_MAX_SIZE, or none;
 * - GVariant bodies (Content-Type: application/gvariant, which jsonrpc-glib
 *   also speaks): the protocol is JSON.
 *
 * And it gives jsonrpc-glib, which answers only requests with a method
 * and params and ignores the rest, a request it answers for each one
 * JSON-RPC 2.0 says must be answered:
 *
 * - a request without "params" (which JSON-RPC allows) gets empty ones;
 * - a request whose "method" is missing or not a string becomes a call of
 *   FROGGY_MESSAGE_INVALID_REQUEST, which the daemon answers with -32600
 *   (method names that begin with "rpc." are JSON-RPC's own).
 *
 * And it bounds what one message costs the daemon, which serves every
 * client from one thread: a message with more than FROGGY_MESSAGE_MAX_ITEMS
 * array elements and object members in all is never parsed whole.
 * jsonrpc-glib has json-glib (1.6) turn each JSON array into a GVariant
 * in time quadratic in its length (an array of 20,000 numbers, 40 kB,
 * held the daemon for most of a second on a fast machine, and 16 MiB of
 * them would for days), and parsing 16 MiB of small values takes
 * seconds.  A request past the mark becomes a call of
 * FROGGY_MESSAGE_INVALID_REQUEST with the same id (the top level alone
 * is parsed, nested arrays and objects emptied); any other message past
 * it is dropped, as there is nothing to answer, or ends the connection
 * if it is no object.
 *
 * The framing is read as jsonrpc-glib reads it: header lines end with
 * "\r\n", "\r" or "\n", an empty line ends the headers, and the last
 * Content-Length counts.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <json-glib/json-glib.h>
#include <string.h>

#include "froggy-message-guard.h"

struct _FroggyMessageGuard
{
  GFilterInputStream parent_instance;

  GError  *error;          /* once failed, every read fails */

  /* In the headers */
  GString *line;
  gsize    header_bytes;
  gint64   content_length; /* -1 until a Content-Length */
  gboolean after_cr;       /* a "\n" now ends no line: "\r\n" is one */

  /* In the body */
  gboolean    in_body;
  gint64      body_left;
  guint       depth;
  gboolean    in_string;
  gboolean    escaped;
  guint       items;          /* array elements and object members */
  gboolean    after_opening;  /* an array or object may be empty yet */
  GByteArray *body;

  /* Whole messages, framed anew, for jsonrpc-glib to read */
  GByteArray *ready;
  gsize       ready_offset;
};

G_DEFINE_FINAL_TYPE (FroggyMessageGuard, froggy_message_guard, G_TYPE_FILTER_INPUT_STREAM)

static gboolean G_GNUC_PRINTF (2, 3)
guard_fail (FroggyMessageGuard *self,
            const char         *format,
            ...)
{
  g_autofree char *message = NULL;
  va_list args;

  va_start (args, format);
  message = g_strdup_vprintf (format, args);
  va_end (args);
  g_message ("closing a client's connection: %s", message);
  self->error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_INVALID_DATA, message);
  return FALSE;
}

/* One header line has ended: take what matters of it. */
static gboolean
guard_header_line (FroggyMessageGuard *self)
{
  const char *line = self->line->str;

  if (line[0] == '\0')
    {
      if (self->content_length <= 0)
        return guard_fail (self, "a message without a Content-Length");
      self->in_body = TRUE;
      self->body_left = self->content_length;
      self->depth = 0;
      self->in_string = self->escaped = FALSE;
      self->items = 0;
      self->after_opening = FALSE;
    }
  else if (g_ascii_strncasecmp (line, "Content-Length: ", 16) == 0)
    {
      gint64 length = g_ascii_strtoll (line + 16, NULL, 10);

      if (length <= 0 || length > FROGGY_MESSAGE_MAX_SIZE)
        return guard_fail (self, "a Content-Length of %.20s, not 1 to %d bytes",
                           line + 16, FROGGY_MESSAGE_MAX_SIZE);
      self->content_length = length;
    }
  else if ((g_ascii_strncasecmp (line, "Content-Type: ", 14) == 0 &&
            strstr (line, "application/gvariant") != NULL) ||
           g_ascii_strncasecmp (line, "X-GVariant-Type:", 16) == 0)
    {
      return guard_fail (self, "a GVariant message: the protocol is JSON");
    }
  g_string_truncate (self->line, 0);
  return TRUE;
}

/* A request (it has an "id", and is no response) made one that
 * jsonrpc-glib answers.  Returns whether it had to be changed. */
static gboolean
guard_normalize_request (JsonObject *message)
{
  JsonNode *method = json_object_get_member (message, "method");

  if (!json_object_has_member (message, "id") ||
      json_object_has_member (message, "result") || json_object_has_member (message, "error"))
    return FALSE;
  if (method == NULL || !JSON_NODE_HOLDS_VALUE (method) ||
      json_node_get_value_type (method) != G_TYPE_STRING)
    {
      JsonObject *params = json_object_new ();

      json_object_set_string_member (params, "reason", method == NULL ? "a request without a method"
                                                                      : "a method that is not a string");
      json_object_set_string_member (message, "method", FROGGY_MESSAGE_INVALID_REQUEST);
      json_object_set_object_member (message, "params", params);
      return TRUE;
    }
  if (json_object_has_member (message, "params"))
    return FALSE;
  json_object_set_object_member (message, "params", json_object_new ());
  return TRUE;
}

/* The top level of a JSON body, every array and object in it emptied:
 * `{"id":1,"params":{"a":[1,2]}}` gives `{"id":1,"params":{}}`.  The
 * body need not be JSON: the result then is not either. */
static GString *
guard_top_level (const guint8 *body,
                 gsize         length)
{
  GString *top = g_string_sized_new (MIN (length, 4096));
  gboolean in_string = FALSE, escaped = FALSE;
  guint depth = 0;  /* arrays and objects open */

  for (gsize i = 0; i < length; i++)
    {
      guint8 c = body[i];
      gboolean kept = depth <= 1;  /* in the outer object, or it */

      if (in_string)
        {
          if (escaped)
            escaped = FALSE;
          else if (c == '\\')
            escaped = TRUE;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        depth++;
      else if ((c == ']' || c == '}') && depth > 0)
        kept = --depth <= 1;
      if (kept)
        g_string_append_c (top, c);
    }
  return top;
}

/* A message with more than FROGGY_MESSAGE_MAX_ITEMS array elements and
 * object members: a request becomes FROGGY_MESSAGE_INVALID_REQUEST with
 * its id, found on the body's top level; whatever else is dropped, or
 * fails the read when it is no JSON object.  Returns the body to hand
 * on, or NULL for none. */
static char *
guard_too_many_items (FroggyMessageGuard *self)
{
  g_autoptr(GString) top = guard_top_level (self->body->data, self->body->len);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(JsonBuilder) builder = NULL;
  g_autoptr(JsonNode) replaced = NULL;
  JsonObject *message;
  JsonNode *id;

  if (!json_parser_load_from_data (parser, top->str, top->len, NULL) ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      guard_fail (self, "a message of more than %d array elements and object members "
                  "that is no JSON object", FROGGY_MESSAGE_MAX_ITEMS);
      return NULL;
    }
  message = json_node_get_object (json_parser_get_root (parser));
  id = json_object_get_member (message, "id");
  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id) ||
      json_object_has_member (message, "result") || json_object_has_member (message, "error"))
    {
      g_debug ("dropped a message of more than %d array elements and object members "
               "that needs no answer", FROGGY_MESSAGE_MAX_ITEMS);
      return NULL;
    }

  builder = json_builder_new ();
  json_builder_begin_object (builder);
  if (json_object_has_member (message, "jsonrpc"))
    {
      json_builder_set_member_name (builder, "jsonrpc");
      json_builder_add_value (builder, json_node_copy (json_object_get_member (message, "jsonrpc")));
    }
  json_builder_set_member_name (builder, "id");
  json_builder_add_value (builder, json_node_copy (id));
  json_builder_set_member_name (builder, "method");
  json_builder_add_string_value (builder, FROGGY_MESSAGE_INVALID_REQUEST);
  json_builder_set_member_name (builder, "params");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "reason");
  json_builder_add_string_value (builder, "more than " G_STRINGIFY (FROGGY_MESSAGE_MAX_ITEMS)
                                 " array elements and object members");
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  replaced = json_builder_get_root (builder);
  return json_to_string (replaced, FALSE);
}

/* A whole body has come: frame it anew for jsonrpc-glib, a request
 * changed to be answered if need be.  A body that is not an object
 * passes as it is: jsonrpc-glib ends the connection on it. */
static gboolean
guard_message_done (FroggyMessageGuard *self)
{
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autofree char *changed = NULL;
  const guint8 *body = self->body->data;
  gsize length = self->body->len;
  g_autofree char *header = NULL;

  if (self->items > FROGGY_MESSAGE_MAX_ITEMS)
    {
      changed = guard_too_many_items (self);
      g_byte_array_set_size (self->body, 0);
      if (changed == NULL)
        return self->error == NULL;
      body = (const guint8 *) changed;
      length = strlen (changed);
    }
  else if (json_parser_load_from_data (parser, (const char *) body, length, NULL) &&
           JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      JsonNode *root = json_parser_get_root (parser);

      if (guard_normalize_request (json_node_get_object (root)))
        {
          changed = json_to_string (root, FALSE);
          body = (const guint8 *) changed;
          length = strlen (changed);
        }
    }
  header = g_strdup_printf ("Content-Length: %" G_GSIZE_FORMAT "\r\n\r\n", length);
  g_byte_array_append (self->ready, (const guint8 *) header, strlen (header));
  g_byte_array_append (self->ready, body, length);
  g_byte_array_set_size (self->body, 0);
  return TRUE;
}

/* Follow @len bytes through the framing and the JSON nesting. */
static gboolean
guard_scan (FroggyMessageGuard *self,
            const guint8       *data,
            gsize               len)
{
  for (gsize i = 0; i < len; i++)
    {
      guint8 c = data[i];

      if (self->after_cr)
        {
          self->after_cr = FALSE;
          if (c == '\n')
            continue;
        }

      if (self->in_body)
        {
          if (self->in_string)
            {
              if (self->escaped)
                self->escaped = FALSE;
              else if (c == '\\')
                self->escaped = TRUE;
              else if (c == '"')
                self->in_string = FALSE;
            }
          else
            {
              /* An item is the first thing after an opening bracket
               * that does not close it, or a comma. */
              if (self->after_opening && !g_ascii_isspace (c))
                {
                  self->after_opening = FALSE;
                  if (c != ']' && c != '}')
                    self->items++;
                }
              if (c == '"')
                self->in_string = TRUE;
              else if (c == ',')
                self->items++;
              else if (c == '[' || c == '{')
                {
                  if (++self->depth > FROGGY_MESSAGE_MAX_DEPTH)
                    return guard_fail (self, "JSON nested deeper than %d levels",
                                       FROGGY_MESSAGE_MAX_DEPTH);
                  self->after_opening = TRUE;
                }
              else if ((c == ']' || c == '}') && self->depth > 0)
                self->depth--;
            }

          g_byte_array_append (self->body, &c, 1);
          if (--self->body_left == 0)
            {
              if (!guard_message_done (self))
                return FALSE;
              self->in_body = FALSE;
              self->content_length = -1;
              self->header_bytes = 0;
            }
          continue;
        }

      if (c == '\r' || c == '\n')
        {
          self->after_cr = c == '\r';
          if (!guard_header_line (self))
            return FALSE;
          continue;
        }
      if (++self->header_bytes > FROGGY_MESSAGE_MAX_HEADERS)
        return guard_fail (self, "headers longer than %d bytes", FROGGY_MESSAGE_MAX_HEADERS);
      g_string_append_c (self->line, c);
    }
  return TRUE;
}

static GInputStream *
guard_base (FroggyMessageGuard *self)
{
  return g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (self));
}

/* Up to @count bytes of the whole messages ready. */
static gsize
guard_take_ready (FroggyMessageGuard *self,
                  void               *buffer,
                  gsize               count)
{
  gsize n = MIN (count, self->ready->len - self->ready_offset);

  memcpy (buffer, self->ready->data + self->ready_offset, n);
  self->ready_offset += n;
  if (self->ready_offset == self->ready->len)
    {
      g_byte_array_set_size (self->ready, 0);
      self->ready_offset = 0;
    }
  return n;
}

static gboolean
guard_has_ready (FroggyMessageGuard *self)
{
  return self->ready->len > self->ready_offset;
}

static gssize
froggy_message_guard_read (GInputStream  *stream,
                           void          *buffer,
                           gsize          count,
                           GCancellable  *cancellable,
                           GError       **error)
{
  FroggyMessageGuard *self = FROGGY_MESSAGE_GUARD (stream);

  while (!guard_has_ready (self))
    {
      guint8 scratch[4096];
      gssize n;

      if (self->error != NULL)
        {
          g_propagate_error (error, g_error_copy (self->error));
          return -1;
        }
      n = g_input_stream_read (guard_base (self), scratch, sizeof scratch, cancellable, error);
      if (n <= 0)
        return n;
      guard_scan (self, scratch, n);
    }
  return guard_take_ready (self, buffer, count);
}

typedef struct
{
  void   *buffer;
  gsize   count;
  guint8  scratch[4096];
} GuardRead;

static void guard_read_more (GTask *task);

static void
guard_read_done (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  FroggyMessageGuard *self = g_task_get_source_object (task);
  GuardRead *read = g_task_get_task_data (task);
  GError *error = NULL;
  gssize n;

  n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);
  if (n < 0)
    g_task_return_error (task, error);
  else if (n == 0)
    g_task_return_int (task, 0);
  else
    {
      guard_scan (self, read->scratch, n);
      guard_read_more (g_steal_pointer (&task));
    }
}

/* Whole messages ready are returned; else, unless failed, read on. */
static void
guard_read_more (GTask *task)
{
  FroggyMessageGuard *self = g_task_get_source_object (task);
  GuardRead *read = g_task_get_task_data (task);

  if (guard_has_ready (self))
    g_task_return_int (task, guard_take_ready (self, read->buffer, read->count));
  else if (self->error != NULL)
    g_task_return_error (task, g_error_copy (self->error));
  else
    {
      g_input_stream_read_async (guard_base (self), read->scratch, sizeof read->scratch,
                                 g_task_get_priority (task), g_task_get_cancellable (task),
                                 guard_read_done, task);
      return;
    }
  g_object_unref (task);
}

static void
froggy_message_guard_read_async (GInputStream        *stream,
                                 void                *buffer,
                                 gsize                count,
                                 int                  io_priority,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  FroggyMessageGuard *self = FROGGY_MESSAGE_GUARD (stream);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  GuardRead *read = g_new0 (GuardRead, 1);

  g_task_set_source_tag (task, froggy_message_guard_read_async);
  g_task_set_priority (task, io_priority);
  read->buffer = buffer;
  read->count = count;
  g_task_set_task_data (task, read, g_free);
  guard_read_more (task);
}

static gssize
froggy_message_guard_read_finish (GInputStream  *stream,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  return g_task_propagate_int (G_TASK (result), error);
}

/* Skipped bytes are read, so that they are followed too. */
static gssize
froggy_message_guard_skip (GInputStream  *stream,
                           gsize          count,
                           GCancellable  *cancellable,
                           GError       **error)
{
  guint8 scratch[4096];

  return froggy_message_guard_read (stream, scratch, MIN (count, sizeof scratch),
                                    cancellable, error);
}

static void
froggy_message_guard_finalize (GObject *object)
{
  FroggyMessageGuard *self = FROGGY_MESSAGE_GUARD (object);

  g_clear_error (&self->error);
  g_string_free (self->line, TRUE);
  g_byte_array_unref (self->body);
  g_byte_array_unref (self->ready);
  G_OBJECT_CLASS (froggy_message_guard_parent_class)->finalize (object);
}

static void
froggy_message_guard_class_init (FroggyMessageGuardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GInputStreamClass *input_class = G_INPUT_STREAM_CLASS (klass);

  object_class->finalize = froggy_message_guard_finalize;
  input_class->read_fn = froggy_message_guard_read;
  input_class->read_async = froggy_message_guard_read_async;
  input_class->read_finish = froggy_message_guard_read_finish;
  input_class->skip = froggy_message_guard_skip;
}

static void
froggy_message_guard_init (FroggyMessageGuard *self)
{
  self->line = g_string_new (NULL);
  self->body = g_byte_array_new ();
  self->ready = g_byte_array_new ();
  self->content_length = -1;
}

GInputStream *
froggy_message_guard_new (GInputStream *base_stream)
{
  g_return_val_if_fail (G_IS_INPUT_STREAM (base_stream), NULL);

  return g_object_new (FROGGY_TYPE_MESSAGE_GUARD, "base-stream", base_stream, NULL);
}
