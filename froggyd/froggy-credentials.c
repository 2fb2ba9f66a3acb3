/* froggy-credentials.c
 *
 * FroggyCredentials are a client's, as its socket says at connect time:
 * uid, gid and pid (SO_PEERCRED), its supplementary groups
 * (SO_PEERGROUPS), and the capabilities its process had in effect then
 * (/proc/PID/status), less those the daemon does not have itself.
 *
 * A root daemon serving other users (--shared) never judges on its own
 * whether a client may trace a process: froggy_credentials_run_as()
 * forks a helper that has become the client (uid, gid, groups,
 * capabilities: nothing more) and makes the request there, so that the
 * kernel decides as it would for the client's own ptrace(): uid and gid,
 * CAP_SYS_PTRACE, Yama, any other security module.  The helper shares
 * the daemon's open files, so an attach it makes on a session's
 * /dev/utrace file is the session's.  A daemon that is not root acts as
 * itself, which is its clients' user (its socket is 0600).
 *
 * Yama's ptrace_scope 1 looks at who makes the request: the helper, a
 * child of the daemon, is no ancestor of the client's processes, so at
 * that scope a client without CAP_SYS_PTRACE can trace what it launches
 * through froggyd, and not what it started itself, as gdb run by another
 * program could not either.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <errno.h>
#include <fcntl.h>
#include <glib-unix.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "froggy-credentials.h"
#include "froggy-error.h"

struct _FroggyCredentials
{
  gboolean known;
  uid_t    uid;
  gid_t    gid;
  pid_t    pid;
  gid_t   *groups;
  int      n_groups;
  guint64  capabilities;  /* in effect, as CapEff */
};

/* The capabilities process @pid has in effect ("self" for ours), or 0. */
static guint64
read_capabilities (const char *pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%s/status", pid);
  g_autofree char *status = NULL;
  const char *line;
  guint64 capabilities = 0;

  if (g_file_get_contents (path, &status, NULL, NULL) &&
      (line = strstr (status, "\nCapEff:")) != NULL)
    capabilities = g_ascii_strtoull (line + strlen ("\nCapEff:"), NULL, 16);
  return capabilities;
}

FroggyCredentials *
froggy_credentials_new_unknown (void)
{
  FroggyCredentials *self = g_new0 (FroggyCredentials, 1);

  self->uid = (uid_t) -1;
  self->gid = (gid_t) -1;
  return self;
}

FroggyCredentials *
froggy_credentials_new_from_socket (GSocket  *socket,
                                    GError  **error)
{
  g_autoptr(FroggyCredentials) self = froggy_credentials_new_unknown ();
  g_autofree char *pid = NULL;
  struct ucred ucred;
  socklen_t length = sizeof ucred;
  int fd;

  g_return_val_if_fail (G_IS_SOCKET (socket), NULL);

  fd = g_socket_get_fd (socket);
  if (getsockopt (fd, SOL_SOCKET, SO_PEERCRED, &ucred, &length) < 0)
    {
      int errsv = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                   "SO_PEERCRED: %s", g_strerror (errsv));
      return NULL;
    }
  self->uid = ucred.uid;
  self->gid = ucred.gid;
  self->pid = ucred.pid;

  length = 64 * sizeof (gid_t);
  self->groups = g_malloc (length);
  if (getsockopt (fd, SOL_SOCKET, SO_PEERGROUPS, self->groups, &length) < 0 && errno == ERANGE)
    {
      self->groups = g_realloc (self->groups, length);
      if (getsockopt (fd, SOL_SOCKET, SO_PEERGROUPS, self->groups, &length) < 0)
        length = 0;
    }
  self->n_groups = length / sizeof (gid_t);

  pid = g_strdup_printf ("%d", self->pid);
  self->capabilities = read_capabilities (pid) & read_capabilities ("self");
  self->known = TRUE;
  return g_steal_pointer (&self);
}

void
froggy_credentials_free (FroggyCredentials *self)
{
  if (self == NULL)
    return;
  g_free (self->groups);
  g_free (self);
}

gboolean
froggy_credentials_known (const FroggyCredentials *self)
{
  return self->known;
}

uid_t
froggy_credentials_get_uid (const FroggyCredentials *self)
{
  return self->uid;
}

gid_t
froggy_credentials_get_gid (const FroggyCredentials *self)
{
  return self->gid;
}

pid_t
froggy_credentials_get_pid (const FroggyCredentials *self)
{
  return self->pid;
}

/**
 * froggy_credentials_become:
 *
 * In a child of the daemon, between fork and exec or _exit: take the
 * client's groups, gid, uid and capabilities, and none else.  Only
 * system calls, so async-signal-safe.  A daemon that is not root stays
 * itself.  Returns 0, or a negative errno.
 */
int
froggy_credentials_become (const FroggyCredentials *self)
{
  struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
  struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

  if (geteuid () != 0)
    return 0;
  if (!self->known)
    return -EPERM;
  data[0].effective = data[0].permitted = (guint32) self->capabilities;
  data[1].effective = data[1].permitted = (guint32) (self->capabilities >> 32);
  if (setgroups (self->n_groups, self->groups) < 0 ||
      setresgid (self->gid, self->gid, self->gid) < 0 ||
      prctl (PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 ||
      setresuid (self->uid, self->uid, self->uid) < 0 ||
      syscall (SYS_capset, &header, data) < 0 ||
      prctl (PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
    return -errno;
  /* Ambient capabilities would outlive an exec: none. */
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
    return -errno;
  return 0;
}

typedef struct
{
  int     became;  /* froggy_credentials_become() */
  int     status;  /* the function's */
  guint64 value;
} HelperAnswer;

/**
 * froggy_credentials_run_as:
 * @func: what to do as the client, in a helper process
 * @what: what @func does, for an error message
 * @value: (out): the value @func gave
 *
 * Runs @func (@data) in a helper that has become the client, and waits
 * for it: the helper makes one or two system calls and exits, so this
 * does not hold up the main loop for long.  A negative errno from @func
 * is the error, with froggy_error_from_errno()'s code.
 */
gboolean
froggy_credentials_run_as (const FroggyCredentials  *self,
                           FroggyCredentialsFunc     func,
                           gpointer                  data,
                           const char               *what,
                           guint64                  *value,
                           GError                  **error)
{
  HelperAnswer answer = { 0 };
  gsize got = 0;
  int pipe_fds[2];
  pid_t pid;

  if (!g_unix_open_pipe (pipe_fds, FD_CLOEXEC, error))
    return FALSE;
  pid = fork ();
  if (pid == 0)
    {
      close (pipe_fds[0]);
      answer.became = froggy_credentials_become (self);
      if (answer.became == 0)
        answer.status = func (data, &answer.value);
      if (write (pipe_fds[1], &answer, sizeof answer) != sizeof answer)
        _exit (1);
      _exit (0);
    }
  close (pipe_fds[1]);
  if (pid < 0)
    {
      int errsv = errno;

      close (pipe_fds[0]);
      g_propagate_error (error, froggy_error_from_errno (errsv, "fork"));
      return FALSE;
    }
  while (got < sizeof answer)
    {
      gssize n = read (pipe_fds[0], (char *) &answer + got, sizeof answer - got);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += n;
    }
  close (pipe_fds[0]);
  while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
    ;

  if (got < sizeof answer)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INTERNAL,
                   "the helper acting as client %d died", self->pid);
      return FALSE;
    }
  if (answer.became < 0)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_PERMISSION,
                   "cannot act as client %d (uid %u): %s", self->pid, self->uid,
                   g_strerror (-answer.became));
      return FALSE;
    }
  if (answer.status < 0)
    {
      g_propagate_error (error, froggy_error_from_errno (-answer.status, what));
      return FALSE;
    }
  if (value != NULL)
    *value = answer.value;
  return TRUE;
}
