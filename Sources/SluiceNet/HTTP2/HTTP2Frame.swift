import NIOCore

/// An HTTP/2 error code (RFC 9113 Section 7), in RST_STREAM and GOAWAY frames.
package struct HTTP2ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: UInt32
    /// The code `rawValue` (unknown codes are kept as they are: Section 7).
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Graceful: no error.
    package static let noError = HTTP2ErrorCode(rawValue: 0x0)
    /// A rule of the protocol broken.
    package static let protocolError = HTTP2ErrorCode(rawValue: 0x1)
    /// Our own failure.
    package static let internalError = HTTP2ErrorCode(rawValue: 0x2)
    /// Flow control broken.
    package static let flowControlError = HTTP2ErrorCode(rawValue: 0x3)
    /// SETTINGS not acknowledged in time.
    package static let settingsTimeout = HTTP2ErrorCode(rawValue: 0x4)
    /// A frame on a half-closed or closed stream.
    package static let streamClosed = HTTP2ErrorCode(rawValue: 0x5)
    /// A frame of the wrong size.
    package static let frameSizeError = HTTP2ErrorCode(rawValue: 0x6)
    /// The stream was refused before any work (safe to retry).
    package static let refusedStream = HTTP2ErrorCode(rawValue: 0x7)
    /// The stream is no longer wanted.
    package static let cancel = HTTP2ErrorCode(rawValue: 0x8)
    /// The HPACK context cannot be kept.
    package static let compressionError = HTTP2ErrorCode(rawValue: 0x9)
    /// A CONNECT tunnel failed.
    package static let connectError = HTTP2ErrorCode(rawValue: 0xa)
    /// The peer does too much (floods).
    package static let enhanceYourCalm = HTTP2ErrorCode(rawValue: 0xb)
    /// TLS too weak.
    package static let inadequateSecurity = HTTP2ErrorCode(rawValue: 0xc)
    /// Use HTTP/1.1 instead.
    package static let http11Required = HTTP2ErrorCode(rawValue: 0xd)

    package var description: String {
        let names = [
            "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
            "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
            "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
        ]
        return rawValue < names.count ? names[Int(rawValue)] : "0x\(String(rawValue, radix: 16))"
    }
}

/// A protocol error: of the connection (`streamID` nil: GOAWAY, then close) or of one stream
/// (RST_STREAM; the connection goes on) — RFC 9113 Section 5.4.
package struct HTTP2ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    package var code: HTTP2ErrorCode
    package var streamID: UInt32?
    package var reason: String

    package init(_ code: HTTP2ErrorCode, stream streamID: UInt32? = nil, _ reason: String) {
        self.code = code
        self.streamID = streamID
        self.reason = reason
    }

    package var description: String {
        "\(code)\(streamID.map { " on stream \($0)" } ?? ""): \(reason)"
    }
}

/// A SETTINGS parameter (RFC 9113 Section 6.5.2).
package struct HTTP2Setting: Hashable, Sendable {
    package var identifier: UInt16
    package var value: UInt32

    package init(_ identifier: UInt16, _ value: UInt32) {
        self.identifier = identifier
        self.value = value
    }

    /// SETTINGS_HEADER_TABLE_SIZE (0x1).
    package static let headerTableSize: UInt16 = 0x1
    /// SETTINGS_ENABLE_PUSH (0x2).
    package static let enablePush: UInt16 = 0x2
    /// SETTINGS_MAX_CONCURRENT_STREAMS (0x3).
    package static let maxConcurrentStreams: UInt16 = 0x3
    /// SETTINGS_INITIAL_WINDOW_SIZE (0x4).
    package static let initialWindowSize: UInt16 = 0x4
    /// SETTINGS_MAX_FRAME_SIZE (0x5).
    package static let maxFrameSize: UInt16 = 0x5
    /// SETTINGS_MAX_HEADER_LIST_SIZE (0x6).
    package static let maxHeaderListSize: UInt16 = 0x6
}

/// A stream's priority as HEADERS and PRIORITY carry it (Section 5.3.2, deprecated: read and
/// ignored).
package struct HTTP2Priority: Hashable, Sendable {
    package var exclusive: Bool
    package var dependency: UInt32
    package var weight: UInt8

    package init(exclusive: Bool, dependency: UInt32, weight: UInt8) {
        self.exclusive = exclusive
        self.dependency = dependency
        self.weight = weight
    }
}

/// One frame (RFC 9113 Section 4, 6), its padding removed.
package struct HTTP2Frame: Equatable, Sendable {
    package var streamID: UInt32
    package var payload: Payload

    package init(streamID: UInt32, _ payload: Payload) {
        self.streamID = streamID
        self.payload = payload
    }

    package enum Payload: Equatable, Sendable {
        /// `padding`: the bytes of padding the frame had, its pad length byte included (they
        /// count in flow control).
        case data(ByteBuffer, endStream: Bool, padding: Int = 0)
        case headers(block: ByteBuffer, endStream: Bool, endHeaders: Bool, priority: HTTP2Priority?)
        case priority(HTTP2Priority)
        case rstStream(HTTP2ErrorCode)
        case settings([HTTP2Setting])
        case settingsAck
        case pushPromise(promisedStreamID: UInt32, block: ByteBuffer, endHeaders: Bool)
        case ping(UInt64, ack: Bool)
        case goAway(lastStreamID: UInt32, code: HTTP2ErrorCode, debugData: ByteBuffer)
        case windowUpdate(increment: UInt32)
        case continuation(block: ByteBuffer, endHeaders: Bool)
        /// A frame of a type this implementation does not know: ignored (Section 5.5).
        case unknown(type: UInt8, flags: UInt8, payload: ByteBuffer)
    }

    /// Frame types (Section 6).
    package enum Kind: UInt8 {
        case data = 0x0, headers = 0x1, priority = 0x2, rstStream = 0x3, settings = 0x4, pushPromise = 0x5, ping = 0x6
        case goAway = 0x7, windowUpdate = 0x8, continuation = 0x9
    }

    /// Frame flags (Section 6): END_STREAM and ACK share a bit on different types.
    package enum Flags {
        package static let endStream: UInt8 = 0x1
        package static let ack: UInt8 = 0x1
        package static let endHeaders: UInt8 = 0x4
        package static let padded: UInt8 = 0x8
        package static let priority: UInt8 = 0x20
    }

    /// The length of a frame's header.
    package static let headerLength = 9
    /// The preface a client sends first (Section 3.4).
    package static let clientPreface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
}
