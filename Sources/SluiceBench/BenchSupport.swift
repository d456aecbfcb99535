import Foundation
import NIOCore
import SluiceBroker
import SluiceConnectors
import SluiceCore
import SluiceKafkaProtocol
import SluicePGWire
import SluiceServer

// What the benchmarks share: SQL run through a session, and pipelined produce requests.

extension SQLSession {
    /// Runs every statement of `sql` and returns the last one's result.
    func execute(script sql: String) async throws -> PGStatementResult {
        let statements = try await prepare(sql, parameterTypes: [])
        var last = PGStatementResult(commandTag: "")
        for statement in statements { last = try await execute(statement, parameters: []).collected() }
        return last
    }
}

/// A new empty directory under the system's temporary directory, for one benchmark run.
func benchDirectory(named name: String) throws -> String {
    let path = NSTemporaryDirectory() + "sluice-bench-\(name)-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// A server as `sluice serve` runs one, in `directory`, with Sluice's connectors and its SQL port
/// on a free port, and no broker, catalog, dashboard or webhook listener unless a benchmark adds them.
func benchServerConfiguration(directory: String) -> ServerConfiguration {
    var configuration = ServerConfiguration()
    configuration.connectors = { BuiltInConnectors(lakehouse: $0) }
    configuration.sqlPort = 0
    configuration.dataDirectory = "\(directory)/data"
    configuration.broker = nil
    configuration.catalog = nil
    configuration.http = nil
    configuration.webhook = nil
    return configuration
}

/// A built-in broker on a free port with its log in a new temporary directory, for a benchmark
/// that loads a topic; ``stop()`` shuts it down and removes the directory.
struct BenchBroker {
    let broker: KafkaBroker
    let directory: String

    static func start(named name: String) async throws -> BenchBroker {
        let directory = try benchDirectory(named: name)
        var configuration = BrokerConfiguration()
        configuration.port = 0
        configuration.dataDirectory = "\(directory)/broker"
        let broker = try KafkaBroker(configuration: configuration)
        try await broker.start()
        return BenchBroker(broker: broker, directory: directory)
    }

    var port: Int { broker.port }

    func stop() async {
        await broker.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

extension Database {
    /// Waits until the connector of `name` has read or rejected `events` messages, then FLUSHes
    /// so that every view shows them; fails after `timeout`.
    func waitForSource(named name: String, toTake events: Int, timeout: Duration = .seconds(900)) async throws {
        guard let source = catalog.relation(named: name) else { throw SluiceError.internalError("no source \(name)") }
        let start = ContinuousClock.now
        while true {
            let status = catalog.systemReader.sources.first { $0.relationID == source.id }
            let taken = (status?.rowsRead ?? 0) + (status?.rowsRejected ?? 0)
            BenchProgress.detail("source \(name) took \(taken) of \(events) events")
            if taken >= events { break }
            if ContinuousClock.now - start > timeout { throw SluiceError.internalError("the source took only \(taken) events") }
            try await Task.sleep(for: .milliseconds(10))
        }
        await flush()
    }
}

extension KafkaWireClient {
    /// Produces the batches `next` hands out (until it returns nil) to partition 0 of `topic`
    /// with acks=all, keeping up to five requests in flight as librdkafka does; `acknowledged`
    /// gets each request's time from sending to its response.
    func producePipelined(
        topic: String, next: () -> ByteBuffer?, acknowledged: (Duration) -> Void = { _ in }
    ) throws {
        let version = try version(of: .produce)
        var outstanding: [ContinuousClock.Instant] = []
        var exhausted = false
        while !exhausted || !outstanding.isEmpty {
            while !exhausted && outstanding.count < 5 {
                guard let batch = next() else {
                    exhausted = true
                    break
                }
                let request = ProduceRequest(acks: -1, timeoutMs: 30_000, topicData: [.init(name: topic, partitionData: [.init(index: 0, records: batch)])])
                outstanding.append(ContinuousClock.now)
                try sendWithoutResponse(request, version: version)
            }
            if outstanding.isEmpty { break }
            let response = try receive(ProduceRequest.self, version: version)
            acknowledged(ContinuousClock.now - outstanding.removeFirst())
            if let code = response.responses.first?.partitionResponses.first?.errorCode, code != 0 {
                throw KafkaWireError("produce failed with Kafka error \(code)")
            }
        }
    }
}
