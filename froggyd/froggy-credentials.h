/* froggy-credentials.h: a client's credentials, and acting as the client
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef struct _FroggyCredentials FroggyCredentials;

/* What a helper run as the client computes: 0 or a negative errno, and
 * one value.  It runs in a child process between fork and _exit: only
 * async-signal-safe calls. */
typedef int (*FroggyCredentialsFunc) (gpointer  data,
                                      guint64  *value);

FroggyCredentials *froggy_credentials_new_from_socket (GSocket                  *socket,
                                                        GError                  **error);
FroggyCredentials *froggy_credentials_new_unknown     (void);
void               froggy_credentials_free            (FroggyCredentials        *self);
gboolean           froggy_credentials_known           (const FroggyCredentials  *self);
uid_t              froggy_credentials_get_uid         (const FroggyCredentials  *self);
gid_t              froggy_credentials_get_gid         (const FroggyCredentials  *self);
pid_t              froggy_credentials_get_pid         (const FroggyCredentials  *self);
int                froggy_credentials_become          (const FroggyCredentials  *self);
gboolean           froggy_credentials_run_as          (const FroggyCredentials  *self,
                                                        FroggyCredentialsFunc     func,
                                                        gpointer                  data,
                                                        const char               *what,
                                                        guint64                  *value,
                                                        GError                  **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FroggyCredentials, froggy_credentials_free)

G_END_DECLS
