import Foundation
import SluiceCore
import SluiceCrypto

/// Issues and checks the REST catalog's bearer tokens (OAuth2 client-credentials flow).
///
/// A token is `base64url(payload) "." base64url(HMAC-SHA256(key, payload))` with payload
/// `v1\n<principal>\n<expiry seconds>\n<scope>`. The key is 32 random bytes kept in
/// `<catalog root>/token-key`, so tokens survive a restart and no token state is stored.
package struct IcebergTokenAuthority: Sendable {
    /// Client id → secret of the principals that may obtain tokens.
    package let principals: [String: String]
    package let lifetimeSeconds: Int64
    /// The HMAC key's bytes.
    let keyBytes: [UInt8]
    let clock: @Sendable () -> Int64

    /// Loads the signing key from `<rootDirectory>/token-key`, creating it on first use.
    package init(rootDirectory: String, principals: [String: String], lifetimeSeconds: Int64 = 3600,
                 clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) throws(SluiceError) {
        let path = rootDirectory.hasSuffix("/") ? "\(rootDirectory)token-key" : "\(rootDirectory)/token-key"
        var keyBytes = try CatalogDisk.read(path) ?? []
        if keyBytes.count != 32 {
            keyBytes = (0 ..< 32).map { _ in UInt8.random(in: 0 ... 255) }
            try CatalogDisk.createDirectory(rootDirectory)
            try CatalogDisk.replace(path, with: keyBytes)
        }
        self.keyBytes = keyBytes
        self.principals = principals
        self.lifetimeSeconds = lifetimeSeconds
        self.clock = clock
    }

    /// Whether `secret` is the principal's secret (compared in constant time).
    package func authenticates(clientID: String, secret: String) -> Bool {
        guard let expected = principals[clientID] else { return false }
        let (left, right) = (Array(expected.utf8), Array(secret.utf8))
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    /// A signed token for `principal` with `scope`, valid for ``lifetimeSeconds``.
    package func issueToken(principal: String, scope: String) -> String {
        let payload = "v1\n\(principal)\n\(clock() + lifetimeSeconds)\n\(scope)"
        let payloadBytes = Array(payload.utf8)
        let mac = Digest.hmacSHA256(key: keyBytes, payloadBytes)
        return IcebergTokenAuthority.base64URL(payloadBytes) + "." + IcebergTokenAuthority.base64URL(Array(mac))
    }

    /// The principal and scope of a valid, unexpired token; nil for anything else.
    package func verify(_ token: String) -> (principal: String, scope: String)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, token.utf8.count < 8192,
              let payload = IcebergTokenAuthority.decodeBase64URL(parts[0]),
              let mac = IcebergTokenAuthority.decodeBase64URL(parts[1]),
              Digest.constantTimeEquals(mac, Digest.hmacSHA256(key: keyBytes, payload)),
              let text = String(validating: payload, as: UTF8.self) else { return nil }
        let fields = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count == 4, fields[0] == "v1", let expiry = Int64(fields[2]), expiry > clock(),
              principals[String(fields[1])] != nil else { return nil }
        return (String(fields[1]), String(fields[3]))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decodeBase64URL(_ text: Substring) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { Array($0) }
    }
}
