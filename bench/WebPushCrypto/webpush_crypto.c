/* The crypto one Web Push message needs, alone (bench/webpush.sh): with the system OpenSSL the
 * server links and the server's own C helpers (Sources/COpenSSL/shim_crypto.h: the key import
 * and HMAC-SHA-256), N times over the same aes128gcm body: import the sender's public key from
 * the body's keyid (65-byte point), one P-256 ECDH with the subscription's private key, RFC
 * 8291's HKDF (IKM) and RFC 8188's (CEK, NONCE), one AES-128-GCM record decrypted and its tag
 * checked. Nothing else: no parsing beyond fixed offsets, no allocation of results.
 * The subscription's key is imported once (a registered subscription's keys are decoded once).
 * Prints the process CPU time per message in µs, then that of the ECDH alone (the peer key
 * imported once: what `openssl speed ecdhp256` measures); exits 1 when the plaintext is not
 * PLAINTEXT.
 *   webpush_crypto BODY_FILE PRIVATE_SCALAR_HEX P256DH_HEX AUTH_HEX PLAINTEXT_FILE N
 */
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../../Sources/COpenSSL/shim_crypto.h"

static size_t unhex(const char *s, unsigned char *out, size_t max) {
  size_t n = strlen(s) / 2;
  if (n > max) exit(2);
  for (size_t i = 0; i < n; i++) sscanf(s + 2 * i, "%2hhx", &out[i]);
  return n;
}

static size_t slurp(const char *path, unsigned char *buf, size_t max) {
  FILE *f = fopen(path, "rb");
  if (!f) exit(2);
  size_t n = fread(buf, 1, max, f);
  fclose(f);
  return n;
}

/* The subscription's key pair (once). */
static EVP_PKEY *p256_keypair(const unsigned char *point, const unsigned char *scalar) {
  OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
  OSSL_PARAM_BLD_push_utf8_string(b, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0);
  OSSL_PARAM_BLD_push_octet_string(b, OSSL_PKEY_PARAM_PUB_KEY, point, 65);
  BIGNUM *d = BN_bin2bn(scalar, 32, NULL);
  OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_PRIV_KEY, d);
  OSSL_PARAM *p = OSSL_PARAM_BLD_to_param(b);
  EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
  EVP_PKEY *k = NULL;
  if (EVP_PKEY_fromdata_init(c) != 1 || EVP_PKEY_fromdata(c, &k, EVP_PKEY_KEYPAIR, p) != 1) k = NULL;
  EVP_PKEY_CTX_free(c); OSSL_PARAM_free(p); OSSL_PARAM_BLD_free(b); BN_free(d);
  return k;
}

static EVP_MD *sha256;      /* fetched once, as the server does */
static EVP_PKEY *template;  /* the key every sender key is copied from, as the server does */

static void hmac(const unsigned char *key, size_t kl, const unsigned char *d, size_t dl, unsigned char out[32]) {
  if (pd_hmac_sha256(sha256, key, kl, d, dl, out) != 1) exit(3);
}

int main(int argc, char **argv) {
  if (argc != 7) { fprintf(stderr, "usage: %s BODY SCALAR_HEX P256DH_HEX AUTH_HEX PLAINTEXT N\n", argv[0]); return 2; }
  static unsigned char body[65536], want[65536], plain[65536];
  unsigned char scalar[32], ua[65], auth[16];
  size_t blen = slurp(argv[1], body, sizeof body), wlen = slurp(argv[5], want, sizeof want);
  unhex(argv[2], scalar, 32); unhex(argv[3], ua, 65); unhex(argv[4], auth, 16);
  long n = atol(argv[6]);
  EVP_PKEY *priv = p256_keypair(ua, scalar);
  sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
  template = pd_EVP_PKEY_p256_template();
  if (!priv || blen < 86 + 17 || body[20] != 65) { fprintf(stderr, "bad key or body\n"); return 2; }
  const unsigned char *salt = body, *keyid = body + 21, *rec = body + 86;
  size_t rlen = blen - 86 - 16;
  struct timespec t0, t1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  int ok = 1;
  for (long i = 0; i < n && ok; i++) {
    /* sender key from the keyid, ECDH */
    EVP_PKEY *peer = pd_EVP_PKEY_p256_public_from_point(template, keyid, 65);
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, priv, NULL);
    unsigned char ecdh[32]; size_t elen = 32;
    ok = peer && c && EVP_PKEY_derive_init(c) == 1 && EVP_PKEY_derive_set_peer_ex(c, peer, 0) == 1 && EVP_PKEY_derive(c, ecdh, &elen) == 1;
    EVP_PKEY_CTX_free(c); EVP_PKEY_free(peer);
    /* RFC 8291 §3.4: IKM = HKDF(auth, ecdh, "WebPush: info\0" || ua_public || as_public, 32) */
    unsigned char prk[32], ikm[32], info[14 + 65 + 65 + 1], t[64];
    hmac(auth, 16, ecdh, 32, prk);
    memcpy(info, "WebPush: info", 14); memcpy(info + 14, ua, 65); memcpy(info + 79, keyid, 65); info[144] = 1;
    hmac(prk, 32, info, 145, ikm);
    /* RFC 8188 §2.2-2.3: PRK = HMAC(salt, IKM), CEK and NONCE */
    unsigned char cek[32], nonce[32];
    hmac(salt, 16, ikm, 32, prk);
    memcpy(t, "Content-Encoding: aes128gcm\0\1", 29); hmac(prk, 32, t, 29, cek);
    memcpy(t, "Content-Encoding: nonce\0\1", 25); hmac(prk, 32, t, 25, nonce);
    /* one record, AES-128-GCM with its tag */
    EVP_CIPHER_CTX *a = EVP_CIPHER_CTX_new();
    int len = 0, fin = 0;
    ok = ok && EVP_DecryptInit_ex(a, EVP_aes_128_gcm(), NULL, cek, nonce) == 1
      && EVP_DecryptUpdate(a, plain, &len, rec, (int)rlen) == 1
      && EVP_CIPHER_CTX_ctrl(a, EVP_CTRL_GCM_SET_TAG, 16, (void *)(rec + rlen)) == 1
      && EVP_DecryptFinal_ex(a, plain + len, &fin) == 1;
    EVP_CIPHER_CTX_free(a);
    /* padding delimiter 0x02 after the data */
    ok = ok && (size_t)len == wlen + 1 && plain[wlen] == 2 && memcmp(plain, want, wlen) == 0;
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  if (!ok) { fprintf(stderr, "decryption failed or plaintext differs\n"); return 1; }
  double us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / n;
  EVP_PKEY *peer = pd_EVP_PKEY_p256_public_from_point(template, keyid, 65);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  for (long i = 0; i < n && ok; i++) {
    EVP_PKEY_CTX *c = EVP_PKEY_CTX_new_from_pkey(NULL, priv, NULL);
    unsigned char ecdh[32]; size_t elen = 32;
    ok = c && EVP_PKEY_derive_init(c) == 1 && EVP_PKEY_derive_set_peer_ex(c, peer, 0) == 1 && EVP_PKEY_derive(c, ecdh, &elen) == 1;
    EVP_PKEY_CTX_free(c);
  }
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  double ecdh = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / n;
  printf("%.1f %.1f\n", us, ecdh);
  return 0;
}
