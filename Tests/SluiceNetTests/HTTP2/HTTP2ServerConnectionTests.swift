import NIOCore
import SluiceCore
import SluiceNet
import Testing

/// The server connection's protocol (RFC 9113) without I/O: requests handed over, answers
/// framed within the client's windows, the limits, the floods, and seeded fuzzing of mangled
/// frame streams and header blocks whose outcome is always a clean connection error or none.
@Suite struct HTTP2ServerConnectionTests {
    /// A client's bytes, frame by frame.
    struct Client {
        var bytes = ByteBuffer(bytes: HTTP2Frame.clientPreface)

        init(settings: [HTTP2Setting] = []) {
            add(HTTP2Frame(streamID: 0, .settings(settings)))
        }

        mutating func add(_ frame: HTTP2Frame, padding: UInt8? = nil) {
            HTTP2FrameEncoder.write(frame, padding: padding, into: &bytes)
        }

        mutating func request(
            _ streamID: UInt32, method: String = "GET", path: String = "/", extra: [(String, String)] = [], endStream: Bool = true
        ) {
            var block: [UInt8] = []
            HPACKEncoder().encode([(":method", method), (":scheme", "http"), (":path", path), (":authority", "example")] + extra, into: &block)
            // Past the default frame size, the rest goes in CONTINUATION frames.
            let size = 16_384
            add(HTTP2Frame(streamID: streamID, .headers(block: ByteBuffer(bytes: block.prefix(size)), endStream: endStream, endHeaders: block.count <= size, priority: nil)))
            var offset = size
            while offset < block.count {
                let end = min(block.count, offset + size)
                add(HTTP2Frame(streamID: streamID, .continuation(block: ByteBuffer(bytes: block[offset ..< end]), endHeaders: end == block.count)))
                offset = end
            }
        }
    }

    static func frames(_ output: ByteBuffer) -> [HTTP2Frame] {
        var input = output
        var frames: [HTTP2Frame] = []
        while let frame = try? HTTP2FrameDecoder(maximumFrameSize: 1 << 24).next(&input) { frames.append(frame) }
        return frames
    }

    static func requests(_ events: [HTTP2ServerEvent]) -> [HTTP2Request] {
        events.compactMap { if case .request(let request) = $0 { request } else { nil } }
    }

    static func connectionError(_ events: [HTTP2ServerEvent]) -> HTTP2ProtocolError? {
        events.lazy.compactMap { if case .connectionError(let error) = $0 { error } else { nil } }.first
    }

    static func goAwayCode(_ output: ByteBuffer) -> HTTP2ErrorCode? {
        frames(output).lazy.compactMap { if case .goAway(_, let code, _) = $0.payload { code } else { nil } }.last
    }

    @Test func requestsAreHandedOverWithTheirHeads() {
        var connection = HTTP2ServerConnection(configuration: HTTP2ServerConfiguration())
        var client = Client()
        client.request(1, path: "/health?x=1", extra: [("accept", "*/*")])
        let events = connection.read(&client.bytes)
        let requests = Self.requests(events)
        #expect(requests.count == 1)
        #expect(requests.first?.method == "GET")
        #expect(requests.first?.path == "/health?x=1")
        #expect(requests.first?.headers.map { "\($0.name)=\($0.value)" } == ["host=example", "accept=*/*"])
        let output = Self.frames(connection.takeOutput())
        #expect(output.first.map { if case .settings = $0.payload { true } else { false } } == true)
        #expect(output.contains { $0.payload == .settingsAck })
    }

    @Test func bodiesGatherAndAnswersRespectTheWindows() throws {
        var connection = HTTP2ServerConnection(configuration: HTTP2ServerConfiguration())
        var client = Client(settings: [HTTP2Setting(HTTP2Setting.initialWindowSize, 100)])
        client.request(1, method: "POST", endStream: false)
        client.add(HTTP2Frame(streamID: 1, .data(ByteBuffer(string: "hello "), endStream: false)), padding: 3)
        client.add(HTTP2Frame(streamID: 1, .data(ByteBuffer(string: "world"), endStream: true)))
        let readEvents = connection.read(&client.bytes)
        let request = try #require(Self.requests(readEvents).first)
        #expect(request.body == Array("hello world".utf8))
        _ = connection.takeOutput()

        let headed = connection.sendHeaders(streamID: 1, fields: [(":status", "200")], endStream: false)
        #expect(headed)
        let body = [UInt8](repeating: 7, count: 250)
        let first = connection.sendData(streamID: 1, body[...], endStream: true)
        #expect(first == 100)
        #expect(connection.sendableBytes(streamID: 1) == 0)
        var update = ByteBuffer()
        HTTP2FrameEncoder.write(HTTP2Frame(streamID: 1, .windowUpdate(increment: 1000)), into: &update)
        let events = connection.read(&update)
        #expect(events.contains { if case .windowOpened = $0 { true } else { false } })
        let second = connection.sendData(streamID: 1, body[100...], endStream: true)
        #expect(second == 150)
        // Whole: the stream closed.
        #expect(connection.sendableBytes(streamID: 1) == nil)
        let sent = Self.frames(connection.takeOutput()).compactMap { frame -> Int? in
            if case .data(let bytes, _, _) = frame.payload { bytes.readableBytes } else { nil }
        }
        #expect(sent.reduce(0, +) == 250)
    }

    @Test func bodiesPastTheBoundAreMarked() throws {
        var configuration = HTTP2ServerConfiguration()
        configuration.maximumBodyBytes = 8
        var connection = HTTP2ServerConnection(configuration: configuration)
        var client = Client()
        client.request(1, method: "POST", endStream: false)
        client.add(HTTP2Frame(streamID: 1, .data(ByteBuffer(string: "0123456789"), endStream: false)))
        let readEvents = connection.read(&client.bytes)
        let request = try #require(Self.requests(readEvents).first)
        #expect(request.bodyTooLarge)
        // The answer ends our side; the client may finish its body (dropped), its window reopened.
        _ = connection.takeOutput()
        connection.sendHeaders(streamID: 1, fields: [(":status", "413")], endStream: true)
        let answer = Self.frames(connection.takeOutput())
        #expect(answer.contains { $0.streamID == 1 && $0.payload == .windowUpdate(increment: 10) })
        #expect(!answer.contains { if case .rstStream = $0.payload { true } else { false } })
        var rest = ByteBuffer()
        for index in 0 ..< 4 {
            HTTP2FrameEncoder.write(HTTP2Frame(streamID: 1, .data(ByteBuffer(repeating: 1, count: 15_000), endStream: index == 3)), into: &rest)
        }
        let restEvents = connection.read(&rest)
        #expect(Self.connectionError(restEvents) == nil)
        #expect(connection.openStreamCount == 0)
    }

    @Test func unfinishedBodiesAreBoundedPerConnection() {
        var configuration = HTTP2ServerConfiguration()
        configuration.maximumBodyBytes = 10_000
        configuration.maximumBufferedBodyBytes = 25_000
        var connection = HTTP2ServerConnection(configuration: configuration)
        var client = Client()
        for index in 0 ..< 4 {
            let streamID = UInt32(2 * index + 1)
            client.request(streamID, method: "POST", endStream: false)
            client.add(HTTP2Frame(streamID: streamID, .data(ByteBuffer(repeating: 1, count: 8_000), endStream: false)))
        }
        let events = connection.read(&client.bytes)
        #expect(Self.connectionError(events) == nil)
        let output = connection.takeOutput()
        // Three bodies of 8,000 bytes fit in 25,000; the fourth stream is refused.
        #expect(Self.frames(output).filter { $0.payload == .rstStream(.refusedStream) }.map(\.streamID) == [7])
        #expect(connection.openStreamCount == 3)
    }

    @Test func streamsPastTheLimitAreRefused() {
        var connection = HTTP2ServerConnection(configuration: HTTP2ServerConfiguration())
        var client = Client()
        for index in 0 ..< 101 { client.request(UInt32(2 * index + 1), endStream: false) }
        let limitEvents = connection.read(&client.bytes)
        #expect(Self.connectionError(limitEvents) == nil)
        #expect(connection.openStreamCount == 100)
        let refused = connection.takeOutput()
        #expect(Self.frames(refused).contains { $0.streamID == 201 && $0.payload == .rstStream(.refusedStream) })
    }

    @Test func aResetStreamIsReported() {
        var connection = HTTP2ServerConnection(configuration: HTTP2ServerConfiguration())
        var client = Client()
        client.request(1)
        client.add(HTTP2Frame(streamID: 1, .rstStream(.cancel)))
        let events = connection.read(&client.bytes)
        #expect(events.contains { if case .streamClosed(1) = $0 { true } else { false } })
        let headed = connection.sendHeaders(streamID: 1, fields: [(":status", "200")], endStream: true)
        #expect(!headed)
    }

    @Test func headersOnAClosedStreamResetIt() {
        var connection = HTTP2ServerConnection(configuration: HTTP2ServerConfiguration())
        var client = Client()
        client.request(5)
        client.request(3, extra: [("x-late", "trailer")])
        client.request(7)
        let events = connection.read(&client.bytes)
        #expect(Self.connectionError(events) == nil)
        #expect(Self.requests(events).map(\.streamID) == [5, 7])
        let output = connection.takeOutput()
        #expect(Self.frames(output).contains { $0.streamID == 3 && $0.payload == .rstStream(.streamClosed) })
    }

    @Test func headerListsPastTheBoundAreAnswered431() {
        var connection = HTTP2ServerConnection(configuration: HTTP2ServerConfiguration())
        var client = Client()
        client.request(1, extra: (0 ..< 40).map { ("x-big-\($0)", String(repeating: "v", count: 2000)) })
        client.request(3)
        let events = connection.read(&client.bytes)
        #expect(Self.requests(events).map(\.streamID) == [3])
        let output = connection.takeOutput()
        let answers = Self.frames(output).filter { $0.streamID == 1 }
        #expect(answers.count == 1)
    }

    static func errorCode(_ build: (inout Client) -> Void, configuration: HTTP2ServerConfiguration = HTTP2ServerConfiguration()) -> HTTP2ErrorCode? {
        var connection = HTTP2ServerConnection(configuration: configuration)
        var client = Client()
        build(&client)
        let error = Self.connectionError(connection.read(&client.bytes))
        let output = connection.takeOutput()
        #expect(error?.code == Self.goAwayCode(output))
        return error?.code
    }

    @Test func protocolErrorsEndTheConnectionWithGoAway() {
        var badPreface = HTTP2ServerConnection(configuration: HTTP2ServerConfiguration())
        var bytes = ByteBuffer(string: "PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n")
        let prefaceEvents = badPreface.read(&bytes)
        #expect(Self.connectionError(prefaceEvents)?.code == .protocolError)
        let prefaceOutput = badPreface.takeOutput()
        #expect(Self.goAwayCode(prefaceOutput) == .protocolError)

        // Even stream ids, decreasing ids, DATA on an idle stream, PUSH_PROMISE, a frame inside
        // a header block, HPACK garbage, oversized frames, windows past 2^31 - 1.
        #expect(Self.errorCode { $0.request(2) } == .protocolError)
        // (A lower id than the last is a closed stream's: reset, and the connection goes on.)
        #expect(Self.errorCode { $0.request(5); $0.request(3) } == nil)
        #expect(Self.errorCode { $0.add(HTTP2Frame(streamID: 9, .data(ByteBuffer(), endStream: true))) } == .protocolError)
        #expect(Self.errorCode { $0.add(HTTP2Frame(streamID: 1, .pushPromise(promisedStreamID: 2, block: ByteBuffer(), endHeaders: true))) } == .protocolError)
        #expect(
            Self.errorCode {
                $0.add(HTTP2Frame(streamID: 1, .headers(block: ByteBuffer(bytes: [0x82]), endStream: true, endHeaders: false, priority: nil)))
                $0.add(HTTP2Frame(streamID: 0, .ping(1, ack: false)))
            } == .protocolError)
        #expect(
            Self.errorCode {
                $0.add(HTTP2Frame(streamID: 1, .headers(block: ByteBuffer(bytes: [0xff, 0xff, 0xff]), endStream: true, endHeaders: true, priority: nil)))
            } == .compressionError)
        #expect(Self.errorCode { $0.bytes.writeBytes([0, 0x40, 1, 0, 0, 0, 0, 0, 1]) } == .frameSizeError)
        #expect(Self.errorCode { $0.add(HTTP2Frame(streamID: 0, .windowUpdate(increment: 0x7fff_ffff))) } == .flowControlError)
        #expect(Self.errorCode { $0.add(HTTP2Frame(streamID: 0, .settings([HTTP2Setting(HTTP2Setting.maxFrameSize, 10)]))) } == .protocolError)
        // A client that starts with anything but SETTINGS.
        var noSettings = HTTP2ServerConnection(configuration: HTTP2ServerConfiguration())
        var ping = ByteBuffer(bytes: HTTP2Frame.clientPreface)
        HTTP2FrameEncoder.write(HTTP2Frame(streamID: 0, .ping(1, ack: false)), into: &ping)
        let pingEvents = noSettings.read(&ping)
        #expect(Self.connectionError(pingEvents)?.code == .protocolError)
    }

    @Test func floodsAreCut() {
        #expect(Self.errorCode { for index in 0 ..< 20_000 { $0.add(HTTP2Frame(streamID: 0, .ping(UInt64(index), ack: false))) } } == .enhanceYourCalm)
        #expect(Self.errorCode { for _ in 0 ..< 20_000 { $0.add(HTTP2Frame(streamID: 0, .settings([]))) } } == .enhanceYourCalm)
        #expect(
            Self.errorCode {
                $0.request(1, endStream: false)
                for _ in 0 ..< 20_000 { $0.add(HTTP2Frame(streamID: 1, .data(ByteBuffer(), endStream: false))) }
            } == .enhanceYourCalm)
        #expect(
            Self.errorCode {
                $0.add(HTTP2Frame(streamID: 1, .headers(block: ByteBuffer(bytes: [0x82]), endStream: true, endHeaders: false, priority: nil)))
                for _ in 0 ..< 200 { $0.add(HTTP2Frame(streamID: 1, .continuation(block: ByteBuffer(repeating: 0x40, count: 1000), endHeaders: false))) }
            } == .enhanceYourCalm)
    }

    @Test func budgetsStartOverEachPeriod() {
        var connection = HTTP2ServerConnection(configuration: HTTP2ServerConfiguration())
        var client = Client()
        for period in 0 ..< 3 {
            for index in 0 ..< 9_000 { client.add(HTTP2Frame(streamID: 0, .ping(UInt64(period * 10_000 + index), ack: false))) }
            let events = connection.read(&client.bytes)
            #expect(Self.connectionError(events) == nil, "period \(period)")
            _ = connection.takeOutput()
            connection.budgetPeriodEnded()
            client.bytes.clear()
        }
    }

    @Test func rapidResetsAreCut() {
        #expect(
            Self.errorCode {
                for index in 0 ..< 1500 {
                    let streamID = UInt32(2 * index + 1)
                    $0.request(streamID)
                    $0.add(HTTP2Frame(streamID: streamID, .rstStream(.cancel)))
                }
            } == .enhanceYourCalm)
        // A client that resets now and then is fine.
        #expect(
            Self.errorCode {
                for index in 0 ..< 3000 {
                    let streamID = UInt32(2 * index + 1)
                    $0.request(streamID, endStream: false)
                    if index % 4 == 0 { $0.add(HTTP2Frame(streamID: streamID, .rstStream(.cancel))) } else {
                        $0.add(HTTP2Frame(streamID: streamID, .data(ByteBuffer(string: "x"), endStream: true)))
                    }
                }
            } == nil)
    }

    /// Valid client streams, mangled at random and fed in random pieces: never a crash, and a
    /// connection error always leaves GOAWAY as the last frame written.
    @Test func mangledFrameStreamsEndCleanly() {
        var generator = SplitMix64(seed: 9113)
        var seeds: [ByteBuffer] = []
        var client = Client(settings: [HTTP2Setting(HTTP2Setting.initialWindowSize, 10), HTTP2Setting(HTTP2Setting.maxFrameSize, 20_000)])
        client.request(1, method: "POST", endStream: false)
        client.add(HTTP2Frame(streamID: 1, .data(ByteBuffer(string: "body bytes"), endStream: false)), padding: 5)
        client.add(HTTP2Frame(streamID: 1, .headers(block: ByteBuffer(bytes: [0x40, 1, 0x61, 1, 0x62]), endStream: true, endHeaders: true, priority: nil)))
        client.add(HTTP2Frame(streamID: 0, .ping(9, ack: false)))
        client.request(3, extra: [("x-one", "1")])
        client.add(HTTP2Frame(streamID: 3, .windowUpdate(increment: 5)))
        client.add(HTTP2Frame(streamID: 3, .rstStream(.cancel)))
        client.add(HTTP2Frame(streamID: 5, .priority(HTTP2Priority(exclusive: true, dependency: 3, weight: 1))))
        var split = [UInt8]()
        HPACKEncoder().encode([(":method", "GET"), (":scheme", "http"), (":path", "/a/long/path/for/continuation")], into: &split)
        client.add(HTTP2Frame(streamID: 7, .headers(block: ByteBuffer(bytes: split[..<5]), endStream: true, endHeaders: false, priority: nil)))
        client.add(HTTP2Frame(streamID: 7, .continuation(block: ByteBuffer(bytes: split[5...]), endHeaders: true)))
        client.add(HTTP2Frame(streamID: 0, .goAway(lastStreamID: 0, code: .noError, debugData: ByteBuffer())))
        seeds.append(client.bytes)

        for round in 0 ..< 3000 {
            var bytes = Array(seeds[round % seeds.count].readableBytesView)
            for _ in 0 ..< Int.random(in: 1 ... 6, using: &generator) {
                let position = Int.random(in: 0 ..< bytes.count, using: &generator)
                switch Int.random(in: 0 ..< 4, using: &generator) {
                case 0: bytes[position] = UInt8.random(in: 0 ... 255, using: &generator)
                case 1: bytes.remove(at: position)
                case 2: bytes.insert(UInt8.random(in: 0 ... 255, using: &generator), at: position)
                default: bytes[position] ^= 1 << UInt8.random(in: 0 ..< 8, using: &generator)
                }
            }
            var connection = HTTP2ServerConnection(configuration: HTTP2ServerConfiguration())
            var offset = 0
            var failure: HTTP2ProtocolError?
            var input = ByteBuffer()
            while offset < bytes.count {
                let piece = Int.random(in: 1 ... 64, using: &generator)
                input.writeBytes(bytes[offset ..< min(bytes.count, offset + piece)])
                offset += piece
                let events = connection.read(&input)
                for case .request(let request) in events {
                    // Answer as a route would: the windows decide how much goes.
                    connection.sendHeaders(streamID: request.streamID, fields: [(":status", "200")], endStream: false)
                    _ = connection.sendData(streamID: request.streamID, [UInt8](repeating: 1, count: 40)[...], endStream: true)
                }
                if let error = Self.connectionError(events) { failure = error }
            }
            let written = Self.frames(connection.takeOutput())
            if let failure {
                guard case .goAway(_, let code, _) = written.last?.payload else {
                    Issue.record("round \(round): \(failure) without GOAWAY last")
                    return
                }
                #expect(code == failure.code)
            }
        }
    }

    /// Random and mangled header blocks: decoded or refused, never a trap.
    @Test func mangledHeaderBlocksDecodeOrFail() {
        var generator = SplitMix64(seed: 7541)
        var valid: [UInt8] = []
        HPACKEncoder().encode([(":method", "POST"), (":path", "/query-stream"), ("content-type", "application/vnd.ksqlapi.delimited.v1")], into: &valid)
        valid += [0x40, 0x03, 0x61, 0x62, 0x63, 0x83, 0xc6, 0x73, 0x7f, 0xbe, 0x3f, 0xe1, 0x1f]
        var decoded = 0
        for round in 0 ..< 5000 {
            var block = round % 2 == 0 ? valid : (0 ..< Int.random(in: 0 ..< 40, using: &generator)).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
            if round % 2 == 0 && !block.isEmpty {
                for _ in 0 ..< Int.random(in: 1 ... 4, using: &generator) {
                    block[Int.random(in: 0 ..< block.count, using: &generator)] = UInt8.random(in: 0 ... 255, using: &generator)
                }
            }
            var decoder = HPACKDecoder(maximumTableSize: Int.random(in: 0 ... 4096, using: &generator))
            if (try? decoder.decode(block, maximumListSize: 256)) != nil { decoded += 1 }
            #expect(decoder.dynamicTableSize <= decoder.maximumTableSize)
        }
        #expect(decoded > 0)
    }
}
