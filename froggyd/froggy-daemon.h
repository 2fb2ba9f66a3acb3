/* froggy-daemon.h: the socket, the clients and the method dispatch
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "froggy-peer.h"
#include "froggy-session.h"

G_BEGIN_DECLS

#define FROGGY_TYPE_DAEMON (froggy_daemon_get_type ())
G_DECLARE_FINAL_TYPE (FroggyDaemon, froggy_daemon, FROGGY, DAEMON, GObject)

FroggyDaemon *froggy_daemon_new       (void);
/* Listen on a new socket at @socket_path, mode 0600, or 0666 when
 * @shared (a root daemon serving every user). */
gboolean      froggy_daemon_listen    (FroggyDaemon  *self,
                                       const char    *socket_path,
                                       gboolean       shared,
                                       GError       **error);
/* Listen on a socket handed over by systemd (socket activation). */
gboolean      froggy_daemon_listen_fd (FroggyDaemon  *self,
                                       int            fd,
                                       GError       **error);
/* Detach every session and stop listening; ::stopped tells when done. */
void          froggy_daemon_stop      (FroggyDaemon  *self);

/* For the methods (froggy-methods.c). */
FroggySession *froggy_daemon_new_session   (FroggyDaemon  *self,
                                            FroggyPeer    *owner,
                                            gboolean       follow_fork,
                                            GError       **error);
/* (transfer container) */
GList         *froggy_daemon_list_sessions (FroggyDaemon  *self);
/* @peer leaves: the sessions it was alone in are detached. */
void           froggy_daemon_release_peer  (FroggyDaemon  *self,
                                            FroggyPeer    *peer);

G_END_DECLS
