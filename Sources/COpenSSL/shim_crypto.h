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
#include <string.h>

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

/* A P-256 key holding the group's generator as its public point: the template of
 * pd_EVP_PKEY_p256_public_from_point (made once by the caller, which keeps it). */
static inline EVP_PKEY *pd_EVP_PKEY_p256_template(void) {
    static const unsigned char generator[65] = {
        0x04, 0x6B, 0x17, 0xD1, 0xF2, 0xE1, 0x2C, 0x42, 0x47, 0xF8, 0xBC, 0xE6, 0xE5, 0x63, 0xA4, 0x40, 0xF2,
        0x77, 0x03, 0x7D, 0x81, 0x2D, 0xEB, 0x33, 0xA0, 0xF4, 0xA1, 0x39, 0x45, 0xD8, 0x98, 0xC2, 0x96,
        0x4F, 0xE3, 0x42, 0xE2, 0xFE, 0x1A, 0x7F, 0x9B, 0x8E, 0xE7, 0xEB, 0x4A, 0x7C, 0x0F, 0x9E, 0x16,
        0x2B, 0xCE, 0x33, 0x57, 0x6B, 0x31, 0x5E, 0xCE, 0xCB, 0xB6, 0x40, 0x68, 0x37, 0xBF, 0x51, 0xF5,
    };
    OSSL_PARAM params[3];
    EVP_PKEY *pkey = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL) return NULL;
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)"P-256", 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, (void *)generator, sizeof generator);
    params[2] = OSSL_PARAM_construct_end();
    if (EVP_PKEY_fromdata_init(ctx) != 1 || EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1) pkey = NULL;
    EVP_PKEY_CTX_free(ctx);
    return pkey;
}

/* A P-256 public key from an encoded point (65-byte uncompressed or 33-byte compressed): a
 * copy of `template` (pd_EVP_PKEY_p256_template) whose point is then replaced with
 * EVP_PKEY_set1_encoded_public_key. That decodes the point with EC_POINT_oct2point, which
 * rejects points off the curve, as EVP_PKEY_fromdata does; but fromdata builds the P-256 group
 * anew for every key (EC_GROUP_new_by_curve_name), about 4/5 of its cost, while the copy
 * shares the template's group data (~48k instead of ~208k instructions a key, callgrind). */
static inline EVP_PKEY *pd_EVP_PKEY_p256_public_from_point(const EVP_PKEY *template, const unsigned char *point, size_t len) {
    if (template == NULL) return NULL;
    EVP_PKEY *pkey = EVP_PKEY_dup((EVP_PKEY *)template);
    if (pkey == NULL) return NULL;
    if (EVP_PKEY_set1_encoded_public_key(pkey, point, len) != 1) {
        EVP_PKEY_free(pkey);
        return NULL;
    }
    return pkey;
}

/* HMAC-SHA-256 (RFC 2104) with `sha256` fetched once by the caller (EVP_MD_fetch): the
 * one-shot HMAC() fetches the MAC and the digest by name on every call (~24k instructions for
 * the short inputs of RFC 8188/8291's key schedule, ~14k this way). Returns 1 on success. */
static inline int pd_hmac_sha256(const EVP_MD *sha256, const unsigned char *key, size_t key_len,
                                 const unsigned char *data, size_t data_len, unsigned char *out) {
    if (sha256 == NULL) return 0;
    unsigned char k[64] = {0}, pad[64], inner[32];
    if (key_len > 64) {
        if (EVP_Digest(key, key_len, k, NULL, sha256, NULL) != 1) return 0;
    } else if (key_len > 0) {
        memcpy(k, key, key_len);
    }
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (c == NULL) return 0;
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x36;
    int ok = EVP_DigestInit_ex(c, sha256, NULL) == 1 && EVP_DigestUpdate(c, pad, 64) == 1
        && (data_len == 0 || EVP_DigestUpdate(c, data, data_len) == 1) && EVP_DigestFinal_ex(c, inner, NULL) == 1;
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x5c;
    ok = ok && EVP_DigestInit_ex(c, sha256, NULL) == 1 && EVP_DigestUpdate(c, pad, 64) == 1
        && EVP_DigestUpdate(c, inner, 32) == 1 && EVP_DigestFinal_ex(c, out, NULL) == 1;
    EVP_MD_CTX_free(c);
    OPENSSL_cleanse(k, sizeof k);
    OPENSSL_cleanse(pad, sizeof pad);
    return ok;
}

/* PKCS#12 export: the certificate chain stack (safestack macros). */
#include <openssl/pkcs12.h>
static inline STACK_OF(X509) *pd_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline void pd_sk_X509_free(STACK_OF(X509) *s) { sk_X509_free(s); }
static inline int pd_sk_X509_push(STACK_OF(X509) *s, X509 *x) { return sk_X509_push(s, x); }
/* Subject lines in RFC 2253 form. */
static inline unsigned long pd_XN_FLAG_RFC2253(void) { return XN_FLAG_RFC2253; }

#endif
