/* froggy-peer.h: one connected client
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <jsonrpc-glib.h>
#include <sys/types.h>

#include "froggy-credentials.h"

G_BEGIN_DECLS

#define FROGGY_TYPE_PEER (froggy_peer_get_type ())
G_DECLARE_FINAL_TYPE (FroggyPeer, froggy_peer, FROGGY, PEER, GObject)

/* Takes @credentials. */
FroggyPeer    *froggy_peer_new             (JsonrpcClient     *client,
                                            GSocket           *socket,
                                            FroggyCredentials *credentials);
JsonrpcClient *froggy_peer_get_client      (FroggyPeer    *self);
const FroggyCredentials *
               froggy_peer_get_credentials (FroggyPeer    *self);
uid_t          froggy_peer_get_uid         (FroggyPeer    *self);
gid_t          froggy_peer_get_gid         (FroggyPeer    *self);
pid_t          froggy_peer_get_pid         (FroggyPeer    *self);
gboolean       froggy_peer_get_initialized (FroggyPeer    *self);
void           froggy_peer_set_initialized (FroggyPeer    *self);
gboolean       froggy_peer_is_closed       (FroggyPeer    *self);
void           froggy_peer_close           (FroggyPeer    *self);
/* @result may be floating, or NULL for a null result. */
void           froggy_peer_reply           (FroggyPeer    *self,
                                            GVariant      *id,
                                            GVariant      *result);
void           froggy_peer_reply_error     (FroggyPeer    *self,
                                            GVariant      *id,
                                            const GError  *error);
/* A "event" notification; @params may be floating. */
void           froggy_peer_notify          (FroggyPeer    *self,
                                            GVariant      *params);
void           froggy_peer_notify_lossless (FroggyPeer    *self,
                                            GVariant      *params);
gboolean       froggy_peer_lags            (FroggyPeer    *self);

G_END_DECLS
