import Foundation
import NIOCore
import NIOEmbedded
import SluiceKafkaProtocol
import Testing

@testable import SluiceBroker

/// A broker with a temporary data directory, removed by ``remove()``.
struct TemporaryBroker {
    let broker: KafkaBroker
    let directory: String

    init(directory: String = NSTemporaryDirectory() + "sluice-broker-\(UUID().uuidString)", _ configure: (inout BrokerConfiguration) -> Void = { _ in }) throws {
        var configuration = BrokerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory
        configure(&configuration)
        // Passwords checked on the connection's embedded loop, which the test's thread drives.
        configuration.authentication.checksPasswordsOffLoop = false
        self.directory = directory
        broker = try KafkaBroker(configuration: configuration)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// One client connection to `broker`, through the connection's real pipeline (frame decoder and
/// connection handler) on an `EmbeddedChannel`, whose clock the test moves.
final class EmbeddedKafkaClient {
    let channel: EmbeddedChannel
    let loop: EmbeddedEventLoop
    private var correlationID: Int32 = 0

    /// A connection to the listener at `listener` from `address` (loopback unless told).
    init(_ broker: KafkaBroker, listener: Int = 0, from address: String = "127.0.0.1") throws {
        loop = EmbeddedEventLoop()
        channel = EmbeddedChannel(loop: loop)
        let remoteAddress = try SocketAddress(ipAddress: address, port: 50_000)
        let connection = broker.makeConnection(listener: listener, remoteAddress: remoteAddress)
        try channel.pipeline.syncOperations.addHandlers([
            ByteToMessageHandler(KafkaFrameDecoder(maxFrameBytes: broker.configuration.maxRequestBytes, connection: connection)),
            KafkaConnectionHandler(broker: broker, connection: connection),
        ])
        // Active, as an accepted connection is, so that a close shows.
        try channel.connect(to: remoteAddress).wait()
    }

    deinit {
        _ = try? channel.finish()
    }

    var isOpen: Bool { channel.isActive }

    /// Sends `request` at `version` without waiting.
    func send<Request: KafkaRequest>(_ request: Request, version: Int16) throws {
        correlationID += 1
        var frame = ByteBuffer()
        request.writeFrame(to: &frame, version: version, correlationID: correlationID, clientID: "test")
        try channel.writeInbound(frame)
    }

    /// Sends a bare frame holding `bytes` (a SASL token after SaslHandshake v0).
    func sendRaw(_ bytes: [UInt8]) throws {
        var frame = ByteBuffer()
        frame.writeInteger(Int32(bytes.count))
        frame.writeBytes(bytes)
        try channel.writeInbound(frame)
    }

    /// The next response frame, read as the answer to a `Request` at `version`; nil when the
    /// broker has written nothing (yet).
    func response<Request: KafkaRequest>(to type: Request.Type, version: Int16) throws -> Request.Response? {
        guard var frame = try channel.readOutbound(as: ByteBuffer.self) else { return nil }
        // A frame written in pieces (a fetch's records go as their own buffers) is put together.
        if let expected = frame.getInteger(at: frame.readerIndex, as: Int32.self) {
            while frame.readableBytes < Int(expected) + 4, var piece = try channel.readOutbound(as: ByteBuffer.self) {
                frame.writeBuffer(&piece)
            }
        }
        let size = frame.readInteger(as: Int32.self)
        #expect(size.map(Int.init) == frame.readableBytes)
        let header = try KafkaResponseHeader(from: &frame, headerVersion: Request.api.responseHeaderVersion(for: version))
        #expect(header.correlationID == correlationID)
        let response = try Request.Response(from: &frame, version: version)
        #expect(frame.readableBytes == 0)
        return response
    }

    /// The next bare frame's bytes (a SASL token after SaslHandshake v0).
    func rawResponse() throws -> [UInt8]? {
        guard var frame = try channel.readOutbound(as: ByteBuffer.self) else { return nil }
        guard let size = frame.readInteger(as: Int32.self) else { return nil }
        return frame.readBytes(length: Int(size))
    }

    /// Sends `request` and returns its answer, which must be there already.
    func call<Request: KafkaRequest>(_ request: Request, version: Int16) throws -> Request.Response {
        try send(request, version: version)
        return try #require(try response(to: Request.self, version: version), "no answer to \(Request.api.name)")
    }

    /// Authenticates with SASL/PLAIN (SaslHandshake v1, SaslAuthenticate v2); the answer to the
    /// SaslAuthenticate, after the failed-login delay when it fails.
    @discardableResult
    func authenticatePlain(user: String, password: String) throws -> SaslAuthenticateResponse {
        let handshake = try call(SaslHandshakeRequest(mechanism: "PLAIN"), version: 1)
        #expect(handshake.errorCode == 0)
        try send(SaslAuthenticateRequest(authBytes: ByteBuffer(bytes: [0] + Array(user.utf8) + [0] + Array(password.utf8))), version: 2)
        if let answer = try response(to: SaslAuthenticateRequest.self, version: 2) { return answer }
        loop.advanceTime(by: .milliseconds(250))
        return try #require(try response(to: SaslAuthenticateRequest.self, version: 2))
    }

    /// Authenticates with SCRAM-SHA-256; the answer to the last SaslAuthenticate.
    @discardableResult
    func authenticateSCRAM(user: String, password: String) throws -> SaslAuthenticateResponse {
        let handshake = try call(SaslHandshakeRequest(mechanism: "SCRAM-SHA-256"), version: 1)
        #expect(handshake.errorCode == 0)
        let client = SCRAMClient(user: user, password: password)
        let first = try call(SaslAuthenticateRequest(authBytes: ByteBuffer(bytes: client.clientFirst)), version: 2)
        guard first.errorCode == 0 else { return first }
        let (final, serverSignature) = try client.clientFinal(serverFirst: String(buffer: first.authBytes))
        try send(SaslAuthenticateRequest(authBytes: ByteBuffer(bytes: final)), version: 2)
        if let answer = try response(to: SaslAuthenticateRequest.self, version: 2) {
            if answer.errorCode == 0 { #expect(String(buffer: answer.authBytes) == "v=" + serverSignature) }
            return answer
        }
        loop.advanceTime(by: .milliseconds(250))
        return try #require(try response(to: SaslAuthenticateRequest.self, version: 2))
    }
}
