import Foundation
import SluiceAuth
import SluiceCore
import Testing

/// The client side of SCRAM-SHA-256 (RFC 5802, section 3), as Kafka clients compute it, to drive
/// the broker's exchange in tests.
struct SCRAMClient {
    var user: String
    var password: String
    var clientNonce = "fyko+d2lbbFgONRv9qkxdawL"

    /// `n=` with RFC 5802's escapes.
    var clientFirstBare: String {
        "n=\(user.replacingOccurrences(of: "=", with: "=3D").replacingOccurrences(of: ",", with: "=2C")),r=\(clientNonce)"
    }

    var clientFirst: [UInt8] { Array("n,,\(clientFirstBare)".utf8) }

    /// The client-final-message answering `serverFirst`, and the server signature (base64) the
    /// server-final-message must carry.
    func clientFinal(serverFirst: String) throws -> ([UInt8], String) {
        var attributes: [String: String] = [:]
        for attribute in serverFirst.split(separator: ",") {
            attributes[String(attribute.prefix(1))] = String(attribute.dropFirst(2))
        }
        let nonce = try #require(attributes["r"])
        let salt = try #require(attributes["s"].flatMap { Base64.decode($0) })
        let iterations = try #require(attributes["i"].flatMap { Int($0) })
        let salted = PBKDF2.hi(password: Array(password.utf8), salt: salt, iterations: iterations)
        let clientKey = HMACSHA256.authenticationCode(for: "Client Key".utf8, key: salted)
        let storedKey = SHA256.hash(clientKey)
        let withoutProof = "c=biws,r=\(nonce)"
        let authMessage = Array("\(clientFirstBare),\(serverFirst),\(withoutProof)".utf8)
        let clientSignature = HMACSHA256.authenticationCode(for: authMessage, key: storedKey)
        let proof = zip(clientKey, clientSignature).map { $0 ^ $1 }
        let serverKey = HMACSHA256.authenticationCode(for: "Server Key".utf8, key: salted)
        let serverSignature = HMACSHA256.authenticationCode(for: authMessage, key: serverKey)
        return (Array("\(withoutProof),p=\(Base64.encode(proof))".utf8), Base64.encode(serverSignature))
    }
}
