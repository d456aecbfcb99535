import Foundation
import NIOCore
import SluiceCodecs

/// Committed consumer-group offsets, kept in an internal compacted log: every commit appends a
/// record (group, topic, partition, offset, metadata) with its CRC-32C to
/// `__consumer_offsets.log`; at start the log is read back (stopping at the first torn or
/// corrupt record, which is cut off) and rewritten with only the latest record of each key when
/// it holds more than twice as many records as keys.
final class OffsetStore: @unchecked Sendable {
    struct Key: Hashable, Comparable {
        var group: String
        var topic: String
        var partition: Int32

        static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.group, lhs.topic, lhs.partition) < (rhs.group, rhs.topic, rhs.partition)
        }
    }

    struct Committed: Equatable {
        var offset: Int64
        var metadata: String?
    }

    private let lock = NSLock()
    private let log: InternalRecordLog
    private var committed: [Key: Committed] = [:]

    init(directory: String) throws {
        var committed: [Key: Committed] = [:]
        log = try InternalRecordLog(path: "\(directory)/__consumer_offsets.log") { body in
            guard let (key, value) = Self.decode(&body) else { return }
            committed[key] = value
        }
        self.committed = committed
        if log.recordCount > 2 * max(committed.count, 16) { try compact() }
    }

    /// Records `offsets` for `group`, durably (written before returning).
    func commit(group: String, _ offsets: [(topic: String, partition: Int32, committed: Committed)]) throws {
        try lock.withLock {
            var buffer = ByteBuffer()
            for entry in offsets {
                let key = Key(group: group, topic: entry.topic, partition: entry.partition)
                Self.encode(key, entry.committed, into: &buffer)
                committed[key] = entry.committed
            }
            try log.append(buffer, count: offsets.count)
        }
    }

    func offset(group: String, topic: String, partition: Int32) -> Committed? {
        lock.withLock { committed[Key(group: group, topic: topic, partition: partition)] }
    }

    /// Every committed offset of `group`, by topic and partition.
    func offsets(group: String) -> [(topic: String, partition: Int32, committed: Committed)] {
        lock.withLock {
            committed.filter { $0.key.group == group }.sorted { $0.key < $1.key }.map { ($0.key.topic, $0.key.partition, $0.value) }
        }
    }

    /// Groups that have committed offsets.
    var groups: Set<String> {
        lock.withLock { Set(committed.keys.map(\.group)) }
    }

    /// Rewrites the log with the latest record of each key.
    private func compact() throws {
        var buffer = ByteBuffer()
        for (key, value) in committed.sorted(by: { $0.key < $1.key }) { Self.encode(key, value, into: &buffer) }
        try log.rewrite(buffer, count: committed.count)
    }

    /// A record's body: group, topic (int16 length + UTF-8 each), partition (int32), offset
    /// (int64), metadata (int16 length, -1 for none).
    private static func encode(_ key: Key, _ value: Committed, into buffer: inout ByteBuffer) {
        var body = ByteBuffer()
        for text in [key.group, key.topic] { body.writeInternalString(text) }
        body.writeInteger(key.partition)
        body.writeInteger(value.offset)
        body.writeInternalString(value.metadata)
        InternalRecordLog.frame(body, into: &buffer)
    }

    /// The key and offset in a record's body, nil when it does not read as one.
    private static func decode(_ body: inout ByteBuffer) -> (Key, Committed)? {
        guard let group = body.readInternalString(), let topic = body.readInternalString(), let partition = body.readInteger(as: Int32.self),
            let offset = body.readInteger(as: Int64.self), let metadata = body.readInternalNullableString()
        else { return nil }
        return (Key(group: group, topic: topic, partition: partition), Committed(offset: offset, metadata: metadata))
    }
}
