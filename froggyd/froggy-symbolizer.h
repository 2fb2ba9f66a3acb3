/* froggy-symbolizer.h: symbols, source lines and unwinding for one process
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib-object.h>
#include <sys/types.h>
#include <sys/user.h>

G_BEGIN_DECLS

typedef struct
{
  guint64  address;   /* the address looked up, or the resolved address */
  char    *function;  /* nullable: symbol name containing address */
  guint64  offset;    /* address - start of function */
  char    *module;    /* main file name of the module (e.g. /usr/lib/x86_64-linux-gnu/libc.so.6);
                       * NULL only for an address in no module (a "*ADDRESS" location, a frame) */
  char    *file;      /* nullable: source file from the line table (absolute path as in DWARF,
                       * comp_dir joined if relative) */
  int      line;      /* 0 when unknown */
  guint64  size;      /* bytes of the ELF symbol found by name (st_size), 0 when unknown
                       * or not looked up by name */
} FroggySymbol;

void              froggy_symbol_free                 (FroggySymbol *symbol);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FroggySymbol, froggy_symbol_free)

/* Memory and registers of a stopped thread, served by the caller (the
 * daemon reads them through /dev/utrace, never ptrace). */
typedef gboolean (*FroggyReadMemory) (gpointer  user_data,
                                      guint64   address,
                                      guint64  *word);

#define FROGGY_TYPE_SYMBOLIZER (froggy_symbolizer_get_type ())

G_DECLARE_FINAL_TYPE (FroggySymbolizer, froggy_symbolizer, FROGGY, SYMBOLIZER, GObject)

FroggySymbolizer *froggy_symbolizer_new              (pid_t                           pid);
/* (Re)reads the process's mappings.  Call it after an exec (a new image
 * starts over with a fresh Dwfl) and when a lookup misses (dlopen).  The
 * first lookup reads them by itself, and a lookup that misses reads them
 * again when /proc/PID/maps changed since. */
gboolean          froggy_symbolizer_refresh          (FroggySymbolizer               *self,
                                                      GError                        **error);
/* Address -> function+offset, module, file:line.  NULL if in no module. */
FroggySymbol     *froggy_symbolizer_lookup_address   (FroggySymbolizer               *self,
                                                      guint64                         address);
/* Name -> the function's entry address (symbol value, load bias applied),
 * or a variable's address, with the symbol's size; searches the main
 * program first, then the shared libraries.  NULL and G_IO_ERROR_NOT_FOUND
 * if none. */
FroggySymbol     *froggy_symbolizer_lookup_function  (FroggySymbolizer               *self,
                                                      const char                     *name,
                                                      GError                        **error);
/* Completions of @prefix for a client's command line: in @names, the
 * functions and variables of every module that a name lookup can find
 * ("memcpy@GLIBC_2.2.5" as memcpy; none with a '.', which the compiler
 * makes: "f.cold", "buf.0"); in @files, the base names of the compile
 * units' source files ("debuggee.c").  Both sorted by byte value, without
 * duplicates.  Reads the mappings again if they changed; FALSE when they
 * cannot be read. */
gboolean          froggy_symbolizer_complete         (FroggySymbolizer               *self,
                                                      const char                     *prefix,
                                                      GStrv                          *names,
                                                      GStrv                          *files,
                                                      GError                        **error);
/* A breakpoint location:
 *  - "NAME": the function's first line after its prologue (the first
 *    is_stmt row, within the function, whose line differs from the opening
 *    one, or the prologue_end row); its entry when it has no lines; for a
 *    function with no symbol (inlined everywhere), each inlined copy's entry;
 *  - "FILE:LINE": FILE matches the end of the line table's file name at a
 *    '/'; one address per function or inlined copy holding the line (its
 *    lowest is_stmt row), the next line with code when LINE has none, and
 *    past the prologue when the line opens a function;
 *  - "*ADDRESS": hex with 0x, or decimal.
 * Returns FroggySymbols sorted by address, never empty; otherwise NULL and
 * G_IO_ERROR_NOT_FOUND, or G_IO_ERROR_INVALID_ARGUMENT when malformed. */
GPtrArray        *froggy_symbolizer_resolve_location (FroggySymbolizer               *self,
                                                      const char                     *location,
                                                      GError                        **error);
/* Bounds [low, high) of the function containing pc: the DWARF subprogram
 * (the range of it holding pc), else the symbol's size.  FALSE if unknown. */
gboolean          froggy_symbolizer_function_bounds  (FroggySymbolizer               *self,
                                                      guint64                         pc,
                                                      guint64                        *low,
                                                      guint64                        *high);
/* TRUE if a DWARF line table covers pc (a row with line 0 included). */
gboolean          froggy_symbolizer_has_lines        (FroggySymbolizer               *self,
                                                      guint64                         pc);
/* TRUE when pc is exactly the address of an is_stmt line-table row. */
gboolean          froggy_symbolizer_is_line_start    (FroggySymbolizer               *self,
                                                      guint64                         pc);
/* Unwinds thread tid from its general registers (as in NT_PRSTATUS), its
 * memory read through read_memory.  One FroggySymbol per frame, frame 0
 * first, at most max_frames; a caller's frame is described by pc - 1 (the
 * call) but reports its real pc in address. */
GPtrArray        *froggy_symbolizer_backtrace        (FroggySymbolizer               *self,
                                                      pid_t                           tid,
                                                      const struct user_regs_struct  *regs,
                                                      FroggyReadMemory                read_memory,
                                                      gpointer                        user_data,
                                                      guint                           max_frames,
                                                      GError                        **error);

G_END_DECLS
