/* Wrappers used by PushDoubleCrypto: OpenSSL macros and variadic functions that Swift
 * cannot import, each as a static inline function with a `pd_` prefix. */
#ifndef PUSHDOUBLE_SHIM_CRYPTO_H
#define PUSHDOUBLE_SHIM_CRYPTO_H
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

static inline long pd_BIO_get_mem_data(BIO *bio, char **out) { return BIO_get_mem_data(bio, out); }
static inline void pd_OPENSSL_free(void *p) { OPENSSL_free(p); }

/* EVP_EC_gen / EVP_RSA_gen are variadic macros over EVP_PKEY_Q_keygen. */
static inline EVP_PKEY *pd_EVP_PKEY_generate_p256(void) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}
static inline EVP_PKEY *pd_EVP_PKEY_generate_rsa(unsigned int bits) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)bits);
}

/* X509V3_set_ctx_nodb is a macro. */
static inline void pd_X509V3_set_ctx_nodb(X509V3_CTX *ctx) { X509V3_set_ctx_nodb(ctx); }

/* sk_GENERAL_NAME_* are macros (used to read SANs back). */
static inline int pd_sk_GENERAL_NAME_num(const GENERAL_NAMES *names) { return sk_GENERAL_NAME_num(names); }
static inline GENERAL_NAME *pd_sk_GENERAL_NAME_value(const GENERAL_NAMES *names, int i) { return sk_GENERAL_NAME_value(names, i); }
static inline void pd_GENERAL_NAMES_free(GENERAL_NAMES *names) { GENERAL_NAMES_free(names); }

/* A P-256 public key from an encoded point (65-byte uncompressed or 33-byte compressed)
 * via EVP_PKEY_fromdata: much cheaper than the OSSL_DECODER path behind d2i_PUBKEY. The
 * OSSL_PARAM array only lives for this call, which is why this is C and not Swift.
 * EC import decodes the point with EC_POINT_oct2point, which rejects points off the curve. */
static inline EVP_PKEY *pd_EVP_PKEY_p256_public_from_point(const unsigned char *point, size_t len) {
    OSSL_PARAM params[3];
    EVP_PKEY *pkey = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL) return NULL;
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)"P-256", 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)point, len);
    params[2] = OSSL_PARAM_construct_end();
    if (EVP_PKEY_fromdata_init(ctx) != 1 || EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1) pkey = NULL;
    EVP_PKEY_CTX_free(ctx);
    return pkey;
}

/* PKCS#12 export: the certificate chain stack (safestack macros). */
#include <openssl/pkcs12.h>
static inline STACK_OF(X509) *pd_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline void pd_sk_X509_free(STACK_OF(X509) *s) { sk_X509_free(s); }
static inline int pd_sk_X509_push(STACK_OF(X509) *s, X509 *x) { return sk_X509_push(s, x); }
/* Subject lines in RFC 2253 form. */
static inline unsigned long pd_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }

#endif
