// OpenSSL's libcrypto (Debian: libssl-dev): SHA-256, HMAC, AES-256-GCM and random bytes.
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
