#if canImport(Glibc)
import Glibc
#endif
import SluiceCrypto

/// The moment a request is signed, in the two forms SigV4 uses.
package struct SigV4Timestamp: Sendable, Hashable {
    /// `YYYYMMDDTHHMMSSZ`, the `x-amz-date` header.
    package var amzDate: String
    /// `YYYYMMDD`, the credential scope's date.
    package var dateStamp: String { String(amzDate.prefix(8)) }

    /// The UTC time `secondsSince1970`.
    package init(secondsSince1970: Int) {
        var time = time_t(secondsSince1970)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        amzDate = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    package static func now() -> SigV4Timestamp {
        SigV4Timestamp(secondsSince1970: Int(time(nil)))
    }
}

/// A request as SigV4 sees it: the method, the path already URI-encoded (it is both sent and
/// signed), the query parameters before encoding, and the headers to send and sign.
package struct SigV4Request: Sendable {
    package var method: String
    package var encodedPath: String
    package var query: [(name: String, value: String)]
    package var headers: [(name: String, value: String)]

    package init(method: String, encodedPath: String, query: [(name: String, value: String)] = [], headers: [(name: String, value: String)]) {
        self.method = method
        self.encodedPath = encodedPath
        self.query = query
        self.headers = headers
    }

    /// The query string as sent and signed: each name and value URI-encoded ('/' included),
    /// sorted by name then value, `name=value` joined by `&` (an empty value keeps its `=`).
    /// (Its steps are typed one by one: as one chained expression it took the type checker
    /// seconds.)
    package var canonicalQuery: String {
        let encoded: [(name: String, value: String)] = query.map { (parameter: (name: String, value: String)) in
            (SigV4Signer.uriEncode(parameter.name, keepingSlash: false), SigV4Signer.uriEncode(parameter.value, keepingSlash: false))
        }
        let sorted = encoded.sorted { (a: (name: String, value: String), b: (name: String, value: String)) -> Bool in
            a.name == b.name ? a.value < b.value : a.name < b.name
        }
        let pairs: [String] = sorted.map { (parameter: (name: String, value: String)) -> String in parameter.name + "=" + parameter.value }
        return pairs.joined(separator: "&")
    }
}

/// AWS Signature Version 4 in the Authorization header, with a signed payload.
///
/// AWS docs, "Signature Calculations for the Authorization Header: Transferring Payload in a
/// Single Chunk": canonical request → string to sign → HMAC chain signing key → signature.
package struct SigV4Signer: Sendable {
    package var accessKeyID: String
    package var secretAccessKey: String
    package var sessionToken: String?
    package var region: String
    package var service: String

    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, region: String, service: String = "s3") {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.region = region
        self.service = service
    }

    /// The SHA-256 of an empty payload.
    package static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    package static func payloadHash(_ payload: [UInt8]) -> String {
        payload.isEmpty ? emptyPayloadHash : hex(Digest.sha256(payload))
    }

    /// Adds `x-amz-date`, `x-amz-content-sha256`, `x-amz-security-token` (with a session token)
    /// and `Authorization` to `request`, signing every header it carries.
    package func sign(_ request: inout SigV4Request, payloadHash: String, at timestamp: SigV4Timestamp) {
        request.headers.append(("x-amz-date", timestamp.amzDate))
        request.headers.append(("x-amz-content-sha256", payloadHash))
        if let sessionToken { request.headers.append(("x-amz-security-token", sessionToken)) }
        request.headers.append(("Authorization", authorization(for: request, payloadHash: payloadHash, at: timestamp)))
    }

    /// The Authorization header's value for `request`, whose headers are all signed.
    package func authorization(for request: SigV4Request, payloadHash: String, at timestamp: SigV4Timestamp) -> String {
        let (canonical, signedHeaders) = canonicalRequest(request, payloadHash: payloadHash)
        let signature = self.signature(stringToSign: stringToSign(canonicalRequest: canonical, at: timestamp), at: timestamp)
        return "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope(at: timestamp)),SignedHeaders=\(signedHeaders),Signature=\(signature)"
    }

    /// The canonical request and the signed headers' list: lowercase names, sorted, values
    /// trimmed with inner runs of spaces collapsed, repeated names joined by commas.
    package func canonicalRequest(_ request: SigV4Request, payloadHash: String) -> (request: String, signedHeaders: String) {
        var merged: [String: String] = [:]
        for (name, value) in request.headers {
            let key = name.lowercased()
            let trimmed = Self.trimmedHeaderValue(value)
            merged[key] = merged[key].map { "\($0),\(trimmed)" } ?? trimmed
        }
        let names = merged.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(merged[$0] ?? "")\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let text = [request.method, request.encodedPath, request.canonicalQuery, canonicalHeaders, signedHeaders, payloadHash]
            .joined(separator: "\n")
        return (text, signedHeaders)
    }

    package func scope(at timestamp: SigV4Timestamp) -> String {
        "\(timestamp.dateStamp)/\(region)/\(service)/aws4_request"
    }

    package func stringToSign(canonicalRequest: String, at timestamp: SigV4Timestamp) -> String {
        "AWS4-HMAC-SHA256\n\(timestamp.amzDate)\n\(scope(at: timestamp))\n\(Self.hex(Digest.sha256(Array(canonicalRequest.utf8))))"
    }

    package func signature(stringToSign: String, at timestamp: SigV4Timestamp) -> String {
        var key = Array("AWS4\(secretAccessKey)".utf8)
        for part in [timestamp.dateStamp, region, service, "aws4_request"] {
            key = Digest.hmacSHA256(key: key, Array(part.utf8))
        }
        return Self.hex(Digest.hmacSHA256(key: key, Array(stringToSign.utf8)))
    }

    /// SigV4's URI encoding: every byte but the unreserved `A-Z a-z 0-9 - . _ ~` as `%XX`
    /// (uppercase hex); `/` kept when encoding an object key's path.
    package static func uriEncode(_ text: String, keepingSlash: Bool) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        encoded.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "0") ... UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.append(byte)
            case UInt8(ascii: "/") where keepingSlash:
                encoded.append(byte)
            default:
                encoded.append(UInt8(ascii: "%"))
                encoded.append(digits[Int(byte >> 4)])
                encoded.append(digits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    static func trimmedHeaderValue(_ value: String) -> String {
        var result = ""
        var pendingSpace = false
        for character in value {
            if character == " " || character == "\t" {
                pendingSpace = !result.isEmpty
            } else {
                if pendingSpace { result.append(" ") }
                pendingSpace = false
                result.append(character)
            }
        }
        return result
    }

    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
