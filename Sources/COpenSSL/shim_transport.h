/* Wrappers used by PushDoubleTransport. */
#ifndef PUSHDOUBLE_SHIM_TRANSPORT_H
#define PUSHDOUBLE_SHIM_TRANSPORT_H
#include <openssl/ssl.h>

static inline long pd_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline int pd_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int v) { return (int)SSL_CTX_set_min_proto_version(ctx, v); }

#endif
