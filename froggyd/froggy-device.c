/* froggy-device.c
 *
 * A FroggyDevice is one open file of /dev/utrace: one tracer session in
 * the kernel.  Requests are ioctl()s, which never block on a tracee; the
 * event records are read from the main loop (g_unix_fd_add) whenever the
 * file is readable, and handed out one by one with the ::event signal.
 * ::hangup says every traced thread is gone.  Closing the file detaches
 * whatever is still attached, and lets every stopped thread run.
 *
 * Reading can be paused (froggy_device_pause_reading()): the records
 * then wait in the kernel's queue, and a lossless session's threads wait
 * for room in it, until froggy_device_resume_reading().
 *
 * The file's fdinfo lists the threads attached, with the number of the
 * last record queued: what a session that lost records resyncs from
 * (froggy_device_list_threads(), froggy_device_dispatch_through()).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/audit.h>

#include "froggy-device.h"
#include "froggy-error.h"
#include "froggy-registers.h"

#define FROGGY_DEVICE_PATH   "/dev/utrace"
#define FROGGY_READ_BUF_SIZE (64 * 1024)

struct _FroggyDevice
{
  GObject  parent_instance;
  int      fd;
  guint    watch;     /* the main loop's, while reading */
  guint    hung_up : 1;
  guint    paused : 1;
  guint8  *buf;
  guint64  last_seq;  /* of the last record handed out */
  guint64  features;  /* UTRACE_FEATURE_* bits of the kernel */
};

enum {
  EVENT,
  HANGUP,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (FroggyDevice, froggy_device, G_TYPE_OBJECT)

void
froggy_device_close (FroggyDevice *self)
{
  g_return_if_fail (FROGGY_IS_DEVICE (self));

  g_clear_handle_id (&self->watch, g_source_remove);
  if (self->fd >= 0)
    {
      close (self->fd);
      self->fd = -1;
    }
}

static void
froggy_device_finalize (GObject *object)
{
  FroggyDevice *self = FROGGY_DEVICE (object);

  froggy_device_close (self);
  g_free (self->buf);
  G_OBJECT_CLASS (froggy_device_parent_class)->finalize (object);
}

static void
froggy_device_class_init (FroggyDeviceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = froggy_device_finalize;

  /**
   * FroggyDevice::event:
   * @record: the const struct utrace_event_header * of a whole record,
   *   valid during the emission only
   */
  signals[EVENT] = g_signal_new ("event", G_TYPE_FROM_CLASS (klass),
                                 G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                 G_TYPE_NONE, 1, G_TYPE_POINTER);
  signals[HANGUP] = g_signal_new ("hangup", G_TYPE_FROM_CLASS (klass),
                                  G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 0);
}

static void
froggy_device_init (FroggyDevice *self)
{
  self->fd = -1;
  self->buf = g_malloc (FROGGY_READ_BUF_SIZE);
}

/* One read, of as many records as fit, handed out in order.  FALSE when
 * there is nothing more to read now: none waiting, or the file is closed
 * or hung up (::hangup emitted, the watch gone). */
static gboolean
froggy_device_read_records (FroggyDevice *self)
{
  for (;;)
    {
      gssize n = read (self->fd, self->buf, FROGGY_READ_BUF_SIZE);
      gssize offset = 0;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        return FALSE;
      if (n <= 0)
        {
          if (n < 0)
            g_warning ("reading events: %s", g_strerror (errno));
          g_clear_handle_id (&self->watch, g_source_remove);
          self->hung_up = TRUE;
          g_signal_emit (self, signals[HANGUP], 0);
          return FALSE;
        }

      while (offset + (gssize) sizeof (struct utrace_event_header) <= n)
        {
          const struct utrace_event_header *record = (gpointer) (self->buf + offset);

          if (record->size < sizeof *record || (gsize) offset + record->size > (gsize) n)
            {
              g_critical ("malformed event record of %u bytes", record->size);
              break;
            }
          /* Too many to log with the rest: G_MESSAGES_DEBUG=froggyd-events. */
          g_log ("froggyd-events", G_LOG_LEVEL_DEBUG,
                 "event %u of thread %d (id %" G_GUINT64_FORMAT ")%s",
                 record->type, record->tid, (guint64) record->id,
                 record->flags & UTRACE_EVF_STOPPED ? ", stopped" : "");
          self->last_seq = record->seq;
          g_signal_emit (self, signals[EVENT], 0, record);
          if (self->fd < 0)
            return FALSE;
          offset += record->size;
        }
      return TRUE;
    }
}

/* One read per wakeup: a burst is served in big reads, yet a tracee that
 * streams events cannot keep the main loop from the other clients. */
static gboolean
froggy_device_readable (int          fd,
                        GIOCondition condition,
                        gpointer     user_data)
{
  FroggyDevice *self = user_data;
  g_autoptr(FroggyDevice) hold = g_object_ref (self);

  froggy_device_read_records (self);
  return self->watch != 0 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
froggy_device_watch (FroggyDevice *self)
{
  self->watch = g_unix_fd_add (self->fd, G_IO_IN | G_IO_HUP | G_IO_ERR,
                               froggy_device_readable, self);
}

/* Stop reading records from the main loop, as back-pressure: they wait
 * in the kernel.  froggy_device_dispatch_through() still reads. */
void
froggy_device_pause_reading (FroggyDevice *self)
{
  g_return_if_fail (FROGGY_IS_DEVICE (self));

  self->paused = TRUE;
  g_clear_handle_id (&self->watch, g_source_remove);
}

void
froggy_device_resume_reading (FroggyDevice *self)
{
  g_return_if_fail (FROGGY_IS_DEVICE (self));

  if (!self->paused)
    return;
  self->paused = FALSE;
  if (self->fd >= 0 && !self->hung_up && self->watch == 0)
    froggy_device_watch (self);
}

gboolean
froggy_device_is_paused (FroggyDevice *self)
{
  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  return self->paused;
}

void
froggy_device_dispatch_through (FroggyDevice *self,
                                guint64       seq)
{
  g_autoptr(FroggyDevice) hold = NULL;

  g_return_if_fail (FROGGY_IS_DEVICE (self));

  hold = g_object_ref (self);
  while (self->fd >= 0 && !self->hung_up && self->last_seq < seq)
    if (!froggy_device_read_records (self))
      break;
}

GArray *
froggy_device_list_threads (FroggyDevice  *self,
                            guint64       *seq,
                            GError       **error)
{
  g_autoptr(GArray) threads = g_array_new (FALSE, FALSE, sizeof (FroggyDeviceThread));
  g_autofree char *path = NULL;
  g_autofree char *fdinfo = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean seen_seq = FALSE;

  g_return_val_if_fail (FROGGY_IS_DEVICE (self), NULL);

  if (self->fd < 0)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NO_SESSION, "the session is closed");
      return NULL;
    }
  path = g_strdup_printf ("/proc/self/fdinfo/%d", self->fd);
  if (!g_file_get_contents (path, &fdinfo, NULL, error))
    return NULL;
  lines = g_strsplit (fdinfo, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      FroggyDeviceThread thread = { 0 };

      if (sscanf (lines[i], "utrace-seq: %" SCNu64, seq) == 1)
        seen_seq = TRUE;
      else if (sscanf (lines[i], "utrace-thread: id %" SCNu64 " tid %d",
                       &thread.id, &thread.tid) == 2)
        g_array_append_val (threads, thread);
    }
  if (!seen_seq)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INTERNAL,
                   "%s: no utrace-seq line", path);
      return NULL;
    }
  return g_steal_pointer (&threads);
}

FroggyDevice *
froggy_device_open (GError **error)
{
  g_autoptr(FroggyDevice) self = g_object_new (FROGGY_TYPE_DEVICE, NULL);
  struct utrace_api api = {
    .size = sizeof api,
    .api = UTRACE_API,
    .features = UTRACE_FEATURE_NONSTOP | UTRACE_FEATURE_WATCHPOINTS |
                UTRACE_FEATURE_LAUNCH,
  };

  self->fd = open (FROGGY_DEVICE_PATH, O_RDWR | O_CLOEXEC | O_NONBLOCK);
  if (self->fd < 0)
    {
      int errsv = errno;

      g_propagate_error (error, froggy_error_from_errno (errsv, "opening " FROGGY_DEVICE_PATH));
      return NULL;
    }
  if (ioctl (self->fd, UTRACE_IOC_API, &api) < 0)
    {
      int errsv = errno;

      g_propagate_error (error, froggy_error_from_errno (errsv, "the /dev/utrace handshake"));
      return NULL;
    }
  self->features = api.features;

  froggy_device_watch (self);
  return g_steal_pointer (&self);
}

/* Whether the kernel supports @feature, a UTRACE_FEATURE_* bit: the
 * handshake told them all. */
gboolean
froggy_device_has_feature (FroggyDevice *self,
                           guint64       feature)
{
  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  return (self->features & feature) == feature;
}

int
froggy_device_get_fd (FroggyDevice *self)
{
  g_return_val_if_fail (FROGGY_IS_DEVICE (self), -1);

  return self->fd;
}

/* The ioctl's value, or -1 with @error set. */
static int
request_value (FroggyDevice  *self,
               unsigned long  nr,
               gpointer       arg,
               const char    *what,
               GError       **error)
{
  int ret;

  if (self->fd < 0)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NO_SESSION, "%s: the session is closed", what);
      return -1;
    }
  ret = ioctl (self->fd, nr, arg);
  if (ret < 0)
    {
      int errsv = errno;

      g_propagate_error (error, froggy_error_from_errno (errsv, what));
      return -1;
    }
  return ret;
}

static gboolean
request (FroggyDevice  *self,
         unsigned long  nr,
         gpointer       arg,
         const char    *what,
         GError       **error)
{
  return request_value (self, nr, arg, what, error) >= 0;
}

static struct utrace_attach
attach_request (pid_t   tid,
                guint32 flags,
                guint64 events,
                guint64 nonstop)
{
  struct utrace_attach attach = {
    .size = sizeof attach,
    .flags = flags,
    .tid = tid,
    .events = events,
    .nonstop = nonstop,
  };

  return attach;
}

gboolean
froggy_device_attach (FroggyDevice  *self,
                      pid_t          tid,
                      guint32        flags,
                      guint64        events,
                      guint64        nonstop,
                      guint64       *id,
                      GError       **error)
{
  struct utrace_attach attach = attach_request (tid, flags, events, nonstop);

  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  if (!request (self, UTRACE_IOC_ATTACH, &attach, "attach", error))
    return FALSE;
  if (id != NULL)
    *id = attach.id;
  return TRUE;
}

typedef struct
{
  int                  fd;
  struct utrace_attach attach;
} AttachAsClient;

static int
attach_as_client (gpointer  data,
                  guint64  *id)
{
  AttachAsClient *call = data;

  if (ioctl (call->fd, UTRACE_IOC_ATTACH, &call->attach) < 0)
    return -errno;
  *id = call->attach.id;
  return 0;
}

/**
 * froggy_device_attach_as:
 * @client: whose request it is
 *
 * froggy_device_attach(), made by a helper that has become @client
 * (froggy_credentials_run_as()) when the daemon is root: the kernel
 * judges the client's right to trace @tid, not the daemon's.
 */
gboolean
froggy_device_attach_as (FroggyDevice            *self,
                         const FroggyCredentials *client,
                         pid_t                    tid,
                         guint32                  flags,
                         guint64                  events,
                         guint64                  nonstop,
                         guint64                 *id,
                         GError                 **error)
{
  AttachAsClient call = { .fd = self->fd, .attach = attach_request (tid, flags, events, nonstop) };

  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  if (geteuid () != 0)
    return froggy_device_attach (self, tid, flags, events, nonstop, id, error);
  return froggy_credentials_run_as (client, attach_as_client, &call, "attach", id, error);
}

/* In a helper that has become the client: a fresh /dev/utrace file, and
 * an attach to the process, which stops nothing.  The kernel checks the
 * right to trace first (EPERM) and whether the process is traced already
 * after (EBUSY, which then means yes); an attach that works ends with
 * the file. */
static int
probe_attach_as_client (gpointer  data,
                        guint64  *unused)
{
  struct utrace_api api = { .size = sizeof api, .api = UTRACE_API };
  struct utrace_attach attach = attach_request (GPOINTER_TO_INT (data), 0, 0, 0);
  int fd = open (FROGGY_DEVICE_PATH, O_RDWR | O_CLOEXEC);
  int status = 0;

  if (fd < 0)
    return -errno;
  if (ioctl (fd, UTRACE_IOC_API, &api) < 0 ||
      (ioctl (fd, UTRACE_IOC_ATTACH, &attach) < 0 && errno != EBUSY))
    status = -errno;
  close (fd);
  return status;
}

/**
 * froggy_device_may_attach_as:
 *
 * Whether @client may trace process @pid, as the kernel judges it for a
 * helper that has become @client: for listing and joining a session,
 * where nothing is to be attached.  A daemon that is not root serves
 * its own user, who may.
 */
gboolean
froggy_device_may_attach_as (const FroggyCredentials  *client,
                             pid_t                     pid,
                             GError                  **error)
{
  if (geteuid () != 0)
    return TRUE;
  return froggy_credentials_run_as (client, probe_attach_as_client, GINT_TO_POINTER (pid),
                                    "attach", NULL, error);
}

gboolean
froggy_device_detach (FroggyDevice  *self,
                      guint64        id,
                      GError       **error)
{
  struct utrace_detach detach = { .size = sizeof detach, .id = id };

  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  return request (self, UTRACE_IOC_DETACH, &detach, "detach", error);
}

gboolean
froggy_device_set_events (FroggyDevice  *self,
                          guint64        id,
                          guint64        events,
                          guint64        nonstop,
                          GError       **error)
{
  struct utrace_event_mask mask = {
    .size = sizeof mask,
    .id = id,
    .events = events,
    .nonstop = nonstop,
  };

  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  return request (self, UTRACE_IOC_SET_EVENTS, &mask, "setting events", error);
}

/**
 * froggy_device_set_syscalls:
 * @set: (array): @nbits / 64 words; bit N stands for system call N
 * @nbits: a multiple of 64, up to UTRACE_SYSCALLS_MAX; 0 for every call
 *
 * Narrows the system call entries and exits every thread of the session
 * reports, their event masks permitting, to the calls of @set and those
 * numbered @nbits or more (but for a negative one, the -1 rt_sigreturn()
 * leaves at its exit): a catchpoint on one call then costs the other
 * calls nothing.  The kernel gives new threads their parent's set.  On a
 * kernel without UTRACE_FEATURE_SYSCALL_SET, every call is still
 * reported, which costs time, not correctness: the records are matched
 * against the catchpoints anyway.  The numbers are x86_64 ones: on a
 * kernel with UTRACE_FEATURE_SYSCALL_ARCH, a call of another ABI (a
 * 64-bit thread's int $0x80) is reported whatever its number, for the
 * daemon to judge by its name; before it, by its i386 number.
 */
gboolean
froggy_device_set_syscalls (FroggyDevice   *self,
                            const guint64  *set,
                            guint           nbits,
                            GError        **error)
{
  struct utrace_syscalls syscalls = {
    .size = sizeof syscalls,
    .flags = UTRACE_ALL_THREADS,
    .set = nbits ? (guint64) (guintptr) set : 0,
    .nbits = nbits,
    .arch = nbits && (self->features & UTRACE_FEATURE_SYSCALL_ARCH) ?
            AUDIT_ARCH_X86_64 : 0,
  };

  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);
  g_return_val_if_fail (nbits % 64 == 0 && nbits <= UTRACE_SYSCALLS_MAX, FALSE);

  if (!(self->features & UTRACE_FEATURE_SYSCALL_SET))
    return TRUE;
  return request (self, UTRACE_IOC_SET_SYSCALLS, &syscalls, "setting system calls", error);
}

/* UTRACE_IOC_CONTROL: the ioctl's value, or -1 with @error set. */
static int
control_request (FroggyDevice  *self,
                 guint64        id,
                 guint32        action,
                 int            signo,
                 GError       **error)
{
  struct utrace_control control = {
    .size = sizeof control,
    .id = id,
    .action = action,
  };

  if (signo >= 0)
    {
      control.flags |= UTRACE_CTL_SIGNAL;
      control.signal = signo;
    }
  return request_value (self, UTRACE_IOC_CONTROL, &control, "control", error);
}

gboolean
froggy_device_control (FroggyDevice  *self,
                       guint64        id,
                       guint32        action,
                       int            signo,
                       GError       **error)
{
  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  return control_request (self, id, action, signo, error) >= 0;
}

/**
 * froggy_device_hold:
 * @held: (out): whether the thread is held, rather than interrupted
 *
 * Stops thread @id without breaking a system call it sleeps in: a thread
 * asleep in the kernel is left there, held, and runs no code of its own
 * until it is resumed; its UTRACE_EV_STOP record comes only if it wakes
 * up.  A running thread is interrupted, and its record is to come.  A
 * kernel without UTRACE_FEATURE_HOLD interrupts every thread.
 */
gboolean
froggy_device_hold (FroggyDevice  *self,
                    guint64        id,
                    gboolean      *held,
                    GError       **error)
{
  int ret;

  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  *held = FALSE;
  if (!(self->features & UTRACE_FEATURE_HOLD))
    return froggy_device_control (self, id, UTRACE_CTL_INTERRUPT, -1, error);
  ret = control_request (self, id, UTRACE_CTL_HOLD, -1, error);
  if (ret < 0)
    return FALSE;
  *held = ret == 1;
  return TRUE;
}

gboolean
froggy_device_get_regset (FroggyDevice  *self,
                          guint64        id,
                          guint32        note_type,
                          gpointer       buf,
                          gsize         *len,
                          GError       **error)
{
  struct utrace_regset regset = {
    .size = sizeof regset,
    .id = id,
    .note_type = note_type,
    .data = (guintptr) buf,
    .len = *len,
  };

  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  if (!request (self, UTRACE_IOC_GET_REGSET, &regset, "reading registers", error))
    return FALSE;
  *len = regset.len;
  return TRUE;
}

gboolean
froggy_device_set_regset (FroggyDevice  *self,
                          guint64        id,
                          guint32        note_type,
                          gconstpointer  buf,
                          gsize          len,
                          GError       **error)
{
  struct utrace_regset regset = {
    .size = sizeof regset,
    .id = id,
    .note_type = note_type,
    .data = (guintptr) buf,
    .len = len,
  };

  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  return request (self, UTRACE_IOC_SET_REGSET, &regset, "writing registers", error);
}

/* The kernel's i386 NT_PRSTATUS layout (struct user_regs_struct32): what
 * a 32-bit thread has, read and written a 32-bit word a register. */
struct froggy_regs_i386
{
  guint32 ebx, ecx, edx, esi, edi, ebp, eax;
  guint32 ds, es, fs, gs;
  guint32 orig_eax, eip, cs, eflags, esp, ss;
};

static void
regs_from_i386 (struct user_regs_struct       *regs,
                const struct froggy_regs_i386 *i386)
{
  memset (regs, 0, sizeof *regs);
  regs->rbx = i386->ebx;
  regs->rcx = i386->ecx;
  regs->rdx = i386->edx;
  regs->rsi = i386->esi;
  regs->rdi = i386->edi;
  regs->rbp = i386->ebp;
  regs->rax = i386->eax;
  regs->ds = i386->ds;
  regs->es = i386->es;
  regs->fs = i386->fs;
  regs->gs = i386->gs;
  /* -1 outside a system call, as the 64-bit view has it. */
  regs->orig_rax = (gint64) (gint32) i386->orig_eax;
  regs->rip = i386->eip;
  regs->cs = i386->cs;
  regs->eflags = i386->eflags;
  regs->rsp = i386->esp;
  regs->ss = i386->ss;
}

static void
regs_to_i386 (struct froggy_regs_i386       *i386,
              const struct user_regs_struct *regs)
{
  i386->ebx = regs->rbx;
  i386->ecx = regs->rcx;
  i386->edx = regs->rdx;
  i386->esi = regs->rsi;
  i386->edi = regs->rdi;
  i386->ebp = regs->rbp;
  i386->eax = regs->rax;
  i386->ds = regs->ds;
  i386->es = regs->es;
  i386->fs = regs->fs;
  i386->gs = regs->gs;
  i386->orig_eax = regs->orig_rax;
  i386->eip = regs->rip;
  i386->cs = regs->cs;
  i386->eflags = regs->eflags;
  i386->esp = regs->rsp;
  i386->ss = regs->ss;
}

/* The general registers, in the x86_64 layout whatever the thread's: a
 * 32-bit thread's are widened (froggy_registers_word_size() tells it by
 * its code segment), as PTRACE_GETREGS gives them to a 64-bit tracer. */
gboolean
froggy_device_get_regs (FroggyDevice            *self,
                        guint64                  id,
                        struct user_regs_struct *regs,
                        GError                 **error)
{
  gsize len = sizeof *regs;

  if (!froggy_device_get_regset (self, id, NT_PRSTATUS, regs, &len, error))
    return FALSE;
  if (len == sizeof (struct froggy_regs_i386))
    {
      struct froggy_regs_i386 i386;

      memcpy (&i386, regs, sizeof i386);
      regs_from_i386 (regs, &i386);
    }
  else if (len != sizeof *regs)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_KERNEL,
                   "an unknown %zu-byte register set", len);
      return FALSE;
    }
  return TRUE;
}

/* Writes @regs, in the x86_64 layout, in the thread's own: a 32-bit
 * thread takes the low halves. */
gboolean
froggy_device_set_regs (FroggyDevice                  *self,
                        guint64                        id,
                        const struct user_regs_struct *regs,
                        GError                       **error)
{
  struct froggy_regs_i386 i386;

  if (froggy_registers_word_size (regs) == 8)
    return froggy_device_set_regset (self, id, NT_PRSTATUS, regs, sizeof *regs, error);
  regs_to_i386 (&i386, regs);
  return froggy_device_set_regset (self, id, NT_PRSTATUS, &i386, sizeof i386, error);
}

static gssize
transfer (FroggyDevice  *self,
          unsigned long  nr,
          guint64        id,
          guint64        address,
          gpointer       buf,
          gsize          len,
          const char    *what,
          GError       **error)
{
  struct utrace_mem mem = {
    .size = sizeof mem,
    .id = id,
    .addr = address,
    .data = (guintptr) buf,
    .len = len,
  };

  if (!request (self, nr, &mem, what, error))
    return -1;
  return mem.len;
}

gssize
froggy_device_read_memory (FroggyDevice  *self,
                           guint64        id,
                           guint64        address,
                           gpointer       buf,
                           gsize          len,
                           GError       **error)
{
  g_return_val_if_fail (FROGGY_IS_DEVICE (self), -1);

  return transfer (self, UTRACE_IOC_READ_MEM, id, address, buf, len, "reading memory", error);
}

gssize
froggy_device_write_memory (FroggyDevice  *self,
                            guint64        id,
                            guint64        address,
                            gconstpointer  buf,
                            gsize          len,
                            GError       **error)
{
  g_return_val_if_fail (FROGGY_IS_DEVICE (self), -1);

  return transfer (self, UTRACE_IOC_WRITE_MEM, id, address, (gpointer) buf, len,
                   "writing memory", error);
}

gboolean
froggy_device_set_watch (FroggyDevice  *self,
                         guint64        id,
                         guint64        address,
                         guint32        len,
                         guint32        kind,
                         guint32       *slot,
                         GError       **error)
{
  struct utrace_watch watch = {
    .size = sizeof watch,
    .id = id,
    .addr = address,
    .len = len,
    .kind = kind,
  };

  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  if (!request (self, UTRACE_IOC_SET_WATCH, &watch, "setting a watchpoint", error))
    return FALSE;
  *slot = watch.slot;
  return TRUE;
}

gboolean
froggy_device_clear_watch (FroggyDevice  *self,
                           guint64        id,
                           guint32        slot,
                           GError       **error)
{
  struct utrace_watch watch = { .size = sizeof watch, .id = id, .slot = slot };

  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  return request (self, UTRACE_IOC_CLEAR_WATCH, &watch, "clearing a watchpoint", error);
}

gboolean
froggy_device_insert_breakpoint (FroggyDevice  *self,
                                 guint64        id,
                                 guint64        address,
                                 guint8        *original,
                                 GError       **error)
{
  struct utrace_breakpoint breakpoint = { .size = sizeof breakpoint, .id = id, .addr = address };

  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  if (!request (self, UTRACE_IOC_INSERT_BREAKPOINT, &breakpoint, "inserting a breakpoint", error))
    return FALSE;
  *original = breakpoint.orig[0];
  return TRUE;
}

gboolean
froggy_device_remove_breakpoint (FroggyDevice  *self,
                                 guint64        id,
                                 guint64        address,
                                 GError       **error)
{
  struct utrace_breakpoint breakpoint = { .size = sizeof breakpoint, .id = id, .addr = address };

  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  return request (self, UTRACE_IOC_REMOVE_BREAKPOINT, &breakpoint, "removing a breakpoint", error);
}

/* UTRACE_IOC_GET_SIGINFO or UTRACE_IOC_SET_SIGINFO, on a kernel that has
 * them (UTRACE_FEATURE_SIGINFO). */
static gboolean
siginfo_request (FroggyDevice  *self,
                 unsigned long  nr,
                 guint64        id,
                 siginfo_t     *info,
                 const char    *what,
                 GError       **error)
{
  struct utrace_siginfo siginfo = {
    .size = sizeof siginfo,
    .id = id,
    .data = (guintptr) info,
    .len = sizeof *info,
  };

  if (!(self->features & UTRACE_FEATURE_SIGINFO))
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_KERNEL,
                   "%s: this kernel's /dev/utrace has no siginfo requests", what);
      return FALSE;
    }
  return request (self, nr, &siginfo, what, error);
}

gboolean
froggy_device_get_siginfo (FroggyDevice  *self,
                           guint64        id,
                           siginfo_t     *info,
                           GError       **error)
{
  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  return siginfo_request (self, UTRACE_IOC_GET_SIGINFO, id, info,
                          "reading the siginfo of a signal stop", error);
}

gboolean
froggy_device_set_siginfo (FroggyDevice     *self,
                           guint64           id,
                           const siginfo_t  *info,
                           GError          **error)
{
  g_return_val_if_fail (FROGGY_IS_DEVICE (self), FALSE);

  return siginfo_request (self, UTRACE_IOC_SET_SIGINFO, id, (siginfo_t *) info,
                          "writing the siginfo of a signal stop", error);
}
