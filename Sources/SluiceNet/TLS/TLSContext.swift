import CLibSSL
import SluiceCore

/// One TLS configuration (OpenSSL's `SSL_CTX`): a server's certificate chain and key, or a
/// client's trusted roots. Made once and shared by every connection that uses it; each
/// connection's ``TLSHandler`` makes its own session from it.
///
/// TLS 1.2 is the oldest version either side speaks.
package final class TLSContext: @unchecked Sendable {
    // Safe to share: after set-up, OpenSSL only reads an SSL_CTX (under its own locks) while
    // sessions are made from it; nothing here changes it again.
    let pointer: OpaquePointer
    package let role: Role

    package enum Role: Sendable { case server, client }

    private init(role: Role) throws(SluiceError) {
        guard let method = role == .server ? TLS_server_method() : TLS_client_method(), let ctx = SSL_CTX_new(method) else {
            throw SluiceError(.internalError, "could not make a TLS context: \(TLSContext.lastError())")
        }
        pointer = ctx
        self.role = role
        _ = sluice_SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION)
        // A write may hand OpenSSL a different buffer when it retries (the handler never
        // retries a write, but the memory BIOs make partial writes impossible to rule out).
        _ = sluice_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE))
    }

    deinit { SSL_CTX_free(pointer) }

    /// A server's context from PEM files: the certificate chain (leaf first) and its private key.
    /// - Throws: `22023` naming the file that cannot be read, or saying the key does not match.
    package static func server(certificateChainFile: String, privateKeyFile: String) throws(SluiceError) -> TLSContext {
        let context = try TLSContext(role: .server)
        ERR_clear_error()
        guard SSL_CTX_use_certificate_chain_file(context.pointer, certificateChainFile) == 1 else {
            throw SluiceError(.invalidParameterValue, "could not read the TLS certificate \(certificateChainFile): \(lastError())")
        }
        guard SSL_CTX_use_PrivateKey_file(context.pointer, privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            let reason = lastError()
            if reason.contains("mismatch") {
                throw SluiceError(.invalidParameterValue, "the TLS certificate and key do not make a usable TLS context (do they match?): \(reason)")
            }
            throw SluiceError(.invalidParameterValue, "could not read the TLS private key \(privateKeyFile): \(reason)")
        }
        guard SSL_CTX_check_private_key(context.pointer) == 1 else {
            throw SluiceError(.invalidParameterValue, "the TLS certificate and key do not make a usable TLS context (do they match?): \(lastError())")
        }
        return context
    }

    /// A client's context: peers are verified against the system's roots (OpenSSL's default
    /// paths, which `SSL_CERT_FILE` and `SSL_CERT_DIR` override) or the PEM file given, and each
    /// connection checks the peer's name (``TLSHandler``). `verifyPeer: false` trusts any peer,
    /// for tests and for endpoints a user says to trust.
    package static func client(trustedRootsFile: String? = nil, verifyPeer: Bool = true) throws(SluiceError) -> TLSContext {
        let context = try TLSContext(role: .client)
        ERR_clear_error()
        if let trustedRootsFile {
            guard SSL_CTX_load_verify_locations(context.pointer, trustedRootsFile, nil) == 1 else {
                throw SluiceError(.invalidParameterValue, "could not read the trusted certificates \(trustedRootsFile): \(lastError())")
            }
        } else {
            _ = SSL_CTX_set_default_verify_paths(context.pointer)
        }
        SSL_CTX_set_verify(context.pointer, verifyPeer ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, nil)
        return context
    }

    /// The process's client context over the system's roots, made on first use.
    package static let systemClient: Result<TLSContext, SluiceError> = Result { () throws(SluiceError) in try TLSContext.client() }

    /// OpenSSL's queued errors, oldest first, as one line (and the queue emptied).
    static func lastError() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "unknown TLS error" : messages.joined(separator: "; ")
    }
}
