import NIOCore
import NIOEmbedded
import SluiceCore
import Testing
@testable import SluicePGWire

/// The handler in an `EmbeddedChannel`. These tests stop before any backend call (which runs on
/// the cooperative pool); the real-socket tests in `PGServerTests` cover those paths.
@Suite struct PGConnectionHandlerTests {
    struct UnusedBackend: PGBackend {
        func startSession(_ startup: PGStartup) throws(SluiceError) -> any PGSession {
            throw SluiceError.internalError("not used in these tests")
        }
    }

    /// The password is checked on the embedded loop, which only the test's thread may drive.
    var embeddedConfiguration: ConnectionStateMachine.Configuration {
        var configuration = ConnectionStateMachine.Configuration(authenticator: .cleartext(users: ["root": "a password nobody guesses"]))
        configuration.checksPasswordsOffLoop = false
        return configuration
    }

    func makeChannel(maxMessageLength: Int = 1 << 20) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            ByteToMessageHandler(PGFrontendDecodingHandler(maxMessageLength: maxMessageLength)),
            PGConnectionHandler(
                configuration: embeddedConfiguration,
                backend: UnusedBackend(), registry: PGConnectionRegistry(), threads: SessionThreads(), processID: 1, secretKey: 2
            ),
        ])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 5432)).wait()
        return channel
    }

    /// Everything the handler wrote so far.
    func written(_ channel: EmbeddedChannel) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while var buffer = try channel.readOutbound(as: ByteBuffer.self) {
            bytes += buffer.readBytes(length: buffer.readableBytes)!
        }
        return bytes
    }

    /// Feeds `bytes` one at a time, stopping when the channel closes.
    func feedByteAtATime(_ bytes: [UInt8], to channel: EmbeddedChannel) {
        for byte in bytes {
            guard channel.isActive else { return }
            do { try channel.writeInbound(ByteBuffer(bytes: [byte])) } catch { return }
        }
    }

    @Test func sslIsRefusedThenPasswordIsRequested() throws {
        let channel = try makeChannel()
        feedByteAtATime(FrontendBytes.sslRequest + FrontendBytes.startup([("user", "root")]), to: channel)
        let bytes = try written(channel)
        #expect(bytes.first == UInt8(ascii: "N"))
        #expect(RawBackendMessage.split(Array(bytes.dropFirst())).map(\.type) == ["R"])
        #expect(channel.isActive)
    }

    @Test func wrongPasswordIsFatal() throws {
        let channel = try makeChannel()
        try channel.writeInbound(ByteBuffer(bytes: FrontendBytes.startup([("user", "root")]) + FrontendBytes.password("guess")))
        // The refusal comes after the failed-login delay.
        #expect(RawBackendMessage.split(try written(channel)).map(\.type) == ["R"])
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: PGConnectionHandler.failedLoginDelay)
        let messages = [RawBackendMessage(type: "R", body: [0, 0, 0, 3])] + RawBackendMessage.split(try written(channel))
        #expect(messages.map(\.type) == ["R", "E"])
        #expect(messages.last?.errorFields["C"] == "28P01")
        #expect(messages.last?.errorFields["M"] == "password authentication failed for user \"root\"")
        #expect(messages.last?.errorFields["S"] == "FATAL")
        #expect(!channel.isActive)
    }

    @Test(arguments: [
        ("length over the maximum", [UInt8(ascii: "Q")] + FrontendBytes.int32(1 << 30)),
        ("unknown type", FrontendBytes.message("Z", [])),
        ("missing terminator", FrontendBytes.message("p", Array("pw".utf8))),
    ])
    func malformedMessageGets08P01AndClose(name: String, bytes: [UInt8]) throws {
        let channel = try makeChannel(maxMessageLength: 64 << 20)
        try channel.writeInbound(ByteBuffer(bytes: FrontendBytes.startup([("user", "root")])))
        feedByteAtATime(bytes, to: channel)
        let messages = RawBackendMessage.split(try written(channel))
        #expect(messages.last?.type == "E", "\(name)")
        #expect(messages.last?.errorFields["C"] == "08P01", "\(name)")
        #expect(!channel.isActive, "\(name)")
    }

    @Test func badStartupPacketGets08P01AndClose() throws {
        let channel = try makeChannel()
        try channel.writeInbound(ByteBuffer(bytes: FrontendBytes.startup([("user", "root")], version: 1 << 16)))
        let messages = RawBackendMessage.split(try written(channel))
        #expect(messages.map(\.type) == ["E"])
        #expect(messages.first?.errorFields["C"] == "08P01")
        #expect(!channel.isActive)
    }

    @Test func randomAndMutatedStreamsNeverCrashAndEndInErrorOrClose() throws {
        var random = SeededRandom(seed: 42)
        for iteration in 0 ..< 1500 {
            let input = iteration % 3 == 0 ? Mutator.randomBytes(using: &random) : Mutator.mutate(Mutator.transcript, using: &random)
            let channel = try makeChannel(maxMessageLength: 1 << 16)
            if iteration % 2 == 0 {
                feedByteAtATime(input, to: channel)
            } else {
                _ = try? channel.writeInbound(ByteBuffer(bytes: input))
            }
            let bytes = try written(channel)
            if !channel.isActive {
                let messages = RawBackendMessage.split(bytes.first == UInt8(ascii: "N") ? Array(bytes.dropFirst()) : bytes)
                // Closed connections end with an ErrorResponse, or say nothing after Terminate.
                #expect(messages.last == nil || messages.last?.type == "E" || messages.last?.type == "R", "iteration \(iteration)")
            }
            _ = try? channel.finish()
        }
    }
}
