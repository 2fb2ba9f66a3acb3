/* froggy-message-guard.c
 *
 * A FroggyMessageGuard sits between a client's socket and jsonrpc-glib,
 * and follows the Content-Length framing of what passes through it.  It
 * fails the read, which ends that one connection, on what jsonrpc-glib
 * would otherwise take in whole or hand to a parser that cannot bear it:
 *
 * - JSON nested deeper than FROGGY_MESSAGE_MAX_DEPTH: json-glib parses
 *   by recursion, and a 16 MiB body of "[" overflows the daemon's stack;
 * - header lines without end: jsonrpc-glib reads a line however long;
 * - a Content-Length over FROGGY_MESSAGE_MAX_SIZE, or none;
 * - GVariant bodies (Content-Type: application/gvariant, which jsonrpc-glib
 *   also speaks): the protocol is JSON.
 *
 * The framing is read as jsonrpc-glib reads it: header lines end with
 * "\r\n", "\r" or "\n", an empty line ends the headers, and the last
 * Content-Length counts.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

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
  gboolean in_body;
  gint64   body_left;
  guint    depth;
  gboolean in_string;
  gboolean escaped;
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
          else if (c == '"')
            self->in_string = TRUE;
          else if (c == '[' || c == '{')
            {
              if (++self->depth > FROGGY_MESSAGE_MAX_DEPTH)
                return guard_fail (self, "JSON nested deeper than %d levels",
                                   FROGGY_MESSAGE_MAX_DEPTH);
            }
          else if ((c == ']' || c == '}') && self->depth > 0)
            self->depth--;

          if (--self->body_left == 0)
            {
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

static gssize
froggy_message_guard_read (GInputStream  *stream,
                           void          *buffer,
                           gsize          count,
                           GCancellable  *cancellable,
                           GError       **error)
{
  FroggyMessageGuard *self = FROGGY_MESSAGE_GUARD (stream);
  gssize n;

  if (self->error == NULL)
    {
      n = g_input_stream_read (guard_base (self), buffer, count, cancellable, error);
      if (n <= 0 || guard_scan (self, buffer, n))
        return n;
    }
  g_propagate_error (error, g_error_copy (self->error));
  return -1;
}

static void
guard_read_done (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  FroggyMessageGuard *self = g_task_get_source_object (task);
  GError *error = NULL;
  gssize n;

  n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);
  if (n < 0)
    g_task_return_error (task, error);
  else if (n > 0 && !guard_scan (self, g_task_get_task_data (task), n))
    g_task_return_error (task, g_error_copy (self->error));
  else
    g_task_return_int (task, n);
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
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, froggy_message_guard_read_async);
  g_task_set_task_data (task, buffer, NULL);
  if (self->error != NULL)
    {
      g_task_return_error (task, g_error_copy (self->error));
      return;
    }
  g_input_stream_read_async (guard_base (self), buffer, count, io_priority, cancellable,
                             guard_read_done, g_steal_pointer (&task));
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
  self->content_length = -1;
}

GInputStream *
froggy_message_guard_new (GInputStream *base_stream)
{
  g_return_val_if_fail (G_IS_INPUT_STREAM (base_stream), NULL);

  return g_object_new (FROGGY_TYPE_MESSAGE_GUARD, "base-stream", base_stream, NULL);
}
