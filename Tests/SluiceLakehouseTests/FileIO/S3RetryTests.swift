import Foundation
import Synchronization
import SluiceCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

@testable import SluiceLakehouse
@testable import SluiceLakehouseClients

/// A loopback HTTP server that answers each connection from a script of canned responses
/// (then repeats the last), counting the requests, to test the client's retries.
final class ScriptedHTTPServer: Sendable {
    let port: Int
    private let listener: Int32
    private let requests = RequestCounter()

    var requestCount: Int { requests.count.withLock { $0 } }

    init(responses: [(status: String, body: String)]) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0 && listen(listener, 16) == 0
            }
        }
        guard listening else { throw SluiceError(.ioError, "could not listen on loopback") }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.listener = listener
        let requests = self.requests
        Thread.detachNewThread {
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else {
                    // Shut down by stop(). The descriptor is closed here, after the last accept:
                    // closed while this thread could still accept on it, its number could be
                    // reused by another test's server, whose connections this one would answer.
                    close(listener)
                    return
                }
                // Read the request head (and ignore any body: the client sends none here).
                var head: [UInt8] = []
                var byte: UInt8 = 0
                while !head.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)), read(connection, &byte, 1) == 1 { head.append(byte) }
                let index = requests.count.withLock { count -> Int in
                    count += 1
                    return count - 1
                }
                let (status, body) = responses[min(index, responses.count - 1)]
                let answer = "HTTP/1.1 \(status)\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
                _ = answer.withCString { write(connection, $0, strlen($0)) }
                close(connection)
            }
        }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }
}

final class RequestCounter: Sendable {
    let count = Mutex(0)
}

@Suite struct S3RetryTests {
    static let slowDown = (status: "503 Slow Down", body: "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>")

    func read(from server: ScriptedHTTPServer, attempts: Int = 4) throws -> [UInt8] {
        var config = S3Config(endpoint: "http://127.0.0.1:\(server.port)", accessKeyID: "a", secretAccessKey: "b")
        config.retry = S3RetryPolicy(maxAttempts: attempts, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50))
        let io = try S3FileIO(config: config)
        defer { try? io.shutdown() }
        return try io.read("s3://bucket/key")
    }

    @Test func serverErrorsAreRetriedUntilSuccess() throws {
        let server = try ScriptedHTTPServer(responses: [Self.slowDown, ("500 Internal Server Error", ""), ("200 OK", "payload")])
        defer { server.stop() }
        #expect(try read(from: server) == Array("payload".utf8))
        #expect(server.requestCount == 3)
    }

    @Test func retriesAreBounded() throws {
        let server = try ScriptedHTTPServer(responses: [Self.slowDown])
        defer { server.stop() }
        #expect { try read(from: server) } throws: { error in
            let error = error as? SluiceError
            return error?.code == .ioError && error?.message.contains("SlowDown") == true && error?.message.contains("GetObject on s3://bucket/key") == true
        }
        #expect(server.requestCount == 4)
    }

    @Test func clientErrorsAreNotRetried() throws {
        let server = try ScriptedHTTPServer(responses: [("403 Forbidden", "<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>")])
        defer { server.stop() }
        #expect { try read(from: server) } throws: { error in
            let error = error as? SluiceError
            return error?.code == .invalidAuthorizationSpecification && error?.message.contains("AccessDenied") == true
        }
        #expect(server.requestCount == 1)
    }
}
