import NIOCore
import SluiceCore

/// The bodies a `p` message can carry; which one is known only from the authentication step.
package enum PGAuthenticationResponse {
    /// PasswordMessage: the cleartext password.
    package static func password(from bytes: [UInt8]) throws(SluiceError) -> String {
        var body = PGMessageBody(ByteBuffer(bytes: bytes), messageName: "PasswordMessage")
        let password = try body.readCString()
        try body.finish()
        return password
    }

    /// SASLInitialResponse: the chosen mechanism and the client's first message (nil if length -1).
    package static func saslInitialResponse(from bytes: [UInt8]) throws(SluiceError) -> (mechanism: String, data: [UInt8]?) {
        var body = PGMessageBody(ByteBuffer(bytes: bytes), messageName: "SASLInitialResponse")
        let mechanism = try body.readCString()
        let length = try body.readInt32()
        let data: [UInt8]? = length == -1 ? nil : try body.readBytes(Int(length))
        try body.finish()
        return (mechanism, data)
    }
}
