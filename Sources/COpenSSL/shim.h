/* COpenSSL: the system OpenSSL 3 headers plus static-inline wrappers for the macros
 * and variadic functions Swift cannot import. One file per owner so that the crypto
 * and transport layers can grow their shims independently. */
#ifndef PUSHDOUBLE_COPENSSL_SHIM_H
#define PUSHDOUBLE_COPENSSL_SHIM_H

#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/rsa.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/rand.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <netinet/tcp.h>

#include "shim_crypto.h"
#include "shim_transport.h"

#endif
