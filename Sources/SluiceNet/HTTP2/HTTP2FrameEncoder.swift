import NIOCore

/// Writes frames (RFC 9113 Section 4.1); the caller keeps each payload within the peer's
/// SETTINGS_MAX_FRAME_SIZE.
package enum HTTP2FrameEncoder {
    /// Appends `frame` to `buffer`, with `padding` bytes of padding for the types that have it.
    package static func write(_ frame: HTTP2Frame, padding: UInt8? = nil, into buffer: inout ByteBuffer) {
        let headerIndex = buffer.writerIndex
        buffer.writeRepeatingByte(0, count: HTTP2Frame.headerLength)
        let payloadStart = buffer.writerIndex
        var flags: UInt8 = 0
        var type: HTTP2Frame.Kind
        var padded = false
        switch frame.payload {
        case .data(let bytes, let endStream, _):
            type = .data
            if endStream { flags |= HTTP2Frame.Flags.endStream }
            padded = writePadLength(padding, into: &buffer)
            buffer.writeImmutableBuffer(bytes)
        case .headers(let block, let endStream, let endHeaders, let priority):
            type = .headers
            if endStream { flags |= HTTP2Frame.Flags.endStream }
            if endHeaders { flags |= HTTP2Frame.Flags.endHeaders }
            padded = writePadLength(padding, into: &buffer)
            if let priority {
                flags |= HTTP2Frame.Flags.priority
                writePriority(priority, into: &buffer)
            }
            buffer.writeImmutableBuffer(block)
        case .priority(let priority):
            type = .priority
            writePriority(priority, into: &buffer)
        case .rstStream(let code):
            type = .rstStream
            buffer.writeInteger(code.rawValue)
        case .settings(let settings):
            type = .settings
            for setting in settings {
                buffer.writeInteger(setting.identifier)
                buffer.writeInteger(setting.value)
            }
        case .settingsAck:
            type = .settings
            flags |= HTTP2Frame.Flags.ack
        case .pushPromise(let promised, let block, let endHeaders):
            type = .pushPromise
            if endHeaders { flags |= HTTP2Frame.Flags.endHeaders }
            padded = writePadLength(padding, into: &buffer)
            buffer.writeInteger(promised & 0x7fff_ffff)
            buffer.writeImmutableBuffer(block)
        case .ping(let opaque, let ack):
            type = .ping
            if ack { flags |= HTTP2Frame.Flags.ack }
            buffer.writeInteger(opaque)
        case .goAway(let last, let code, let debugData):
            type = .goAway
            buffer.writeInteger(last & 0x7fff_ffff)
            buffer.writeInteger(code.rawValue)
            buffer.writeImmutableBuffer(debugData)
        case .windowUpdate(let increment):
            type = .windowUpdate
            buffer.writeInteger(increment & 0x7fff_ffff)
        case .continuation(let block, let endHeaders):
            type = .continuation
            if endHeaders { flags |= HTTP2Frame.Flags.endHeaders }
            buffer.writeImmutableBuffer(block)
        case .unknown(let unknownType, let unknownFlags, let payload):
            type = .data
            buffer.writeImmutableBuffer(payload)
            let length = buffer.writerIndex - payloadStart
            writeHeader(length: length, type: unknownType, flags: unknownFlags, streamID: frame.streamID, at: headerIndex, into: &buffer)
            return
        }
        if padded, let padding {
            flags |= HTTP2Frame.Flags.padded
            buffer.writeRepeatingByte(0, count: Int(padding))
        }
        let length = buffer.writerIndex - payloadStart
        writeHeader(length: length, type: type.rawValue, flags: flags, streamID: frame.streamID, at: headerIndex, into: &buffer)
    }

    /// Appends a DATA frame holding `bytes` (copied once, straight from the caller's array).
    package static func writeData(streamID: UInt32, _ bytes: ArraySlice<UInt8>, endStream: Bool, into buffer: inout ByteBuffer) {
        let headerIndex = buffer.writerIndex
        buffer.writeRepeatingByte(0, count: HTTP2Frame.headerLength)
        buffer.writeBytes(bytes)
        writeHeader(
            length: bytes.count, type: HTTP2Frame.Kind.data.rawValue, flags: endStream ? HTTP2Frame.Flags.endStream : 0, streamID: streamID,
            at: headerIndex, into: &buffer)
    }

    private static func writePadLength(_ padding: UInt8?, into buffer: inout ByteBuffer) -> Bool {
        guard let padding else { return false }
        buffer.writeInteger(padding)
        return true
    }

    private static func writePriority(_ priority: HTTP2Priority, into buffer: inout ByteBuffer) {
        buffer.writeInteger((priority.dependency & 0x7fff_ffff) | (priority.exclusive ? 0x8000_0000 : 0))
        buffer.writeInteger(priority.weight)
    }

    private static func writeHeader(length: Int, type: UInt8, flags: UInt8, streamID: UInt32, at index: Int, into buffer: inout ByteBuffer) {
        buffer.setInteger(UInt8(truncatingIfNeeded: length >> 16), at: index)
        buffer.setInteger(UInt16(truncatingIfNeeded: length), at: index + 1)
        buffer.setInteger(type, at: index + 3)
        buffer.setInteger(flags, at: index + 4)
        buffer.setInteger(streamID & 0x7fff_ffff, at: index + 5)
    }
}
