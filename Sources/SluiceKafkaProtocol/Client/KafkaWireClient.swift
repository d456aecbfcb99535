#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// A minimal blocking Kafka client over one TCP connection, for the command-line tools, the
/// broker benchmark and a Kafka sink's producer (``KafkaBatchProducer``): it negotiates versions
/// with ApiVersions and sends requests in order, several in flight if asked.
package final class KafkaWireClient {
    private let socket: Int32
    private var correlationID: Int32 = 0
    private var versions: [KafkaAPI: Int16] = [:]
    /// Correlation ids of requests sent whose responses are not read yet, oldest first.
    private var inFlight: [Int32] = []
    private var outgoing = ByteBufferAllocator().buffer(capacity: 1024)
    package let clientID = "sluice-cli"

    /// Connects to `host:port` and negotiates API versions. With a `timeout`, a send or a read
    /// that waits longer than it fails (the broker is gone or stalled).
    package init(host: String, port: Int, timeout: Duration? = nil) throws(KafkaWireError) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var results: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &results) == 0, let first = results else {
            throw KafkaWireError("cannot resolve \(host)")
        }
        defer { freeaddrinfo(results) }
        var connected: Int32 = -1
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            let fd = Glibc.socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if fd >= 0 {
                // Linux bounds connect() by the send timeout too.
                if let timeout { Self.setTimeouts(timeout, on: fd) }
                if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                    connected = fd
                    break
                }
                close(fd)
            }
            entry = info.pointee.ai_next
        }
        guard connected >= 0 else { throw KafkaWireError("cannot connect to \(host):\(port)") }
        socket = connected
        var noDelay: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        let offered = try send(ApiVersionsRequest(clientSoftwareName: "sluice", clientSoftwareVersion: "0"), version: 0)
        for range in offered.apiKeys {
            guard let api = KafkaAPI(rawValue: range.apiKey) else { continue }
            let version = min(range.maxVersion, api.maximumVersion)
            if version >= max(range.minVersion, api.minimumVersion) { versions[api] = version }
        }
    }

    /// A connection to `address` ("host:port").
    package convenience init(address: String, timeout: Duration? = nil) throws(KafkaWireError) {
        guard let (host, port) = KafkaBatchProducer.hostAndPort(address) else { throw KafkaWireError("bad broker address \(address)") }
        try self.init(host: host, port: port, timeout: timeout)
    }

    /// A connection to the first of `brokers` that answers.
    package static func first(of brokers: [(host: String, port: Int)], timeout: Duration? = nil) throws(KafkaWireError) -> KafkaWireClient {
        var lastError: KafkaWireError?
        for (host, port) in brokers {
            do {
                return try KafkaWireClient(host: host, port: port, timeout: timeout)
            } catch {
                lastError = error
            }
        }
        throw lastError ?? KafkaWireError("no broker to connect to")
    }

    deinit {
        close(socket)
    }

    private static func setTimeouts(_ timeout: Duration, on socket: Int32) {
        let (seconds, attoseconds) = timeout.components
        var limit = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Requests sent whose responses are not read yet.
    package var requestsInFlight: Int { inFlight.count }

    /// The version this client speaks for `api` with this broker.
    package func version(of api: KafkaAPI) throws(KafkaWireError) -> Int16 {
        guard let version = versions[api] else { throw KafkaWireError("the broker does not serve \(api.name)") }
        return version
    }

    /// Sends `request` at the negotiated version and waits for its response.
    package func send<Request: KafkaRequest>(_ request: Request) throws(KafkaWireError) -> Request.Response {
        try send(request, version: try version(of: Request.api))
    }

    package func send<Request: KafkaRequest>(_ request: Request, version: Int16) throws(KafkaWireError) -> Request.Response {
        try sendWithoutResponse(request, version: version)
        return try receive(Request.self, version: version)
    }

    /// Sends a request without waiting for its response: a request the broker does not answer
    /// (Produce with acks=0), or one of several in flight, whose responses ``receive(_:)`` reads
    /// in the order they were sent. The version is the negotiated one unless given.
    package func sendWithoutResponse<Request: KafkaRequest>(
        _ request: Request, version: Int16? = nil, expectsResponse: Bool = true
    ) throws(KafkaWireError) {
        let resolved: Int16
        if let version { resolved = version } else { resolved = try self.version(of: Request.api) }
        correlationID &+= 1
        if expectsResponse { inFlight.append(correlationID) }
        // One buffer serves every request, so large ones are not regrown each time.
        outgoing.clear()
        request.writeFrame(to: &outgoing, version: resolved, correlationID: correlationID, clientID: clientID)
        try writeAll(outgoing)
    }

    /// Sends a whole request frame the caller wrote (size, header, body; `frame`'s readable
    /// bytes), numbering it: its correlation id, 8 bytes into the frame in every header
    /// version, is set here. Its response is read with ``receive(_:version:)``.
    package func sendFrame(_ frame: inout ByteBuffer) throws(KafkaWireError) {
        correlationID &+= 1
        inFlight.append(correlationID)
        frame.setInteger(correlationID, at: frame.readerIndex + 8)
        try writeAll(frame)
    }

    /// Reads the response to the oldest request in flight, which must be a `Request` sent at
    /// `version` (default: the negotiated one).
    package func receive<Request: KafkaRequest>(_ type: Request.Type, version: Int16? = nil) throws(KafkaWireError) -> Request.Response {
        let resolved: Int16
        if let version { resolved = version } else { resolved = try self.version(of: Request.api) }
        guard !inFlight.isEmpty else { throw KafkaWireError("no request in flight") }
        let expected = inFlight.removeFirst()
        var frame = try readFrame()
        do {
            let header = try KafkaResponseHeader(from: &frame, headerVersion: Request.api.responseHeaderVersion(for: resolved))
            guard header.correlationID == expected else { throw KafkaWireError("response out of order") }
            return try Request.Response(from: &frame, version: resolved)
        } catch let error as KafkaWireError {
            throw error
        } catch {
            throw KafkaWireError("cannot read the \(Request.api.name) response: \(error)")
        }
    }

    private func writeAll(_ buffer: ByteBuffer) throws(KafkaWireError) {
        var sent = 0
        let count = buffer.readableBytes
        while sent < count {
            let result = buffer.withUnsafeReadableBytes { bytes in Glibc.send(socket, bytes.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
            if result < 0 {
                if errno == EINTR { continue }
                throw KafkaWireError(errno == EAGAIN ? "the broker took no data for too long" : "send failed: errno \(errno)")
            }
            sent += result
        }
    }

    private func readFrame() throws(KafkaWireError) -> ByteBuffer {
        var sizeBuffer = try readExactly(4)
        let size = Int(sizeBuffer.readInteger(as: Int32.self)!)
        guard size >= 0, size <= 1 << 30 else { throw KafkaWireError("bad response size \(size)") }
        return try readExactly(size)
    }

    private func readExactly(_ count: Int) throws(KafkaWireError) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var done = 0
        while done < count {
            var failure: Int32 = 0
            let result = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - done) { bytes in
                let result = recv(socket, bytes.baseAddress!, count - done, 0)
                if result < 0 { failure = errno }
                return max(0, result)
            }
            if failure == EINTR { continue }
            if failure == EAGAIN { throw KafkaWireError("the broker did not answer in time") }
            if result == 0 { throw KafkaWireError(failure == 0 ? "the broker closed the connection" : "receive failed: errno \(failure)") }
            done += result
        }
        return buffer
    }
}

/// A client-side failure, with a message for the user.
package struct KafkaWireError: Error, CustomStringConvertible {
    package var description: String
    /// The broker's error, when it answered with one; nil when the connection failed.
    package var code: KafkaErrorCode?

    package init(_ description: String, code: KafkaErrorCode? = nil) {
        self.description = description
        self.code = code
    }
}

extension Dictionary where Key == String {
    /// The value under `key`, made by `make` and kept the first time: a client's connection to
    /// each broker address.
    mutating func value(_ key: String, orMake make: () throws(KafkaWireError) -> Value) throws(KafkaWireError) -> Value {
        if let value = self[key] { return value }
        let value = try make()
        self[key] = value
        return value
    }
}
