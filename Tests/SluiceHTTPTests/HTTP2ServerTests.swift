import Foundation
import NIOCore
import SluiceCore
import SluiceHTTP
import SluiceNet
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// HTTP/2 on the HTTP server over real loopback sockets, from the route's side: the same
/// middleware (logins) as HTTP/1.1, a streamed body's writer held by the client's window, and
/// its write failing once the client resets the stream or goes away, so the route stops. (The
/// client's side, with independent clients, is tests/e2e/test_http2.py.)
@Suite struct HTTP2ServerTests {
    /// What the endless route did: its completed writes, and how many times a write failed.
    final class Probe: Sendable {
        let writes = Atomic<Int>(0)
        let stops = Atomic<Int>(0)
    }

    static func router(_ probe: Probe) -> HTTPRouter {
        var router = HTTPRouterBuilder()
        router.add(middleware: HTTPServerTests.HeaderLogin())
        router.get("/me") { _, context in .text("user \(context.user?.name ?? "-")") }
        router.get("/endless") { _, _ in
            HTTPServerResponse(status: .ok, body: .stream { writer in
                do {
                    while true {
                        try await writer.write([UInt8](repeating: 0x61, count: 1000))
                        probe.writes.add(1, ordering: .relaxed)
                    }
                } catch {
                    probe.stops.add(1, ordering: .relaxed)
                    throw error
                }
            })
        }
        return router.build()
    }

    /// A blocking HTTP/2 client made of our own frame and HPACK codecs, on a plain socket
    /// (handed between threads, used by one at a time).
    final class Client: @unchecked Sendable {
        let fd: Int32
        var input = ByteBuffer()
        var decoder = HPACKDecoder()

        init(port: Int, window: UInt32 = 65_535, preface: Bool = true) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            // (Bounds a hang only: every read here waits for frames that come, which a loaded
            // machine running the whole suite may take seconds to send.)
            var timeout = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw SluiceError(.ioError, "connect failed") }
            guard preface else { return }
            var bytes = ByteBuffer(bytes: HTTP2Frame.clientPreface)
            HTTP2FrameEncoder.write(HTTP2Frame(streamID: 0, .settings([HTTP2Setting(HTTP2Setting.initialWindowSize, window)])), into: &bytes)
            send(bytes)
        }

        func close() { _ = Glibc.close(fd) }

        func send(_ bytes: ByteBuffer) {
            var sent = 0
            let all = Array(bytes.readableBytesView)
            while sent < all.count {
                let n = all[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { return }
                sent += n
            }
        }

        func send(_ frame: HTTP2Frame) {
            var bytes = ByteBuffer()
            HTTP2FrameEncoder.write(frame, into: &bytes)
            send(bytes)
        }

        func get(_ path: String, stream: UInt32, user: String?) {
            var block: [UInt8] = []
            var fields = [(":method", "GET"), (":scheme", "http"), (":path", path), (":authority", "localhost")]
            if let user { fields.append(("x-user", user)) }
            HPACKEncoder().encode(fields, into: &block)
            send(HTTP2Frame(streamID: stream, .headers(block: ByteBuffer(bytes: block), endStream: true, endHeaders: true, priority: nil)))
        }

        /// The next frame; nil when the server closed or went quiet for 5 s.
        func next() -> HTTP2Frame? {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                if let frame = try? HTTP2FrameDecoder(maximumFrameSize: 1 << 24).next(&input) { return frame }
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { return nil }
                input.writeBytes(buffer[0 ..< n])
            }
        }

        /// The status and body of `stream`'s answer, read to its end.
        func answer(_ stream: UInt32) -> (status: String, body: String)? {
            var status = ""
            var body: [UInt8] = []
            while let frame = next() {
                guard frame.streamID == stream else { continue }
                switch frame.payload {
                case .headers(let block, let endStream, _, _):
                    guard let list = try? decoder.decode(Array(block.readableBytesView)) else { return nil }
                    status = list.fields.first { $0.name == ":status" }?.value ?? ""
                    if endStream { return (status, "") }
                case .data(let data, let endStream, _):
                    body += data.readableBytesView
                    if endStream { return (status, String(decoding: body, as: UTF8.self)) }
                default:
                    continue
                }
            }
            return nil
        }

        /// Reads `stream`'s data until `count` bytes came.
        func readData(_ stream: UInt32, atLeast count: Int) -> Int {
            var total = 0
            while total < count, let frame = next() {
                if frame.streamID == stream, case .data(let data, _, _) = frame.payload { total += data.readableBytes }
            }
            return total
        }
    }

    /// Runs `body` on a thread of its own (blocking sockets stay off the cooperative pool).
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Polls `condition` every 10 ms for up to 10 s.
    static func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    static func withServer(_ probe: Probe, _ body: @escaping @Sendable (Int) throws -> Void) async throws {
        let server = BackgroundHTTPServer(host: "127.0.0.1", port: 0, router: router(probe), name: "test server")
        let port = try await server.start()
        do {
            try await onThread { try body(port) }
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test func middlewareRunsAsOverHTTP11() async throws {
        try await Self.withServer(Probe()) { port in
            let client = try Client(port: port, window: 65_535)
            defer { client.close() }
            client.get("/me", stream: 1, user: "bob")
            let known = client.answer(1)
            #expect(known?.status == "200" && known?.body == "user bob")
            client.get("/me", stream: 3, user: nil)
            let unknown = client.answer(3)
            #expect(unknown?.status == "401" && unknown?.body == "who are you?\n")
        }
    }

    @Test func theWindowHoldsTheWriterAndAResetStopsIt() async throws {
        let probe = Probe()
        try await Self.withServer(probe) { port in
            let client = try Client(port: port, window: 3000)
            defer { client.close() }
            client.get("/endless", stream: 1, user: "bob")
            #expect(client.readData(1, atLeast: 3000) == 3000)
            // Three writes fit the window; the fourth waits for it (its bytes partly sent).
            #expect(probe.writes.load(ordering: .relaxed) <= 3)
            client.send(HTTP2Frame(streamID: 1, .rstStream(.cancel)))
            #expect(Self.eventually { probe.stops.load(ordering: .relaxed) == 1 })
            // The connection goes on.
            client.get("/me", stream: 3, user: "ann")
            #expect(client.answer(3)?.body == "user ann")
        }
    }

    @Test func theStopSendsGoAway() async throws {
        let server = BackgroundHTTPServer(host: "127.0.0.1", port: 0, router: Self.router(Probe()), name: "test server")
        let port = try await server.start()
        let client = try await Self.onThread { () throws -> Client in
            let client = try Client(port: port, window: 65_535)
            client.get("/me", stream: 1, user: "bob")
            #expect(client.answer(1)?.body == "user bob")
            return client
        }
        await server.stop()
        let goAway = try await Self.onThread { () -> HTTP2Frame.Payload? in
            defer { client.close() }
            while let frame = client.next() {
                if case .goAway = frame.payload { return frame.payload }
            }
            return nil
        }
        #expect(goAway == .goAway(lastStreamID: 1, code: .noError, debugData: ByteBuffer()))
    }

    /// Mangled HTTP/2 byte streams on many connections: each ends (GOAWAY or the close) well
    /// before the client's 5 s wait, its answer starts with our SETTINGS, and a good request
    /// works after them.
    @Test func mangledConnectionsNeverTakeItDown() async throws {
        try await Self.withServer(Probe()) { port in
            var good = ByteBuffer(bytes: HTTP2Frame.clientPreface)
            HTTP2FrameEncoder.write(HTTP2Frame(streamID: 0, .settings([HTTP2Setting(HTTP2Setting.initialWindowSize, 100)])), into: &good)
            for (stream, path) in [(UInt32(1), "/me"), (3, "/endless"), (5, "/nowhere")] {
                var block: [UInt8] = []
                HPACKEncoder().encode([(":method", "GET"), (":scheme", "http"), (":path", path), ("x-user", "bob")], into: &block)
                HTTP2FrameEncoder.write(
                    HTTP2Frame(streamID: stream, .headers(block: ByteBuffer(bytes: block), endStream: true, endHeaders: true, priority: nil)), into: &good)
            }
            HTTP2FrameEncoder.write(HTTP2Frame(streamID: 0, .ping(1, ack: false)), into: &good)
            HTTP2FrameEncoder.write(HTTP2Frame(streamID: 3, .rstStream(.cancel)), into: &good)
            let seed = Array(good.readableBytesView)
            var generator = SplitMix64(seed: 2)
            for round in 0 ..< 150 {
                var bytes = seed
                for _ in 0 ..< Int.random(in: 1 ... 5, using: &generator) {
                    // The preface's first line stays, so the connection is HTTP/2's.
                    let index = Int.random(in: 16 ..< bytes.count, using: &generator)
                    switch Int.random(in: 0 ... 2, using: &generator) {
                    case 0: bytes[index] = UInt8.random(in: 0 ... 255, using: &generator)
                    case 1: bytes.remove(at: index)
                    default: bytes.insert(UInt8.random(in: 0 ... 255, using: &generator), at: index)
                    }
                }
                let started = ContinuousClock.now
                let client = try Client(port: port, preface: false)
                client.send(ByteBuffer(bytes: bytes))
                shutdown(client.fd, Int32(SHUT_WR))
                var frames: [HTTP2Frame] = []
                while let frame = client.next() { frames.append(frame) }
                client.close()
                #expect(ContinuousClock.now - started < .milliseconds(4500), "round \(round)")
                #expect(frames.first.map { if case .settings = $0.payload { true } else { false } } ?? true, "round \(round)")
            }
            let client = try Client(port: port, window: 65_535)
            defer { client.close() }
            client.get("/me", stream: 1, user: "still")
            #expect(client.answer(1)?.body == "user still")
        }
    }

    @Test func aDisconnectStopsTheWriter() async throws {
        let probe = Probe()
        try await Self.withServer(probe) { port in
            let client = try Client(port: port, window: 2000)
            client.get("/endless", stream: 1, user: "bob")
            #expect(client.readData(1, atLeast: 2000) == 2000)
            client.close()
            #expect(Self.eventually { probe.stops.load(ordering: .relaxed) == 1 })
        }
    }
}
