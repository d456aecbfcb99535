import Foundation
import SluiceKafkaClient
import Synchronization
import Testing

@testable import SluiceBroker

/// SluiceBroker's wire client has an error type of the same name.
typealias KafkaClientError = SluiceKafkaClient.KafkaClientError

/// The client tests, one at a time: each checks that no librdkafka handle (and so no message)
/// outlives it.
@Suite(.serialized) struct KafkaClientTests {}

/// Sluice's own broker, in process on a free port with a temporary data directory.
struct TestBroker {
    let broker: KafkaBroker
    let directory: String

    static func start(_ configure: (inout BrokerConfiguration) -> Void = { _ in }) async throws -> TestBroker {
        let directory = NSTemporaryDirectory() + "sluice-kafka-client-\(UUID().uuidString)"
        var configuration = BrokerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = directory
        configure(&configuration)
        let broker = try KafkaBroker(configuration: configuration)
        try await broker.start()
        return TestBroker(broker: broker, directory: directory)
    }

    /// Runs `body` against a fresh broker, then stops it and removes its data, whether `body`
    /// threw or not.
    static func run(configure: (inout BrokerConfiguration) -> Void = { _ in }, _ body: (TestBroker) async throws -> Void) async throws {
        let server = try await start(configure)
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        // The clients were released with `body`'s scope.
        #expect(Librdkafka.allHandlesDestroyed(within: .seconds(10)), "a librdkafka handle or message outlived the test")
        await server.stop()
    }

    var bootstrapServers: String { "127.0.0.1:\(broker.port)" }

    func stop() async {
        await broker.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A consumed message, copied out of the poll closure.
struct Received: Equatable {
    var partition: Int32
    var offset: Int64
    var key: String?
    var value: String?
    var timestamp: Int64?
}

extension KafkaConsumer {
    /// Polls until `count` data messages arrived, an error entry came, or `deadline` passed.
    func receive(_ count: Int, within deadline: Duration = .seconds(30)) -> (messages: [Received], errors: [KafkaClientError]) {
        var messages: [Received] = []
        var errors: [KafkaClientError] = []
        let clock = ContinuousClock()
        let end = clock.now + deadline
        while messages.count < count, errors.isEmpty, clock.now < end {
            poll(maxMessages: 500, timeout: .milliseconds(100)) { batch in
                for message in batch {
                    if let error = message.error {
                        errors.append(error)
                        continue
                    }
                    messages.append(
                        Received(
                            partition: message.partition, offset: message.offset, key: message.key.map { String(decoding: $0, as: UTF8.self) },
                            value: message.value.map { String(decoding: $0, as: UTF8.self) }, timestamp: message.timestamp))
                }
            }
        }
        return (messages, errors)
    }
}

extension KafkaProducer {
    func produce(topic: String, partition: Int32? = nil, key: String?, value: String?) throws(KafkaClientError) {
        try produce(topic: topic, partition: partition, key: key.map { Array($0.utf8) }, value: value.map { Array($0.utf8) })
    }
}

/// Wall-clock milliseconds since the Unix epoch, as Kafka timestamps count.
func nowMilliseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

/// Log lines a client emitted, collected from librdkafka's threads.
final class LogCollector: Sendable {
    let lines = Mutex<[KafkaLogMessage]>([])
    var callbacks: KafkaClientCallbacks {
        KafkaClientCallbacks(log: { line in self.lines.withLock { $0.append(line) } })
    }
}
