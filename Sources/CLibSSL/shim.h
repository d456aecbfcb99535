// OpenSSL's libssl (Debian: libssl-dev): TLS on every port and for the HTTP client's https.
// The functions below stand for OpenSSL macros, which Swift cannot call.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/x509v3.h>

static inline long sluice_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return SSL_CTX_set_min_proto_version(ctx, version);
}

static inline long sluice_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

static inline long sluice_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}

static inline size_t sluice_BIO_pending(BIO *bio) {
    return BIO_ctrl_pending(bio);
}

static inline long sluice_BIO_set_mem_eof_return(BIO *bio, int value) {
    return BIO_set_mem_eof_return(bio, value);
}
