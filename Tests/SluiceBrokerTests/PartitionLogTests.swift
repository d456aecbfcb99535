import Foundation
import NIOCore
import SluiceCore
import SluiceKafkaProtocol
import Testing

@testable import SluiceBroker

/// A fresh directory for one test, removed afterwards.
private func withDirectory(_ body: (String) throws -> Void) throws {
    let path = NSTemporaryDirectory() + "sluice-log-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    try body(path)
}

/// A batch of `count` records with values "v<n>" and timestamps `timestamp + n`.
private func batch(_ count: Int, first: Int = 0, timestamp: Int64 = 1_700_000_000_000) -> ByteBuffer {
    let records = (0 ..< count).map { index in
        KafkaRecord(
            offset: Int64(index), timestamp: timestamp + Int64(index), key: nil, value: ByteBuffer(string: "v\(first + index)"))
    }
    var buffer = ByteBuffer()
    _ = RecordBatchEncoder().encode(records, into: &buffer)
    return buffer
}

/// Whether a stored batch is intact, as the broker checks at recovery.
private let intact: @Sendable (ByteBuffer) -> Bool = { buffer in
    (try? RecordBatchValidator(origin: .log).validateBatch(in: buffer, at: buffer.readerIndex)) != nil
}

/// The values of every record in `buffer` (whole batches).
private func values(_ buffer: ByteBuffer) throws -> [String] {
    var result: [String] = []
    for view in try RecordBatchValidator(origin: .log).validate(buffer) {
        for record in try view.records(in: buffer) {
            result.append(record.value.map { String(buffer: $0) } ?? "")
        }
    }
    return result
}

private func offsets(_ buffer: ByteBuffer) throws -> [Int64] {
    var result: [Int64] = []
    for view in try RecordBatchValidator(origin: .log).validate(buffer) {
        for record in try view.records(in: buffer) { result.append(record.offset) }
    }
    return result
}

@Suite struct PartitionLogTests {
    @Test func appendsGiveConsecutiveOffsetsAndReadsReturnWholeBatches() throws {
        try withDirectory { path in
            let log = try PartitionLog(directory: path, validate: intact)
            #expect(log.logStartOffset == 0 && log.logEndOffset == 0)
            #expect(try log.append([batch(3), batch(2, first: 3)]) == (0, 4))
            #expect(try log.append([batch(1, first: 5)]) == (5, 5))
            #expect(log.logEndOffset == 6)
            #expect(try values(log.read(from: 0, maxBytes: 1 << 20)) == ["v0", "v1", "v2", "v3", "v4", "v5"])
            #expect(try offsets(log.read(from: 0, maxBytes: 1 << 20)) == [0, 1, 2, 3, 4, 5])
            // From inside a batch: that whole batch, as Kafka serves it.
            #expect(try offsets(log.read(from: 4, maxBytes: 1 << 20)) == [3, 4, 5])
            // A small limit still returns the first batch.
            #expect(try offsets(log.read(from: 0, maxBytes: 10)) == [0, 1, 2])
            #expect(try log.read(from: 6, maxBytes: 100).readableBytes == 0)
            #expect(throws: LogError.offsetOutOfRange(requested: 7, start: 0, end: 6)) { try log.read(from: 7, maxBytes: 100) }
        }
    }

    @Test func segmentsRollAndOffsetsSurviveReopening() throws {
        try withDirectory { path in
            var configuration = LogConfiguration()
            configuration.segmentBytes = 300
            configuration.indexIntervalBytes = 100
            do {
                let log = try PartitionLog(directory: path, configuration: configuration, validate: intact)
                for round in 0 ..< 20 { try log.append([batch(2, first: round * 2)]) }
            }
            let segmentFiles = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".log") }
            #expect(segmentFiles.count > 3)
            let reopened = try PartitionLog(directory: path, configuration: configuration, validate: intact)
            #expect(reopened.logEndOffset == 40)
            #expect(reopened.recoveredBytesCut == 0)
            #expect(try offsets(reopened.read(from: 17, maxBytes: 1 << 20)).first == 16)
            var all: [String] = []
            var next: Int64 = 0
            while next < reopened.logEndOffset {
                let chunk = try reopened.read(from: next, maxBytes: 150)
                let got = try offsets(chunk)
                all += try values(chunk)
                next = got.last! + 1
            }
            #expect(all == (0 ..< 40).map { "v\($0)" })
            #expect(try reopened.append([batch(1, first: 40)]) == (40, 40))
        }
    }

    @Test func recoveryCutsATornOrCorruptTail() throws {
        try withDirectory { path in
            do {
                let log = try PartitionLog(directory: path, validate: intact)
                try log.append([batch(2), batch(2, first: 2)])
            }
            let file = path + "/" + Segment.fileName(0) + ".log"
            let whole = try Data(contentsOf: URL(fileURLWithPath: file))
            // A torn write: half of a third batch.
            var torn = whole
            let third = batch(3, first: 4)
            torn.append(contentsOf: Array(third.readableBytesView.prefix(30)))
            try torn.write(to: URL(fileURLWithPath: file))
            do {
                let log = try PartitionLog(directory: path, validate: intact)
                #expect(log.recoveredBytesCut == 30)
                #expect(log.logEndOffset == 4)
                #expect(try log.append([batch(1, first: 4)]) == (4, 4))
                #expect(try values(log.read(from: 0, maxBytes: 1 << 20)) == ["v0", "v1", "v2", "v3", "v4"])
            }
            // A flipped byte in the last batch's records: its CRC fails, so it is cut.
            var corrupt = try Data(contentsOf: URL(fileURLWithPath: file))
            corrupt[corrupt.count - 2] ^= 0xFF
            try corrupt.write(to: URL(fileURLWithPath: file))
            let log = try PartitionLog(directory: path, validate: intact)
            #expect(log.logEndOffset == 4)
            #expect(log.recoveredBytesCut > 0)
        }
    }

    @Test func offsetsByTimestampAndRetention() throws {
        try withDirectory { path in
            var configuration = LogConfiguration()
            configuration.segmentBytes = 200
            configuration.retentionMilliseconds = nil
            configuration.retentionBytes = 400
            let log = try PartitionLog(directory: path, configuration: configuration, validate: intact)
            for round in 0 ..< 10 { try log.append([batch(2, first: round * 2, timestamp: 1000 * Int64(round))]) }
            #expect(try log.offset(forTimestamp: 0)?.offset == 0)
            #expect(try log.offset(forTimestamp: 3000)?.offset == 6)
            #expect(try log.offset(forTimestamp: 3002)?.offset == 8)
            #expect(try log.offset(forTimestamp: 99_999) == nil)
            let before = log.size
            let removed = log.enforceRetention(nowMilliseconds: 10_000)
            #expect(removed > 0)
            #expect(log.size < before && log.size <= 400 + 200)
            #expect(log.logStartOffset > 0)
            #expect(log.logEndOffset == 20)
            #expect(throws: LogError.self) { try log.read(from: 0, maxBytes: 100) }
        }
    }

    @Test func aBatchWhoseLengthLiesIsRefused() throws {
        try withDirectory { path in
            let log = try PartitionLog(directory: path, validate: intact)
            var bad = batch(2)
            bad.moveWriterIndex(to: bad.writerIndex - 3)
            #expect(throws: LogError.self) { try log.append([bad]) }
            #expect(log.logEndOffset == 0)
        }
    }

    /// Batches of `SegmentFile.directMinimum` bytes and more go to the disk directly, padded to
    /// whole blocks, with small ones through the page cache between them: every record reads
    /// back, from the log as written and reopened (as after a crash, the padding still there),
    /// and the files hold no padding once sealed or recovered.
    @Test func largeBatchesWrittenDirectlyReadBackAndLeaveNoPadding() throws {
        try withDirectory { path in
            var configuration = LogConfiguration()
            configuration.segmentBytes = 400_000
            // Values of 700 bytes: 100 records make a batch of about 70 KB.
            func large(_ first: Int) -> ByteBuffer {
                let records = (0 ..< 100).map { index in
                    KafkaRecord(offset: Int64(index), timestamp: 1_700_000_000_000, key: nil,
                                value: ByteBuffer(string: "v\(first + index)-" + String(repeating: "x", count: 700)))
                }
                var buffer = ByteBuffer()
                _ = RecordBatchEncoder().encode(records, into: &buffer)
                return buffer
            }
            #expect(large(0).readableBytes >= SegmentFile.directMinimum)
            var expected: [String] = []
            let log = try PartitionLog(directory: path, configuration: configuration, validate: intact)
            var next = 0
            for round in 0 ..< 16 {
                if round % 3 == 1 {
                    try log.append([batch(3, first: next)])
                    expected += (next ..< next + 3).map { "v\($0)" }
                    next += 3
                } else {
                    try log.append([large(next)])
                    expected += (next ..< next + 100).map { "v\($0)-" + String(repeating: "x", count: 700) }
                    next += 100
                }
            }
            func readAll(_ log: PartitionLog) throws -> [String] {
                var result: [String] = []
                var offset: Int64 = 0
                while offset < log.logEndOffset {
                    let buffer = try log.read(from: offset, maxBytes: 200_000)
                    let read = try values(buffer)
                    let last = try offsets(buffer).last!
                    // Whole batches from the one holding `offset`: skip what was read already.
                    result += read.suffix(Int(last - offset + 1))
                    offset = last + 1
                }
                return result
            }
            #expect(try readAll(log) == expected)
            let segments = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".log") }.sorted()
            #expect(segments.count >= 3)
            func fileSize(_ name: String) throws -> Int {
                (try FileManager.default.attributesOfItem(atPath: path + "/" + name)[.size] as! NSNumber).intValue
            }
            // Sealed segments hold whole batches and nothing after.
            let sizes = try segments.map(fileSize)
            for name in segments.dropLast() {
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "/" + name)))
                var position = 0
                while position + 17 <= bytes.count, bytes[position + 16] == 2 {
                    let length = bytes[(position + 8) ..< (position + 12)].reduce(0) { $0 << 8 | Int($1) }
                    position += 12 + length
                }
                #expect(position == bytes.count, "\(name): \(bytes.count - position) bytes after its batches")
            }
            let sealedTotal = sizes.dropLast().reduce(0, +)
            let activeLength = Int(log.size) - sealedTotal
            // The active one may end in zeros up to a block (a direct write's padding).
            #expect(sizes.last! >= activeLength && sizes.last! < activeLength + DirectIO.block)

            // Reopened as after a kill: the padding is cut, every record reads back.
            let reopened = try PartitionLog(directory: path, configuration: configuration, validate: intact)
            #expect(reopened.logEndOffset == log.logEndOffset)
            #expect(try fileSize(segments.last!) == activeLength)
            #expect(try readAll(reopened) == expected)
            // Appends go on after the cut, large and small.
            try reopened.append([large(next)])
            try reopened.append([batch(2, first: next + 100)])
            expected += (next ..< next + 100).map { "v\($0)-" + String(repeating: "x", count: 700) } + ["v\(next + 100)", "v\(next + 101)"]
            #expect(try readAll(reopened) == expected)
        }
    }
}
