import Foundation
import SluiceCore
import SluiceCrypto
import SluiceState

/// The key the catalog's file seals its secrets with: `catalog.key` in the data directory, 32
/// random bytes made with the file (0600), so that `catalog.json` holds no secret in clear —
/// neither a `CREATE SECRET` value nor a password written inline in a connector's options.
/// Sealing is AES-256-GCM, each value with a fresh nonce, stored as base64 of nonce, ciphertext
/// and tag. (A copy of the data directory with its key opens, as PostgreSQL's files do; what the
/// key keeps out is a secret read from the catalog's file alone, a backup of it, or a grep.)
struct CatalogSeal: Sendable {
    private let key: [UInt8]

    static let keyFile = "catalog.key"

    /// The data directory's key, made the first time.
    init(dataDirectory: String) throws(SluiceError) {
        let path = "\(dataDirectory)/\(Self.keyFile)"
        if let bytes = FileManager.default.contents(atPath: path) {
            guard bytes.count == 32 else { throw SluiceError(.ioError, "the catalog's key \(path) is not 32 bytes long") }
            key = [UInt8](bytes)
            return
        }
        let made = SecureRandom.bytes(32)
        try Files.writeAtomically(made, to: path, permissions: 0o600)
        key = made
    }

    func seal(_ bytes: [UInt8]) throws(SluiceError) -> String {
        Base64.encode(try AESGCM.seal(bytes, key: key))
    }

    func open(_ text: String) throws(SluiceError) -> [UInt8] {
        guard let sealed = Base64.decode(text) else { throw SluiceError(.dataCorrupted, "the catalog's sealed secrets are not base64") }
        do {
            return try AESGCM.open(sealed, key: key)
        } catch {
            throw SluiceError(.dataCorrupted, "could not open the catalog's sealed secrets: is \(Self.keyFile) the key they were sealed with?")
        }
    }
}
