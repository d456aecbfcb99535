import NIOCore
import SluiceCore

/// Splits the client byte stream into ``PGFrontendMessage``s ("Message Flow", "Message Formats").
///
/// The stream starts with untyped startup packets (length, then code); SSLRequest and
/// GSSENCRequest keep it there, StartupMessage and CancelRequest end it. After that every
/// message is a type byte, an Int32 length that counts itself, and the body.
///
/// A message is taken from the buffer only when all of it has arrived, so the decoder gives the
/// same messages fed byte-at-a-time or all at once. Lengths are checked against limits before
/// anything waits for them; memory grows only with bytes that actually arrive.
package struct PGFrontendMessageDecoder: Sendable {
    /// Postgres's limit for a startup packet (`MAX_STARTUP_PACKET_LENGTH`).
    package static let maxStartupPacketLength = 10_000

    /// The largest accepted message, counting its length field.
    package let maxMessageLength: Int
    private var isExpectingStartupPacket = true

    package init(maxMessageLength: Int = 64 << 20) {
        self.maxMessageLength = maxMessageLength
    }

    /// Takes the next complete message from `buffer`, or returns nil and leaves `buffer` alone
    /// when it does not hold one yet. Throws 08P01 on malformed input; the stream is then unusable.
    package mutating func decodeMessage(from buffer: inout ByteBuffer) throws(SluiceError) -> PGFrontendMessage? {
        if isExpectingStartupPacket {
            guard let length = buffer.getInteger(at: buffer.readerIndex, as: Int32.self) else { return nil }
            guard length >= 8, length <= Self.maxStartupPacketLength else {
                throw SluiceError(.protocolViolation, "invalid length of startup packet")
            }
            guard buffer.readableBytes >= Int(length) else { return nil }
            buffer.moveReaderIndex(forwardBy: 4)
            let body = buffer.readSlice(length: Int(length) - 4)!
            let message = try PGFrontendMessage.decodeStartupPacket(body)
            switch message {
            case .sslRequest, .gssEncryptionRequest:
                break
            case .startup, .cancelRequest, .authenticationResponse, .query, .parse, .bind, .describe,
                 .execute, .close, .sync, .flush, .terminate, .copyData, .copyDone, .copyFail:
                isExpectingStartupPacket = false
            }
            return message
        }

        guard let type = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) else { return nil }
        guard let name = Self.messageName(of: type) else {
            throw SluiceError(.protocolViolation, "invalid frontend message type \(type)")
        }
        guard let length = buffer.getInteger(at: buffer.readerIndex + 1, as: Int32.self) else { return nil }
        guard length >= 4 else {
            throw SluiceError(.protocolViolation, "invalid message length \(length) in \(name) message")
        }
        guard Int(length) <= maxMessageLength else {
            throw SluiceError(
                .protocolViolation, "invalid message length \(length) in \(name) message",
                detail: "Messages may be at most \(maxMessageLength) bytes long."
            )
        }
        guard buffer.readableBytes >= 1 + Int(length) else { return nil }
        buffer.moveReaderIndex(forwardBy: 5)
        var body = PGMessageBody(buffer.readSlice(length: Int(length) - 4)!, messageName: name)
        let message = try Self.decodeBody(type: type, body: &body)
        try body.finish()
        return message
    }

    private static func messageName(of type: UInt8) -> String? {
        switch type {
        case UInt8(ascii: "p"): "password"
        case UInt8(ascii: "Q"): "Query"
        case UInt8(ascii: "P"): "Parse"
        case UInt8(ascii: "B"): "Bind"
        case UInt8(ascii: "D"): "Describe"
        case UInt8(ascii: "E"): "Execute"
        case UInt8(ascii: "C"): "Close"
        case UInt8(ascii: "S"): "Sync"
        case UInt8(ascii: "H"): "Flush"
        case UInt8(ascii: "X"): "Terminate"
        case UInt8(ascii: "d"): "CopyData"
        case UInt8(ascii: "c"): "CopyDone"
        case UInt8(ascii: "f"): "CopyFail"
        default: nil
        }
    }

    private static func decodeBody(type: UInt8, body: inout PGMessageBody) throws(SluiceError) -> PGFrontendMessage {
        switch type {
        case UInt8(ascii: "p"): return .authenticationResponse(body.readRest())
        case UInt8(ascii: "Q"): return .query(try body.readCString())
        case UInt8(ascii: "P"): return .parse(try PGParse(from: &body))
        case UInt8(ascii: "B"): return .bind(try PGBind(from: &body))
        case UInt8(ascii: "D"): return .describe(try PGTarget(from: &body))
        case UInt8(ascii: "E"): return .execute(try PGExecute(from: &body))
        case UInt8(ascii: "C"): return .close(try PGTarget(from: &body))
        case UInt8(ascii: "S"): return .sync
        case UInt8(ascii: "H"): return .flush
        case UInt8(ascii: "X"): return .terminate
        case UInt8(ascii: "d"): return .copyData(body.readRest())
        case UInt8(ascii: "c"): return .copyDone
        case UInt8(ascii: "f"): return .copyFail(try body.readCString())
        default: throw SluiceError.internalError("message type \(type) passed the type check but has no decoder")
        }
    }
}

/// ``PGFrontendMessageDecoder`` as a NIO decoder for `ByteToMessageHandler`.
package struct PGFrontendDecodingHandler: ByteToMessageDecoder {
    package typealias InboundOut = PGFrontendMessage

    private var decoder: PGFrontendMessageDecoder

    package init(maxMessageLength: Int) {
        decoder = PGFrontendMessageDecoder(maxMessageLength: maxMessageLength)
    }

    package mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let message = try decoder.decodeMessage(from: &buffer) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(message))
        return .continue
    }

    package mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A message cut off by the end of the stream is dropped: the client is gone.
        while let message = try decoder.decodeMessage(from: &buffer) {
            context.fireChannelRead(wrapInboundOut(message))
        }
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}
