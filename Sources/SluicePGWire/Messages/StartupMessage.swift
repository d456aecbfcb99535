import NIOCore
import SluiceCore

/// StartupMessage: the protocol version and the session parameters (`user`, `database`, …).
package struct PGStartupMessage: Sendable, Equatable {
    /// Major version in the high 16 bits, minor in the low 16; 3.0 is 196608.
    package var protocolVersion: Int32
    package var parameters: [String: String]

    package static let version3 = Int32(3 << 16)

    package init(protocolVersion: Int32 = PGStartupMessage.version3, parameters: [String: String]) {
        self.protocolVersion = protocolVersion
        self.parameters = parameters
    }
}

extension PGFrontendMessage {
    // "Message Formats": the request codes that take the place of a protocol version.
    static let cancelRequestCode: Int32 = 80_877_102
    static let sslRequestCode: Int32 = 80_877_103
    static let gssEncryptionRequestCode: Int32 = 80_877_104

    /// Parses a startup packet body (after its length): StartupMessage, SSLRequest, GSSENCRequest or CancelRequest.
    static func decodeStartupPacket(_ buffer: ByteBuffer) throws(SluiceError) -> PGFrontendMessage {
        var body = PGMessageBody(buffer, messageName: "startup packet")
        let code = try body.readInt32()
        switch code {
        case sslRequestCode:
            try body.finish()
            return .sslRequest
        case gssEncryptionRequestCode:
            try body.finish()
            return .gssEncryptionRequest
        case cancelRequestCode:
            let processID = try body.readInt32()
            let secretKey = try body.readInt32()
            try body.finish()
            return .cancelRequest(processID: processID, secretKey: secretKey)
        default:
            guard code >> 16 == 3 else {
                throw SluiceError(
                    .protocolViolation,
                    "unsupported frontend protocol \(code >> 16).\(code & 0xFFFF): server supports 3.0 to 3.0"
                )
            }
            var parameters: [String: String] = [:]
            while true {
                let name = try body.readCString()
                if name.isEmpty { break }
                parameters[name] = try body.readCString()
            }
            try body.finish()
            return .startup(PGStartupMessage(protocolVersion: code, parameters: parameters))
        }
    }
}
