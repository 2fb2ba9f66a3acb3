/* froggy-shell-data.c: print, x, set, info registers, info all-registers
 *
 * The program's values: registers, variables (integers of their size:
 * the daemon gives no types) and memory, read in gdb's formats, and
 * written.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggy"

#include <string.h>

#include "froggy-shell-private.h"

const char * const general_registers[] = {
  "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
  "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
  "rip", "eflags", "cs", "ss", "ds", "es", "fs", "gs", "fs_base", "gs_base",
  NULL
};

static gboolean
is_pointer_register (const char *name)
{
  return g_str_equal (name, "rip") || g_str_equal (name, "rsp") || g_str_equal (name, "rbp") ||
         g_str_equal (name, "pc") || g_str_equal (name, "sp") || g_str_equal (name, "fp");
}

static char *
describe_eflags (guint64 value)
{
  static const char * const flags[] = {
    [0] = "CF", [2] = "PF", [4] = "AF", [6] = "ZF", [7] = "SF", [8] = "TF",
    [9] = "IF", [10] = "DF", [11] = "OF",
  };
  GString *text = g_string_new ("[ ");

  for (guint bit = 0; bit < G_N_ELEMENTS (flags); bit++)
    if (flags[bit] != NULL && (value & (1ull << bit)))
      g_string_append_printf (text, "%s ", flags[bit]);
  g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

static void
append_register (GString    *text,
                 const char *name,
                 const char *hex)
{
  guint64 value = g_ascii_strtoull (hex, NULL, 16);
  g_autofree char *natural = NULL;

  if (g_str_equal (name, "eflags"))
    natural = describe_eflags (value);
  else if (is_pointer_register (name) || strlen (hex) > 18)
    natural = g_strdup (hex);
  else
    natural = g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) value);
  g_string_append_printf (text, "%-15s%-19s%s\n", name, hex, natural);
}

static gboolean
info_registers_common (FroggyShell *self,
                       const char  *args,
                       gboolean     all)
{
  g_autoptr(JsonObject) general = NULL;
  g_autoptr(JsonObject) fp = NULL;
  g_autoptr(GString) text = g_string_new (NULL);
  g_auto(GStrv) names = split_words (args);

  if (!need_stopped (self) || (general = read_registers (self, NULL)) == NULL)
    return FALSE;
  if (names[0] == NULL || names[0][0] == '\0')
    {
      for (guint i = 0; general_registers[i] != NULL; i++)
        if (member_string (general, general_registers[i]) != NULL)
          append_register (text, general_registers[i], member_string (general, general_registers[i]));
      if (all && (fp = read_registers (self, "fp")) != NULL)
        {
          g_autoptr(GList) members = json_object_get_members (fp);

          for (GList *l = members; l != NULL; l = l->next)
            append_register (text, l->data, member_string (fp, l->data));
        }
      say (self, "%s", text->str);
      return TRUE;
    }
  for (guint i = 0; names[i] != NULL; i++)
    {
      const char *name = names[i][0] == '$' ? names[i] + 1 : names[i];
      guint64 value;

      if (name[0] == '\0')
        continue;
      if (!eval_register (self, name, &value))
        return FALSE;
      {
        g_autofree char *hex = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", value);

        append_register (text, name, hex);
      }
    }
  say (self, "%s", text->str);
  return TRUE;
}

static gboolean
info_registers (FroggyShell *self,
                const char  *args)
{
  return info_registers_common (self, args, FALSE);
}

static gboolean
info_all_registers (FroggyShell *self,
                    const char  *args)
{
  return info_registers_common (self, args, TRUE);
}

/* "/x", "/4xg": count, format letter, unit letter. */
static gboolean
parse_format (FroggyShell *self,
              const char **args,
              guint64     *count,
              char        *format,
              char        *unit)
{
  const char *text = *args;

  if (*text != '/')
    return TRUE;
  text++;
  if (g_ascii_isdigit (*text))
    *count = g_ascii_strtoull (text, (char **) &text, 10);
  while (*text && !g_ascii_isspace (*text))
    {
      if (strchr ("xducsit", *text))
        *format = *text;
      else if (strchr ("bhwg", *text))
        *unit = *text;
      else
        FAIL (self, "Undefined output format \"%c\".", *text);
      text++;
    }
  *args = text;
  return TRUE;
}

static char *
format_value (guint64 value,
              guint   size,
              char    format)
{
  guint64 mask = size >= 8 ? G_MAXUINT64 : (1ull << (8 * size)) - 1;
  gint64 sign = size >= 8 ? (gint64) value : (gint64) (value << (64 - 8 * size)) >> (64 - 8 * size);

  value &= mask;
  switch (format)
    {
    case 'x': return g_strdup_printf ("0x%0*" G_GINT64_MODIFIER "x", (int) size * 2, value);
    case 'u': return g_strdup_printf ("%" G_GUINT64_FORMAT, value);
    case 'c': return g_strdup_printf ("%" G_GINT64_FORMAT " '%c'", sign, g_ascii_isprint (value) ? (char) value : '.');
    case 't':
      {
        GString *bits = g_string_new (NULL);

        for (int bit = 8 * size - 1; bit >= 0; bit--)
          if (bits->len > 0 || (value >> bit) & 1 || bit == 0)
            g_string_append_c (bits, (value >> bit) & 1 ? '1' : '0');
        return g_string_free (bits, FALSE);
      }
    default: return g_strdup_printf ("%" G_GINT64_FORMAT, sign);
    }
}

/* print EXPR: a variable (its value, read as an integer of its size, or
 * the words of a larger one: the daemon gives no types), a register, or
 * an expression of numbers, registers and addresses. */
static gboolean
cmd_print (FroggyShell *self,
           const char  *args)
{
  guint64 count = 1, value = 0;
  char format = 0, unit = 0;
  g_autofree char *expression = NULL;
  g_autofree char *text = NULL;

  if (!parse_format (self, &args, &count, &format, &unit))
    return FALSE;
  expression = g_strstrip (g_strdup (args));
  if (expression[0] == '\0')
    FAIL (self, "Argument required (expression to print).");

  if (is_identifier (expression))
    {
      guint64 address;
      gint64 size = 0;

      if (!need_stopped (self) || !lookup_symbol (self, expression, &address, &size))
        return FALSE;
      if (size == 1 || size == 2 || size == 4 || size == 8)
        {
          if (!read_word (self, address, size, &value))
            return FALSE;
          text = format_value (value, size, format ? format : 'd');
        }
      else if (size > 8 && size % 8 == 0 && size <= 1024)
        {
          GString *items = g_string_new ("{");

          for (gint64 offset = 0; offset < size; offset += 8)
            {
              g_autofree char *item = NULL;

              if (!read_word (self, address + offset, 8, &value))
                {
                  g_string_free (items, TRUE);
                  return FALSE;
                }
              item = format_value (value, 8, format ? format : 'd');
              g_string_append_printf (items, "%s%s", offset ? ", " : "", item);
            }
          g_string_append_c (items, '}');
          text = g_string_free (items, FALSE);
        }
      else
        text = g_strdup_printf ("<%s at 0x%" G_GINT64_MODIFIER "x, %" G_GINT64_FORMAT " bytes>",
                                expression, address, size);
    }
  else
    {
      if (!eval (self, expression, &value))
        return FALSE;
      if (format == 0)
        format = expression[0] == '$' && is_pointer_register (expression + 1) ? 'x' : 'd';
      text = format == 'x' ? g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", value) : format_value (value, 8, format);
    }
  say (self, "$%u = %s\n", ++self->values, text);
  return TRUE;
}

static gboolean
examine_strings (FroggyShell *self,
                 guint64      address,
                 guint64      count)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint64 i = 0; i < count; i++)
    {
      g_autoptr(GBytes) bytes = read_memory (self, address, 256);
      const char *data;
      gsize size = 0, length;
      g_autofree char *escaped = NULL;
      g_autofree char *string = NULL;

      if (bytes == NULL)
        return FALSE;
      data = g_bytes_get_data (bytes, &size);
      length = strnlen (data, size);
      string = g_strndup (data, length);
      escaped = g_strescape (string, NULL);
      g_string_append_printf (out, "0x%" G_GINT64_MODIFIER "x:\t\"%s\"%s\n", address, escaped,
                              length == size ? "..." : "");
      address += length + 1;
    }
  say (self, "%s", out->str);
  return TRUE;
}

/* x/NFU ADDRESS */
static gboolean
cmd_examine (FroggyShell *self,
             const char  *args)
{
  guint64 count = 1, address;
  char format = 'x', unit = 'w';
  guint size, per_line;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  const guint8 *data;
  gsize length = 0;

  if (!parse_format (self, &args, &count, &format, &unit))
    return FALSE;
  if (is_blank (args))
    FAIL (self, "Argument required (starting display address).");
  if (!need_stopped (self) || !eval (self, args, &address))
    return FALSE;
  if (count == 0 || count > 65536)
    FAIL (self, "Bad count %" G_GUINT64_FORMAT " (1 to 65536).", count);
  if (format == 's')
    return examine_strings (self, address, count);
  if (format == 'i')
    {
      /* No disassembler here: the bytes, 8 to a line, undecoded. */
      say (self, "(froggy has no disassembler: x/i shows raw bytes, not instructions)\n");
      format = 'x';
      unit = 'b';
      count *= 8;
    }
  size = unit == 'b' ? 1 : unit == 'h' ? 2 : unit == 'g' ? 8 : 4;
  if (format == 'c')
    size = 1;
  per_line = size == 8 ? 2 : size == 4 ? 4 : 8;

  if ((bytes = read_memory (self, address, count * size)) == NULL)
    return FALSE;
  data = g_bytes_get_data (bytes, &length);
  for (guint64 i = 0; i < count; i++)
    {
      guint64 value = 0;
      g_autofree char *item = NULL;

      if ((i + 1) * size > length)
        {
          g_string_append_printf (out, "%sCannot access memory at address 0x%" G_GINT64_MODIFIER "x\n",
                                  i % per_line ? "\n" : "", address + i * size);
          say (self, "%s", out->str);
          self->status = 1;
          return FALSE;
        }
      for (guint b = 0; b < size; b++)
        value |= (guint64) data[i * size + b] << (8 * b);
      if (i % per_line == 0)
        g_string_append_printf (out, "0x%" G_GINT64_MODIFIER "x:", address + i * size);
      item = format_value (value, size, format);
      g_string_append_printf (out, "\t%s", item);
      if (i % per_line == per_line - 1 || i == count - 1)
        g_string_append_c (out, '\n');
    }
  say (self, "%s", out->str);
  return TRUE;
}

static gboolean
write_memory (FroggyShell *self,
              guint64      address,
              guint64      value,
              guint        length)
{
  JsonObject *params = thread_params (self);
  g_autoptr(GString) hex = g_string_new (NULL);

  for (guint i = 0; i < length; i++)
    g_string_append_printf (hex, "%02x", (guint) (value >> (8 * i)) & 0xff);
  set_word (params, "address", address);
  json_object_set_string_member (params, "data", hex->str);
  return call_ok (self, "memory.write", params, "writing memory");
}

/* set $REG = V, set var NAME = V, set NAME = V, set *[(TYPE *)] ADDR = V;
 * gdb's "set confirm off" and the like are taken and ignored. */
static gboolean
cmd_set (FroggyShell *self,
         const char  *args)
{
  g_autofree char *line = g_strstrip (g_strdup (args));
  char *equals = strchr (line, '=');
  char *target, *value_text;
  guint64 value, address;
  guint length;

  if (equals == NULL)
    {
      static const char * const settings[] = { "confirm", "pagination", "height", "width", "print", "verbose", NULL };
      g_auto(GStrv) words = g_strsplit (line, " ", 2);

      if (words[0] != NULL && g_strv_contains (settings, words[0]))
        return TRUE;
      FAIL (self, "set what? $REGISTER = VALUE, VARIABLE = VALUE or *ADDRESS = VALUE.");
    }
  *equals = '\0';
  target = g_strstrip (line);
  value_text = g_strstrip (equals + 1);
  if (g_str_has_prefix (target, "var "))
    target = g_strstrip (target + 4);
  if (!need_stopped (self) || !eval (self, value_text, &value))
    return FALSE;

  if (target[0] == '$')
    {
      JsonObject *params, *registers;
      guint64 mask;
      const char *name = register_name (target + 1, &mask);

      if (mask != G_MAXUINT64)
        FAIL (self, "Set the whole 64-bit register, $%s.", name);
      params = thread_params (self);
      registers = json_object_new ();
      set_word (registers, name, value);
      json_object_set_object_member (params, "registers", registers);
      return call_ok (self, "registers.write", params, NULL);
    }
  if (!eval_lvalue (self, target, &address, &length))
    return FALSE;
  return write_memory (self, address, value, length);
}

const Command froggy_shell_data_commands[] = {
  { "print", "p inspect", cmd_print, "print[/FMT] EXPRESSION",
    "Print a variable, $register or value (FMT: x d u c t)." },
  { "x", NULL, cmd_examine, "x/NFU ADDRESS",
    "Examine memory: N units, format x d u c s i t, unit b h w g." },
  { "set", NULL, cmd_set, "set $REG = V | [var] VARIABLE = V | *[(TYPE *)] ADDRESS = V",
    "Change a register or memory (*ADDRESS writes an int, 4 bytes, unless cast)." },
  { .name = NULL }
};

const InfoCommand froggy_shell_data_info_commands[] = {
  { "registers", info_registers },
  { "all-registers", info_all_registers },
  { .name = NULL }
};
