import Foundation
import NIOCore
import NIOPosix
import SluiceCore
import SluiceNet
import Synchronization
import Testing

@Suite struct HTTPClientTests {
    @Test func urlsSplitAsARequestNeedsThem() throws {
        let url = try HTTPURL("https://user:pw@Example.com:8443/a/b?x=1#frag")
        #expect(url.isSecure && url.host == "Example.com" && url.port == 8443 && url.target == "/a/b?x=1")
        #expect(url.hostHeader == "Example.com:8443")
        #expect(try HTTPURL("http://127.0.0.1").target == "/")
        #expect(try HTTPURL("http://h?q=1").target == "/?q=1")
        #expect(try HTTPURL("http://[::1]:9000/p").host == "::1")
        #expect(try HTTPURL("http://[::1]:9000/p").hostHeader == "[::1]:9000")
        #expect(try HTTPURL("https://s3.amazonaws.com/k").absoluteString == "https://s3.amazonaws.com/k")
        for bad in ["ftp://h/", "h/x", "http://", "http://h:0/", "http://h:99999/", "http://h:x/", "http://[::1/"] {
            #expect(throws: HTTPClientError.invalidURL(bad)) { try HTTPURL(bad) }
        }
    }

    @Test func requestsAndAnswersCarryHeadersAndBodies() async throws {
        let server = try await TestHTTPServer { request in
            let echoed = request.headers.first { $0.0.lowercased() == "x-test" }?.1 ?? "none"
            return (201, [("X-Echo", echoed), ("X-Method", request.method), ("X-Uri", request.uri)], request.body.reversed())
        }
        let client = HTTPClient()
        defer { client.shutdown() }
        let body = Array("hello, sluice".utf8)
        let response = try await client.execute(
            HTTPClientRequest(method: "PUT", url: "http://127.0.0.1:\(server.port)/a%20b?x=1", headers: [("X-Test", "42")], body: body))
        #expect(response.status == 201)
        #expect(response.header("x-echo") == "42" && response.header("X-METHOD") == "PUT" && response.header("x-uri") == "/a%20b?x=1")
        #expect(response.body == body.reversed())
        // A HEAD answer has a length but no body.
        let head = try await client.execute(HTTPClientRequest(method: "HEAD", url: "http://127.0.0.1:\(server.port)/"))
        #expect(head.status == 201 && head.body.isEmpty)
        try await server.stop()
    }

    @Test func keptConnectionsCarryTheNextRequests() async throws {
        let server = try await TestHTTPServer { _ in (200, [], Array("ok".utf8)) }
        let client = HTTPClient()
        defer { client.shutdown() }
        for _ in 0 ..< 20 {
            let response = try await client.execute(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(server.port)/"))
            #expect(response.body == Array("ok".utf8))
        }
        #expect(server.accepted == 1)
        // An answer that says Connection: close is the connection's last.
        let closing = try await TestHTTPServer { _ in (200, [("Connection", "close")], []) }
        for _ in 0 ..< 3 { _ = try await client.execute(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(closing.port)/")) }
        #expect(closing.accepted == 3)
        try await server.stop()
        try await closing.stop()
    }

    @Test func failuresAreNamed() async throws {
        // Nothing listens: the connection is refused.
        let unused = try await TestHTTPServer { _ in nil }
        let port = unused.port
        try await unused.stop()
        let client = HTTPClient(configuration: .init(connectTimeout: .seconds(2), readTimeout: .milliseconds(300), maximumBodyBytes: 1000))
        defer { client.shutdown() }
        await #expect {
            _ = try await client.execute(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(port)/"))
        } throws: { error in
            if case HTTPClientError.connectFailed = error { return true }
            return false
        }
        // A server that never answers: the read timeout.
        let silent = try await TestHTTPServer { _ in nil }
        await #expect(throws: HTTPClientError.timedOut) {
            _ = try await client.execute(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(silent.port)/"))
        }
        // A deadline ends the request long before a minute's read timeout would.
        let patient = HTTPClient(configuration: .init(readTimeout: .seconds(60)))
        defer { patient.shutdown() }
        let started = ContinuousClock.now
        await #expect(throws: HTTPClientError.timedOut) {
            _ = try await patient.execute(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(silent.port)/"), timeout: .milliseconds(100))
        }
        #expect(ContinuousClock.now - started < .seconds(30))
        // An answer longer than the bound.
        let large = try await TestHTTPServer { _ in (200, [], [UInt8](repeating: 7, count: 5000)) }
        await #expect(throws: HTTPClientError.responseTooLarge(limit: 1000)) {
            _ = try await client.execute(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(large.port)/"))
        }
        // After a failure the client still serves.
        let fine = try await TestHTTPServer { _ in (204, [], []) }
        #expect(try await client.execute(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(fine.port)/")).status == 204)
        client.shutdown()
        await #expect(throws: HTTPClientError.shutDown) {
            _ = try await client.execute(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(fine.port)/"))
        }
        for server in [silent, large, fine] { try await server.stop() }
    }

    @Test func httpsIsCheckedAgainstTheTrustedRoots() async throws {
        let certificates = try TestCertificates.make()
        let serverTLS = try TLSContext.server(certificateChainFile: certificates.certificateFile, privateKeyFile: certificates.keyFile)
        let server = try await TestHTTPServer(tls: serverTLS) { request in (200, [], request.body + Array(" back".utf8)) }
        var trusting = HTTPClient.Configuration()
        trusting.tls = try TLSContext.client(trustedRootsFile: certificates.caFile)
        let client = HTTPClient(configuration: trusting)
        defer { client.shutdown() }
        // A body larger than one TLS record, both ways, by name and by address.
        let body = (0 ..< 100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for host in ["localhost", "127.0.0.1"] {
            let response = try await client.execute(HTTPClientRequest(method: "POST", url: "https://\(host):\(server.port)/x", body: body))
            #expect(response.status == 200 && response.body == body + Array(" back".utf8))
        }
        // The system's roots do not know the test authority.
        let untrusting = HTTPClient()
        defer { untrusting.shutdown() }
        await #expect {
            _ = try await untrusting.execute(HTTPClientRequest(method: "GET", url: "https://localhost:\(server.port)/"))
        } throws: { error in
            guard case HTTPClientError.tls(let message) = error else { return false }
            return message.contains("certificate")
        }
        // Plain HTTP to a TLS port gets no answer it can read.
        await #expect(throws: HTTPClientError.self) {
            _ = try await client.execute(HTTPClientRequest(method: "GET", url: "http://127.0.0.1:\(server.port)/"), timeout: .seconds(5))
        }
        try await server.stop()
    }
}
