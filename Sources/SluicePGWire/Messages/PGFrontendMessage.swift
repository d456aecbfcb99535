import SluiceCore

/// A message from the client (Postgres protocol 3.0, "Message Formats").
package enum PGFrontendMessage: Sendable, Equatable {
    /// StartupMessage, the first message of a session.
    case startup(PGStartupMessage)
    /// SSLRequest: the client asks for TLS; Sluice refuses with a single `N` byte.
    case sslRequest
    /// GSSENCRequest: the client asks for GSSAPI encryption; Sluice refuses with a single `N` byte.
    case gssEncryptionRequest
    /// CancelRequest, sent on a new connection to cancel the query of another one.
    case cancelRequest(processID: Int32, secretKey: Int32)
    /// `p`: PasswordMessage, SASLInitialResponse or SASLResponse; which one depends on the
    /// authentication step, so the body stays raw until the state machine parses it.
    case authenticationResponse([UInt8])
    /// `Q`: a simple query.
    case query(String)
    /// `P`
    case parse(PGParse)
    /// `B`
    case bind(PGBind)
    /// `D`
    case describe(PGTarget)
    /// `E`
    case execute(PGExecute)
    /// `C`
    case close(PGTarget)
    /// `S`
    case sync
    /// `H`
    case flush
    /// `X`
    case terminate
    /// `d`: data of COPY … FROM STDIN ("COPY Operations" in "Message Flow").
    case copyData([UInt8])
    /// `c`: the end of COPY data.
    case copyDone
    /// `f`: the client gives up a COPY … FROM STDIN, with its reason.
    case copyFail(String)
}

/// The object Describe and Close refer to: a prepared statement (`S`) or a portal (`P`), by name.
package enum PGTarget: Sendable, Equatable {
    case statement(String)
    case portal(String)

    init(from body: inout PGMessageBody) throws(SluiceError) {
        let kind = try body.readBytes(1)[0]
        let name = try body.readCString()
        switch kind {
        case UInt8(ascii: "S"): self = .statement(name)
        case UInt8(ascii: "P"): self = .portal(name)
        default: throw body.invalid("unknown target type \(kind)")
        }
    }
}

/// A parameter or result format code.
package enum PGFormat: Int16, Sendable, Equatable {
    case text = 0
    case binary = 1

    init(code: Int16, body: PGMessageBody) throws(SluiceError) {
        guard let format = PGFormat(rawValue: code) else {
            throw SluiceError(.protocolViolation, "unsupported format code: \(code)")
        }
        self = format
    }

    /// The format of item `index` of `count` under the 0/1/n rule of Bind: no codes means all
    /// text, one code applies to all, otherwise one code per item.
    package static func format(at index: Int, of formats: [PGFormat]) -> PGFormat {
        switch formats.count {
        case 0: .text
        case 1: formats[0]
        default: index < formats.count ? formats[index] : .text
        }
    }
}
