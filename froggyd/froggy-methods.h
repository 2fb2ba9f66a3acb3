/* froggy-methods.h: the methods of the protocol, and a request to one
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#pragma once

#include <glib.h>

#include "froggy-daemon.h"
#include "froggy-peer.h"
#include "froggy-session.h"

G_BEGIN_DECLS

/* What the daemon checks before a request reaches its handler. */
typedef enum
{
  FROGGY_NEEDS_NOTHING      = 0,
  FROGGY_NEEDS_SESSION      = 1 << 0, /* a "session" param the peer is in */
  FROGGY_NEEDS_CONTROL      = 1 << 1, /* ... and controls */
  FROGGY_NEEDS_ANY_SESSION  = 1 << 2, /* a "session" param, joined or not */
  FROGGY_BEFORE_INITIALIZE  = 1 << 3, /* allowed before initialize */
} FroggyMethodNeeds;

/* One call: the daemon fills in session when the method needs one. */
typedef struct
{
  FroggyDaemon  *daemon;
  FroggyPeer    *peer;
  GVariant      *id;
  GVariant      *params;
  FroggySession *session;
} FroggyRequest;

typedef void (*FroggyMethodHandler) (FroggyRequest *request);

typedef struct
{
  const char          *name;
  FroggyMethodHandler  handler;
  FroggyMethodNeeds    needs;
  const char * const  *params;   /* the names it knows, NULL-terminated */
} FroggyMethod;

/* The method called @name, or NULL. */
const FroggyMethod *froggy_method_lookup        (const char          *name);

FroggyRequest      *froggy_request_new          (FroggyDaemon        *daemon,
                                                 FroggyPeer          *peer,
                                                 GVariant            *id,
                                                 GVariant            *params);
void                froggy_request_free         (FroggyRequest       *request);
void                froggy_request_reply_error  (FroggyRequest       *request,
                                                 const GError        *error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (FroggyRequest, froggy_request_free)

G_END_DECLS
