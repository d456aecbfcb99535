import Foundation
import NIOCore
import SluiceKafkaProtocol
import Synchronization
import Testing

@testable import SluiceBroker

/// Listeners on real sockets (port 0): each advertises its own address, and TLS listeners get
/// the handler the server supplies.
@Suite(.serialized) struct BrokerListenerTests {
    @Test func eachListenerAdvertisesItsOwnAddress() async throws {
        let broker = try TemporaryBroker { configuration in
            configuration.listeners = [
                BrokerListener(name: "PLAINTEXT", host: "127.0.0.1", port: 0),
                BrokerListener(name: "EXTERNAL", host: "127.0.0.1", port: 0, advertisedHost: "kafka.example.com"),
            ]
        }
        defer { broker.remove() }
        try await broker.broker.start()
        let plainPort = try #require(broker.broker.port(of: "PLAINTEXT"))
        let externalPort = try #require(broker.broker.port(of: "EXTERNAL"))
        #expect(plainPort != externalPort && broker.broker.port == plainPort)
        #expect(broker.broker.port(of: "SSL") == nil)

        for (port, host) in [(plainPort, "127.0.0.1"), (externalPort, "kafka.example.com")] {
            let client = try KafkaWireClient(host: "127.0.0.1", port: port)
            let metadata = try client.send(MetadataRequest(topics: []))
            #expect(metadata.brokers.map(\.host) == [host])
            #expect(metadata.brokers.map(\.port) == [Int32(port)])
            let coordinator = try client.send(FindCoordinatorRequest(keys: ["g"]))
            #expect(coordinator.coordinators.map(\.host) == [host])
            #expect(coordinator.coordinators.map(\.port) == [Int32(port)])
        }
        await broker.broker.shutdown()
    }

    @Test func aTLSListenerWithoutTheHandlerFactoryIsRefused() async throws {
        let broker = try TemporaryBroker { configuration in
            configuration.listeners = [
                BrokerListener(name: "PLAINTEXT", host: "127.0.0.1", port: 0),
                BrokerListener(name: "SSL", host: "127.0.0.1", port: 0, tls: true),
            ]
        }
        defer { broker.remove() }
        await #expect(throws: (any Error).self) { try await broker.broker.start() }
        #expect(broker.broker.port(of: "PLAINTEXT") == 0)
    }

    /// What the stand-in TLS handlers saw.
    final class Observations: Sendable {
        let handlersMade = Atomic<Int>(0)
        /// Per first read: whether it began with the frame's size prefix, so the handler sits
        /// before the frame decoder, where TLS must.
        let firstReadsWereWholeFrames = Mutex<[Bool]>([])
    }

    /// Stands in for the TLS handler: passes the bytes through.
    final class PassThrough: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let observations: Observations
        var sawFirstRead = false

        init(_ observations: Observations) {
            self.observations = observations
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = unwrapInboundIn(data)
            if !sawFirstRead {
                sawFirstRead = true
                let isWholeFrame = bytes.getInteger(at: bytes.readerIndex, as: Int32.self).map { Int($0) == bytes.readableBytes - 4 } ?? false
                observations.firstReadsWereWholeFrames.withLock { $0.append(isWholeFrame) }
            }
            context.fireChannelRead(data)
        }
    }

    @Test func aTLSListenerPutsTheFactorysHandlerFirst() async throws {
        let observations = Observations()
        let broker = try TemporaryBroker { configuration in
            configuration.listeners = [
                BrokerListener(name: "PLAINTEXT", host: "127.0.0.1", port: 0),
                BrokerListener(name: "SSL", host: "127.0.0.1", port: 0, tls: true),
            ]
            configuration.tlsHandlerFactory = {
                observations.handlersMade.add(1, ordering: .relaxed)
                return PassThrough(observations)
            }
        }
        defer { broker.remove() }
        try await broker.broker.start()
        let sslPort = try #require(broker.broker.port(of: "SSL"))
        _ = try KafkaWireClient(host: "127.0.0.1", port: try #require(broker.broker.port(of: "PLAINTEXT")))
        #expect(observations.handlersMade.load(ordering: .relaxed) == 0)
        let client = try KafkaWireClient(host: "127.0.0.1", port: sslPort)
        #expect(try client.send(MetadataRequest(topics: [])).brokers.first?.port == Int32(sslPort))
        #expect(observations.handlersMade.load(ordering: .relaxed) == 1)
        #expect(observations.firstReadsWereWholeFrames.withLock { $0 } == [true])
        await broker.broker.shutdown()
    }

    @Test func hostAndPortStillConfigureTheFirstListener() {
        var configuration = BrokerConfiguration()
        #expect(configuration.listeners == [BrokerListener(name: "PLAINTEXT", host: "127.0.0.1", port: 9092)])
        configuration.host = "0.0.0.0"
        configuration.port = 19092
        configuration.advertisedHost = "broker"
        #expect(configuration.listeners == [BrokerListener(name: "PLAINTEXT", host: "0.0.0.0", port: 19092, advertisedHost: "broker")])
        configuration.listeners = []
        configuration.port = 1
        #expect(configuration.listeners.count == 1 && configuration.port == 1)
        #expect(BrokerListener(name: "X", host: "0.0.0.0", port: 1).resolvedAdvertisedHost == "127.0.0.1")
    }
}
