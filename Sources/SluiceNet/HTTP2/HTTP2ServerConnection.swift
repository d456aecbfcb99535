import NIOCore

/// What a server connection's limits are: our SETTINGS, and the bounds against floods.
package struct HTTP2ServerConfiguration: Sendable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS: streams past it are refused (REFUSED_STREAM).
    package var maximumConcurrentStreams = 100
    /// SETTINGS_MAX_HEADER_LIST_SIZE: a request past it is answered 431.
    package var maximumHeaderListSize = 64 << 10
    /// A request body past it is handed over marked too large, and the rest dropped.
    package var maximumBodyBytes = 1 << 20
    /// What the bodies of a connection's requests still arriving may hold between them; a
    /// stream whose data would pass it is refused (REFUSED_STREAM).
    package var maximumBufferedBodyBytes = 2 << 20
    /// The connection's receive window, opened at the start and kept open as data is read.
    package var connectionWindowSize = 1 << 20
    /// Frames that cost us work but carry no request (PING, SETTINGS, RST_STREAM, PRIORITY,
    /// empty DATA and CONTINUATION, unknown types) a connection may send in a budget period
    /// (``HTTP2ServerConnection/budgetPeriodEnded()``), plus a few per stream it opens; past
    /// them it is closed with ENHANCE_YOUR_CALM.
    package var controlFrameBudget = 10_000

    package init() {}
}

/// A request whose head (and body, whole or up to the bound) arrived on a stream.
package struct HTTP2Request: Sendable {
    package var streamID: UInt32
    package var method: String
    /// `:path`: the path and query as sent.
    package var path: String
    /// The fields that are not pseudo-fields, lower-case, with `host` from `:authority` when
    /// there was none.
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// The body was longer than ``HTTP2ServerConfiguration/maximumBodyBytes``: `body` holds
    /// its start and the rest is dropped.
    package var bodyTooLarge: Bool
}

/// What the connection's owner does after a read.
package enum HTTP2ServerEvent: Sendable {
    /// A request to answer (``HTTP2ServerConnection/sendHeaders(streamID:fields:endStream:)``).
    case request(HTTP2Request)
    /// A stream handed over as a request ended before its answer did (the client reset it, or
    /// broke its rules): its work stops and its writes fail.
    case streamClosed(UInt32)
    /// The peer's windows grew: data waiting for them may go on.
    case windowOpened
    /// The client sent GOAWAY: the streams open finish, then the connection closes.
    case goAwayReceived
    /// The client broke the protocol: GOAWAY is in the output; write it and close.
    case connectionError(HTTP2ProtocolError)
}

/// One HTTP/2 server connection's protocol (RFC 9113) without I/O: bytes in, events and bytes
/// to write out. It checks the preface, reads frames and header blocks, keeps the streams'
/// states and both sides' flow-control windows, answers SETTINGS and PING, and frames the
/// owner's answers within the client's windows and frame size. A connection error writes
/// GOAWAY and stops reading; a stream error writes RST_STREAM.
/// Not `Sendable`: one event loop owns it.
package struct HTTP2ServerConnection {
    package let configuration: HTTP2ServerConfiguration
    /// Frames to write, appended as they are made; the owner takes them (``takeOutput()``).
    package internal(set) var output = ByteBuffer()

    var prefaceBytesSeen = 0
    var sawFirstSettings = false
    var frameDecoder = HTTP2FrameDecoder()
    var headerDecoder = HPACKDecoder()
    let headerEncoder = HPACKEncoder()
    var streams: [UInt32: HTTP2Stream] = [:]
    var highestStreamID: UInt32 = 0
    /// A header block being gathered from HEADERS and CONTINUATION frames.
    var pendingBlock: PendingBlock?
    var failed = false
    package internal(set) var goAwaySent = false
    package internal(set) var goAwayReceived = false

    // Flow control (Section 5.2, 6.9): what we may send, what the client may send.
    var connectionSendWindow = 65_535
    var peerInitialWindowSize = 65_535
    var peerMaximumFrameSize = 16_384
    var connectionReceiveWindow = 65_535
    var connectionReceivedUnacknowledged = 0
    let streamReceiveWindowSize = 65_535

    // The flood counters, since the last ``budgetPeriodEnded()``.
    var controlFrames = 0
    var streamsOpened = 0
    var streamsResetByClient = 0

    struct PendingBlock {
        var streamID: UInt32
        var bytes: [UInt8]
        var endStream: Bool
        /// The block's HEADERS opened a new stream (else: trailers, or a closed stream's).
        var opensStream: Bool
    }

    package init(configuration: HTTP2ServerConfiguration) {
        self.configuration = configuration
        // Section 3.4: the server's preface is a SETTINGS frame, first thing.
        write(HTTP2Frame(streamID: 0, .settings([
            HTTP2Setting(HTTP2Setting.maxConcurrentStreams, UInt32(configuration.maximumConcurrentStreams)),
            HTTP2Setting(HTTP2Setting.maxHeaderListSize, UInt32(configuration.maximumHeaderListSize)),
        ])))
        let increment = configuration.connectionWindowSize - connectionReceiveWindow
        if increment > 0 {
            write(HTTP2Frame(streamID: 0, .windowUpdate(increment: UInt32(increment))))
            connectionReceiveWindow += increment
        }
    }

    /// The streams open (handed over or being received).
    package var openStreamCount: Int { streams.count }

    /// Starts a new period for the flood budgets (control frames, streams reset by the client):
    /// the owner calls it at a steady pace (a minute), so that a long-lived connection's
    /// occasional PINGs never add up to a flood.
    package mutating func budgetPeriodEnded() {
        controlFrames = 0
        streamsOpened = 0
        streamsResetByClient = 0
    }

    /// The bytes to write, taken.
    package mutating func takeOutput() -> ByteBuffer {
        defer { output.clear() }
        return output
    }

    /// Reads what `input` holds (consumed as far as whole frames go).
    package mutating func read(_ input: inout ByteBuffer) -> [HTTP2ServerEvent] {
        var events: [HTTP2ServerEvent] = []
        guard !failed else {
            input.moveReaderIndex(to: input.writerIndex)
            return events
        }
        do throws(HTTP2ProtocolError) {
            try readPreface(&input)
            while prefaceBytesSeen == HTTP2Frame.clientPreface.count {
                let frame: HTTP2Frame?
                do throws(HTTP2ProtocolError) {
                    frame = try frameDecoder.next(&input)
                } catch where error.streamID != nil {
                    try resetStream(error.streamID!, error.code, events: &events)
                    continue
                }
                guard let frame else { break }
                try received(frame, events: &events)
            }
        } catch {
            fail(error)
            events.append(.connectionError(error))
            input.moveReaderIndex(to: input.writerIndex)
        }
        return events
    }

    /// Section 3.4: the client's preface, checked byte by byte as it arrives.
    private mutating func readPreface(_ input: inout ByteBuffer) throws(HTTP2ProtocolError) {
        let preface = HTTP2Frame.clientPreface
        while prefaceBytesSeen < preface.count, let byte = input.readInteger(as: UInt8.self) {
            guard byte == preface[prefaceBytesSeen] else {
                throw HTTP2ProtocolError(.protocolError, "the connection did not start with HTTP/2's preface")
            }
            prefaceBytesSeen += 1
        }
    }

    /// Writes GOAWAY for `error` (once) and stops reading.
    private mutating func fail(_ error: HTTP2ProtocolError) {
        failed = true
        guard !goAwaySent else { return }
        goAwaySent = true
        var debug = ByteBuffer()
        debug.writeString(String(error.reason.prefix(200)))
        write(HTTP2Frame(streamID: 0, .goAway(lastStreamID: highestStreamID, code: error.code, debugData: debug)))
    }

    /// Closes the connection gracefully (Section 6.8): GOAWAY naming the last stream taken; the
    /// streams open finish, new ones are refused.
    package mutating func goAway() {
        guard !goAwaySent else { return }
        goAwaySent = true
        write(HTTP2Frame(streamID: 0, .goAway(lastStreamID: highestStreamID, code: .noError, debugData: ByteBuffer())))
    }

    mutating func write(_ frame: HTTP2Frame) {
        HTTP2FrameEncoder.write(frame, into: &output)
    }

    mutating func countControlFrame() throws(HTTP2ProtocolError) {
        controlFrames += 1
        if controlFrames > configuration.controlFrameBudget + 8 * streamsOpened {
            throw HTTP2ProtocolError(.enhanceYourCalm, "too many frames without requests")
        }
    }

    /// A stream error (Section 5.4.2): RST_STREAM, and the stream is gone.
    mutating func resetStream(_ streamID: UInt32, _ code: HTTP2ErrorCode, events: inout [HTTP2ServerEvent]) throws(HTTP2ProtocolError) {
        write(HTTP2Frame(streamID: streamID, .rstStream(code)))
        if let stream = streams.removeValue(forKey: streamID), stream.isHandedOver {
            events.append(.streamClosed(streamID))
        }
        try countControlFrame()
    }
}
