import NIOCore

/// Reads frames from a connection's bytes (RFC 9113 Section 4.1): waits for a whole frame,
/// refuses one longer than our SETTINGS_MAX_FRAME_SIZE, and checks each type's fixed layout.
/// Payloads are slices of the input buffer (no copy).
package struct HTTP2FrameDecoder: Sendable {
    /// Our SETTINGS_MAX_FRAME_SIZE: the longest payload the peer may send.
    package var maximumFrameSize: Int

    package init(maximumFrameSize: Int = 16_384) {
        self.maximumFrameSize = maximumFrameSize
    }

    /// The next whole frame in `buffer` (consumed), or nil when more bytes are needed.
    /// - Throws: ``HTTP2ProtocolError``: of the connection for a frame it cannot go past; of a
    ///   stream (the frame consumed) for a PRIORITY frame of the wrong length.
    package func next(_ buffer: inout ByteBuffer) throws(HTTP2ProtocolError) -> HTTP2Frame? {
        guard buffer.readableBytes >= HTTP2Frame.headerLength,
            let high = buffer.getInteger(at: buffer.readerIndex, as: UInt16.self),
            let low = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt8.self),
            let type = buffer.getInteger(at: buffer.readerIndex + 3, as: UInt8.self),
            let flags = buffer.getInteger(at: buffer.readerIndex + 4, as: UInt8.self),
            let rawStream = buffer.getInteger(at: buffer.readerIndex + 5, as: UInt32.self)
        else { return nil }
        let length = Int(high) << 8 | Int(low)
        let streamID = rawStream & 0x7fff_ffff
        // Section 4.2: a frame past our maximum is a connection error (its state is unknown).
        guard length <= maximumFrameSize else {
            throw HTTP2ProtocolError(.frameSizeError, "a frame of \(length) bytes, past the maximum of \(maximumFrameSize)")
        }
        guard buffer.readableBytes >= HTTP2Frame.headerLength + length else { return nil }
        buffer.moveReaderIndex(forwardBy: HTTP2Frame.headerLength)
        var payload = buffer.readSlice(length: length)!
        return HTTP2Frame(streamID: streamID, try Self.parse(type: type, flags: flags, streamID: streamID, payload: &payload))
    }

    static func parse(type: UInt8, flags: UInt8, streamID: UInt32, payload: inout ByteBuffer) throws(HTTP2ProtocolError) -> HTTP2Frame.Payload {
        guard let kind = HTTP2Frame.Kind(rawValue: type) else {
            return .unknown(type: type, flags: flags, payload: payload)
        }
        let length = payload.readableBytes
        switch kind {
        case .data:
            try requireStream(streamID, kind)
            let padding = try removePadding(&payload, flags: flags)
            return .data(payload, endStream: flags & HTTP2Frame.Flags.endStream != 0, padding: padding)
        case .headers:
            try requireStream(streamID, kind)
            _ = try removePadding(&payload, flags: flags)
            var priority: HTTP2Priority?
            if flags & HTTP2Frame.Flags.priority != 0 {
                guard let parsed = readPriority(&payload) else {
                    throw HTTP2ProtocolError(.frameSizeError, "a HEADERS frame too short for its priority")
                }
                priority = parsed
            }
            return .headers(
                block: payload, endStream: flags & HTTP2Frame.Flags.endStream != 0, endHeaders: flags & HTTP2Frame.Flags.endHeaders != 0,
                priority: priority)
        case .priority:
            try requireStream(streamID, kind)
            guard length == 5, let priority = readPriority(&payload) else {
                throw HTTP2ProtocolError(.frameSizeError, stream: streamID, "a PRIORITY frame of \(length) bytes")
            }
            return .priority(priority)
        case .rstStream:
            try requireStream(streamID, kind)
            guard length == 4, let code = payload.readInteger(as: UInt32.self) else {
                throw HTTP2ProtocolError(.frameSizeError, "a RST_STREAM frame of \(length) bytes")
            }
            return .rstStream(HTTP2ErrorCode(rawValue: code))
        case .settings:
            try requireConnection(streamID, kind)
            if flags & HTTP2Frame.Flags.ack != 0 {
                guard length == 0 else { throw HTTP2ProtocolError(.frameSizeError, "a SETTINGS acknowledgement with a payload") }
                return .settingsAck
            }
            guard length % 6 == 0 else { throw HTTP2ProtocolError(.frameSizeError, "a SETTINGS frame of \(length) bytes") }
            var settings: [HTTP2Setting] = []
            settings.reserveCapacity(length / 6)
            while let identifier = payload.readInteger(as: UInt16.self), let value = payload.readInteger(as: UInt32.self) {
                settings.append(HTTP2Setting(identifier, value))
            }
            return .settings(settings)
        case .pushPromise:
            try requireStream(streamID, kind)
            _ = try removePadding(&payload, flags: flags)
            guard let promised = payload.readInteger(as: UInt32.self) else {
                throw HTTP2ProtocolError(.frameSizeError, "a PUSH_PROMISE frame too short")
            }
            return .pushPromise(promisedStreamID: promised & 0x7fff_ffff, block: payload, endHeaders: flags & HTTP2Frame.Flags.endHeaders != 0)
        case .ping:
            try requireConnection(streamID, kind)
            guard length == 8, let opaque = payload.readInteger(as: UInt64.self) else {
                throw HTTP2ProtocolError(.frameSizeError, "a PING frame of \(length) bytes")
            }
            return .ping(opaque, ack: flags & HTTP2Frame.Flags.ack != 0)
        case .goAway:
            try requireConnection(streamID, kind)
            guard length >= 8, let last = payload.readInteger(as: UInt32.self), let code = payload.readInteger(as: UInt32.self) else {
                throw HTTP2ProtocolError(.frameSizeError, "a GOAWAY frame of \(length) bytes")
            }
            return .goAway(lastStreamID: last & 0x7fff_ffff, code: HTTP2ErrorCode(rawValue: code), debugData: payload)
        case .windowUpdate:
            guard length == 4, let raw = payload.readInteger(as: UInt32.self) else {
                throw HTTP2ProtocolError(.frameSizeError, "a WINDOW_UPDATE frame of \(length) bytes")
            }
            return .windowUpdate(increment: raw & 0x7fff_ffff)
        case .continuation:
            try requireStream(streamID, kind)
            return .continuation(block: payload, endHeaders: flags & HTTP2Frame.Flags.endHeaders != 0)
        }
    }

    private static func requireStream(_ streamID: UInt32, _ kind: HTTP2Frame.Kind) throws(HTTP2ProtocolError) {
        guard streamID != 0 else { throw HTTP2ProtocolError(.protocolError, "a \(kind) frame on stream 0") }
    }

    private static func requireConnection(_ streamID: UInt32, _ kind: HTTP2Frame.Kind) throws(HTTP2ProtocolError) {
        guard streamID == 0 else { throw HTTP2ProtocolError(.protocolError, "a \(kind) frame on stream \(streamID)") }
    }

    /// Section 6.1: the pad length byte, then the padding at the end, which must leave the
    /// payload a length of zero or more.
    /// Returns the bytes removed.
    private static func removePadding(_ payload: inout ByteBuffer, flags: UInt8) throws(HTTP2ProtocolError) -> Int {
        guard flags & HTTP2Frame.Flags.padded != 0 else { return 0 }
        guard let padLength = payload.readInteger(as: UInt8.self), Int(padLength) <= payload.readableBytes else {
            throw HTTP2ProtocolError(.protocolError, "padding as long as the frame")
        }
        payload = payload.getSlice(at: payload.readerIndex, length: payload.readableBytes - Int(padLength))!
        return Int(padLength) + 1
    }

    private static func readPriority(_ payload: inout ByteBuffer) -> HTTP2Priority? {
        guard let dependency = payload.readInteger(as: UInt32.self), let weight = payload.readInteger(as: UInt8.self) else { return nil }
        return HTTP2Priority(exclusive: dependency & 0x8000_0000 != 0, dependency: dependency & 0x7fff_ffff, weight: weight)
    }
}
