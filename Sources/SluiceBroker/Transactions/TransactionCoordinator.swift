import Foundation
import NIOCore
import SluiceKafkaProtocol

/// The transaction coordinator (KIP-98) of the one-node broker: each transactional id's
/// producer id, epoch and open transaction, kept in the internal log
/// `__transaction_state.log` so that a restart forgets nothing a client was told.
///
/// A transaction moves Empty → Ongoing (partitions or a group added) → PrepareCommit or
/// PrepareAbort (EndTxn, written before any marker) → CompleteCommit or CompleteAbort (every
/// marker written, the group offsets applied). The broker is every partition's leader, so the
/// markers are appended here, synchronously, where Kafka's coordinator sends WriteTxnMarkers
/// to the leaders; a Prepare state found at start-up is completed then.
///
/// Producers are fenced by epoch: InitProducerId under a transactional id bumps the epoch (and
/// aborts what the previous instance left open), after which the old epoch's requests fail with
/// PRODUCER_FENCED and its produce requests with INVALID_PRODUCER_EPOCH. Transactional batches
/// are admitted only to partitions their producer's transaction added
/// (``admit(producerID:epoch:topic:partition:)``, called with the coordinator's lock held across
/// the append, so no batch lands after its transaction's marker).
final class TransactionCoordinator: @unchecked Sendable {
    enum State: Int8 {
        case empty = 0, ongoing, prepareCommit, prepareAbort, completeCommit, completeAbort
    }

    struct TopicPartition: Hashable, Comparable {
        var topic: String
        var partition: Int32

        static func < (lhs: TopicPartition, rhs: TopicPartition) -> Bool {
            (lhs.topic, lhs.partition) < (rhs.topic, rhs.partition)
        }
    }

    /// An offset committed within a transaction, applied to the group when it commits.
    struct PendingOffset: Equatable {
        var group: String
        var topic: String
        var partition: Int32
        var offset: Int64
        var metadata: String?
    }

    struct Transaction: Equatable {
        var producerID: Int64
        var epoch: Int16
        var timeoutMs: Int32
        var state: State
        /// When the open transaction began, in milliseconds since the epoch (0 when none is open).
        var startedMs: Int64 = 0
        /// The partitions the open transaction wrote to, sorted.
        var partitions: [TopicPartition] = []
        /// The groups whose offsets it commits.
        var groups: [String] = []
        var offsets: [PendingOffset] = []
    }

    /// A request the coordinator turns down, with the error code to answer.
    struct Refusal: Error {
        var code: KafkaErrorCode
        init(_ code: KafkaErrorCode) { self.code = code }
    }

    /// Kafka's `transaction.max.timeout.ms` default: 15 minutes.
    static let maximumTimeoutMs: Int32 = 900_000

    private let lock = NSLock()
    private let log: InternalRecordLog
    private var transactions: [String: Transaction] = [:]
    /// Producer id → its transactional id.
    private var owners: [Int64: String] = [:]
    private let topics: TopicStore
    private let commitOffsets: (String, [(topic: String, partition: Int32, committed: OffsetStore.Committed)]) throws -> Void
    private let allocateProducerID: () throws -> Int64

    init(
        directory: String, topics: TopicStore,
        commitOffsets: @escaping (String, [(topic: String, partition: Int32, committed: OffsetStore.Committed)]) throws -> Void,
        allocateProducerID: @escaping () throws -> Int64
    ) throws {
        self.topics = topics
        self.commitOffsets = commitOffsets
        self.allocateProducerID = allocateProducerID
        var transactions: [String: Transaction] = [:]
        log = try InternalRecordLog(path: "\(directory)/__transaction_state.log") { body in
            guard let (id, transaction) = Self.decode(&body) else { return }
            transactions[id] = transaction
        }
        self.transactions = transactions
        for (id, transaction) in transactions { owners[transaction.producerID] = id }
        try lock.withLock {
            for (id, transaction) in transactions where transaction.state == .prepareCommit || transaction.state == .prepareAbort {
                _ = try complete(id, transaction, now: Self.nowMs())
            }
            if log.recordCount > 2 * max(self.transactions.count, 16) { try compact() }
        }
    }

    static func nowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    // MARK: - Requests

    /// InitProducerId with a transactional id: the producer id and a new epoch. Whatever the
    /// previous instance left open is completed (a Prepare state) or aborted (Ongoing) first.
    /// `current` is the caller's id and epoch (InitProducerId v3+, KIP-360), (-1, -1) for none.
    func initProducer(
        transactionalID id: String, timeoutMs: Int32, current: (producerID: Int64, epoch: Int16)
    ) -> Result<(producerID: Int64, epoch: Int16), Refusal> {
        guard timeoutMs > 0, timeoutMs <= Self.maximumTimeoutMs else { return .failure(Refusal(.invalidTransactionTimeout)) }
        return lock.withLock {
            do {
                guard var transaction = transactions[id] else {
                    let producerID = try allocateProducerID()
                    let transaction = Transaction(producerID: producerID, epoch: 0, timeoutMs: timeoutMs, state: .empty)
                    try store(id, transaction)
                    return .success((producerID, 0))
                }
                if current.producerID >= 0 && (current.producerID != transaction.producerID || current.epoch != transaction.epoch) {
                    return .failure(Refusal(.producerFenced))
                }
                if transaction.state == .ongoing {
                    transaction.state = .prepareAbort
                    try store(id, transaction)
                }
                if transaction.state == .prepareCommit || transaction.state == .prepareAbort {
                    transaction = try complete(id, transaction, now: Self.nowMs())
                }
                if transaction.epoch >= Int16.max - 1 {
                    owners.removeValue(forKey: transaction.producerID)
                    transaction.producerID = try allocateProducerID()
                    transaction.epoch = 0
                } else {
                    transaction.epoch += 1
                }
                transaction.timeoutMs = timeoutMs
                transaction.state = .empty
                try store(id, transaction)
                return .success((transaction.producerID, transaction.epoch))
            } catch {
                return .failure(Refusal(.kafkaStorageError))
            }
        }
    }

    /// AddPartitionsToTxn: the partitions join the producer's transaction (starting it).
    func addPartitions(transactionalID id: String, producerID: Int64, epoch: Int16, _ partitions: [TopicPartition]) -> KafkaErrorCode {
        changing(id, producerID, epoch) { transaction in
            begin(&transaction)
            transaction.partitions = Array(Set(transaction.partitions).union(partitions)).sorted()
            return nil
        }
    }

    /// AddOffsetsToTxn: the group's offsets will be committed with the transaction.
    func addOffsets(transactionalID id: String, producerID: Int64, epoch: Int16, group: String) -> KafkaErrorCode {
        changing(id, producerID, epoch) { transaction in
            begin(&transaction)
            if !transaction.groups.contains(group) { transaction.groups.append(group) }
            return nil
        }
    }

    /// TxnOffsetCommit: offsets that take effect for the group when the transaction commits.
    func commitOffsets(transactionalID id: String, producerID: Int64, epoch: Int16, group: String, _ offsets: [PendingOffset]) -> KafkaErrorCode {
        changing(id, producerID, epoch) { transaction in
            guard transaction.state == .ongoing, transaction.groups.contains(group) else { return .invalidTxnState }
            for offset in offsets {
                transaction.offsets.removeAll { $0.group == offset.group && $0.topic == offset.topic && $0.partition == offset.partition }
                transaction.offsets.append(offset)
            }
            return nil
        }
    }

    /// EndTxn: commits or aborts the open transaction. Asking again for the outcome the last
    /// transaction had succeeds (a client retrying a lost response).
    func end(transactionalID id: String, producerID: Int64, epoch: Int16, commit: Bool) -> KafkaErrorCode {
        lock.withLock {
            switch current(id, producerID, epoch) {
            case .failure(let refusal):
                return refusal.code
            case .success(var transaction):
                switch (transaction.state, commit) {
                case (.ongoing, _):
                    transaction.state = commit ? .prepareCommit : .prepareAbort
                case (.prepareCommit, true), (.prepareAbort, false):
                    break
                case (.completeCommit, true), (.completeAbort, false):
                    return .noError
                default:
                    return .invalidTxnState
                }
                do {
                    try store(id, transaction)
                    _ = try complete(id, transaction, now: Self.nowMs())
                    return .noError
                } catch {
                    return .kafkaStorageError
                }
            }
        }
    }

    /// Runs `body` with the coordinator locked: a transactional produce checks and appends in it.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Whether a transactional batch of `producerID` at `epoch` may be appended to the
    /// partition: nil if so, else the error for the produce response. Call inside ``withLock(_:)``.
    func admit(producerID: Int64, epoch: Int16, topic: String, partition: Int32) -> KafkaErrorCode? {
        guard let id = owners[producerID], let transaction = transactions[id] else { return .invalidProducerIDMapping }
        if epoch < transaction.epoch { return .invalidProducerEpoch }
        guard epoch == transaction.epoch, transaction.state == .ongoing,
            transaction.partitions.contains(TopicPartition(topic: topic, partition: partition))
        else { return .invalidTxnState }
        return nil
    }

    /// Aborts every transaction open longer than its timeout, bumping its epoch so that the
    /// producer that went away is fenced (Kafka's transaction timeout). Returns how many.
    @discardableResult
    func abortExpired(nowMs: Int64) -> Int {
        lock.withLock {
            var aborted = 0
            for (id, transaction) in transactions where transaction.state == .ongoing {
                guard nowMs - transaction.startedMs > Int64(transaction.timeoutMs) else { continue }
                var ending = transaction
                ending.state = .prepareAbort
                do {
                    try store(id, ending)
                    ending = try complete(id, ending, now: nowMs)
                    if ending.epoch < Int16.max - 1 {
                        ending.epoch += 1
                        try store(id, ending)
                    }
                    aborted += 1
                } catch {
                    continue
                }
            }
            return aborted
        }
    }

    // MARK: - State

    /// The transaction of `id` if `producerID` and `epoch` are its current ones.
    private func current(_ id: String, _ producerID: Int64, _ epoch: Int16) -> Result<Transaction, Refusal> {
        guard let transaction = transactions[id], transaction.producerID == producerID else { return .failure(Refusal(.invalidProducerIDMapping)) }
        guard transaction.epoch == epoch else { return .failure(Refusal(.producerFenced)) }
        return .success(transaction)
    }

    /// Applies `change` to the transaction of `id` if `producerID` and `epoch` are its current
    /// ones, and records it; `change` may refuse with an error code instead.
    private func changing(_ id: String, _ producerID: Int64, _ epoch: Int16, _ change: (inout Transaction) -> KafkaErrorCode?) -> KafkaErrorCode {
        lock.withLock {
            switch current(id, producerID, epoch) {
            case .failure(let refusal):
                return refusal.code
            case .success(var transaction):
                if let refusal = change(&transaction) { return refusal }
                return persisting(id, transaction)
            }
        }
    }

    /// Starts a transaction when none is open.
    private func begin(_ transaction: inout Transaction) {
        guard transaction.state != .ongoing else { return }
        transaction.state = .ongoing
        transaction.startedMs = Self.nowMs()
        transaction.partitions = []
        transaction.groups = []
        transaction.offsets = []
    }

    private func persisting(_ id: String, _ transaction: Transaction) -> KafkaErrorCode {
        do {
            try store(id, transaction)
            return .noError
        } catch {
            return .kafkaStorageError
        }
    }

    /// Writes a Prepare transaction's markers and, for a commit, its group offsets; then records
    /// it complete. Returns the completed transaction.
    private func complete(_ id: String, _ transaction: Transaction, now: Int64) throws -> Transaction {
        let commits = transaction.state == .prepareCommit
        let marker = TransactionMarker(producerID: transaction.producerID, producerEpoch: transaction.epoch, commits: commits)
        for partition in transaction.partitions {
            // A partition whose topic was deleted meanwhile has nothing to end.
            guard let log = topics.log(partition.topic, Int(partition.partition)) else { continue }
            try log.appendMarker(marker, timestamp: now)
        }
        if commits {
            for group in Set(transaction.offsets.map(\.group)).sorted() {
                try commitOffsets(group, transaction.offsets.filter { $0.group == group }.map {
                    ($0.topic, $0.partition, OffsetStore.Committed(offset: $0.offset, metadata: $0.metadata))
                })
            }
        }
        var completed = transaction
        completed.state = commits ? .completeCommit : .completeAbort
        completed.partitions = []
        completed.groups = []
        completed.offsets = []
        completed.startedMs = 0
        try store(id, completed)
        return completed
    }

    /// Records `transaction` as the state of `id`, in the log first.
    private func store(_ id: String, _ transaction: Transaction) throws {
        var buffer = ByteBuffer()
        Self.encode(id, transaction, into: &buffer)
        try log.append(buffer, count: 1)
        if let previous = transactions[id], previous.producerID != transaction.producerID { owners.removeValue(forKey: previous.producerID) }
        transactions[id] = transaction
        owners[transaction.producerID] = id
    }

    private func compact() throws {
        var buffer = ByteBuffer()
        for (id, transaction) in transactions.sorted(by: { $0.key < $1.key }) { Self.encode(id, transaction, into: &buffer) }
        try log.rewrite(buffer, count: transactions.count)
    }

    /// A record's body: the transactional id, producer id (int64), epoch (int16), timeout
    /// (int32), state (int8), start (int64), then the partitions, groups and pending offsets,
    /// each list an int32 count.
    private static func encode(_ id: String, _ transaction: Transaction, into buffer: inout ByteBuffer) {
        var body = ByteBuffer()
        body.writeInternalString(id)
        body.writeInteger(transaction.producerID)
        body.writeInteger(transaction.epoch)
        body.writeInteger(transaction.timeoutMs)
        body.writeInteger(transaction.state.rawValue)
        body.writeInteger(transaction.startedMs)
        body.writeInteger(Int32(transaction.partitions.count))
        for partition in transaction.partitions {
            body.writeInternalString(partition.topic)
            body.writeInteger(partition.partition)
        }
        body.writeInteger(Int32(transaction.groups.count))
        for group in transaction.groups { body.writeInternalString(group) }
        body.writeInteger(Int32(transaction.offsets.count))
        for offset in transaction.offsets {
            body.writeInternalString(offset.group)
            body.writeInternalString(offset.topic)
            body.writeInteger(offset.partition)
            body.writeInteger(offset.offset)
            body.writeInternalString(offset.metadata)
        }
        InternalRecordLog.frame(body, into: &buffer)
    }

    private static func decode(_ body: inout ByteBuffer) -> (String, Transaction)? {
        guard let id = body.readInternalString(), let producerID = body.readInteger(as: Int64.self),
            let epoch = body.readInteger(as: Int16.self), let timeoutMs = body.readInteger(as: Int32.self),
            let state = body.readInteger(as: Int8.self).flatMap(State.init(rawValue:)), let startedMs = body.readInteger(as: Int64.self),
            let partitionCount = body.readInteger(as: Int32.self), partitionCount >= 0
        else { return nil }
        var transaction = Transaction(producerID: producerID, epoch: epoch, timeoutMs: timeoutMs, state: state, startedMs: startedMs)
        for _ in 0 ..< partitionCount {
            guard let topic = body.readInternalString(), let partition = body.readInteger(as: Int32.self) else { return nil }
            transaction.partitions.append(TopicPartition(topic: topic, partition: partition))
        }
        guard let groupCount = body.readInteger(as: Int32.self), groupCount >= 0 else { return nil }
        for _ in 0 ..< groupCount {
            guard let group = body.readInternalString() else { return nil }
            transaction.groups.append(group)
        }
        guard let offsetCount = body.readInteger(as: Int32.self), offsetCount >= 0 else { return nil }
        for _ in 0 ..< offsetCount {
            guard let group = body.readInternalString(), let topic = body.readInternalString(), let partition = body.readInteger(as: Int32.self),
                let offset = body.readInteger(as: Int64.self), let metadata = body.readInternalNullableString()
            else { return nil }
            transaction.offsets.append(PendingOffset(group: group, topic: topic, partition: partition, offset: offset, metadata: metadata))
        }
        return (id, transaction)
    }
}
