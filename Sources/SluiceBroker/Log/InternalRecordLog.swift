import Foundation
import NIOCore
import SluiceCodecs

/// A broker-internal log of records, each a body framed by its length (int32) and CRC-32C
/// (uint32), as Kafka keeps `__consumer_offsets` and `__transaction_state`: appended to as state
/// changes, read back whole at start (stopping at the first torn or corrupt record, which is cut
/// off), and rewritten with only the current state when it holds much more than that.
///
/// Not thread-safe: its owner serialises calls.
final class InternalRecordLog {
    private let path: String
    private var handle: FileHandle
    /// Records in the file.
    private(set) var recordCount = 0

    /// Opens (or creates) the log at `path`, handing each intact record's body to `read`, oldest
    /// first.
    init(path: String, read: (inout ByteBuffer) -> Void) throws {
        self.path = path
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
        let data = FileManager.default.contents(atPath: path) ?? Data()
        var buffer = ByteBuffer(bytes: Array(data))
        var valid = 0
        while let length = buffer.readInteger(as: Int32.self), length > 0, let crc = buffer.readInteger(as: UInt32.self),
            var body = buffer.readSlice(length: Int(length)), body.withUnsafeReadableBytes({ CRC32C.checksum($0) }) == crc
        {
            read(&body)
            valid = buffer.readerIndex
            recordCount += 1
        }
        handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        if valid < data.count { try handle.truncate(atOffset: UInt64(valid)) }
        try handle.seekToEnd()
    }

    /// Frames `body` as a record into `buffer`.
    static func frame(_ body: ByteBuffer, into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int32(body.readableBytes))
        buffer.writeInteger(body.withUnsafeReadableBytes { CRC32C.checksum($0) })
        buffer.writeImmutableBuffer(body)
    }

    /// Appends records framed by ``frame(_:into:)`` (`count` of them), written before returning.
    func append(_ records: ByteBuffer, count: Int) throws {
        try handle.write(contentsOf: Data(records.readableBytesView))
        recordCount += count
    }

    /// Replaces the whole log, in one step (rename(2)), with `records` (`count` of them).
    func rewrite(_ records: ByteBuffer, count: Int) throws {
        let temporary = path + ".compacting"
        try Data(records.readableBytesView).write(to: URL(fileURLWithPath: temporary))
        try handle.close()
        guard rename(temporary, path) == 0 else { throw LogError.io("rename \(temporary)", errno: errno) }
        handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        recordCount = count
    }
}

extension ByteBuffer {
    /// Writes an internal record's string: int16 length (-1 for nil), then UTF-8.
    mutating func writeInternalString(_ text: String?) {
        guard let text else {
            writeInteger(Int16(-1))
            return
        }
        writeInteger(Int16(truncatingIfNeeded: text.utf8.count))
        writeString(text)
    }

    /// Reads a string written by ``writeInternalString(_:)``; nil when absent or unreadable.
    mutating func readInternalString() -> String? {
        guard let count = readInteger(as: Int16.self), count >= 0 else { return nil }
        return readString(length: Int(count))
    }

    /// Reads a string written by ``writeInternalString(_:)``: `.some(nil)` for a nil one, nil
    /// when unreadable.
    mutating func readInternalNullableString() -> String?? {
        guard let count = readInteger(as: Int16.self) else { return nil }
        if count < 0 { return .some(nil) }
        guard let text = readString(length: Int(count)) else { return nil }
        return .some(text)
    }
}
