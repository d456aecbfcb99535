import Foundation
import NIOCore
import SluiceKafkaProtocol

/// The broker's topics and their partition logs, under `directory` (one folder per partition,
/// `<topic>-<partition>`, as Kafka lays them out) with the topic list in `topics.json`.
package final class TopicStore: @unchecked Sendable {
    /// A topic's settings, kept in `topics.json`.
    package struct Topic: Codable, Sendable, Equatable {
        package var name: String
        package var partitions: Int
        /// Topic-level configuration overrides (`retention.ms`, `cleanup.policy`, …), as given.
        package var configs: [String: String]
        /// A stable id for Metadata v10+ (16 bytes, as Kafka's topic ids).
        package var id: [UInt8]
    }

    package let directory: String
    package let logConfiguration: LogConfiguration
    private let lock = NSLock()
    private var topics: [String: Topic] = [:]
    private var logs: [String: [PartitionLog]] = [:]
    private let validate: @Sendable (ByteBuffer) -> Bool

    /// Opens the store, recovering every partition's log.
    package init(directory: String, logConfiguration: LogConfiguration) throws(LogError) {
        self.directory = directory
        self.logConfiguration = logConfiguration
        self.validate = { buffer in
            (try? RecordBatchValidator(origin: .log).validateBatch(in: buffer, at: buffer.readerIndex)) != nil
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw LogError.io("create \(directory)", errno: errno)
        }
        if let data = FileManager.default.contents(atPath: "\(directory)/topics.json") {
            guard let stored = try? JSONDecoder().decode([Topic].self, from: data) else {
                throw LogError.io("read \(directory)/topics.json: not a topic list", errno: 0)
            }
            for topic in stored {
                topics[topic.name] = topic
                logs[topic.name] = try (0 ..< topic.partitions).map { (partition) throws(LogError) -> PartitionLog in
                    try openLog(topic.name, partition, configs: topic.configs)
                }
            }
        }
    }

    /// Whether `name` can name a topic: 1 to 249 of ASCII letters, digits, `.`, `_` and `-`,
    /// and not `.` or `..` (Kafka's rule).
    package static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 249, name != ".", name != ".." else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }

    package var names: [String] {
        lock.withLock { topics.keys.sorted() }
    }

    package func topic(_ name: String) -> Topic? {
        lock.withLock { topics[name] }
    }

    /// The topic whose id is `id`, if any.
    package func name(forID id: KafkaUUID) -> String? {
        lock.withLock { topics.values.first { $0.uuid == id }?.name }
    }

    /// The log of one partition, or nil if the topic or partition does not exist.
    package func log(_ topic: String, _ partition: Int) -> PartitionLog? {
        lock.withLock {
            guard let partitions = logs[topic], partition >= 0, partition < partitions.count else { return nil }
            return partitions[partition]
        }
    }

    /// The partition logs of a topic.
    package func logs(of topic: String) -> [PartitionLog] {
        lock.withLock { logs[topic] ?? [] }
    }

    /// Creates a topic; fails if it exists or the arguments are not valid.
    @discardableResult
    package func create(_ name: String, partitions: Int, configs: [String: String] = [:]) throws(TopicError) -> Topic {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        guard partitions >= 1, partitions <= 10_000 else { throw .invalidPartitions(partitions) }
        lock.lock()
        defer { lock.unlock() }
        if topics[name] != nil { throw .exists(name) }
        var id = [UInt8](repeating: 0, count: 16)
        for index in id.indices { id[index] = UInt8.random(in: 0 ... 255) }
        let topic = Topic(name: name, partitions: partitions, configs: configs, id: id)
        do {
            logs[name] = try (0 ..< partitions).map { (partition) throws(LogError) -> PartitionLog in
                try openLog(name, partition, configs: configs)
            }
        } catch {
            throw .storage(error)
        }
        topics[name] = topic
        try save()
        return topic
    }

    /// Adds partitions to a topic, up to `count` in all.
    package func grow(_ name: String, to count: Int) throws(TopicError) {
        lock.lock()
        defer { lock.unlock() }
        guard var topic = topics[name] else { throw .unknown(name) }
        guard count > topic.partitions, count <= 10_000 else { throw .invalidPartitions(count) }
        do {
            for partition in topic.partitions ..< count { logs[name]!.append(try openLog(name, partition, configs: topic.configs)) }
        } catch {
            throw .storage(error)
        }
        topic.partitions = count
        topics[name] = topic
        try save()
    }

    /// Deletes a topic and its data.
    package func delete(_ name: String) throws(TopicError) {
        lock.lock()
        defer { lock.unlock() }
        guard let topic = topics.removeValue(forKey: name) else { throw .unknown(name) }
        for log in logs.removeValue(forKey: name) ?? [] { log.markDeleted() }
        for partition in 0 ..< topic.partitions {
            try? FileManager.default.removeItem(atPath: "\(directory)/\(name)-\(partition)")
        }
        try save()
    }

    /// Fsyncs every partition whose interval flush is due.
    package func syncDue() {
        for partitions in lock.withLock({ Array(logs.values) }) {
            for log in partitions { try? log.syncIfDue() }
        }
    }

    /// Applies retention to every partition.
    package func enforceRetention(nowMilliseconds: Int64) {
        for partitions in lock.withLock({ Array(logs.values) }) {
            for log in partitions { log.enforceRetention(nowMilliseconds: nowMilliseconds) }
        }
    }

    /// The logs of the topics whose cleanup policy compacts, for the log cleaner.
    package var compactedLogs: [PartitionLog] {
        lock.withLock { Array(logs.values) }.flatMap { $0 }.filter { $0.configuration.compacts }
    }

    /// Replaces a topic's config overrides (AlterConfigs; IncrementalAlterConfigs computes the
    /// whole set first), applying them to its partitions at once. The caller has checked them
    /// with ``TopicConfigs``.
    package func setConfigs(_ name: String, _ configs: [String: String]) throws(TopicError) {
        lock.lock()
        defer { lock.unlock() }
        guard var topic = topics[name] else { throw .unknown(name) }
        topic.configs = configs
        topics[name] = topic
        try save()
        let configuration = logConfiguration(for: configs)
        for log in logs[name] ?? [] { log.configuration = configuration }
    }

    /// The broker's log settings with a topic's overrides applied.
    private func logConfiguration(for configs: [String: String]) -> LogConfiguration {
        var configuration = logConfiguration
        if let value = configs["retention.ms"], let milliseconds = Int64(value) {
            configuration.retentionMilliseconds = milliseconds < 0 ? nil : milliseconds
        }
        if let value = configs["retention.bytes"], let bytes = Int64(value) { configuration.retentionBytes = bytes < 0 ? nil : bytes }
        if let value = configs["segment.bytes"], let bytes = Int(value), bytes > 0 { configuration.segmentBytes = bytes }
        if let value = configs["cleanup.policy"] { configuration.setCleanupPolicy(value) }
        if let value = configs["delete.retention.ms"], let milliseconds = Int64(value), milliseconds >= 0 {
            configuration.deleteRetentionMilliseconds = milliseconds
        }
        if let value = configs["min.compaction.lag.ms"], let milliseconds = Int64(value), milliseconds >= 0 {
            configuration.minCompactionLagMilliseconds = milliseconds
        }
        if let value = configs["min.cleanable.dirty.ratio"], let ratio = Double(value), ratio >= 0, ratio <= 1 {
            configuration.minCleanableDirtyRatio = ratio
        }
        return configuration
    }

    private func openLog(_ topic: String, _ partition: Int, configs: [String: String]) throws(LogError) -> PartitionLog {
        try PartitionLog(directory: "\(directory)/\(topic)-\(partition)", configuration: logConfiguration(for: configs), validate: validate)
    }

    /// Writes `topics.json` atomically. Called with the lock held.
    private func save() throws(TopicError) {
        do {
            let data = try JSONEncoder().encode(topics.values.sorted { $0.name < $1.name })
            let path = "\(directory)/topics.json"
            try data.write(to: URL(fileURLWithPath: path + ".tmp"))
            if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: path + ".tmp", toPath: path)
        } catch {
            throw .storage(.io("write topics.json: \(error)", errno: 0))
        }
    }
}

extension TopicStore.Topic {
    /// The stored id bytes as the protocol's ``KafkaUUID``.
    package var uuid: KafkaUUID {
        guard id.count == 16 else { return .zero }
        let high = id[0 ..< 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let low = id[8 ..< 16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return KafkaUUID(mostSignificantBits: high, leastSignificantBits: low)
    }
}

/// Why a topic operation failed; each maps to a Kafka error code.
package enum TopicError: Error, Equatable {
    case invalidName(String)
    case invalidPartitions(Int)
    case exists(String)
    case unknown(String)
    case storage(LogError)

    package var code: KafkaErrorCode {
        switch self {
        case .invalidName: .invalidTopic
        case .invalidPartitions: .invalidPartitions
        case .exists: .topicAlreadyExists
        case .unknown: .unknownTopicOrPartition
        case .storage: .kafkaStorageError
        }
    }
}
