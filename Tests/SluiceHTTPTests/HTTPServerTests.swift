import Foundation
import NIOCore
import SluiceCore
import SluiceHTTP
import SluiceNet
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The HTTP server and its router, over real loopback sockets: routes by specificity, path
/// parameters, fallback and 404; middleware and groups; bodies within and over the bound (413,
/// then the connection closes); pipelined kept-alive requests answered in order; HEAD; streamed
/// answers; a throwing route; a malformed request (400); the stop; and random bytes, which never
/// take the server down.
@Suite struct HTTPServerTests {
    /// Lets a request through only with `x-user: <name>`; `admin` is a superuser.
    struct HeaderLogin: HTTPMiddleware {
        func handle(_ request: HTTPServerRequest, context: HTTPRequestContext, next: HTTPRouteHandler) async throws -> HTTPServerResponse {
            guard let name = request.headers.first(name: "x-user") else { return .text("who are you?\n", status: .unauthorized) }
            var context = context
            context.user = HTTPUser(name: name, superuser: name == "admin")
            return try await next(request, context)
        }
    }

    struct Failure: Error {}

    static func router() -> HTTPRouter {
        var router = HTTPRouterBuilder()
        router.get("/open") { _, _ in .text("open") }
        router.add(middleware: HeaderLogin())
        router.get("/a/b") { _, _ in .text("literal") }
        router.get("/a/:name") { _, context in .text("parameter \(context.parameters["name"] ?? "?")") }
        router.get("/a/:name/c") { _, context in .text("deeper \(context.parameters["name"] ?? "?")") }
        router.get("/files/**") { request, _ in .text("wildcard \(request.path)") }
        router.get("/me") { _, context in .text("user \(context.user?.name ?? "-")") }
        router.post("/echo") { request, _ in
            guard !request.bodyTooLarge else { return .text("too large\n", status: .payloadTooLarge) }
            return HTTPServerResponse(status: .ok, contentType: "application/octet-stream", bytes: request.body)
        }
        router.on("/echo", method: .HEAD) { _, _ in .text("headers only") }
        router.get("/n/:number") { _, context in .text(context.parameters["number"] ?? "") }
        router.get("/stream") { _, _ in
            HTTPServerResponse(status: .ok, body: .stream { writer in
                for part in ["one,", "two,", "three"] { try await writer.write(Array(part.utf8)) }
            })
        }
        router.get("/throws") { _, _ in throw Failure() }
        router.group(SuperuserMiddleware { .text("superusers only\n", status: .forbidden) }) { group in
            group.get("/admin") { _, context in .text("welcome \(context.user?.name ?? "-")") }
        }
        return router.build()
    }

    static func withServer(maximumBodyBytes: Int = 100, fallback: Bool = false, _ body: (Int) async throws -> Void) async throws {
        var router = router()
        if fallback {
            var builder = HTTPRouterBuilder()
            builder.get("/x") { _, _ in .text("x") }
            builder.addFallback { request, _ in .text("fallback \(request.method.rawValue) \(request.path)") }
            router = builder.build()
        }
        let server = BackgroundHTTPServer(host: "127.0.0.1", port: 0, router: router, name: "test server", maximumBodyBytes: maximumBodyBytes)
        let port = try await server.start()
        do {
            try await body(port)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    static func get(_ port: Int, _ path: String, method: String = "GET", headers: [(name: String, value: String)] = [("x-user", "bob")], body: [UInt8]? = nil)
        async throws -> HTTPClientResponse
    {
        let client = HTTPClient()
        defer { client.shutdown() }
        return try await client.execute(try HTTPClientRequest(method: method, url: "http://127.0.0.1:\(port)\(path)", headers: headers, body: body))
    }

    /// Sends `bytes` on a new connection and reads until the server closes it (or 5 s pass),
    /// on a thread of its own: a blocking socket on the concurrency pool's two threads would
    /// starve the server's routes, which run there.
    static func raw(_ port: Int, _ bytes: [UInt8], closeWrite: Bool = false) async throws -> String {
        try await timedRaw(port, bytes, closeWrite: closeWrite).answer
    }

    /// As ``raw(_:_:closeWrite:)``, with how long the exchange took on its own thread (from the
    /// connect to the close): what the server took, not how long the test's task waited for a
    /// thread of the pool, which other suites' work may hold for a while.
    static func timedRaw(_ port: Int, _ bytes: [UInt8], closeWrite: Bool = false) async throws -> (answer: String, took: Duration) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let started = ContinuousClock.now
                    let answer = try blockingRaw(port, bytes, closeWrite: closeWrite)
                    return (answer, ContinuousClock.now - started)
                })
            }
        }
    }

    /// Runs blocking socket work on a thread of its own, not the cooperative pool's.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    /// A connection that sent `GET /me` and read its whole answer, left open: its socket and the answer.
    static func answeredKeptAlive(_ port: Int) throws -> (Int32, String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw SluiceError(.ioError, "connect failed")
        }
        let request = Array("GET /me HTTP/1.1\r\nHost: x\r\nx-user: bob\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            received += buffer[0 ..< n]
            let text = String(decoding: received, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            let length = text[..<end.lowerBound].lowercased().components(separatedBy: "\r\n")
                .first { $0.hasPrefix("content-length:") }.flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
            if received.count - text[..<end.upperBound].utf8.count >= length { break }
        }
        return (fd, String(decoding: received, as: UTF8.self))
    }

    static func blockingRaw(_ port: Int, _ bytes: [UInt8], closeWrite: Bool) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw SluiceError(.ioError, "connect failed") }
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            sent += n
        }
        if closeWrite { shutdown(fd, Int32(SHUT_WR)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += buffer[0 ..< n]
        }
        return String(decoding: received, as: UTF8.self)
    }

    @Test func routesBySpecificityWithParametersAndWildcards() async throws {
        try await Self.withServer { (port: Int) async throws in
            #expect(try await Self.get(port, "/a/b").body == Array("literal".utf8))
            #expect(try await Self.get(port, "/a/zed").body == Array("parameter zed".utf8))
            #expect(try await Self.get(port, "/a/zed/c").body == Array("deeper zed".utf8))
            #expect(try await Self.get(port, "/files/x/y/z.txt").body == Array("wildcard /files/x/y/z.txt".utf8))
            // Not decoded: the route sees the path as sent; the query is apart.
            #expect(try await Self.get(port, "/a/x%2Fy?q=1").body == Array("parameter x%2Fy".utf8))
            let missing = try await Self.get(port, "/nothing/here")
            #expect(missing.status == 404)
            #expect(try await Self.get(port, "/a/b", method: "DELETE").status == 404)
        }
        try await Self.withServer(fallback: true) { (port: Int) async throws in
            #expect(try await Self.get(port, "/x").body == Array("x".utf8))
            #expect(try await Self.get(port, "/y/z", method: "PUT").body == Array("fallback PUT /y/z".utf8))
            #expect(try await Self.get(port, "/").body == Array("fallback GET /".utf8))
        }
    }

    @Test func middlewareRunsInOrderAndGroupsAddTheirOwn() async throws {
        try await Self.withServer { (port: Int) async throws in
            // Added before the login middleware: open.
            #expect(try await Self.get(port, "/open", headers: []).status == 200)
            #expect(try await Self.get(port, "/me", headers: []).status == 401)
            #expect(try await Self.get(port, "/me").body == Array("user bob".utf8))
            #expect(try await Self.get(port, "/admin").status == 403)
            #expect(try await Self.get(port, "/admin", headers: [("x-user", "admin")]).body == Array("welcome admin".utf8))
            #expect(try await Self.get(port, "/admin", headers: []).status == 401)
        }
    }

    @Test func bodiesWithinTheBoundAndOverIt() async throws {
        try await Self.withServer(maximumBodyBytes: 100) { (port: Int) async throws in
            let small = Array(repeating: UInt8(ascii: "a"), count: 100)
            #expect(try await Self.get(port, "/echo", method: "POST", body: small).body == small)
            #expect(try await Self.get(port, "/echo", method: "POST", body: []).body == [])
            // Over the bound: 413, and the connection closes without reading the rest.
            let big = Array(repeating: UInt8(ascii: "b"), count: 1_000_000)
            let head = "POST /echo HTTP/1.1\r\nHost: x\r\nx-user: bob\r\nContent-Length: \(big.count)\r\n\r\n"
            let answer = try await Self.raw(port, Array(head.utf8) + big[0 ..< 1000])
            #expect(answer.hasPrefix("HTTP/1.1 413"))
            #expect(answer.lowercased().contains("connection: close"))
            // The server still serves.
            #expect(try await Self.get(port, "/me").status == 200)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await Self.withServer { (port: Int) async throws in
            var requests = ""
            for number in 1 ... 20 { requests += "GET /n/\(number) HTTP/1.1\r\nHost: x\r\nx-user: bob\r\n\r\n" }
            requests += "GET /n/last HTTP/1.1\r\nHost: x\r\nx-user: bob\r\nConnection: close\r\n\r\n"
            let answer = try await Self.raw(port, Array(requests.utf8))
            let bodies = answer.components(separatedBy: "\r\n\r\n").dropFirst().map { $0.components(separatedBy: "HTTP/1.1").first ?? "" }
            #expect(bodies == (1 ... 20).map(String.init) + ["last"])
            #expect(answer.components(separatedBy: "HTTP/1.1 200 OK").count == 22)
        }
    }

    @Test func headStreamAndFailures() async throws {
        try await Self.withServer { (port: Int) async throws in
            let head = try await Self.raw(port, Array("HEAD /echo HTTP/1.1\r\nHost: x\r\nx-user: bob\r\nConnection: close\r\n\r\n".utf8))
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(head.lowercased().contains("content-length: 12"))
            #expect(head.hasSuffix("\r\n\r\n"))
            let streamed = try await Self.get(port, "/stream")
            #expect(streamed.status == 200)
            #expect(streamed.body == Array("one,two,three".utf8))
            #expect(streamed.header("transfer-encoding")?.lowercased() == "chunked")
            #expect(try await Self.get(port, "/throws").status == 500)
            // A request NIO's parser refuses: 400, the connection closes (well before the 5 s
            // the raw client waits), and the server goes on.
            let (bad, took) = try await Self.timedRaw(port, Array("GARBAGE\r\n\r\n".utf8))
            #expect(bad.hasPrefix("HTTP/1.1 400"))
            #expect(took < .seconds(4))
            #expect(try await Self.get(port, "/me").status == 200)
        }
    }

    @Test func stopClosesTheListenerAndItsConnections() async throws {
        let server = BackgroundHTTPServer(host: "127.0.0.1", port: 0, router: Self.router(), name: "test server")
        let port = try await server.start()
        #expect(server.port == port)
        // A kept-alive connection, answered and then idle, ends when the server stops (its answer
        // is read before the stop: the stop is not raced against the request).
        let kept = try await Self.onThread { () throws -> (Int32, String) in try Self.answeredKeptAlive(port) }
        #expect(kept.1.hasPrefix("HTTP/1.1 200"))
        #expect(try await Self.get(port, "/me").status == 200)
        await server.stop()
        let closed = try await Self.onThread { () throws -> Int in
            defer { close(kept.0) }
            var buffer = [UInt8](repeating: 0, count: 1024)
            return recv(kept.0, &buffer, buffer.count, 0)
        }
        #expect(closed == 0, "the idle connection was closed by the stop")
        await #expect(throws: (any Error).self) { try await Self.raw(port, Array("GET / HTTP/1.1\r\n\r\n".utf8)) }
        // A second server takes the port again.
        let again = BackgroundHTTPServer(host: "127.0.0.1", port: port, router: Self.router(), name: "test server")
        #expect(try await again.start() == port)
        await again.stop()
    }

    /// Random bytes and mangled requests on many connections: each gets an answer or a close,
    /// never a hang or a crash, and a good request works after them.
    @Test func randomBytesNeverTakeItDown() async throws {
        try await Self.withServer(maximumBodyBytes: 1000) { (port: Int) async throws in
            var generator = SeededGenerator(seed: 43)
            let good = Array("POST /echo HTTP/1.1\r\nHost: x\r\nx-user: bob\r\nContent-Length: 5\r\n\r\nhello".utf8)
            for round in 0 ..< 200 {
                var bytes: [UInt8]
                if round % 2 == 0 {
                    bytes = (0 ..< Int.random(in: 1 ... 300, using: &generator)).map { _ in UInt8.random(in: 0 ... 255, using: &generator) }
                } else {
                    bytes = good
                    for _ in 0 ..< Int.random(in: 1 ... 8, using: &generator) {
                        let index = Int.random(in: 0 ..< bytes.count, using: &generator)
                        switch Int.random(in: 0 ... 2, using: &generator) {
                        case 0: bytes[index] = UInt8.random(in: 0 ... 255, using: &generator)
                        case 1: bytes.remove(at: index)
                        default: bytes.insert(contentsOf: Array(repeating: bytes[index], count: Int.random(in: 1 ... 50, using: &generator)), at: index)
                        }
                    }
                }
                let (answer, took) = try await Self.timedRaw(port, bytes, closeWrite: true)
                #expect(answer.isEmpty || answer.hasPrefix("HTTP/1."), "round \(round)")
                // Answered or closed: the raw client did not wait out its 5 s.
                #expect(took < .milliseconds(4500), "round \(round)")
            }
            #expect(try await Self.get(port, "/echo", method: "POST", body: Array("still here".utf8)).body == Array("still here".utf8))
        }
    }
}

/// A small deterministic generator (SplitMix64), so a failing round can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
