#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal blocking Postgres client over a plain socket, for end-to-end tests.
///
/// Reads time out after 120 s so a broken server fails the test instead of hanging it. The
/// reads block the calling thread, one of Swift concurrency's few (one per core): while the test
/// waits here, the server's session tasks run on the others, which in a full `swift test` run
/// are often busy with long tests of other suites for more than 10 s. So the bound is generous.
final class RawPGClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let descriptor: Int32
    private var received: [UInt8] = []

    init(port: Int) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(description: "socket() failed") }
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            throw Failure(description: "connect() failed")
        }
    }

    deinit { close(descriptor) }

    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    /// Reads more bytes; false at end of stream or timeout.
    private func receiveMore() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        received += chunk[..<count]
        return true
    }

    /// Reads one raw byte (the answer to SSLRequest).
    func readByte() throws -> UInt8 {
        while received.isEmpty {
            guard receiveMore() else { throw Failure(description: "connection closed") }
        }
        return received.removeFirst()
    }

    /// Reads messages up to and including the first of type `type`.
    func readMessages(through type: Character) throws -> [RawBackendMessage] {
        var messages: [RawBackendMessage] = []
        while true {
            let complete = RawBackendMessage.split(received)
            for message in complete {
                messages.append(message)
                received.removeFirst(5 + message.body.count)
                if message.type == type { return messages }
            }
            guard receiveMore() else { throw Failure(description: "closed before \(type); got \(messages)") }
        }
    }

    /// Reads until the server closes; returns the bytes that arrived.
    func readUntilClosed() -> [UInt8] {
        while receiveMore() {}
        defer { received = [] }
        return received
    }

    /// Starts a session as `user` on `database` and returns everything up to ReadyForQuery.
    func startup(user: String = "root", database: String = "dev") throws -> [RawBackendMessage] {
        send(FrontendBytes.startup([("user", user), ("database", database), ("application_name", "raw")]))
        return try readMessages(through: "Z")
    }
}
