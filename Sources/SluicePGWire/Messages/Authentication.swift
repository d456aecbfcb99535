import NIOCore

/// The body of an Authentication (`R`) message.
package enum PGAuthenticationRequest: Sendable, Equatable {
    /// AuthenticationOk (0).
    case ok
    /// AuthenticationCleartextPassword (3).
    case cleartextPassword
    /// AuthenticationSASL (10) with the mechanisms offered.
    case sasl(mechanisms: [String])
    /// AuthenticationSASLContinue (11) with the server's challenge.
    case saslContinue([UInt8])
    /// AuthenticationSASLFinal (12) with the server's outcome data.
    case saslFinal([UInt8])

    func encode(into buffer: inout ByteBuffer) {
        switch self {
        case .ok:
            buffer.writeInteger(Int32(0))
        case .cleartextPassword:
            buffer.writeInteger(Int32(3))
        case .sasl(let mechanisms):
            buffer.writeInteger(Int32(10))
            for mechanism in mechanisms { buffer.writeCString(mechanism) }
            buffer.writeInteger(UInt8(0))
        case .saslContinue(let data):
            buffer.writeInteger(Int32(11))
            buffer.writeBytes(data)
        case .saslFinal(let data):
            buffer.writeInteger(Int32(12))
            buffer.writeBytes(data)
        }
    }
}
