#ifndef FIXTUREKIT_CCRYPTO_SHIM_H
#define FIXTUREKIT_CCRYPTO_SHIM_H

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/err.h>
#include <openssl/crypto.h>

#endif
