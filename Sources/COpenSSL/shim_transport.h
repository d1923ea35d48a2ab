/* Wrappers used by PushDoubleTransport. */
#ifndef PUSHDOUBLE_SHIM_TRANSPORT_H
#define PUSHDOUBLE_SHIM_TRANSPORT_H
#include <openssl/ssl.h>

static inline long pd_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline int pd_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int v) { return (int)SSL_CTX_set_min_proto_version(ctx, v); }

/* runtime helper: server-side TLS and socket wrappers. */
#include <sys/socket.h>
#include <sys/uio.h>
static inline long pd_SSL_CTX_add_extra_chain_cert(SSL_CTX *ctx, X509 *x509) { return SSL_CTX_add_extra_chain_cert(ctx, x509); }
static inline uint64_t pd_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t pd_SSL_OP_CIPHER_SERVER_PREFERENCE(void) { return SSL_OP_CIPHER_SERVER_PREFERENCE; }
static inline uint64_t pd_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }
static inline long pd_SSL_MODE_server_defaults(void) { return SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER; }
static inline int pd_TLS1_2_VERSION(void) { return TLS1_2_VERSION; }
static inline int pd_TLSEXT_NAMETYPE_host_name(void) { return TLSEXT_NAMETYPE_host_name; }
static inline int pd_SSL_TLSEXT_ERR_OK(void) { return SSL_TLSEXT_ERR_OK; }
static inline int pd_SSL_TLSEXT_ERR_ALERT_FATAL(void) { return SSL_TLSEXT_ERR_ALERT_FATAL; }
static inline int pd_SSL_TLSEXT_ERR_NOACK(void) { return SSL_TLSEXT_ERR_NOACK; }
static inline long pd_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long m) { return SSL_CTX_set_session_cache_mode(ctx, m); }
#include <unistd.h>
#include <sys/syscall.h>
/* accept4 is declared only under _GNU_SOURCE, which the Swift importer does not set. */
#include <sys/prctl.h>
/* Names the calling thread (at most 15 bytes are kept); reads it back into buf[16]. */
static inline void pd_set_thread_name(const char *name) { prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0); }
static inline void pd_get_thread_name(char *buf16) { prctl(PR_GET_NAME, (unsigned long)buf16, 0, 0, 0); }
#include <malloc.h>
/* glibc: give freed heap memory back to the kernel (after a burst of connections). */
static inline int pd_malloc_trim(size_t pad) { return malloc_trim(pad); }
static inline int pd_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) { return (int)syscall(SYS_accept4, fd, addr, len, flags); }

#endif
