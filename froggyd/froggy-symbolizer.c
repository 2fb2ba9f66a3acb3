/* froggy-symbolizer.c
 *
 * A FroggySymbolizer answers what a debugger asks about the code of one
 * process: which function, file and line an address is in, where a
 * function or a source line starts, and what the call stack of a stopped
 * thread is.
 *
 * It is a thin layer over libdwfl, elfutils' library for the modules of a
 * live process: it turns /proc/PID/maps into modules, finds each one's
 * ELF file and separate debuginfo (by build-id, under /usr/lib/debug),
 * applies load biases, caches what it parsed, and unwinds with each
 * module's CFI, falling back to frame pointers.  Without it we would need
 * our own ELF, DWARF and CFI readers.
 *
 * The unwinder never touches the tracee: libdwfl asks our thread
 * callbacks for registers and memory, and those ask the daemon, which
 * reads them through /dev/utrace.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "froggy-registers.h"
#include "froggy-symbolizer.h"

struct _FroggySymbolizer
{
  GObject         parent_instance;

  pid_t           pid;
  Dwfl           *dwfl;
  /* libdwfl keeps pointers to both for the life of the Dwfl. */
  Dwfl_Callbacks  callbacks;
  char           *debuginfo_path;

  GBytes         *auxv;      /* of the image the Dwfl describes: another one means an exec */
  char           *maps;      /* /proc/PID/maps as last reported */
  guint64         entry;     /* AT_ENTRY: the main program is the module holding it */
  gboolean        attached;  /* dwfl_attach_state is allowed once per Dwfl */

  /* The unwind in progress, read by the thread callbacks. */
  struct
  {
    pid_t                          tid;
    const struct user_regs_struct *regs;
    FroggyReadMemory               read_memory;
    gpointer                       user_data;
  } unwind;
};

G_DEFINE_FINAL_TYPE (FroggySymbolizer, froggy_symbolizer, G_TYPE_OBJECT)

/* One row of a line table, its address relative to the module. */
typedef struct
{
  Dwarf_Addr  address;
  int         line;
  const char *file;
  gboolean    stmt;
  gboolean    end_sequence;
  gboolean    prologue_end;
} Row;

void
froggy_symbol_free (FroggySymbol *symbol)
{
  if (symbol == NULL)
    return;
  g_free (symbol->function);
  g_free (symbol->module);
  g_free (symbol->file);
  g_free (symbol);
}

static GPtrArray *
symbol_array_new (void)
{
  return g_ptr_array_new_with_free_func ((GDestroyNotify) froggy_symbol_free);
}

static int
compare_addresses (gconstpointer a,
                   gconstpointer b)
{
  const FroggySymbol *first = *(FroggySymbol * const *) a;
  const FroggySymbol *second = *(FroggySymbol * const *) b;

  return first->address < second->address ? -1 : first->address > second->address;
}

/* libdw names a file by its directory entry, and entry 0 is comp_dir:
 * only a name under another, relative, entry is still to be joined.  (A
 * prefix-mapped build has a relative comp_dir, "./io" in glibc: names in
 * entry 0 then start with it.) */
static char *
absolute_path (Dwarf_Die  *cu,
               const char *file)
{
  Dwarf_Attribute attribute;
  const char *comp_dir = dwarf_formstring (dwarf_attr (cu, DW_AT_comp_dir, &attribute));
  gsize length = comp_dir != NULL ? strlen (comp_dir) : 0;

  if (g_path_is_absolute (file) || comp_dir == NULL ||
      (strncmp (file, comp_dir, length) == 0 && file[length] == '/'))
    return g_strdup (file);
  return g_build_filename (comp_dir, file, NULL);
}

/* Mappings and images {{{ */

static void
forget_image (FroggySymbolizer *self)
{
  g_clear_pointer (&self->dwfl, dwfl_end);
  g_clear_pointer (&self->auxv, g_bytes_unref);
  g_clear_pointer (&self->maps, g_free);
  self->entry = 0;
  self->attached = FALSE;
}

static char *
read_proc (pid_t        pid,
           const char  *name,
           gsize       *length,
           GError     **error)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/%s", (int) pid, name);
  char *contents = NULL;

  if (!g_file_get_contents (path, &contents, length, error))
    return NULL;
  return contents;
}

/* ELFCLASS32 or ELFCLASS64: the class of the program @pid runs, which
 * its auxiliary vector's entries have too. */
static int
process_elf_class (pid_t pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/exe", (int) pid);
  unsigned char ident[EI_NIDENT] = { 0 };
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  gssize n = -1;

  if (fd >= 0)
    {
      n = read (fd, ident, sizeof ident);
      close (fd);
    }
  if (n == (gssize) sizeof ident && memcmp (ident, ELFMAG, SELFMAG) == 0 &&
      ident[EI_CLASS] == ELFCLASS32)
    return ELFCLASS32;
  return ELFCLASS64;
}

static guint64
auxv_entry (GBytes *auxv,
            int     elf_class)
{
  gsize size = 0;
  gconstpointer data = g_bytes_get_data (auxv, &size);

  if (elf_class == ELFCLASS32)
    {
      const Elf32_auxv_t *vector = data;

      for (gsize i = 0; i < size / sizeof *vector; i++)
        if (vector[i].a_type == AT_ENTRY)
          return vector[i].a_un.a_val;
    }
  else
    {
      const Elf64_auxv_t *vector = data;

      for (gsize i = 0; i < size / sizeof *vector; i++)
        if (vector[i].a_type == AT_ENTRY)
          return vector[i].a_un.a_val;
    }
  return 0;
}

static gboolean
reload (FroggySymbolizer  *self,
        GError           **error)
{
  g_autoptr(GBytes) auxv = NULL;
  g_autofree char *maps = NULL;
  char *data;
  gsize size = 0;
  int ret;

  if ((data = read_proc (self->pid, "auxv", &size, error)) == NULL)
    return FALSE;
  auxv = g_bytes_new_take (data, size);
  if ((maps = read_proc (self->pid, "maps", NULL, error)) == NULL)
    return FALSE;

  /* The kernel writes a new auxiliary vector at each exec: nothing of
   * the old image's modules, nor the unwinder attached to them, holds. */
  if (self->auxv != NULL && !g_bytes_equal (auxv, self->auxv))
    forget_image (self);

  if (self->dwfl == NULL && (self->dwfl = dwfl_begin (&self->callbacks)) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "libdwfl: %s", dwfl_errmsg (-1));
      return FALSE;
    }

  /* A module reported again with the same file and bounds keeps all
   * libdwfl loaded for it; those not reported again (dlclose) go. */
  dwfl_report_begin (self->dwfl);
  ret = dwfl_linux_proc_report (self->dwfl, self->pid);
  if (dwfl_report_end (self->dwfl, NULL, NULL) != 0 && ret == 0)
    ret = -1;
  if (ret != 0)
    {
      g_set_error (error, G_IO_ERROR, ret > 0 ? g_io_error_from_errno (ret) : G_IO_ERROR_FAILED,
                   "mappings of process %d: %s", (int) self->pid,
                   ret > 0 ? g_strerror (ret) : dwfl_errmsg (-1));
      return FALSE;
    }

  g_clear_pointer (&self->auxv, g_bytes_unref);
  self->auxv = g_steal_pointer (&auxv);
  self->entry = auxv_entry (self->auxv, process_elf_class (self->pid));
  g_free (self->maps);
  self->maps = g_steal_pointer (&maps);
  return TRUE;
}

static gboolean
ensure_modules (FroggySymbolizer  *self,
                GError           **error)
{
  return self->dwfl != NULL || reload (self, error);
}

/* After a miss: a library may have been mapped since (dlopen), or the
 * process may have exec'd.  Costs a read of the maps when not. */
static gboolean
reload_if_changed (FroggySymbolizer *self)
{
  g_autofree char *maps = read_proc (self->pid, "maps", NULL, NULL);

  return maps != NULL && g_strcmp0 (maps, self->maps) != 0 && reload (self, NULL);
}

static Dwfl_Module *
module_at (FroggySymbolizer *self,
           guint64           address)
{
  Dwfl_Module *module;

  if (!ensure_modules (self, NULL))
    return NULL;
  module = dwfl_addrmodule (self->dwfl, address);
  if (module == NULL && reload_if_changed (self))
    module = dwfl_addrmodule (self->dwfl, address);
  return module;
}

static int
add_module (Dwfl_Module  *module,
            void        **userdata G_GNUC_UNUSED,
            const char   *name G_GNUC_UNUSED,
            Dwarf_Addr    start G_GNUC_UNUSED,
            void         *modules)
{
  g_ptr_array_add (modules, module);
  return DWARF_CB_OK;
}

/* The main program first, then the libraries as mapped. */
static GPtrArray *
modules_in_search_order (FroggySymbolizer *self)
{
  GPtrArray *modules = g_ptr_array_new ();
  Dwfl_Module *main_program = dwfl_addrmodule (self->dwfl, self->entry);

  dwfl_getmodules (self->dwfl, add_module, modules, 0);
  if (main_program != NULL && g_ptr_array_remove (modules, main_program))
    g_ptr_array_insert (modules, 0, main_program);
  return modules;
}

/* }}} */

/* DWARF {{{ */

static void
read_row (Dwarf_Lines *lines,
          size_t       index,
          Row         *row)
{
  Dwarf_Line *line = dwarf_onesrcline (lines, index);
  bool flag;

  row->address = 0;
  row->line = 0;
  dwarf_lineaddr (line, &row->address);
  dwarf_lineno (line, &row->line);
  row->file = dwarf_linesrc (line, NULL, NULL);
  row->stmt = dwarf_linebeginstatement (line, &flag) == 0 && flag;
  row->end_sequence = dwarf_lineendsequence (line, &flag) == 0 && flag;
  row->prologue_end = dwarf_lineprologueend (line, &flag) == 0 && flag;
}

/* Where a source line starts, as opposed to the rest of a line's code,
 * the end of a sequence, or code of no line (0). */
static gboolean
row_starts_line (const Row *row)
{
  return row->stmt && !row->end_sequence && row->line > 0;
}

/* libdw sorts a CU's rows by address: the first at or after address. */
static size_t
first_row_from (Dwarf_Lines *lines,
                size_t       count,
                Dwarf_Addr   address)
{
  size_t low = 0;
  size_t high = count;

  while (low < high)
    {
      size_t middle = low + (high - low) / 2;
      Row row;

      read_row (lines, middle, &row);
      if (row.address < address)
        low = middle + 1;
      else
        high = middle;
    }
  return low;
}

/* The row describing address: of the rows at the greatest address not
 * above it, the last is_stmt one, as gdb picks among views. */
static gboolean
row_at (Dwarf_Die  *cu,
        Dwarf_Addr  address,
        Row        *row)
{
  Dwarf_Lines *lines;
  size_t count, i;

  if (dwarf_getsrclines (cu, &lines, &count) != 0 ||
      (i = first_row_from (lines, count, address + 1)) == 0)
    return FALSE;
  read_row (lines, i - 1, row);
  if (row->end_sequence)
    return FALSE;
  while (i-- > 0)
    {
      Row other;

      read_row (lines, i, &other);
      if (other.address != row->address)
        break;
      if (row_starts_line (&other))
        {
          *row = other;
          break;
        }
    }
  return TRUE;
}

static gboolean
range_holding (Dwarf_Die  *die,
               Dwarf_Addr  pc,
               guint64    *low,
               guint64    *high)
{
  Dwarf_Addr base, start, end;
  ptrdiff_t offset = 0;

  while ((offset = dwarf_ranges (die, offset, &base, &start, &end)) > 0)
    if (start <= pc && pc < end)
      {
        *low = start;
        *high = end;
        return TRUE;
      }
  return FALSE;
}

/* The CU holding pc.  libdw 0.188 looks only in .debug_aranges, which
 * clang does not write: then ask each CU for its ranges. */
static Dwarf_Die *
cu_at (Dwfl_Module *module,
       guint64      pc,
       Dwarf_Addr  *bias)
{
  Dwarf_Die *cu = dwfl_module_addrdie (module, pc, bias);
  guint64 low, high;

  if (cu != NULL)
    return cu;
  while ((cu = dwfl_module_nextcu (module, cu, bias)) != NULL)
    if (range_holding (cu, pc - *bias, &low, &high))
      return cu;
  return NULL;
}

/* The innermost function, or with inlined_too inlined copy of one,
 * holding pc. */
static gboolean
function_scope (Dwarf_Die  *cu,
                Dwarf_Addr  pc,
                gboolean    inlined_too,
                Dwarf_Die  *function)
{
  Dwarf_Die *scopes = NULL;
  int count = dwarf_getscopes (cu, pc, &scopes);
  gboolean found = FALSE;

  for (int i = 0; i < count && !found; i++)
    {
      int tag = dwarf_tag (&scopes[i]);

      if (tag == DW_TAG_subprogram || (inlined_too && tag == DW_TAG_inlined_subroutine))
        {
          *function = scopes[i];
          found = TRUE;
        }
    }
  free (scopes);
  return found;
}

/* }}} */

/* Symbols and lines {{{ */

static FroggySymbol *
describe (Dwfl_Module *module,
          guint64      address)
{
  FroggySymbol *symbol = g_new0 (FroggySymbol, 1);
  GElf_Off offset = 0;
  Dwarf_Addr bias = 0;
  Dwarf_Die *cu;
  const char *name;
  GElf_Sym sym;
  Row row;

  symbol->address = address;
  if (module == NULL)
    return symbol;
  symbol->module = g_strdup (dwfl_module_info (module, NULL, NULL, NULL, NULL, NULL, NULL, NULL));

  name = dwfl_module_addrinfo (module, address, &offset, &sym, NULL, NULL, NULL);
  if (name != NULL)
    {
      /* "memcpy@GLIBC_2.2.5" is memcpy to the user. */
      symbol->function = g_strndup (name, strcspn (name, "@"));
      symbol->offset = offset;
    }

  /* Not dwfl_module_getsrc: it misses CUs without .debug_aranges. */
  if ((cu = cu_at (module, address, &bias)) != NULL &&
      row_at (cu, address - bias, &row) && row.line > 0 && row.file != NULL)
    {
      symbol->file = absolute_path (cu, row.file);
      symbol->line = row.line;
    }
  return symbol;
}

static gboolean
bounds_in_module (Dwfl_Module *module,
                  guint64      pc,
                  guint64     *low,
                  guint64     *high)
{
  Dwarf_Addr bias = 0;
  Dwarf_Die *cu = cu_at (module, pc, &bias);
  Dwarf_Die function;
  GElf_Off offset = 0;
  GElf_Sym sym;

  /* The function a call landed in: an inlined copy has no return. */
  if (cu != NULL &&
      function_scope (cu, pc - bias, FALSE, &function) &&
      range_holding (&function, pc - bias, low, high))
    {
      *low += bias;
      *high += bias;
      return TRUE;
    }

  if (dwfl_module_addrinfo (module, pc, &offset, &sym, NULL, NULL, NULL) == NULL ||
      offset >= sym.st_size)
    return FALSE;
  *low = pc - offset;
  *high = *low + sym.st_size;
  return TRUE;
}

/* Where gdb stops for "break NAME": the row the compiler marked as the
 * end of the prologue (clang), else the first one of another line than
 * the opening one (gcc), within the function.  Another line already at
 * the entry (optimized code) means there is no prologue. */
static guint64
skip_prologue (Dwfl_Module *module,
               guint64      entry,
               guint64      high)
{
  Dwarf_Addr bias = 0;
  Dwarf_Die *cu = cu_at (module, entry, &bias);
  Dwarf_Lines *lines;
  size_t count, first;
  Row opening;

  if (cu == NULL || dwarf_getsrclines (cu, &lines, &count) != 0)
    return entry;

  first = first_row_from (lines, count, entry - bias);
  if (first < count)
    read_row (lines, first, &opening);
  if (first == count || opening.address != entry - bias)
    {
      if (first == 0)
        return entry;
      read_row (lines, first - 1, &opening);
      if (opening.end_sequence)
        return entry;
    }

  for (size_t i = first; i < count; i++)
    {
      Row row;

      read_row (lines, i, &row);
      if (row.address + bias >= high)
        break;
      if (row_starts_line (&row) &&
          (row.prologue_end || row.line != opening.line || g_strcmp0 (row.file, opening.file) != 0))
        return row.address + bias;
    }
  return entry;
}

static gboolean
name_matches (const char *symbol_name,
              const char *name)
{
  gsize length = strlen (name);

  return strncmp (symbol_name, name, length) == 0 &&
         (symbol_name[length] == '\0' || symbol_name[length] == '@');
}

/* How surely a symbol of the right name is the one meant: a plain
 * function before a variable (when those count) before an ifunc
 * resolver, and a global before a file's static.  Zero: not at all. */
static int
symbol_rank (const GElf_Sym *sym,
             GElf_Word       shndx,
             GElf_Addr       address,
             gboolean        with_data)
{
  int type = GELF_ST_TYPE (sym->st_info);
  int rank;

  if (shndx == SHN_UNDEF || address == 0)
    return 0;
  if (type == STT_FUNC)
    rank = 5;
  else if (type == STT_OBJECT && with_data)
    rank = 3;
  else if (type == STT_GNU_IFUNC)
    rank = 1;
  else
    return 0;
  /* A hidden symbol is private to its module, as a static is. */
  if (GELF_ST_BIND (sym->st_info) == STB_LOCAL ||
      GELF_ST_VISIBILITY (sym->st_other) != STV_DEFAULT)
    return rank;
  return rank + 1;
}

/* Symbol @index of @module: its name, its value (load bias applied) in
 * @address, and its symbol_rank() in @rank. */
static const char *
ranked_symbol (Dwfl_Module *module,
               int          index,
               gboolean     with_data,
               GElf_Sym    *sym,
               GElf_Addr   *address,
               int         *rank)
{
  GElf_Word shndx = SHN_UNDEF;
  const char *name;

  *address = 0;
  name = dwfl_module_getsym_info (module, index, sym, address, &shndx, NULL, NULL);
  *rank = name != NULL ? symbol_rank (sym, shndx, *address, with_data) : 0;
  return name;
}

/* The best rank of @name in @module, its address in @entry and its
 * size in @size. */
static int
find_symbol_in (Dwfl_Module *module,
                const char  *name,
                gboolean     with_data,
                guint64     *entry,
                guint64     *size)
{
  int count = dwfl_module_getsymtab (module);
  int best = 0;

  for (int i = 0; i < count; i++)
    {
      GElf_Sym sym;
      GElf_Addr address;
      int rank;
      const char *symbol_name = ranked_symbol (module, i, with_data, &sym, &address, &rank);

      if (rank > best && name_matches (symbol_name, name))
        {
          best = rank;
          *entry = address;
          *size = sym.st_size;
        }
    }
  return best;
}

/* The module with the best-ranked symbol @name, the first in search
 * order among equals: libc's global getpid, not the dynamic loader's
 * private copy of it.  A hit in an old module list could hide a better
 * one in a library mapped since, so the maps are checked first. */
static Dwfl_Module *
find_symbol (FroggySymbolizer *self,
             const char       *name,
             gboolean          with_data,
             guint64          *entry,
             guint64          *size)
{
  g_autoptr(GPtrArray) modules = NULL;
  Dwfl_Module *found = NULL;
  int best = 0;

  reload_if_changed (self);
  modules = modules_in_search_order (self);
  for (guint i = 0; i < modules->len; i++)
    {
      guint64 address = 0;
      guint64 bytes = 0;
      int rank = find_symbol_in (g_ptr_array_index (modules, i), name, with_data, &address, &bytes);

      if (rank > best)
        {
          best = rank;
          found = g_ptr_array_index (modules, i);
          *entry = address;
          *size = bytes;
        }
    }
  return found;
}

/* @size: the symbol's, 0 for an inlined copy, which has none. */
static FroggySymbol *
describe_function (Dwfl_Module *module,
                   const char  *name,
                   guint64      entry,
                   guint64      size,
                   guint64      address)
{
  FroggySymbol *symbol = describe (module, address);

  g_free (symbol->function);
  symbol->function = g_strdup (name);
  symbol->offset = address - entry;
  symbol->size = size;
  return symbol;
}

/* }}} */

/* Locations {{{ */

typedef struct
{
  const char  *name;
  Dwfl_Module *module;
  Dwarf_Addr   bias;
  GPtrArray   *symbols;
} InlineSearch;

static int
add_inlined_copy (Dwarf_Die *copy,
                  void      *data)
{
  InlineSearch *search = data;
  Dwarf_Addr entry;

  if (dwarf_entrypc (copy, &entry) == 0)
    g_ptr_array_add (search->symbols,
                     describe_function (search->module, search->name, entry + search->bias, 0,
                                        entry + search->bias));
  return DWARF_CB_OK;
}

static int
find_inlined_copies (Dwarf_Die *function,
                     void      *data)
{
  InlineSearch *search = data;

  if (dwarf_func_inline (function) && g_strcmp0 (dwarf_diename (function), search->name) == 0)
    dwarf_func_inline_instances (function, add_inlined_copy, search);
  return DWARF_CB_OK;
}

/* A function inlined everywhere has no symbol: stop where each copy
 * starts, in the first module that has any. */
static GPtrArray *
find_inlined (FroggySymbolizer *self,
              const char       *name)
{
  g_autoptr(GPtrArray) modules = modules_in_search_order (self);
  InlineSearch search = { name, NULL, 0, symbol_array_new () };

  for (guint i = 0; i < modules->len && search.symbols->len == 0; i++)
    {
      Dwarf_Die *cu = NULL;

      search.module = g_ptr_array_index (modules, i);
      while ((cu = dwfl_module_nextcu (search.module, cu, &search.bias)) != NULL)
        dwarf_getfuncs (cu, find_inlined_copies, &search, 0);
    }
  g_ptr_array_sort (search.symbols, compare_addresses);
  return search.symbols;
}

/* FILE names the end of a line table's file at a '/': "hello.c" and
 * "src/hello.c" are both /home/me/src/hello.c. */
static gboolean
file_matches (Dwarf_Die  *cu,
              const char *file,
              const char *wanted)
{
  g_autofree char *path = absolute_path (cu, file);
  gsize length = strlen (path);
  gsize wanted_length = strlen (wanted);

  if (wanted_length > length || strcmp (path + length - wanted_length, wanted) != 0)
    return FALSE;
  return wanted_length == length || wanted[0] == '/' || path[length - wanted_length - 1] == '/';
}

/* A row of the line looked for. */
typedef struct
{
  Dwfl_Module *module;
  Dwarf_Die    cu;
  Dwarf_Addr   bias;
  Dwarf_Addr   address;
  const char  *file;
} LineRow;

typedef struct
{
  const char *wanted;
  int         line;  /* as asked */
  int         best;  /* that line, or the next one with code so far */
  GArray     *rows;  /* LineRow, of best */
} LineSearch;

static void
search_cu (LineSearch  *search,
           Dwfl_Module *module,
           Dwarf_Die   *cu,
           Dwarf_Addr   bias)
{
  const char *last_file = NULL;
  gboolean last_matched = FALSE;
  Dwarf_Lines *lines;
  size_t count;

  if (dwarf_getsrclines (cu, &lines, &count) != 0)
    return;

  for (size_t i = 0; i < count; i++)
    {
      LineRow found = { module, *cu, bias, 0, NULL };
      Row row;

      read_row (lines, i, &row);
      if (!row_starts_line (&row) || row.line < search->line || row.line > search->best)
        continue;
      if (row.file != last_file)
        {
          last_file = row.file;
          last_matched = row.file != NULL && file_matches (cu, row.file, search->wanted);
        }
      if (!last_matched)
        continue;

      if (row.line < search->best)
        {
          search->best = row.line;
          g_array_set_size (search->rows, 0);
        }
      found.address = row.address;
      found.file = row.file;
      g_array_append_val (search->rows, found);
    }
}

/* Two rows of a line are one breakpoint location when in the same
 * function or inlined copy (for want of DWARF functions, symbol). */
static char *
location_key (LineRow   *row,
              Dwarf_Die *function,
              gboolean  *has_function)
{
  guint64 address = row->address + row->bias;
  GElf_Off offset = 0;
  GElf_Sym sym;

  *has_function = function_scope (&row->cu, row->address, TRUE, function);
  if (*has_function)
    return g_strdup_printf ("%p/die/%" G_GINT64_MODIFIER "x", row->module,
                            (guint64) dwarf_dieoffset (function));
  if (dwfl_module_addrinfo (row->module, address, &offset, &sym, NULL, NULL, NULL) != NULL)
    address -= offset;
  return g_strdup_printf ("%p/at/%" G_GINT64_MODIFIER "x", row->module, address);
}

static GPtrArray *
find_line (FroggySymbolizer *self,
           const char       *wanted,
           int               line)
{
  g_autoptr(GArray) rows = g_array_new (FALSE, FALSE, sizeof (LineRow));
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) modules = modules_in_search_order (self);
  LineSearch search = { wanted, line, G_MAXINT, rows };
  GPtrArray *symbols = symbol_array_new ();

  /* Not dwfl_module_getsrc_file: it keeps one row per file, which loses
   * the other copies of a line (inlined, or one header in two CUs). */
  for (guint i = 0; i < modules->len; i++)
    {
      Dwfl_Module *module = g_ptr_array_index (modules, i);
      Dwarf_Addr bias = 0;
      Dwarf_Die *cu = NULL;

      while ((cu = dwfl_module_nextcu (module, cu, &bias)) != NULL)
        search_cu (&search, module, cu, bias);
    }

  /* Rows come by address within a CU: the first of a copy is its lowest. */
  for (guint i = 0; i < rows->len; i++)
    {
      LineRow *row = &g_array_index (rows, LineRow, i);
      guint64 address = row->address + row->bias;
      gboolean has_function;
      Dwarf_Die function;
      Dwarf_Addr entry;
      guint64 low, high;
      FroggySymbol *symbol;

      if (!g_hash_table_add (seen, location_key (row, &function, &has_function)))
        continue;

      /* A line opening a function stops after its prologue, as gdb. */
      if (has_function && dwarf_tag (&function) == DW_TAG_subprogram &&
          dwarf_entrypc (&function, &entry) == 0 && entry == row->address &&
          range_holding (&function, row->address, &low, &high))
        address = skip_prologue (row->module, address, high + row->bias);

      symbol = describe (row->module, address);
      if (address == row->address + row->bias)
        {
          g_free (symbol->file);
          symbol->file = absolute_path (&row->cu, row->file);
          symbol->line = search.best;
        }
      g_ptr_array_add (symbols, symbol);
    }
  g_ptr_array_sort (symbols, compare_addresses);
  return symbols;
}

static GPtrArray *
resolve_address (FroggySymbolizer  *self,
                 const char        *text,
                 GError           **error)
{
  GPtrArray *symbols;
  guint64 address;
  gboolean parsed;

  if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    parsed = g_ascii_string_to_unsigned (text + 2, 16, 0, G_MAXUINT64, &address, NULL);
  else
    parsed = g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &address, NULL);
  if (!parsed)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "\"*%s\" is not *ADDRESS", text);
      return NULL;
    }

  /* Anywhere, even in no module: code can be generated at run time. */
  symbols = symbol_array_new ();
  g_ptr_array_add (symbols, describe (module_at (self, address), address));
  return symbols;
}

static GPtrArray *
resolve_line (FroggySymbolizer  *self,
              const char        *text,
              const char        *colon,
              GError           **error)
{
  g_autofree char *file = g_strndup (text, colon - text);
  g_autoptr(GPtrArray) symbols = NULL;
  guint64 line;

  if (file[0] == '\0' ||
      !g_ascii_string_to_unsigned (colon + 1, 10, 1, G_MAXINT, &line, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   "\"%s\" is not FILE:LINE", text);
      return NULL;
    }

  symbols = find_line (self, file, line);
  if (symbols->len == 0 && reload_if_changed (self))
    {
      g_ptr_array_unref (symbols);
      symbols = find_line (self, file, line);
    }
  if (symbols->len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "no code at or after line %d of a file \"%s\"", (int) line, file);
      return NULL;
    }
  return g_steal_pointer (&symbols);
}

static GPtrArray *
resolve_function (FroggySymbolizer  *self,
                  const char        *name,
                  GError           **error)
{
  g_autoptr(GPtrArray) symbols = NULL;
  Dwfl_Module *module;
  guint64 entry = 0;
  guint64 size = 0;
  guint64 low, high;

  for (const char *c = name; *c != '\0'; c++)
    if (g_ascii_isspace (*c))
      {
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                     "\"%s\" is neither a function, FILE:LINE nor *ADDRESS", name);
        return NULL;
      }

  if ((module = find_symbol (self, name, FALSE, &entry, &size)) != NULL)
    {
      symbols = symbol_array_new ();
      g_ptr_array_add (symbols,
                       describe_function (module, name, entry, size,
                                          bounds_in_module (module, entry, &low, &high)
                                          ? skip_prologue (module, entry, high) : entry));
      return g_steal_pointer (&symbols);
    }

  symbols = find_inlined (self, name);
  if (symbols->len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no function \"%s\"", name);
      return NULL;
    }
  return g_steal_pointer (&symbols);
}

/* }}} */

/* Completion {{{ */

static int
compare_strings (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data G_GNUC_UNUSED)
{
  return strcmp (a, b);
}

/* A GTree of strings is a sorted set: inserting one already there frees it. */
static GTree *
string_set_new (void)
{
  return g_tree_new_full (compare_strings, NULL, g_free, NULL);
}

static gboolean
append_string (gpointer key,
               gpointer value G_GNUC_UNUSED,
               gpointer strings)
{
  g_ptr_array_add (strings, g_strdup (key));
  return FALSE;
}

static GStrv
string_set_to_strv (GTree *set)
{
  GPtrArray *strings = g_ptr_array_new_full (g_tree_nnodes (set) + 1, g_free);

  g_tree_foreach (set, append_string, strings);
  g_ptr_array_add (strings, NULL);
  return (GStrv) g_ptr_array_free (strings, FALSE);
}

/* The names of @module starting with @prefix that find_symbol() finds. */
static void
complete_symbols_in (Dwfl_Module *module,
                     const char  *prefix,
                     GTree       *names)
{
  gsize prefix_length = strlen (prefix);
  int count = dwfl_module_getsymtab (module);

  for (int i = 0; i < count; i++)
    {
      GElf_Sym sym;
      GElf_Addr address;
      int rank;
      const char *name = ranked_symbol (module, i, TRUE, &sym, &address, &rank);
      gsize length;

      if (rank == 0 || strncmp (name, prefix, prefix_length) != 0)
        continue;
      /* Without its version, as name_matches() finds it; still a
       * completion only if the prefix did not reach into the version. */
      length = strcspn (name, "@");
      if (length == 0 || length < prefix_length || memchr (name, '.', length) != NULL)
        continue;
      g_tree_insert (names, g_strndup (name, length), NULL);
    }
}

/* The base names of @module's compile units starting with @prefix. */
static void
complete_files_in (Dwfl_Module *module,
                   const char  *prefix,
                   GTree       *files)
{
  Dwarf_Addr bias = 0;
  Dwarf_Die *cu = NULL;

  while ((cu = dwfl_module_nextcu (module, cu, &bias)) != NULL)
    {
      const char *name = dwarf_diename (cu);
      const char *base;

      /* No name: a partial or type unit.  "<artificial>": what LTO
       * merged, no file to name. */
      if (name == NULL || name[0] == '<')
        continue;
      base = strrchr (name, '/');
      base = base != NULL ? base + 1 : name;
      if (base[0] != '\0' && g_str_has_prefix (base, prefix))
        g_tree_insert (files, g_strdup (base), NULL);
    }
}

/* }}} */

/* Unwinding {{{ */

typedef struct
{
  FroggySymbolizer *self;
  GPtrArray        *frames;
  guint             max_frames;
} Backtrace;

static pid_t
unwind_next_thread (Dwfl  *dwfl G_GNUC_UNUSED,
                    void  *dwfl_arg,
                    void **thread_argp)
{
  FroggySymbolizer *self = dwfl_arg;

  /* The only thread there is to libdwfl: the one being unwound. */
  if (*thread_argp != NULL)
    return 0;
  *thread_argp = self;
  return self->unwind.tid;
}

static bool
unwind_memory_read (Dwfl        *dwfl G_GNUC_UNUSED,
                    Dwarf_Addr   address,
                    Dwarf_Word  *result,
                    void        *dwfl_arg)
{
  FroggySymbolizer *self = dwfl_arg;
  guint64 word = 0;

  if (!self->unwind.read_memory (self->unwind.user_data, address, &word))
    return false;
  /* libdwfl wants a 32-bit process's words alone. */
  if (froggy_registers_word_size (self->unwind.regs) == 4)
    word &= G_MAXUINT32;
  *result = word;
  return true;
}

static bool
unwind_set_initial_registers (Dwfl_Thread *thread,
                              void        *thread_arg)
{
  FroggySymbolizer *self = thread_arg;
  const struct user_regs_struct *regs = self->unwind.regs;
  /* DWARF registers 0-16 of the x86-64 psABI; 16 is the return address
   * column, which for the first frame is rip. */
  const Dwarf_Word dwarf_regs[] = {
    regs->rax, regs->rdx, regs->rcx, regs->rbx,
    regs->rsi, regs->rdi, regs->rbp, regs->rsp,
    regs->r8, regs->r9, regs->r10, regs->r11,
    regs->r12, regs->r13, regs->r14, regs->r15,
    regs->rip,
  };
  /* DWARF registers 0-8 of the i386 psABI, 8 being eip. */
  const Dwarf_Word dwarf_regs_i386[] = {
    regs->rax, regs->rcx, regs->rdx, regs->rbx,
    regs->rsp, regs->rbp, regs->rsi, regs->rdi,
    regs->rip,
  };

  if (froggy_registers_word_size (regs) == 4)
    return dwfl_thread_state_registers (thread, 0, G_N_ELEMENTS (dwarf_regs_i386),
                                        dwarf_regs_i386);
  return dwfl_thread_state_registers (thread, 0, G_N_ELEMENTS (dwarf_regs), dwarf_regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
  .next_thread = unwind_next_thread,
  .memory_read = unwind_memory_read,
  .set_initial_registers = unwind_set_initial_registers,
};

static int
add_frame (Dwfl_Frame *frame,
           void       *data)
{
  Backtrace *backtrace = data;
  FroggySymbol *symbol;
  bool activation = false;
  Dwarf_Addr pc;
  guint64 lookup;

  if (!dwfl_frame_pc (frame, &pc, &activation))
    return DWARF_CB_ABORT;

  /* A return address can be the first byte of the next line, or of the
   * next function after a call to a noreturn one: the call is before.
   * No reloading here: the modules must outlive the unwind. */
  lookup = activation ? pc : pc - 1;
  symbol = describe (dwfl_addrmodule (backtrace->self->dwfl, lookup), lookup);
  if (symbol->function != NULL)
    symbol->offset += pc - lookup;
  symbol->address = pc;
  g_ptr_array_add (backtrace->frames, symbol);

  return backtrace->frames->len < backtrace->max_frames ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* }}} */

static void
froggy_symbolizer_finalize (GObject *object)
{
  FroggySymbolizer *self = (FroggySymbolizer *) object;

  forget_image (self);

  G_OBJECT_CLASS (froggy_symbolizer_parent_class)->finalize (object);
}

static void
froggy_symbolizer_class_init (FroggySymbolizerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = froggy_symbolizer_finalize;
}

static void
froggy_symbolizer_init (FroggySymbolizer *self)
{
  self->callbacks.find_elf = dwfl_linux_proc_find_elf;
  self->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
  /* NULL: the default path, .debug next to the file and /usr/lib/debug */
  self->callbacks.debuginfo_path = &self->debuginfo_path;
}

FroggySymbolizer *
froggy_symbolizer_new (pid_t pid)
{
  FroggySymbolizer *self;

  g_return_val_if_fail (pid > 0, NULL);

  self = g_object_new (FROGGY_TYPE_SYMBOLIZER, NULL);
  self->pid = pid;
  return self;
}

gboolean
froggy_symbolizer_refresh (FroggySymbolizer  *self,
                           GError           **error)
{
  g_return_val_if_fail (FROGGY_IS_SYMBOLIZER (self), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return reload (self, error);
}

FroggySymbol *
froggy_symbolizer_lookup_address (FroggySymbolizer *self,
                                  guint64           address)
{
  Dwfl_Module *module;

  g_return_val_if_fail (FROGGY_IS_SYMBOLIZER (self), NULL);

  module = module_at (self, address);
  return module != NULL ? describe (module, address) : NULL;
}

FroggySymbol *
froggy_symbolizer_lookup_function (FroggySymbolizer  *self,
                                   const char        *name,
                                   GError           **error)
{
  Dwfl_Module *module;
  guint64 entry = 0;
  guint64 size = 0;

  g_return_val_if_fail (FROGGY_IS_SYMBOLIZER (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!ensure_modules (self, error))
    return NULL;
  if (name[0] == '\0' || (module = find_symbol (self, name, TRUE, &entry, &size)) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no symbol \"%s\"", name);
      return NULL;
    }
  return describe_function (module, name, entry, size, entry);
}

gboolean
froggy_symbolizer_complete (FroggySymbolizer  *self,
                            const char        *prefix,
                            GStrv             *names,
                            GStrv             *files,
                            GError           **error)
{
  g_autoptr(GTree) found_names = NULL;
  g_autoptr(GTree) found_files = NULL;
  g_autoptr(GPtrArray) modules = NULL;

  g_return_val_if_fail (FROGGY_IS_SYMBOLIZER (self), FALSE);
  g_return_val_if_fail (prefix != NULL, FALSE);
  g_return_val_if_fail (names != NULL && files != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* No miss tells when a library was mapped since (dlopen): look each time. */
  if (!ensure_modules (self, error))
    return FALSE;
  reload_if_changed (self);

  found_names = string_set_new ();
  found_files = string_set_new ();
  modules = modules_in_search_order (self);
  for (guint i = 0; i < modules->len; i++)
    {
      complete_symbols_in (g_ptr_array_index (modules, i), prefix, found_names);
      complete_files_in (g_ptr_array_index (modules, i), prefix, found_files);
    }
  *names = string_set_to_strv (found_names);
  *files = string_set_to_strv (found_files);
  return TRUE;
}

GPtrArray *
froggy_symbolizer_resolve_location (FroggySymbolizer  *self,
                                    const char        *location,
                                    GError           **error)
{
  g_autofree char *text = NULL;
  const char *colon;

  g_return_val_if_fail (FROGGY_IS_SYMBOLIZER (self), NULL);
  g_return_val_if_fail (location != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  text = g_strstrip (g_strdup (location));
  if (text[0] == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "empty location");
      return NULL;
    }
  if (!ensure_modules (self, error))
    return NULL;

  if (text[0] == '*')
    return resolve_address (self, text + 1, error);
  /* "a.c:12" but not a C++ "ns::f" */
  colon = strrchr (text, ':');
  if (colon != NULL && (colon == text || colon[-1] != ':'))
    return resolve_line (self, text, colon, error);
  return resolve_function (self, text, error);
}

gboolean
froggy_symbolizer_function_bounds (FroggySymbolizer *self,
                                   guint64           pc,
                                   guint64          *low,
                                   guint64          *high)
{
  Dwfl_Module *module;

  g_return_val_if_fail (FROGGY_IS_SYMBOLIZER (self), FALSE);
  g_return_val_if_fail (low != NULL && high != NULL, FALSE);

  module = module_at (self, pc);
  return module != NULL && bounds_in_module (module, pc, low, high);
}

gboolean
froggy_symbolizer_has_lines (FroggySymbolizer *self,
                             guint64           pc)
{
  Dwfl_Module *module;
  Dwarf_Addr bias = 0;
  Dwarf_Die *cu;
  Row row;

  g_return_val_if_fail (FROGGY_IS_SYMBOLIZER (self), FALSE);

  module = module_at (self, pc);
  return module != NULL &&
         (cu = cu_at (module, pc, &bias)) != NULL &&
         row_at (cu, pc - bias, &row);
}

gboolean
froggy_symbolizer_is_line_start (FroggySymbolizer *self,
                                 guint64           pc)
{
  Dwfl_Module *module;
  Dwarf_Addr bias = 0;
  Dwarf_Lines *lines;
  Dwarf_Die *cu;
  size_t count;

  g_return_val_if_fail (FROGGY_IS_SYMBOLIZER (self), FALSE);

  module = module_at (self, pc);
  if (module == NULL ||
      (cu = cu_at (module, pc, &bias)) == NULL ||
      dwarf_getsrclines (cu, &lines, &count) != 0)
    return FALSE;

  for (size_t i = first_row_from (lines, count, pc - bias); i < count; i++)
    {
      Row row;

      read_row (lines, i, &row);
      if (row.address != pc - bias)
        break;
      if (row_starts_line (&row))
        return TRUE;
    }
  return FALSE;
}

GPtrArray *
froggy_symbolizer_backtrace (FroggySymbolizer               *self,
                             pid_t                           tid,
                             const struct user_regs_struct  *regs,
                             FroggyReadMemory                read_memory,
                             gpointer                        user_data,
                             guint                           max_frames,
                             GError                        **error)
{
  g_autoptr(GPtrArray) frames = symbol_array_new ();
  Backtrace backtrace = { self, frames, max_frames };
  int ret;

  g_return_val_if_fail (FROGGY_IS_SYMBOLIZER (self), NULL);
  g_return_val_if_fail (tid > 0, NULL);
  g_return_val_if_fail (regs != NULL, NULL);
  g_return_val_if_fail (read_memory != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (max_frames == 0)
    return g_steal_pointer (&frames);
  /* The thread may be in a library mapped since the last look. */
  if (!ensure_modules (self, error))
    return NULL;
  reload_if_changed (self);

  if (!self->attached)
    {
      if (!dwfl_attach_state (self->dwfl, NULL, self->pid, &thread_callbacks, self))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                       "cannot unwind process %d: %s", (int) self->pid, dwfl_errmsg (-1));
          return NULL;
        }
      self->attached = TRUE;
    }

  self->unwind.tid = tid;
  self->unwind.regs = regs;
  self->unwind.read_memory = read_memory;
  self->unwind.user_data = user_data;
  ret = dwfl_getthread_frames (self->dwfl, tid, add_frame, &backtrace);
  memset (&self->unwind, 0, sizeof self->unwind);

  /* libdwfl ends many stacks with an error rather than 0 (no CFI past
   * _start): what it unwound until then stands. */
  if (ret == -1 && frames->len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   "cannot unwind thread %d: %s", (int) tid, dwfl_errmsg (-1));
      return NULL;
    }
  return g_steal_pointer (&frames);
}
