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
    private let path: String
    private var handle: FileHandle
    private var committed: [Key: Committed] = [:]
    private var recordCount = 0

    init(directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = "\(directory)/__consumer_offsets.log"
        if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
        let data = FileManager.default.contents(atPath: path) ?? Data()
        var valid = 0
        var buffer = ByteBuffer(bytes: Array(data))
        while let (key, value, size) = Self.decode(&buffer) {
            if let value { committed[key] = value } else { committed.removeValue(forKey: key) }
            valid += size
            recordCount += 1
        }
        handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        if valid < data.count { try handle.truncate(atOffset: UInt64(valid)) }
        try handle.seekToEnd()
        if recordCount > 2 * max(committed.count, 16) { try compact() }
    }

    /// Records `offsets` for `group`, durably (written before returning).
    func commit(group: String, _ offsets: [(topic: String, partition: Int32, committed: Committed)]) throws {
        try lock.withLock {
            var buffer = ByteBuffer()
            for entry in offsets {
                let key = Key(group: group, topic: entry.topic, partition: entry.partition)
                Self.encode(key, entry.committed, into: &buffer)
                committed[key] = entry.committed
                recordCount += 1
            }
            try handle.write(contentsOf: Data(buffer.readableBytesView))
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
        let temporary = path + ".compacting"
        try Data(buffer.readableBytesView).write(to: URL(fileURLWithPath: temporary))
        try handle.close()
        // rename(2) replaces the log in one step.
        guard rename(temporary, path) == 0 else { throw LogError.io("rename \(temporary)", errno: errno) }
        handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        recordCount = committed.count
    }

    /// A record: body length (int32), CRC-32C of the body (uint32), then the body: group,
    /// topic (int16 length + UTF-8 each), partition (int32), offset (int64), metadata (int16
    /// length, -1 for none).
    private static func encode(_ key: Key, _ value: Committed, into buffer: inout ByteBuffer) {
        var body = ByteBuffer()
        for text in [key.group, key.topic] {
            body.writeInteger(Int16(text.utf8.count))
            body.writeString(text)
        }
        body.writeInteger(key.partition)
        body.writeInteger(value.offset)
        if let metadata = value.metadata {
            body.writeInteger(Int16(metadata.utf8.count))
            body.writeString(metadata)
        } else {
            body.writeInteger(Int16(-1))
        }
        buffer.writeInteger(Int32(body.readableBytes))
        buffer.writeInteger(body.withUnsafeReadableBytes { CRC32C.checksum($0) })
        buffer.writeBuffer(&body)
    }

    /// The next record, or nil at the end or at a torn or corrupt record.
    private static func decode(_ buffer: inout ByteBuffer) -> (Key, Committed?, Int)? {
        let start = buffer.readerIndex
        guard let length = buffer.readInteger(as: Int32.self), length > 0, let crc = buffer.readInteger(as: UInt32.self),
            var body = buffer.readSlice(length: Int(length)),
            body.withUnsafeReadableBytes({ CRC32C.checksum($0) }) == crc
        else { return nil }
        func text() -> String? {
            guard let count = body.readInteger(as: Int16.self), count >= 0 else { return nil }
            return body.readString(length: Int(count))
        }
        guard let group = text(), let topic = text(), let partition = body.readInteger(as: Int32.self),
            let offset = body.readInteger(as: Int64.self), let metadataLength = body.readInteger(as: Int16.self)
        else { return nil }
        var metadata: String?
        if metadataLength >= 0 {
            guard let read = body.readString(length: Int(metadataLength)) else { return nil }
            metadata = read
        }
        return (Key(group: group, topic: topic, partition: partition), Committed(offset: offset, metadata: metadata), buffer.readerIndex - start)
    }
}
