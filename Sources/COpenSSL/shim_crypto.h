/* Wrappers used by PushDoubleCrypto. */
#ifndef PUSHDOUBLE_SHIM_CRYPTO_H
#define PUSHDOUBLE_SHIM_CRYPTO_H
#include <openssl/bio.h>
#include <openssl/crypto.h>

static inline long pd_BIO_get_mem_data(BIO *bio, char **out) { return BIO_get_mem_data(bio, out); }
static inline void pd_OPENSSL_free(void *p) { OPENSSL_free(p); }

#endif
