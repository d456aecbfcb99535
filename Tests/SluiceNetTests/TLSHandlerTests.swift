import NIOCore
import NIOPosix
import SluiceCore
import SluiceNet
import Synchronization
import Testing

/// The TLS handler at both ends of a real loopback connection.
@Suite struct TLSHandlerTests {
    /// Echoes what it reads.
    final class Echo: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.writeAndFlush(data, promise: nil)
        }
    }

    /// Gathers what it reads until `expected` bytes came, and records the error that ended it.
    final class Gather: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let expected: Int
        let done: EventLoopPromise<[UInt8]>
        var bytes: [UInt8] = []
        init(expected: Int, done: EventLoopPromise<[UInt8]>) {
            self.expected = expected
            self.done = done
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            bytes += Array(buffer: unwrapInboundIn(data))
            if bytes.count >= expected { done.succeed(bytes) }
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { done.fail(error) }
        func channelInactive(context: ChannelHandlerContext) { done.fail(ChannelError.eof) }
    }

    static func echoServer(_ context: TLSContext) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(TLSHandler(context: context))
                    try channel.pipeline.syncOperations.addHandler(Echo())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    /// Connects, writes `payload` (before the handshake is done: it waits), and gathers the echo.
    static func roundTrip(_ payload: [UInt8], port: Int, client: TLSContext, serverName: String) async throws -> [UInt8] {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let done = eventLoop.makePromise(of: [UInt8].self)
        let channel = try await ClientBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(TLSHandler(context: client, serverName: serverName))
                    try channel.pipeline.syncOperations.addHandler(Gather(expected: payload.count, done: done))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        channel.writeAndFlush(ByteBuffer(bytes: payload), promise: nil)
        defer { channel.close(promise: nil) }
        return try await done.futureResult.get()
    }

    @Test func bytesCrossIntactBothWays() async throws {
        let certificates = try TestCertificates.make()
        let server = try await Self.echoServer(try TLSContext.server(certificateChainFile: certificates.certificateFile, privateKeyFile: certificates.keyFile))
        let client = try TLSContext.client(trustedRootsFile: certificates.caFile)
        let port = server.localAddress!.port!
        for size in [1, 16_384, 16_385, 1_000_000] {
            let payload = (0 ..< size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ size) }
            #expect(try await Self.roundTrip(payload, port: port, client: client, serverName: "localhost") == payload)
        }
        try await server.close()
    }

    @Test func aPeerWithTheWrongNameOrAnUnknownAuthorityIsRefused() async throws {
        let certificates = try TestCertificates.make()
        let server = try await Self.echoServer(try TLSContext.server(certificateChainFile: certificates.certificateFile, privateKeyFile: certificates.keyFile))
        let port = server.localAddress!.port!
        let client = try TLSContext.client(trustedRootsFile: certificates.caFile)
        await #expect {
            _ = try await Self.roundTrip([1, 2, 3], port: port, client: client, serverName: "example.com")
        } throws: { error in
            (error as? TLSError)?.message.contains("hostname mismatch") == true
        }
        await #expect(throws: TLSError.self) {
            _ = try await Self.roundTrip([1, 2, 3], port: port, client: try TLSContext.client(), serverName: "localhost")
        }
        // Trusting any peer (asked for by name) gets through.
        #expect(try await Self.roundTrip([1, 2, 3], port: port, client: try TLSContext.client(verifyPeer: false), serverName: "example.com") == [1, 2, 3])
        try await server.close()
    }

    @Test func filesThatAreNotACertificateAndKeyAreNamed() throws {
        let certificates = try TestCertificates.make()
        #expect { try TLSContext.server(certificateChainFile: "/nonexistent.pem", privateKeyFile: certificates.keyFile) } throws: { error in
            (error as? SluiceError)?.message.contains("/nonexistent.pem") == true
        }
        #expect { try TLSContext.server(certificateChainFile: certificates.certificateFile, privateKeyFile: certificates.caFile) } throws: { error in
            (error as? SluiceError)?.message.contains("private key") == true
        }
        #expect { try TLSContext.server(certificateChainFile: certificates.certificateFile, privateKeyFile: "\(certificates.directory)/ca.key") } throws: { error in
            (error as? SluiceError)?.message.contains("do not make a usable TLS context") == true
        }
    }
}
