import Foundation
import SluiceKafkaProtocol

/// Producer ids for idempotent producers, and the sequence numbers each has written to each
/// partition, so a retried batch is recognised and not stored twice (Kafka's producer state).
///
/// Ids come from a counter persisted in `producer-ids` under the broker's directory, so they are
/// never reused. Sequence state is kept in memory for the five most recent batches of each
/// producer and partition, as Kafka keeps it, and rebuilt at start from the batch headers in
/// the logs.
final class ProducerRegistry: @unchecked Sendable {
    private struct Key: Hashable {
        var producerID: Int64
        var topic: String
        var partition: Int32
    }

    private struct State {
        var epoch: Int16
        var lastSequence: Int32
        /// The most recent batches: first and last sequence, and the offset the batch got.
        var recent: [(first: Int32, last: Int32, offset: Int64)]
    }

    /// What to do with a batch from an idempotent producer.
    enum Decision: Equatable {
        case append
        /// Already stored: answer with the offset it got then.
        case duplicate(offset: Int64)
        case reject(KafkaErrorCode)
    }

    private let lock = NSLock()
    private let path: String
    private var nextID: Int64
    private var states: [Key: State] = [:]

    init(directory: String) throws {
        path = "\(directory)/producer-ids"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        if let text = try? String(contentsOfFile: path, encoding: .utf8), let stored = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            nextID = stored
        } else {
            nextID = 1000
        }
    }

    /// A new producer id (epoch 0), persisted before it is handed out.
    func allocate() throws -> (id: Int64, epoch: Int16) {
        try lock.withLock {
            let id = nextID
            nextID += 1
            try String(nextID).write(toFile: path, atomically: true, encoding: .utf8)
            return (id, 0)
        }
    }

    /// Runs `body` with the registry locked, so deciding, appending and recording a batch is
    /// one step for every producer.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Whether a batch with these producer fields may be appended. Call inside ``withLock(_:)``.
    func decide(producerID: Int64, epoch: Int16, topic: String, partition: Int32, firstSequence: Int32, lastSequence: Int32) -> Decision {
        let key = Key(producerID: producerID, topic: topic, partition: partition)
        guard let state = states[key] else { return .append }
        if epoch < state.epoch { return .reject(.invalidProducerEpoch) }
        if epoch > state.epoch { return firstSequence == 0 ? .append : .reject(.outOfOrderSequenceNumber) }
        if let earlier = state.recent.first(where: { $0.first == firstSequence && $0.last == lastSequence }) {
            return .duplicate(offset: earlier.offset)
        }
        let expected = state.lastSequence == Int32.max ? 0 : state.lastSequence + 1
        return firstSequence == expected ? .append : .reject(.outOfOrderSequenceNumber)
    }

    /// Records an appended batch. Call inside ``withLock(_:)``.
    func record(producerID: Int64, epoch: Int16, topic: String, partition: Int32, firstSequence: Int32, lastSequence: Int32, offset: Int64) {
        let key = Key(producerID: producerID, topic: topic, partition: partition)
        var state = states[key] ?? State(epoch: epoch, lastSequence: -1, recent: [])
        if epoch != state.epoch { state = State(epoch: epoch, lastSequence: -1, recent: []) }
        state.lastSequence = lastSequence
        state.recent.append((firstSequence, lastSequence, offset))
        if state.recent.count > 5 { state.recent.removeFirst() }
        states[key] = state
    }
}
