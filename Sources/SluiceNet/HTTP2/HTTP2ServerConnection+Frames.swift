import NIOCore

extension HTTP2ServerConnection {
    /// One frame read: Section 6's rules for each type, Section 5.1's for the stream states.
    mutating func received(_ frame: HTTP2Frame, events: inout [HTTP2ServerEvent]) throws(HTTP2ProtocolError) {
        // Section 3.4: the client's preface ends with a SETTINGS frame.
        if !sawFirstSettings {
            guard case .settings = frame.payload else {
                throw HTTP2ProtocolError(.protocolError, "the preface was not followed by SETTINGS")
            }
            sawFirstSettings = true
        }
        // Section 6.10: a header block is only ever followed by its CONTINUATION frames.
        if let block = pendingBlock {
            guard case .continuation(let fragment, let endHeaders) = frame.payload, frame.streamID == block.streamID else {
                throw HTTP2ProtocolError(.protocolError, "a frame inside the header block of stream \(block.streamID)")
            }
            if fragment.readableBytes == 0 && !endHeaders { try countControlFrame() }
            try appendFragment(fragment)
            if endHeaders { try headerBlockEnded(events: &events) }
            return
        }
        switch frame.payload {
        case .data(let data, let endStream, let padding):
            try receivedData(data, endStream: endStream, padding: padding, streamID: frame.streamID, events: &events)
        case .headers(let block, let endStream, let endHeaders, let priority):
            try receivedHeaders(block, endStream: endStream, endHeaders: endHeaders, priority: priority, streamID: frame.streamID, events: &events)
        case .priority(let priority):
            try countControlFrame()
            if priority.dependency == frame.streamID {
                try resetStream(frame.streamID, .protocolError, events: &events)
            }
        case .rstStream:
            try countControlFrame()
            guard frame.streamID <= highestStreamID else {
                throw HTTP2ProtocolError(.protocolError, "RST_STREAM on idle stream \(frame.streamID)")
            }
            if let stream = streams.removeValue(forKey: frame.streamID) {
                if stream.isHandedOver { events.append(.streamClosed(frame.streamID)) }
                // Streams opened only to be reset make routes start and stop for nothing
                // (the "rapid reset" attack): past a thousand, when most streams end so, the
                // connection goes.
                streamsResetByClient += 1
                if streamsResetByClient > 1000 && 2 * streamsResetByClient > streamsOpened {
                    throw HTTP2ProtocolError(.enhanceYourCalm, "too many streams reset by the client")
                }
            }
        case .settings(let settings):
            try countControlFrame()
            try apply(settings, events: &events)
            write(HTTP2Frame(streamID: 0, .settingsAck))
        case .settingsAck:
            break
        case .pushPromise:
            throw HTTP2ProtocolError(.protocolError, "a client sent PUSH_PROMISE")
        case .ping(let opaque, let ack):
            try countControlFrame()
            if !ack { write(HTTP2Frame(streamID: 0, .ping(opaque, ack: true))) }
        case .goAway:
            goAwayReceived = true
            events.append(.goAwayReceived)
        case .windowUpdate(let increment):
            try receivedWindowUpdate(increment, streamID: frame.streamID, events: &events)
        case .continuation:
            throw HTTP2ProtocolError(.protocolError, "CONTINUATION without a header block")
        case .unknown:
            try countControlFrame()
        }
    }

    /// Section 6.5.2: the client's settings, applied in order.
    private mutating func apply(_ settings: [HTTP2Setting], events: inout [HTTP2ServerEvent]) throws(HTTP2ProtocolError) {
        for setting in settings {
            switch setting.identifier {
            case HTTP2Setting.enablePush:
                guard setting.value <= 1 else { throw HTTP2ProtocolError(.protocolError, "SETTINGS_ENABLE_PUSH of \(setting.value)") }
            case HTTP2Setting.initialWindowSize:
                guard setting.value <= 0x7fff_ffff else {
                    throw HTTP2ProtocolError(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE of \(setting.value)")
                }
                // Section 6.9.2: every stream's window moves by the difference.
                let delta = Int(setting.value) - peerInitialWindowSize
                peerInitialWindowSize = Int(setting.value)
                for streamID in streams.keys {
                    streams[streamID]!.sendWindow += delta
                    guard streams[streamID]!.sendWindow <= 0x7fff_ffff else {
                        throw HTTP2ProtocolError(.flowControlError, "a stream's window past 2^31 - 1")
                    }
                }
                if delta > 0 { events.append(.windowOpened) }
            case HTTP2Setting.maxFrameSize:
                guard setting.value >= 16_384 && setting.value <= 16_777_215 else {
                    throw HTTP2ProtocolError(.protocolError, "SETTINGS_MAX_FRAME_SIZE of \(setting.value)")
                }
                peerMaximumFrameSize = Int(setting.value)
            default:
                // The header table size (our encoder keeps no table), the client's stream
                // limit (we push nothing), its header list size (advisory) and unknown ones.
                break
            }
        }
    }

    private mutating func receivedWindowUpdate(_ increment: UInt32, streamID: UInt32, events: inout [HTTP2ServerEvent]) throws(HTTP2ProtocolError) {
        if streamID == 0 {
            guard increment > 0 else { throw HTTP2ProtocolError(.protocolError, "a WINDOW_UPDATE of 0 for the connection") }
            connectionSendWindow += Int(increment)
            guard connectionSendWindow <= 0x7fff_ffff else {
                throw HTTP2ProtocolError(.flowControlError, "the connection's window past 2^31 - 1")
            }
            events.append(.windowOpened)
            return
        }
        guard streamID <= highestStreamID else {
            throw HTTP2ProtocolError(.protocolError, "WINDOW_UPDATE on idle stream \(streamID)")
        }
        // A closed stream's updates may still be in flight: ignored.
        guard streams[streamID] != nil else { return }
        guard increment > 0 else {
            try resetStream(streamID, .protocolError, events: &events)
            return
        }
        streams[streamID]!.sendWindow += Int(increment)
        if streams[streamID]!.sendWindow > 0x7fff_ffff {
            try resetStream(streamID, .flowControlError, events: &events)
            return
        }
        events.append(.windowOpened)
    }

    private mutating func receivedData(_ data: ByteBuffer, endStream: Bool, padding: Int, streamID: UInt32, events: inout [HTTP2ServerEvent]) throws(HTTP2ProtocolError) {
        guard streamID <= highestStreamID else { throw HTTP2ProtocolError(.protocolError, "DATA on idle stream \(streamID)") }
        if data.readableBytes == 0 && !endStream { try countControlFrame() }
        // Section 6.9: the whole payload, padding included, counts against the connection's
        // window whatever its stream.
        let length = data.readableBytes + padding
        guard length <= connectionReceiveWindow else {
            throw HTTP2ProtocolError(.flowControlError, "DATA past the connection's window")
        }
        connectionReceiveWindow -= length
        connectionReceivedUnacknowledged += length
        if connectionReceivedUnacknowledged >= configuration.connectionWindowSize / 2 {
            write(HTTP2Frame(streamID: 0, .windowUpdate(increment: UInt32(connectionReceivedUnacknowledged))))
            connectionReceiveWindow += connectionReceivedUnacknowledged
            connectionReceivedUnacknowledged = 0
        }
        guard var stream = streams[streamID] else {
            // Closed: frames in flight when it closed are dropped (Section 5.1).
            try countControlFrame()
            return
        }
        guard stream.isRemoteOpen, stream.hasHead else {
            try resetStream(streamID, .streamClosed, events: &events)
            return
        }
        guard length <= stream.receiveWindow else {
            try resetStream(streamID, .flowControlError, events: &events)
            return
        }
        stream.receiveWindow -= length
        stream.bodyLength += data.readableBytes
        var opensWindow = false
        if var request = stream.request, !request.bodyTooLarge {
            if request.body.count + data.readableBytes > configuration.maximumBodyBytes {
                // Handed over now, marked: the route answers 413; the rest is not kept.
                request.bodyTooLarge = true
                stream.request = nil
                stream.isHandedOver = true
                events.append(.request(request))
            } else if bufferedBodyBytes() + data.readableBytes > configuration.maximumBufferedBodyBytes {
                // The connection's streams hold too much unfinished body between them: this one
                // is refused (nothing of it ran), so many parallel uploads cannot pile up memory.
                streams[streamID] = stream
                try resetStream(streamID, .refusedStream, events: &events)
                return
            } else {
                data.withUnsafeReadableBytes { request.body.append(contentsOf: $0) }
                stream.request = request
                opensWindow = true
            }
        } else if !stream.isLocalOpen {
            // Answered already (413, 431): the rest is read and dropped, so that a client that
            // sends its whole body before it reads (httpx does) gets the answer; up to a bound.
            stream.discardedBytes += length
            guard stream.discardedBytes <= max(16 << 20, configuration.maximumBodyBytes) else {
                streams[streamID] = stream
                try resetStream(streamID, .noError, events: &events)
                return
            }
            opensWindow = true
        }
        if opensWindow {
            stream.receivedUnacknowledged += length
            if stream.receivedUnacknowledged >= streamReceiveWindowSize / 2 && !endStream {
                write(HTTP2Frame(streamID: streamID, .windowUpdate(increment: UInt32(stream.receivedUnacknowledged))))
                stream.receiveWindow += stream.receivedUnacknowledged
                stream.receivedUnacknowledged = 0
            }
        }
        streams[streamID] = stream
        if endStream { try requestEnded(streamID, events: &events) }
    }

    /// The bodies held for requests not yet handed over (at most a hundred streams to add up).
    private func bufferedBodyBytes() -> Int {
        streams.values.reduce(0) { $0 + ($1.request?.body.count ?? 0) }
    }

    private mutating func receivedHeaders(
        _ block: ByteBuffer, endStream: Bool, endHeaders: Bool, priority: HTTP2Priority?, streamID: UInt32, events: inout [HTTP2ServerEvent]
    ) throws(HTTP2ProtocolError) {
        guard streamID & 1 == 1 else { throw HTTP2ProtocolError(.protocolError, "HEADERS on even stream \(streamID)") }
        // Section 5.1.1: a new stream's id is above every earlier one; one below is a closed
        // stream's (trailers sent before the client saw our RST_STREAM, say): its block is still
        // decoded, to keep the table in step, and the stream reset.
        let opensStream = streams[streamID] == nil && streamID > highestStreamID
        if opensStream {
            highestStreamID = streamID
            streamsOpened += 1
        }
        pendingBlock = PendingBlock(streamID: streamID, bytes: [], endStream: endStream, opensStream: opensStream)
        try appendFragment(block)
        if endHeaders { try headerBlockEnded(events: &events) }
        if let priority, priority.dependency == streamID, streams[streamID] != nil {
            try resetStream(streamID, .protocolError, events: &events)
        }
    }

    /// A fragment of the header block; the block is bounded (against endless CONTINUATION).
    private mutating func appendFragment(_ fragment: ByteBuffer) throws(HTTP2ProtocolError) {
        guard pendingBlock!.bytes.count + fragment.readableBytes <= 2 * configuration.maximumHeaderListSize else {
            throw HTTP2ProtocolError(.enhanceYourCalm, "a header block past \(2 * configuration.maximumHeaderListSize) bytes")
        }
        fragment.withUnsafeReadableBytes { pendingBlock!.bytes.append(contentsOf: $0) }
    }

    /// A whole header block: decoded (always, to keep the table in step), then a request's
    /// head, its trailers (ignored), or a refusal.
    private mutating func headerBlockEnded(events: inout [HTTP2ServerEvent]) throws(HTTP2ProtocolError) {
        let block = pendingBlock!
        pendingBlock = nil
        let list: HPACKHeaderList
        do throws(HPACKError) {
            list = try headerDecoder.decode(block.bytes, maximumListSize: configuration.maximumHeaderListSize)
        } catch {
            throw HTTP2ProtocolError(.compressionError, "a header block that cannot be decoded: \(error)")
        }
        let streamID = block.streamID
        if !block.opensStream && streams[streamID] == nil {
            try resetStream(streamID, .streamClosed, events: &events)
            return
        }
        if var stream = streams[streamID] {
            // Trailers (Section 8.1): they end the request; their fields are not used.
            guard stream.isRemoteOpen else {
                try resetStream(streamID, .streamClosed, events: &events)
                return
            }
            guard block.endStream else {
                try resetStream(streamID, .protocolError, events: &events)
                return
            }
            stream.hasHead = true
            streams[streamID] = stream
            try requestEnded(streamID, events: &events)
            return
        }
        guard !goAwaySent, streams.count < configuration.maximumConcurrentStreams else {
            write(HTTP2Frame(streamID: streamID, .rstStream(.refusedStream)))
            return
        }
        var stream = HTTP2Stream(sendWindow: peerInitialWindowSize, receiveWindow: streamReceiveWindowSize)
        stream.hasHead = true
        if list.isTooLarge {
            // Section 10.5.1: answered 431; whatever else the client sends on it is dropped.
            stream.isRemoteOpen = !block.endStream
            streams[streamID] = stream
            _ = sendHeaders(streamID: streamID, fields: [(":status", "431"), ("content-length", "0")], endStream: true)
            return
        }
        guard let request = Self.request(streamID: streamID, list.fields) else {
            // Section 8.1.1: a malformed request is a stream error.
            write(HTTP2Frame(streamID: streamID, .rstStream(.protocolError)))
            return
        }
        stream.declaredLength = request.headers.first { $0.name == "content-length" }.flatMap { Int($0.value) }
        stream.request = request
        streams[streamID] = stream
        if block.endStream { try requestEnded(streamID, events: &events) }
    }

    /// END_STREAM from the client: the request is whole and goes to the owner (unless it went
    /// already, too large).
    private mutating func requestEnded(_ streamID: UInt32, events: inout [HTTP2ServerEvent]) throws(HTTP2ProtocolError) {
        guard var stream = streams[streamID] else { return }
        stream.isRemoteOpen = false
        if let declared = stream.declaredLength, declared != stream.bodyLength, stream.request != nil {
            streams[streamID] = stream
            try resetStream(streamID, .protocolError, events: &events)
            return
        }
        if let request = stream.request {
            stream.request = nil
            stream.isHandedOver = true
            events.append(.request(request))
        }
        if stream.isLocalOpen {
            streams[streamID] = stream
        } else {
            streams[streamID] = nil
        }
    }

    /// Section 8.3.1: the pseudo-fields first (`:method`, `:scheme`, `:path`, and `:authority`
    /// optional), each once; names lower-case; no connection-specific fields. Nil when malformed.
    static func request(streamID: UInt32, _ fields: [(name: String, value: String)]) -> HTTP2Request? {
        var method: String?
        var scheme: String?
        var path: String?
        var authority: String?
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(fields.count)
        for (name, value) in fields {
            if name.utf8.first == UInt8(ascii: ":") {
                guard headers.isEmpty else { return nil }
                switch name {
                case ":method" where method == nil: method = value
                case ":scheme" where scheme == nil: scheme = value
                case ":path" where path == nil: path = value
                case ":authority" where authority == nil: authority = value
                default: return nil
                }
                continue
            }
            guard !name.isEmpty, !name.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return nil }
            switch name {
            case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade": return nil
            case "te" where value != "trailers": return nil
            default: headers.append((name, value))
            }
        }
        guard let method, let path, !path.isEmpty, scheme != nil else { return nil }
        if let authority, !headers.contains(where: { $0.name == "host" }) {
            headers.insert(("host", authority), at: 0)
        }
        return HTTP2Request(streamID: streamID, method: method, path: path, headers: headers, body: [], bodyTooLarge: false)
    }
}
