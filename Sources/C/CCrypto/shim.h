// OpenSSL libcrypto (Debian libssl-dev): HMAC-SHA256 and the CSPRNG for band authentication.
#ifndef BANDKIT_CCRYPTO_SHIM_H
#define BANDKIT_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/err.h>
#endif
