import NIOCore

extension HTTP2ServerConnection {
    /// Frames an answer's head on `streamID`: HEADERS, and CONTINUATION past the client's
    /// frame size. False when the stream is gone (reset, or the connection failed).
    @discardableResult
    package mutating func sendHeaders(streamID: UInt32, fields: [(String, String)], endStream: Bool) -> Bool {
        guard !failed, let stream = streams[streamID], stream.isLocalOpen else { return false }
        var block: [UInt8] = []
        headerEncoder.encode(fields, into: &block)
        var offset = 0
        repeat {
            let end = min(block.count, offset + peerMaximumFrameSize)
            var fragment = ByteBuffer()
            fragment.writeBytes(block[offset ..< end])
            let isLast = end == block.count
            if offset == 0 {
                write(HTTP2Frame(streamID: streamID, .headers(block: fragment, endStream: endStream, endHeaders: isLast, priority: nil)))
            } else {
                write(HTTP2Frame(streamID: streamID, .continuation(block: fragment, endHeaders: isLast)))
            }
            offset = end
        } while offset < block.count
        if endStream { localEnded(streamID) }
        return true
    }

    /// How many bytes of data `streamID` may send now: the smaller of its window and the
    /// connection's (nil when the stream is gone).
    package func sendableBytes(streamID: UInt32) -> Int? {
        guard !failed, let stream = streams[streamID], stream.isLocalOpen else { return nil }
        return max(0, min(stream.sendWindow, connectionSendWindow))
    }

    /// Frames as much of `bytes` on `streamID` as the windows allow, in frames no longer than
    /// the client's maximum; with END_STREAM on the last when `endStream` and all of it fit.
    /// Returns the bytes framed, nil when the stream is gone.
    package mutating func sendData(streamID: UInt32, _ bytes: ArraySlice<UInt8>, endStream: Bool) -> Int? {
        guard let sendable = sendableBytes(streamID: streamID) else { return nil }
        let count = min(bytes.count, sendable)
        var offset = 0
        repeat {
            let length = min(count - offset, peerMaximumFrameSize)
            let isLast = offset + length == bytes.count
            // An empty frame only to end the stream.
            if length == 0 && !(isLast && endStream) { break }
            HTTP2FrameEncoder.writeData(
                streamID: streamID, bytes[bytes.startIndex + offset ..< bytes.startIndex + offset + length], endStream: isLast && endStream,
                into: &output)
            offset += length
        } while offset < count
        streams[streamID]!.sendWindow -= count
        connectionSendWindow -= count
        if count == bytes.count && endStream { localEnded(streamID) }
        return count
    }

    /// Resets `streamID` from our side (its answer failed): RST_STREAM with `code`.
    package mutating func cancelStream(_ streamID: UInt32, code: HTTP2ErrorCode = .internalError) {
        guard !failed, streams.removeValue(forKey: streamID) != nil else { return }
        write(HTTP2Frame(streamID: streamID, .rstStream(code)))
    }

    /// We sent END_STREAM: the stream closes, or waits half-closed for the client's end. An
    /// answer that ended before its request did (413, say) reopens the stream's window, so
    /// that the client can finish sending (what it sends is dropped): clients that read only
    /// after sending get the answer (Section 8.1 allows RST_STREAM NO_ERROR instead, which
    /// some clients take for a failure).
    private mutating func localEnded(_ streamID: UInt32) {
        guard var stream = streams[streamID] else { return }
        stream.isLocalOpen = false
        guard stream.isRemoteOpen else {
            streams[streamID] = nil
            return
        }
        let increment = streamReceiveWindowSize - stream.receiveWindow
        if increment > 0 {
            write(HTTP2Frame(streamID: streamID, .windowUpdate(increment: UInt32(increment))))
            stream.receiveWindow += increment
            stream.receivedUnacknowledged = 0
        }
        streams[streamID] = stream
    }
}
