import Synchronization

/// What clients produced to and fetched from each topic since the broker started, for
/// `/metrics` and the dashboard: counted once per request and partition, never per record.
package final class BrokerTraffic: Sendable {
    package struct Topic: Sendable, Equatable {
        package var recordsProduced = 0
        package var bytesProduced = 0
        package var bytesFetched = 0
    }

    private let topics = Mutex<[String: Topic]>([:])

    package init() {}

    package var snapshot: [String: Topic] { topics.withLock { $0 } }

    func produced(topic: String, records: Int, bytes: Int) {
        topics.withLock { topics in
            topics[topic, default: Topic()].recordsProduced += records
            topics[topic, default: Topic()].bytesProduced += bytes
        }
    }

    func fetched(_ bytesByTopic: [(String, Int)]) {
        guard bytesByTopic.contains(where: { $0.1 > 0 }) else { return }
        topics.withLock { topics in
            for (topic, bytes) in bytesByTopic where bytes > 0 { topics[topic, default: Topic()].bytesFetched += bytes }
        }
    }
}
