/* froggy-shell-private.h: what the files of the shell share
 *
 * The instance struct, the breakpoint records, the command tables each
 * family registers, and the functions one file of the shell offers the
 * others, file by file from the ground floor up: a file calls only the
 * files listed before its own.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "froggy-daemon-proxy.h"
#include "froggy-shell.h"

G_BEGIN_DECLS

#define PROMPT "(froggy) "

typedef enum
{
  POINT_BREAKPOINT,
  POINT_WATCHPOINT,
  POINT_CATCHPOINT,
} PointKind;

/* A breakpoint, watchpoint or catchpoint, numbered as gdb numbers them:
 * one sequence for all three.  The daemon has its own ids. */
typedef struct
{
  guint       number;
  PointKind   kind;
  gint64      daemon_id;     /* 0 while a watch- or catchpoint is disabled */
  gboolean    enabled;
  gboolean    temporary;
  gboolean    tracepoint;    /* a breakpoint that reports and goes on */
  char       *what;          /* the location, expression or catch as given */
  /* breakpoints */
  char       *address;
  char       *function;
  char       *file;
  gint64      line;
  char       *condition;
  gint64      thread;
  /* watchpoints */
  guint64     watch_address;
  guint       watch_length;
  gboolean    watch_reads;
  guint64     old_value;
  /* catchpoints */
  char       *catch_kind;    /* "syscall", "signal", "fork", "exec" */
  GStrv       catch_names;   /* syscall or signal names; NULL for all */
  JsonObject *catch_params;  /* to insert it again when enabled */
} Point;

struct _FroggyShell
{
  GObject            parent_instance;
  FroggyDaemonProxy *daemon;

  gint64             session;       /* 0: none */
  gint64             pid;
  gint64             thread;        /* the selected thread */
  gboolean           launched;      /* quit kills it, rather than detaching */
  gboolean           running;       /* threads were let run */
  gboolean           waiting;       /* a command waits for the program to stop */
  gboolean           stopping_all;  /* we stop the other threads: keep quiet */
  gboolean           quiet_steps;   /* nexti says where it ended by itself */
  JsonObject        *stop_event;    /* what ended the wait */

  GPtrArray         *points;
  guint              next_point;
  guint              values;        /* $1, $2, ... */
  GHashTable        *sources;       /* path -> GStrv of its lines, or NULL */
  JsonArray         *frames;        /* the last backtrace, until the thread runs */
  gint64             selected_frame;
  char              *last_function; /* where the last stop was */

  /* The terminal */
  gboolean           interactive;
  gboolean           at_prompt;     /* readline shows the prompt */
  guint              input_watch;   /* on standard input */
  guint              input_held;    /* input_hold() depth */
  gboolean           input_was_watched;
  GString           *pending_input; /* a piped line not ended yet */
  char              *repeatable;    /* what an empty line repeats */
  guint              interrupt_source;
  gboolean           starting;      /* launch or attach waits for its stop */
  gboolean           interrupt_pending; /* Ctrl-C before the program ran */
  GMainLoop         *loop;
  char              *history_path;
  gboolean           quit;
  int                status;
  GStrv              completions;   /* the daemon's answer for this word */
};

/* froggy-shell-base.c: the shell that reads the terminal */
FroggyShell *froggy_shell_reading (void);
void froggy_shell_set_reading (FroggyShell *self);

/* froggy-shell-base.c: output */
void say (FroggyShell *self, const char *format, ...) G_GNUC_PRINTF (2, 3);
void say_error (FroggyShell *self, const GError *error);

/* A command's failure: the error printed as one line, FALSE returned. */
#define FAIL(self, ...) \
  G_STMT_START { \
    g_autoptr(GError) fail_error = g_error_new (FROGGY_RPC_ERROR, 0, __VA_ARGS__); \
    say_error ((self), fail_error); \
    return FALSE; \
  } G_STMT_END

/* froggy-shell-base.c: JSON and the daemon's methods */
gint64 member_int (JsonObject *object, const char *name, gint64 fallback);
const char *member_string (JsonObject *object, const char *name);
gboolean member_bool (JsonObject *object, const char *name);
guint64 member_word (JsonObject *object, const char *name);
void set_word (JsonObject *object, const char *name, guint64 value);
JsonObject *session_params (FroggyShell *self);
JsonObject *thread_params (FroggyShell *self);
JsonNode *call (FroggyShell *self, const char *method, JsonObject *params, const char *what);
gboolean call_ok (FroggyShell *self, const char *method, JsonObject *params, const char *what);

/* froggy-shell-base.c: command arguments and what a command needs */
gboolean is_blank (const char *args);
GStrv split_words (const char *args);
char *split_command (const char *line, const char **args);
gboolean need_session (FroggyShell *self);
gboolean need_stopped (FroggyShell *self);

/* froggy-shell-base.c: memory, registers and the stack */
GBytes *read_memory (FroggyShell *self, guint64 address, gsize length);
gboolean read_word (FroggyShell *self, guint64 address, guint length, guint64 *value);
JsonObject *read_registers (FroggyShell *self, const char *regset);
gboolean ensure_frames (FroggyShell *self);

/* froggy-shell-points.c */
void point_free (Point *point);
Point *point_by_number (FroggyShell *self, guint number);
Point *point_by_daemon_id (FroggyShell *self, PointKind kind, gint64 id);
Point *point_for_catch (FroggyShell *self, const char *kind, const char *name);

/* froggy-shell-eval.c */
const char *register_name (const char *name, guint64 *mask);
gboolean eval_register (FroggyShell *self, const char *name, guint64 *value);
gboolean lookup_symbol (FroggyShell *self, const char *name, guint64 *address, gint64 *size);
gboolean is_identifier (const char *text);
gboolean eval (FroggyShell *self, const char *text, guint64 *value);
gboolean eval_lvalue (FroggyShell *self, const char *text, guint64 *address, guint *length);
int parse_signal (const char *text);

/* froggy-event-printer.c */
char *describe_place (JsonObject *place, gboolean with_address);
char *describe_source (FroggyShell *self, JsonObject *place);
void say_step (FroggyShell *self, JsonObject *event, const char *kind);
void say_event (FroggyShell *self, JsonObject *event);

/* The command families register their commands in tables, each ended
 * by an entry with no name, that the dispatcher walks in help's order. */
typedef gboolean (*CommandFunc) (FroggyShell *self,
                                 const char  *args);

typedef struct
{
  const char  *name;
  const char  *aliases;   /* space separated, gdb's */
  CommandFunc  func;
  const char  *usage;
  const char  *help;
} Command;

typedef struct
{
  const char  *name;
  CommandFunc  func;
} InfoCommand;

/* froggy-shell-breakpoints.c */
extern const Command froggy_shell_breakpoint_commands[];
extern const InfoCommand froggy_shell_breakpoint_info_commands[];

/* froggy-shell-running.c */
void stop_all (FroggyShell *self);
void request_stop (FroggyShell *self);
extern const Command froggy_shell_running_commands[];

/* froggy-shell-stack.c */
gboolean select_frame (FroggyShell *self, gint64 level);
extern const Command froggy_shell_stack_commands[];
extern const InfoCommand froggy_shell_stack_info_commands[];

/* froggy-shell-data.c */
/* The registers "info registers" shows, NULL-terminated. */
extern const char * const general_registers[];
extern const Command froggy_shell_data_commands[];
extern const InfoCommand froggy_shell_data_info_commands[];

/* froggy-shell-session.c */
gboolean cmd_quit (FroggyShell *self, const char *args);
void end_session (FroggyShell *self);
extern const Command froggy_shell_session_commands[];
extern const InfoCommand froggy_shell_session_info_commands[];

/* froggy-shell-dispatch.c */
gboolean dispatch (FroggyShell *self, const char *line);
void list_command_names (GStrvBuilder *builder);
void list_info_command_names (GStrvBuilder *builder);

/* froggy-completion.c */
char **complete_line (const char *text, int start, int end);

/* froggy-terminal.c */
gboolean on_interrupt_signal (gpointer user_data);
void input_hold (FroggyShell *self);
void input_release (FroggyShell *self);
int froggy_terminal_run (FroggyShell *self);

G_END_DECLS
