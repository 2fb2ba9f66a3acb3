/* froggy-encode.c
 *
 * The protocol's form of the values the session engine speaks in C: a
 * FroggySymbol becomes {"address", "function", "file", "line", ...}, a
 * FroggyBreakpoint the object breakpoint.insert and breakpoint.list
 * return, bytes a string of hex digits.  protocol/README.md is the
 * reference for every member.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <string.h>
#include <sys/wait.h>

#include "froggy-encode.h"
#include "froggy-error.h"
#include "froggy-params.h"

void
froggy_encode_location (GVariantBuilder    *builder,
                        guint64             pc,
                        const FroggySymbol *symbol)
{
  g_autofree char *text = froggy_format_word (pc);

  g_variant_builder_add (builder, "{sv}", "pc", g_variant_new_string (text));
  if (symbol == NULL)
    return;
  if (symbol->function != NULL)
    g_variant_builder_add (builder, "{sv}", "function", g_variant_new_string (symbol->function));
  if (symbol->file != NULL && symbol->line > 0)
    {
      g_variant_builder_add (builder, "{sv}", "file", g_variant_new_string (symbol->file));
      g_variant_builder_add (builder, "{sv}", "line", g_variant_new_int64 (symbol->line));
    }
}

/* The members of @symbol but its address, which the caller names. */
static void
add_symbol_members (GVariantBuilder    *builder,
                    const FroggySymbol *symbol,
                    gboolean            with_offset)
{
  if (symbol->function != NULL)
    g_variant_builder_add (builder, "{sv}", "function", g_variant_new_string (symbol->function));
  if (with_offset && symbol->function != NULL)
    {
      g_autofree char *offset = froggy_format_word (symbol->offset);

      g_variant_builder_add (builder, "{sv}", "offset", g_variant_new_string (offset));
    }
  if (symbol->module != NULL)
    g_variant_builder_add (builder, "{sv}", "module", g_variant_new_string (symbol->module));
  if (symbol->file != NULL && symbol->line > 0)
    {
      g_variant_builder_add (builder, "{sv}", "file", g_variant_new_string (symbol->file));
      g_variant_builder_add (builder, "{sv}", "line", g_variant_new_int64 (symbol->line));
    }
  if (symbol->size > 0)
    g_variant_builder_add (builder, "{sv}", "size", g_variant_new_int64 ((gint64) symbol->size));
}

GVariant *
froggy_encode_symbol (const FroggySymbol *symbol,
                      gboolean            with_offset)
{
  g_autofree char *address = froggy_format_word (symbol->address);
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "address", g_variant_new_string (address));
  add_symbol_members (&builder, symbol, with_offset);
  return g_variant_builder_end (&builder);
}

GVariant *
froggy_encode_frames (GPtrArray *frames)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < frames->len; i++)
    {
      const FroggySymbol *frame = g_ptr_array_index (frames, i);
      g_autofree char *pc = froggy_format_word (frame->address);
      GVariantBuilder one;

      g_variant_builder_init (&one, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&one, "{sv}", "level", g_variant_new_int64 (i));
      g_variant_builder_add (&one, "{sv}", "pc", g_variant_new_string (pc));
      add_symbol_members (&one, frame, TRUE);
      g_variant_builder_add_value (&builder, g_variant_builder_end (&one));
    }
  return g_variant_builder_end (&builder);
}

GVariant *
froggy_encode_lines (GPtrArray *lines)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("aa{sv}"));
  for (guint i = 0; i < lines->len; i++)
    {
      const FroggySymbol *line = g_ptr_array_index (lines, i);
      g_autofree char *address = froggy_format_word (line->address);
      GVariantBuilder one;

      g_variant_builder_init (&one, G_VARIANT_TYPE_VARDICT);
      g_variant_builder_add (&one, "{sv}", "address", g_variant_new_string (address));
      g_variant_builder_add (&one, "{sv}", "file", g_variant_new_string (line->file ? line->file : ""));
      g_variant_builder_add (&one, "{sv}", "line", g_variant_new_int64 (line->line));
      g_variant_builder_add_value (&builder, g_variant_builder_end (&one));
    }
  return g_variant_builder_end (&builder);
}

GVariant *
froggy_encode_breakpoint (const FroggyBreakpoint *breakpoint)
{
  GVariantBuilder builder, addresses;

  g_variant_builder_init (&addresses, G_VARIANT_TYPE_STRING_ARRAY);
  for (guint i = 0; i < breakpoint->addresses->len; i++)
    {
      g_autofree char *text = froggy_format_word (g_array_index (breakpoint->addresses, guint64, i));

      g_variant_builder_add (&addresses, "s", text);
    }

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "id", g_variant_new_int64 (breakpoint->id));
  g_variant_builder_add (&builder, "{sv}", "location", g_variant_new_string (breakpoint->location));
  g_variant_builder_add (&builder, "{sv}", "addresses", g_variant_builder_end (&addresses));
  g_variant_builder_add (&builder, "{sv}", "enabled", g_variant_new_boolean (breakpoint->enabled));
  g_variant_builder_add (&builder, "{sv}", "hits", g_variant_new_int64 (breakpoint->hits));
  g_variant_builder_add (&builder, "{sv}", "ignore_count", g_variant_new_int64 (breakpoint->ignore_count));
  g_variant_builder_add (&builder, "{sv}", "temporary", g_variant_new_boolean (breakpoint->temporary));
  g_variant_builder_add (&builder, "{sv}", "auto_continue",
                         g_variant_new_boolean (breakpoint->auto_continue));
  if (breakpoint->function != NULL)
    g_variant_builder_add (&builder, "{sv}", "function", g_variant_new_string (breakpoint->function));
  if (breakpoint->file != NULL)
    {
      g_variant_builder_add (&builder, "{sv}", "file", g_variant_new_string (breakpoint->file));
      g_variant_builder_add (&builder, "{sv}", "line", g_variant_new_int64 (breakpoint->line));
    }
  if (breakpoint->thread != 0)
    g_variant_builder_add (&builder, "{sv}", "thread", g_variant_new_int64 (breakpoint->thread));
  if (breakpoint->condition != NULL)
    g_variant_builder_add (&builder, "{sv}", "condition", g_variant_new_string (breakpoint->condition));
  return g_variant_builder_end (&builder);
}

GVariant *
froggy_encode_tids (GArray *tids)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("ax"));
  for (guint i = 0; i < tids->len; i++)
    g_variant_builder_add (&builder, "x", (gint64) g_array_index (tids, pid_t, i));
  return g_variant_builder_end (&builder);
}

char *
froggy_encode_hex (GBytes *bytes)
{
  gsize length = 0;
  const guint8 *data = g_bytes_get_data (bytes, &length);
  char *hex = g_malloc (2 * length + 1);

  /* By table: a printf a byte took a tenth of a second a MiB, which
   * every other client waited for. */
  for (gsize i = 0; i < length; i++)
    {
      hex[2 * i] = "0123456789abcdef"[data[i] >> 4];
      hex[2 * i + 1] = "0123456789abcdef"[data[i] & 0xf];
    }
  hex[2 * length] = '\0';
  return hex;
}

GBytes *
froggy_decode_hex (const char  *hex,
                   gsize        max_length,
                   GError     **error)
{
  gsize length = strlen (hex) / 2;
  g_autofree guint8 *buf = NULL;

  if (length == 0 || strlen (hex) % 2 != 0 || length > max_length)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "data must be 1 to %zu bytes as pairs of hex digits", max_length);
      return NULL;
    }
  buf = g_malloc (length);
  for (gsize i = 0; i < length; i++)
    {
      int high = g_ascii_xdigit_value (hex[2 * i]);
      int low = g_ascii_xdigit_value (hex[2 * i + 1]);

      if (high < 0 || low < 0)
        {
          g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                       "data must be pairs of hex digits");
          return NULL;
        }
      buf[i] = high << 4 | low;
    }
  return g_bytes_new_take (g_steal_pointer (&buf), length);
}

static const char *
signal_name (int   signo,
             char *buf,
             gsize len)
{
  const char *abbrev = sigabbrev_np (signo);

  if (abbrev == NULL)
    g_snprintf (buf, len, "SIG%d", signo);
  else
    g_snprintf (buf, len, "SIG%s", abbrev);
  return buf;
}

static void
add_int (GVariantBuilder *builder,
         const char      *name,
         gint64           value)
{
  g_variant_builder_add (builder, "{sv}", name, g_variant_new_int64 (value));
}

void
froggy_encode_add_word (GVariantBuilder *builder,
                        const char      *name,
                        guint64          value)
{
  g_autofree char *text = froggy_format_word (value);

  g_variant_builder_add (builder, "{sv}", name, g_variant_new_string (text));
}

GVariant *
froggy_encode_notice (const FroggyNotice *notice)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&builder, "{sv}", "reason", g_variant_new_string (notice->reason));
  add_int (&builder, "session", notice->session);
  if (notice->thread != 0)
    {
      add_int (&builder, "thread", notice->thread);
      add_int (&builder, "pid", notice->pid);
      g_variant_builder_add (&builder, "{sv}", "stopped", g_variant_new_boolean (notice->stopped));
    }
  if (notice->breakpoint != 0)
    add_int (&builder, "breakpoint", notice->breakpoint);
  if (notice->watchpoint != 0)
    add_int (&builder, "watchpoint", notice->watchpoint);
  if (notice->signo != 0)
    {
      char name[32];

      add_int (&builder, "signal", notice->signo);
      g_variant_builder_add (&builder, "{sv}", "name",
                             g_variant_new_string (signal_name (notice->signo, name, sizeof name)));
    }
  if (notice->has_code)
    add_int (&builder, "code", notice->code);
  if (notice->has_address)
    froggy_encode_add_word (&builder, "address", notice->address);
  if (notice->is_syscall)
    {
      add_int (&builder, "nr", notice->syscall_nr);
      g_variant_builder_add (&builder, "{sv}", "name",
                             g_variant_new_string (notice->syscall_name ? notice->syscall_name : "?"));
      g_variant_builder_add (&builder, "{sv}", "abi",
                             g_variant_new_string (notice->syscall_abi ? notice->syscall_abi : "?"));
      if (notice->catchpoint != 0)
        add_int (&builder, "catchpoint", notice->catchpoint);
    }
  if (notice->has_args)
    {
      GVariantBuilder args;

      g_variant_builder_init (&args, G_VARIANT_TYPE_STRING_ARRAY);
      for (guint i = 0; i < G_N_ELEMENTS (notice->args); i++)
        {
          g_autofree char *text = froggy_format_word (notice->args[i]);

          g_variant_builder_add (&args, "s", text);
        }
      g_variant_builder_add (&builder, "{sv}", "args", g_variant_builder_end (&args));
    }
  if (notice->has_return)
    add_int (&builder, "return", notice->ret);
  if (notice->filename != NULL)
    g_variant_builder_add (&builder, "{sv}", "filename", g_variant_new_string (notice->filename));
  if (notice->new_thread != 0)
    add_int (&builder, "new_thread", notice->new_thread);
  if (notice->child != 0)
    add_int (&builder, "child", notice->child);
  if (notice->has_status)
    {
      add_int (&builder, "status", notice->status);
      if (WIFEXITED (notice->status))
        add_int (&builder, "code", WEXITSTATUS (notice->status));
      else if (WIFSIGNALED (notice->status))
        add_int (&builder, "termsig", WTERMSIG (notice->status));
    }
  if (notice->step_kind != NULL)
    g_variant_builder_add (&builder, "{sv}", "kind", g_variant_new_string (notice->step_kind));
  if (notice->has_count)
    add_int (&builder, "count", notice->count);
  if (notice->has_location)
    froggy_encode_location (&builder, notice->pc, notice->location);
  return g_variant_builder_end (&builder);
}

/* What the union of a siginfo holds, as the kernel's siginfo_layout()
 * tells it from the signal and the code (less other architectures'). */
typedef enum
{
  SIGINFO_KILL,     /* pid, uid */
  SIGINFO_RT,       /* pid, uid, value */
  SIGINFO_TIMER,    /* timer id, overrun, value */
  SIGINFO_POLL,     /* band, fd */
  SIGINFO_FAULT,    /* addr */
  SIGINFO_CHLD,     /* pid, uid, status, times */
  SIGINFO_SYS,      /* call_addr, syscall, arch */
} SiginfoLayout;

static SiginfoLayout
siginfo_layout (int signo,
                int code)
{
  /* The codes the kernel has for the signals it sends itself: the NSIG*
   * limits of <asm-generic/siginfo.h>, which <signal.h> excludes. */
  static const struct
  {
    int           signo;
    int           limit;
    SiginfoLayout layout;
  } kernel_codes[] = {
    { SIGILL, 11, SIGINFO_FAULT },
    { SIGFPE, 15, SIGINFO_FAULT },
    { SIGSEGV, 9, SIGINFO_FAULT },
    { SIGBUS, 5, SIGINFO_FAULT },
    { SIGTRAP, 6, SIGINFO_FAULT },
    { SIGCHLD, 6, SIGINFO_CHLD },
    { SIGPOLL, 6, SIGINFO_POLL },
    { SIGSYS, 2, SIGINFO_SYS },
  };
  const int nsigpoll = 6;

  if (code > SI_USER && code < SI_KERNEL)
    {
      for (guint i = 0; i < G_N_ELEMENTS (kernel_codes); i++)
        if (kernel_codes[i].signo == signo && code <= kernel_codes[i].limit)
          return kernel_codes[i].layout;
      return code <= nsigpoll ? SIGINFO_POLL : SIGINFO_KILL;
    }
  if (code == SI_TIMER)
    return SIGINFO_TIMER;
  if (code == SI_SIGIO)
    return SIGINFO_POLL;
  return code < 0 ? SIGINFO_RT : SIGINFO_KILL;
}

GVariant *
froggy_encode_siginfo (const siginfo_t *info)
{
  g_autoptr(GBytes) bytes = g_bytes_new (info, sizeof *info);
  g_autofree char *raw = froggy_encode_hex (bytes);
  SiginfoLayout layout = siginfo_layout (info->si_signo, info->si_code);
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  add_int (&builder, "signo", info->si_signo);
  add_int (&builder, "errno", info->si_errno);
  add_int (&builder, "code", info->si_code);
  if (layout == SIGINFO_KILL || layout == SIGINFO_RT || layout == SIGINFO_CHLD)
    {
      add_int (&builder, "pid", info->si_pid);
      add_int (&builder, "uid", info->si_uid);
    }
  if (layout == SIGINFO_RT || layout == SIGINFO_TIMER)
    froggy_encode_add_word (&builder, "value", (guintptr) info->si_value.sival_ptr);
  if (layout == SIGINFO_FAULT)
    froggy_encode_add_word (&builder, "addr", (guintptr) info->si_addr);
  if (layout == SIGINFO_SYS)
    froggy_encode_add_word (&builder, "addr", (guintptr) info->si_call_addr);
  g_variant_builder_add (&builder, "{sv}", "raw", g_variant_new_string (raw));
  return g_variant_builder_end (&builder);
}
