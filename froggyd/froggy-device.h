/* froggy-device.h: one /dev/utrace session
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib-object.h>
#include <linux/utrace.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/user.h>

#include "froggy-credentials.h"

G_BEGIN_DECLS

#define FROGGY_TYPE_DEVICE (froggy_device_get_type ())
G_DECLARE_FINAL_TYPE (FroggyDevice, froggy_device, FROGGY, DEVICE, GObject)

/* A thread attached to the session, as the kernel lists it. */
typedef struct
{
  guint64 id;
  pid_t   tid;
} FroggyDeviceThread;

FroggyDevice *froggy_device_open         (GError                        **error);
int           froggy_device_get_fd       (FroggyDevice                   *self);
gboolean      froggy_device_has_feature  (FroggyDevice                   *self,
                                          guint64                         feature);
void          froggy_device_close        (FroggyDevice                   *self);
void          froggy_device_pause_reading  (FroggyDevice                 *self);
void          froggy_device_resume_reading (FroggyDevice                 *self);
gboolean      froggy_device_is_paused    (FroggyDevice                   *self);
gboolean      froggy_device_attach       (FroggyDevice                   *self,
                                          pid_t                           tid,
                                          guint32                         flags,
                                          guint64                         events,
                                          guint64                         nonstop,
                                          guint64                        *id,
                                          GError                        **error);
gboolean      froggy_device_may_attach_as (const FroggyCredentials      *client,
                                           pid_t                         pid,
                                           GError                      **error);
gboolean      froggy_device_attach_as    (FroggyDevice                   *self,
                                          const FroggyCredentials        *client,
                                          pid_t                           tid,
                                          guint32                         flags,
                                          guint64                         events,
                                          guint64                         nonstop,
                                          guint64                        *id,
                                          GError                        **error);
gboolean      froggy_device_detach       (FroggyDevice                   *self,
                                          guint64                         id,
                                          GError                        **error);
gboolean      froggy_device_set_events   (FroggyDevice                   *self,
                                          guint64                         id,
                                          guint64                         events,
                                          guint64                         nonstop,
                                          GError                        **error);
/* Every thread's system call set: @nbits 0 reports every call. */
gboolean      froggy_device_set_syscalls (FroggyDevice                   *self,
                                          const guint64                  *set,
                                          guint                           nbits,
                                          GError                        **error);
gboolean      froggy_device_hold         (FroggyDevice                   *self,
                                          guint64                         id,
                                          gboolean                       *held,
                                          GError                        **error);
/* @signo < 0: no UTRACE_CTL_SIGNAL, the thread's own pending signal goes. */
gboolean      froggy_device_control      (FroggyDevice                   *self,
                                          guint64                         id,
                                          guint32                         action,
                                          int                             signo,
                                          GError                        **error);
gboolean      froggy_device_get_regset   (FroggyDevice                   *self,
                                          guint64                         id,
                                          guint32                         note_type,
                                          gpointer                        buf,
                                          gsize                          *len,
                                          GError                        **error);
gboolean      froggy_device_set_regset   (FroggyDevice                   *self,
                                          guint64                         id,
                                          guint32                         note_type,
                                          gconstpointer                   buf,
                                          gsize                           len,
                                          GError                        **error);
gboolean      froggy_device_get_regs     (FroggyDevice                   *self,
                                          guint64                         id,
                                          struct user_regs_struct        *regs,
                                          GError                        **error);
gboolean      froggy_device_set_regs     (FroggyDevice                   *self,
                                          guint64                         id,
                                          const struct user_regs_struct  *regs,
                                          GError                        **error);
/* Short transfers return the count done; nothing done is an error. */
gssize        froggy_device_read_memory  (FroggyDevice                   *self,
                                          guint64                         id,
                                          guint64                         address,
                                          gpointer                        buf,
                                          gsize                           len,
                                          GError                        **error);
gssize        froggy_device_write_memory (FroggyDevice                   *self,
                                          guint64                         id,
                                          guint64                         address,
                                          gconstpointer                   buf,
                                          gsize                           len,
                                          GError                        **error);
gboolean      froggy_device_set_watch    (FroggyDevice                   *self,
                                          guint64                         id,
                                          guint64                         address,
                                          guint32                         len,
                                          guint32                         kind,
                                          guint32                        *slot,
                                          GError                        **error);
gboolean      froggy_device_clear_watch  (FroggyDevice                   *self,
                                          guint64                         id,
                                          guint32                         slot,
                                          GError                        **error);
/* A breakpoint through the kernel's uprobes (UTRACE_FEATURE_BREAKPOINTS)
 * at @address in the process of thread @id, running or not; @original
 * gets the byte it took the place of.  Removal by address takes a fork
 * child's copy as well. */
gboolean      froggy_device_insert_breakpoint (FroggyDevice              *self,
                                               guint64                    id,
                                               guint64                    address,
                                               guint8                    *original,
                                               GError                   **error);
gboolean      froggy_device_remove_breakpoint (FroggyDevice              *self,
                                               guint64                    id,
                                               guint64                    address,
                                               GError                   **error);
/* The threads attached now (FroggyDeviceThread), and in @seq the number
 * of the last record queued before: one snapshot. */
GArray       *froggy_device_list_threads (FroggyDevice                   *self,
                                          guint64                        *seq,
                                          GError                        **error);
/* Not from an ::event handler: hands out the records waiting, up to the
 * one numbered @seq at least, or all there are if fewer. */
void          froggy_device_dispatch_through (FroggyDevice               *self,
                                              guint64                     seq);
/* The siginfo of the signal thread @id is stopped at (a stopping
 * UTRACE_EV_SIGNAL record), in this process's siginfo_t layout; the one
 * written is what the thread gets when it resumes with that signal. */
gboolean      froggy_device_get_siginfo  (FroggyDevice                   *self,
                                          guint64                         id,
                                          siginfo_t                      *info,
                                          GError                        **error);
gboolean      froggy_device_set_siginfo  (FroggyDevice                   *self,
                                          guint64                         id,
                                          const siginfo_t                *info,
                                          GError                        **error);

G_END_DECLS
