/* froggy-registers.c
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <stddef.h>
#include <string.h>

#include "froggy-encode.h"
#include "froggy-params.h"
#include "froggy-registers.h"

/* The kernel's __USER32_CS: a thread running 32-bit code. */
#define FROGGY_USER32_CS 0x23

typedef struct
{
  const char *name;
  gsize       offset;
} RegisterName;

#define REG(name) { #name, offsetof (struct user_regs_struct, name) }

/* gdb's order for x86_64, then the ones gdb shows apart. */
static const RegisterName general_registers[] = {
  REG (rax), REG (rbx), REG (rcx), REG (rdx), REG (rsi), REG (rdi),
  REG (rbp), REG (rsp), REG (r8), REG (r9), REG (r10), REG (r11),
  REG (r12), REG (r13), REG (r14), REG (r15), REG (rip), REG (eflags),
  REG (cs), REG (ss), REG (ds), REG (es), REG (fs), REG (gs),
  REG (fs_base), REG (gs_base), REG (orig_rax),
};

#undef REG

static void
add_bytes (GVariantBuilder *builder,
           const char      *name,
           gconstpointer    data,
           gsize            len)
{
  const guint8 *bytes = data;
  g_autoptr(GString) text = g_string_sized_new (2 + 2 * len);

  g_string_append (text, "0x");
  for (gsize i = len; i > 0; i--)
    g_string_append_printf (text, "%02x", bytes[i - 1]);
  g_variant_builder_add (builder, "{sv}", name, g_variant_new_string (text->str));
}

GVariant *
froggy_registers_general_to_variant (const struct user_regs_struct *regs)
{
  GVariantBuilder builder;

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  for (guint i = 0; i < G_N_ELEMENTS (general_registers); i++)
    {
      const unsigned long long *value =
        (gconstpointer) ((const char *) regs + general_registers[i].offset);

      froggy_encode_add_word (&builder, general_registers[i].name, *value);
    }
  return g_variant_builder_end (&builder);
}

GVariant *
froggy_registers_fp_to_variant (const struct user_fpregs_struct *fp)
{
  GVariantBuilder builder;
  char name[8];

  g_variant_builder_init (&builder, G_VARIANT_TYPE_VARDICT);
  froggy_encode_add_word (&builder, "cwd", fp->cwd);
  froggy_encode_add_word (&builder, "swd", fp->swd);
  froggy_encode_add_word (&builder, "ftw", fp->ftw);
  froggy_encode_add_word (&builder, "fop", fp->fop);
  froggy_encode_add_word (&builder, "rip", fp->rip);
  froggy_encode_add_word (&builder, "rdp", fp->rdp);
  froggy_encode_add_word (&builder, "mxcsr", fp->mxcsr);
  /* Each st register takes 16 bytes in fxsave, of which 10 are used. */
  for (guint i = 0; i < 8; i++)
    {
      g_snprintf (name, sizeof name, "st%u", i);
      add_bytes (&builder, name, (const guint8 *) fp->st_space + 16 * i, 10);
    }
  for (guint i = 0; i < 16; i++)
    {
      g_snprintf (name, sizeof name, "xmm%u", i);
      add_bytes (&builder, name, (const guint8 *) fp->xmm_space + 16 * i, 16);
    }
  return g_variant_builder_end (&builder);
}

guint
froggy_registers_word_size (const struct user_regs_struct *regs)
{
  return regs->cs == FROGGY_USER32_CS ? 4 : 8;
}

unsigned long long *
froggy_registers_lookup (struct user_regs_struct *regs,
                         const char              *name)
{
  const char *bare = name[0] == '$' ? name + 1 : name;

  if (strcmp (bare, "pc") == 0)
    bare = "rip";
  else if (strcmp (bare, "sp") == 0)
    bare = "rsp";

  for (guint i = 0; i < G_N_ELEMENTS (general_registers); i++)
    if (strcmp (general_registers[i].name, bare) == 0)
      return (gpointer) ((char *) regs + general_registers[i].offset);
  return NULL;
}
