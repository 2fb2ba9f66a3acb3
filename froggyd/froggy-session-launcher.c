/* froggy-session-launcher.c
 *
 * The launcher of a FroggySession: a program forked, made the client's
 * and attached to the session's device, so that it stops at its exec;
 * and what its exit status says when it dies before that exec.
 *
 * The bottom floor (see froggy-session-private.h), and below the session
 * altogether: it knows the device's file and the client, not the
 * session.  What a death before the exec means for the session (it is
 * over) is the session's to decide, in its child watch.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define G_LOG_DOMAIN "froggyd"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "froggy-error.h"
#include "froggy-session-private.h"

/* How the launched child says what went wrong before its exec. */
enum
{
  LAUNCH_EXIT_REFUSED     = 124,  /* the kernel would not let it be traced */
  LAUNCH_EXIT_FILES       = 125,  /* its stdio file or directory */
  LAUNCH_EXIT_CREDENTIALS = 126,  /* becoming the client's user */
  LAUNCH_EXIT_EXEC        = 127,  /* the attach or the exec itself */
};

/* The child, between fork and exec: its stdio, its directory, the
 * client's credentials if the daemon is root for someone else, then the
 * attach to itself that stops it at the exec.  Only async-signal-safe
 * calls here; a failure is its exit status, which the child watch sees
 * before any exec event. */
G_GNUC_NORETURN static void
launch_child (const LaunchSetup  *setup,
              const char         *stdio,
              const char         *cwd,
              const char         *path,
              char * const       *argv,
              char * const       *envp)
{
  struct utrace_attach attach = {
    .size = sizeof attach,
    .flags = setup->flags,
    .events = setup->events,
    .nonstop = setup->nonstop,
  };

  int io;

  /* The client's files and directory, opened as the client: a root
   * daemon must not open /etc/shadow for someone who asks.  The program
   * runs with the client's groups and capabilities, and the attach to
   * itself is the kernel's to allow or refuse. */
  if (froggy_credentials_become (setup->client) < 0)
    _exit (LAUNCH_EXIT_CREDENTIALS);
  io = open (stdio, O_RDWR | O_CREAT, 0644);
  if (io < 0 || dup2 (io, 0) < 0 || dup2 (io, 1) < 0 || dup2 (io, 2) < 0)
    _exit (LAUNCH_EXIT_FILES);
  if (io > 2)
    close (io);
  if (cwd != NULL && chdir (cwd) < 0)
    _exit (LAUNCH_EXIT_FILES);
  if (ioctl (setup->fd, UTRACE_IOC_ATTACH, &attach) < 0)
    _exit (errno == EPERM ? LAUNCH_EXIT_REFUSED : LAUNCH_EXIT_EXEC);
  execve (path, argv, envp);
  _exit (LAUNCH_EXIT_EXEC);
}

/* Starts the program of @argv as @setup says, stopped at its exec by
 * the attach to @setup's device; returns its pid, or -1 with @error set
 * when it could not be started.  A failure in the child, after the
 * fork, is its exit status: see launch_exit_error(). */
pid_t
launch_program (const LaunchSetup   *setup,
                const char * const  *argv,
                const char * const  *env,
                const char          *cwd,
                const char          *stdio,
                GError             **error)
{
  g_autofree char *path = NULL;
  g_auto(GStrv) envp = NULL;
  pid_t pid;

  if (!froggy_credentials_known (setup->client))
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_PERMISSION,
                   "the client's credentials are unknown: it may not launch");
      return -1;
    }

  /* What can be checked before the fork is checked here, for a clear
   * error; the rest shows as the child's exit before its exec. */
  if (strchr (argv[0], '/') != NULL)
    path = g_strdup (argv[0]);
  else
    path = g_find_program_in_path (argv[0]);
  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR) ||
      access (path, X_OK) < 0)
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_NOT_FOUND,
                   "cannot start %s: no such executable", argv[0]);
      return -1;
    }
  if (cwd != NULL && !g_file_test (cwd, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, FROGGY_ERROR, FROGGY_ERROR_INVALID_PARAMS,
                   "cwd %s is not a directory", cwd);
      return -1;
    }
  envp = env != NULL ? g_strdupv ((char **) env) : g_get_environ ();

  /* Not g_spawn: it waits for the exec to close a pipe, but the exec
   * stop comes before the child returns to user mode, which is when its
   * deferred fput() of that pipe runs.  Nothing here waits on the child. */
  pid = fork ();
  if (pid == 0)
    launch_child (setup, stdio ? stdio : "/dev/null", cwd, path, (char * const *) argv, envp);
  if (pid < 0)
    {
      int errsv = errno;

      g_propagate_error (error, froggy_error_from_errno (errsv, "fork"));
      return -1;
    }

  return pid;
}

/* Why the launched child with exit @status never reached its exec. */
GError *
launch_exit_error (int status)
{
  GError *error = NULL;

  switch (WIFEXITED (status) ? WEXITSTATUS (status) : -1)
    {
    case LAUNCH_EXIT_REFUSED:
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_PERMISSION,
                   "permission denied: the kernel refuses to trace the program "
                   "(a security module, such as Yama's ptrace_scope 3)");
      break;
    case LAUNCH_EXIT_FILES:
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD,
                   "the program could not open its stdio file or enter its directory");
      break;
    case LAUNCH_EXIT_CREDENTIALS:
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD,
                   "the program could not take the client's user and group");
      break;
    default:
      g_set_error (&error, FROGGY_ERROR, FROGGY_ERROR_NO_THREAD,
                   "the program exited before its exec (status 0x%x)", status);
    }
  return error;
}
