import Foundation
import NIOCore
import SluiceCore
import SluiceKafkaProtocol
import Testing

@testable import SluiceBroker

/// A fresh directory for one test, removed afterwards.
private func withDirectory(_ body: (String) throws -> Void) throws {
    let path = NSTemporaryDirectory() + "sluice-cleaner-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    try body(path)
}

/// "Now" for the cleaner in these tests; record timestamps are set relative to it.
private let now: Int64 = 1_700_000_000_000

/// Whether a stored batch is intact, as the broker checks at recovery.
private let intact: @Sendable (ByteBuffer) -> Bool = { buffer in
    (try? RecordBatchValidator(origin: .log).validateBatch(in: buffer, at: buffer.readerIndex)) != nil
}

/// A compacted log's settings: nothing deleted by retention, cleaned whatever the dirty ratio,
/// and with 100-byte segments every batch of one or two small records gets a segment of its own.
private func compacting(segmentBytes: Int = 100) -> LogConfiguration {
    var configuration = LogConfiguration()
    configuration.segmentBytes = segmentBytes
    configuration.indexIntervalBytes = 100
    configuration.compacts = true
    configuration.deletes = false
    configuration.retentionMilliseconds = nil
    configuration.minCleanableDirtyRatio = 0
    configuration.deleteRetentionMilliseconds = 60_000
    return configuration
}

/// The producer fields of a batch.
private struct Producer {
    var id: Int64
    var epoch: Int16 = 0
    var sequence: Int32 = 0
    var transactional = false
}

/// One batch of records `key=value` (nil value: a tombstone), timestamps `timestamp + n`.
private func batch(
    _ pairs: KeyValuePairs<String?, String?>, timestamp: Int64 = now - 1000, compression: RecordBatchCompression = .uncompressed,
    producer: Producer? = nil
) -> ByteBuffer {
    var encoder = RecordBatchEncoder()
    encoder.compression = compression
    if let producer {
        encoder.producerID = producer.id
        encoder.producerEpoch = producer.epoch
        encoder.baseSequence = producer.sequence
        encoder.isTransactional = producer.transactional
    }
    let records = pairs.enumerated().map { index, pair in
        KafkaRecord(
            offset: Int64(index), timestamp: timestamp + Int64(index), key: pair.key.map { ByteBuffer(string: $0) },
            value: pair.value.map { ByteBuffer(string: $0) })
    }
    var buffer = ByteBuffer()
    encoder.encode(records, into: &buffer)
    return buffer
}

/// Every data record of the log, from its start, as "offset key=value" (∅ for null).
private func contents(_ log: PartitionLog) throws -> [String] {
    var result: [String] = []
    var next = log.logStartOffset
    while next < log.logEndOffset {
        let chunk = try log.read(from: next, maxBytes: 1 << 20)
        let views = try RecordBatchValidator(origin: .log).validate(chunk)
        guard let last = views.last else { break }
        for view in views where !view.header.isControl {
            for record in try view.records(in: chunk) where record.offset >= next {
                let key = record.key.map { String(buffer: $0) } ?? "∅"
                let value = record.value.map { String(buffer: $0) } ?? "∅"
                result.append("\(record.offset) \(key)=\(value)")
            }
        }
        next = last.header.lastOffset + 1
    }
    return result
}

/// The stored bytes of the batch holding `offset`.
private func storedBatch(_ log: PartitionLog, at offset: Int64) throws -> ByteBuffer {
    let bytes = try log.read(from: offset, maxBytes: 1)
    let view = try RecordBatchValidator(origin: .log).validateBatch(in: bytes, at: bytes.readerIndex)
    return bytes.getSlice(at: view.byteRange.lowerBound, length: view.byteRange.count)!
}

/// The headers of the batches stored from `offset` on.
private func headers(_ log: PartitionLog, from offset: Int64) throws -> [RecordBatchHeader] {
    try RecordBatchValidator(origin: .log).validate(log.read(from: offset, maxBytes: 1 << 20)).map(\.header)
}

private func segmentFiles(_ path: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".log") }.sorted()
}

private func fileBytes(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}

@Suite struct LogCleanerTests {
    @Test func keepsTheLatestRecordOfEachKeyAtItsOffsetAndLeavesTheActiveSegment() throws {
        try withDirectory { path in
            let log = try PartitionLog(directory: path, configuration: compacting(), validate: intact)
            for pair: KeyValuePairs<String?, String?> in [["k1": "a"], ["k2": "b"], ["k1": "c"], ["k3": "d"], ["k2": "e"], ["k1": "f"]] {
                try log.append([batch(pair)])
            }
            let active = path + "/" + Segment.fileName(5) + ".log"
            let activeBefore = try fileBytes(active)
            let done = try LogCleaner().clean(log, nowMilliseconds: now)
            #expect(done.passes == 1 && done.recordsRemoved == 2)
            #expect(done.bytesRead > done.bytesWritten)
            // k1's record in the active segment is not looked at: k1@2 stays beside it.
            #expect(try contents(log) == ["2 k1=c", "3 k3=d", "4 k2=e", "5 k1=f"])
            #expect(try fileBytes(active) == activeBefore)
            #expect(log.logStartOffset == 0 && log.logEndOffset == 6)
            #expect(log.cleanerCheckpoint == 5)
            #expect(log.cleanerStatistics == done)
            // Nothing more to do until a segment closes.
            #expect(try LogCleaner().clean(log, nowMilliseconds: now).passes == 0)

            // A new record closes the segment holding k1@5: k1@2 goes, and the segments that
            // cleaning emptied merge with the next ones.
            let filesBefore = try segmentFiles(path).count
            try log.append([batch(["k2": "g"])])
            try LogCleaner().clean(log, nowMilliseconds: now)
            #expect(try contents(log) == ["3 k3=d", "4 k2=e", "5 k1=f", "6 k2=g"])
            #expect(try segmentFiles(path).count < filesBefore)
            #expect(log.logEndOffset == 7)
            #expect(try log.append([batch(["k4": "h"])]) == (7, 7))
        }
    }

    @Test func aSegmentWithNothingToRemoveIsReadButNotWritten() throws {
        try withDirectory { path in
            let log = try PartitionLog(directory: path, configuration: compacting(), validate: intact)
            for key in ["k1", "k2", "k3", "k4"] { try log.append([batch([key: "v"])]) }
            func fileNumbers() throws -> [String: Int] {
                try Dictionary(uniqueKeysWithValues: segmentFiles(path).map { name in
                    (name, try FileManager.default.attributesOfItem(atPath: path + "/" + name)[.systemFileNumber] as! Int)
                })
            }
            let before = try fileNumbers()
            let done = try LogCleaner().clean(log, nowMilliseconds: now)
            #expect(done.passes == 1 && done.bytesRead == 0 && done.recordsRemoved == 0)
            #expect(try fileNumbers() == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: path).allSatisfy { !$0.hasSuffix(".cleaned") })
            #expect(log.cleanerCheckpoint == 3)
            // A record that supersedes k2 rewrites the one segment holding it, nothing else.
            try log.append([batch(["k2": "w"])])
            try log.append([batch(["k5": "x"])])
            try LogCleaner().clean(log, nowMilliseconds: now)
            #expect(try contents(log) == ["0 k1=v", "2 k3=v", "3 k4=v", "4 k2=w", "5 k5=x"])
            let after = try fileNumbers()
            for name in before.keys where name != Segment.fileName(1) + ".log" { #expect(after[name] == before[name], "\(name)") }
            #expect(after[Segment.fileName(1) + ".log"] != before[Segment.fileName(1) + ".log"])
        }
    }

    @Test func aReadFromARemovedOffsetGetsTheNextBatchThatHoldsALaterRecord() throws {
        try withDirectory { path in
            let log = try PartitionLog(directory: path, configuration: compacting(segmentBytes: 200), validate: intact)
            try log.append([batch(["k1": "a", "k2": "b", "k1": "c"])])  // 0–2, alone in its segment
            try log.append([batch(["k2": "d"])])  // 3
            try log.append([batch(["k3": "e"])])  // 4
            try log.append([batch(["k9": "z", "k8": "y"])])  // 5–6, the active segment
            try LogCleaner().clean(log, nowMilliseconds: now)
            #expect(try contents(log) == ["2 k1=c", "3 k2=d", "4 k3=e", "5 k9=z", "6 k8=y"])
            // The first batch keeps its offsets (0 to 2) with only offset 2 in it.
            let first = try headers(log, from: 0)[0]
            #expect(first.baseOffset == 0 && first.lastOffsetDelta == 2 && first.recordCount == 1)
            for offset: Int64 in [0, 1] {
                let records = try RecordBatchValidator(origin: .log).validate(log.read(from: offset, maxBytes: 1 << 20))
                #expect(records.first?.header.baseOffset == 0)
            }
            #expect(try log.offset(forTimestamp: 0)?.offset == 2)
        }
    }

    @Test(arguments: [RecordBatchCompression.gzip, .snappy, .lz4, .zstd])
    func compressedBatchesAreEncodedAgainWithTheirCodec(_ codec: RecordBatchCompression) throws {
        try withDirectory { path in
            let log = try PartitionLog(directory: path, configuration: compacting(), validate: intact)
            try log.append([batch(["k1": "a", "k2": "b", "k1": "c", "k3": "d"], compression: codec)])  // 0–3
            try log.append([batch(["k2": "e"], compression: codec)])  // 4
            try log.append([batch(["k9": "z"])])  // 5, active
            try LogCleaner().clean(log, nowMilliseconds: now)
            #expect(try contents(log) == ["2 k1=c", "3 k3=d", "4 k2=e", "5 k9=z"])
            let first = try headers(log, from: 0)[0]
            #expect(first.compression == codec)
            #expect(first.baseOffset == 0 && first.lastOffsetDelta == 3 && first.recordCount == 2)
        }
    }

    @Test func idempotentBatchesKeepTheirProducerFieldsAndLastSequence() throws {
        try withDirectory { path in
            let producer = Producer(id: 1000, epoch: 3, sequence: 10)
            do {
                let log = try PartitionLog(directory: path, configuration: compacting(), validate: intact)
                try log.append([batch(["k1": "a", "k2": "b", "k1": "c"], producer: producer)])  // 0–2
                try log.append([batch(["k2": "d"], producer: Producer(id: 1000, epoch: 3, sequence: 13))])  // 3
                try log.append([batch(["k9": "z"])])  // 4, active
                try LogCleaner().clean(log, nowMilliseconds: now)
                #expect(try contents(log) == ["2 k1=c", "3 k2=d", "4 k9=z"])
                let first = try headers(log, from: 0)[0]
                #expect(first.producerID == 1000 && first.producerEpoch == 3 && first.baseSequence == 10)
                #expect(first.lastOffsetDelta == 2 && first.recordCount == 1)
            }
            // The producer's sequence numbers come back from the cleaned batches after a restart.
            let reopened = try PartitionLog(directory: path, configuration: compacting(), validate: intact)
            let recovered = reopened.recoveredProducerBatches.map { "\($0.producerID) \($0.epoch) \($0.firstSequence)-\($0.lastSequence) @\($0.offset)" }
            #expect(recovered == ["1000 3 10-12 @0", "1000 3 13-13 @3"])
        }
    }

    @Test func tombstonesStayForDeleteRetentionThenGo() throws {
        try withDirectory { path in
            let log = try PartitionLog(directory: path, configuration: compacting(), validate: intact)
            try log.append([batch(["k1": "a"], timestamp: now - 100_000)])  // 0
            try log.append([batch(["k1": nil], timestamp: now - 1000)])  // 1: a recent tombstone
            try log.append([batch(["k2": "b"], timestamp: now - 100_000)])  // 2
            try log.append([batch(["k2": nil], timestamp: now - 100_000)])  // 3: past delete.retention.ms
            try log.append([batch(["k3": nil], timestamp: now - 1000)])  // 4: a key never seen
            try log.append([batch([nil: "keyless"])])  // 5: written before the topic compacted
            try log.append([batch(["k9": "z"])])  // 6, active
            try LogCleaner().clean(log, nowMilliseconds: now)
            #expect(try contents(log) == ["1 k1=∅", "4 k3=∅", "6 k9=z"])
            // Not due again until the kept tombstones' deadline (a minute after their timestamp).
            #expect(try LogCleaner().clean(log, nowMilliseconds: now + 58_000).passes == 0)
            #expect(try LogCleaner().clean(log, nowMilliseconds: now + 59_000).passes == 1)
            #expect(try contents(log) == ["6 k9=z"])
            #expect(log.logStartOffset == 0 && log.logEndOffset == 7)
        }
    }

    @Test func transactionalBatchesStayAsTheyAreAndAbortedRecordsDoNotCount() throws {
        try withDirectory { path in
            let log = try PartitionLog(directory: path, configuration: compacting(), validate: intact)
            try log.append([batch(["k1": "a", "k2": "b"])])  // 0–1
            try log.append([batch(["k1": "t"], producer: Producer(id: 2000, transactional: true))])  // 2
            try log.appendMarker(TransactionMarker(producerID: 2000, producerEpoch: 0, commits: true), timestamp: now)  // 3
            try log.append([batch(["k2": "z", "k1": "y"], producer: Producer(id: 3000, transactional: true))])  // 4–5
            try log.appendMarker(TransactionMarker(producerID: 3000, producerEpoch: 0, commits: false), timestamp: now)  // 6
            try log.append([batch(["k4": nil], timestamp: now - 100_000)])  // 7: a tombstone after transactional batches
            try log.append([batch(["k3": "c"])])  // 8
            try log.append([batch(["k3": "open"], producer: Producer(id: 4000, transactional: true))])  // 9, still open
            try log.append([batch(["k3": "d"])])  // 10
            try log.append([batch(["k9": "z"])])  // 11, active
            let transactional: [Int64] = [2, 3, 4, 6, 9]
            let before = try transactional.map { try storedBatch(log, at: $0) }
            let aborted = log.abortedTransactions(from: 0, before: 100)
            #expect(aborted == [AbortedTransaction(producerID: 3000, firstOffset: 4, lastOffset: 6)])

            try LogCleaner().clean(log, nowMilliseconds: now)
            // k1@0 gives way to the committed k1@2; k2@1 stays, as the aborted k2@4 does not
            // count; the tombstone stays (an older k4 could hide in a transactional batch); the
            // open transaction bounds the pass, so k3@8 stays beside k3@10.
            #expect(try contents(log) == ["1 k2=b", "2 k1=t", "4 k2=z", "5 k1=y", "7 k4=∅", "8 k3=c", "9 k3=open", "10 k3=d", "11 k9=z"])
            #expect(try transactional.map { try storedBatch(log, at: $0) } == before)
            #expect(log.cleanerCheckpoint == 9)
            #expect(log.lastStableOffset == 9)

            // Once the open transaction commits, its record and k3@10 are mapped: k3@8 goes.
            try log.appendMarker(TransactionMarker(producerID: 4000, producerEpoch: 0, commits: true), timestamp: now)  // 12
            try LogCleaner().clean(log, nowMilliseconds: now)
            #expect(try contents(log) == ["1 k2=b", "2 k1=t", "4 k2=z", "5 k1=y", "7 k4=∅", "9 k3=open", "10 k3=d", "11 k9=z"])
            #expect(try transactional.map { try storedBatch(log, at: $0) } == before)

            // The transaction state comes back from the cleaned log.
            let reopened = try PartitionLog(directory: path, configuration: compacting(), validate: intact)
            #expect(reopened.abortedTransactions(from: 0, before: 100) == aborted)
            #expect(reopened.lastStableOffset == reopened.logEndOffset)
            #expect(try contents(reopened) == contents(log))
        }
    }

    @Test func aRestartAfterCleaningRecoversTheCleanedLog() throws {
        try withDirectory { path in
            var expected: [String] = []
            do {
                let log = try PartitionLog(directory: path, configuration: compacting(), validate: intact)
                for round in 0 ..< 4 {
                    for key in ["k1", "k2", "k3"] { try log.append([batch([key: "\(key)-\(round)"])]) }
                }
                try log.append([batch(["k9": "z"])])
                try LogCleaner().clean(log, nowMilliseconds: now)
                expected = try contents(log)
                #expect(expected == ["9 k1=k1-3", "10 k2=k2-3", "11 k3=k3-3", "12 k9=z"])
            }
            let reopened = try PartitionLog(directory: path, configuration: compacting(), validate: intact)
            #expect(reopened.recoveredBytesCut == 0)
            #expect(try contents(reopened) == expected)
            #expect(reopened.logStartOffset == 0 && reopened.logEndOffset == 13)
            #expect(reopened.cleanerCheckpoint == 12)
            #expect(try reopened.append([batch(["k1": "new"])]) == (13, 13))
            // The segment of k9@12 closed: it is dirty, the rest clean (k1@13 is in the active
            // segment, so k1@9 stays).
            #expect(try LogCleaner().clean(reopened, nowMilliseconds: now).passes == 1)
            #expect(try contents(reopened) == expected + ["13 k1=new"])
            #expect(reopened.cleanerCheckpoint == 13)
        }
    }

    @Test func aCrashBeforeTheSwapLeavesTheOldSegmentsAndAfterItCompletesTheSwap() throws {
        try withDirectory { path in
            let cleaned = path + "/cleaned"
            let beforeCrash = path + "/before-rename"
            let afterSwap = path + "/after-swap"
            var original: [String] = []
            var compacted: [String] = []
            do {
                let log = try PartitionLog(directory: cleaned, configuration: compacting(), validate: intact)
                for pair: KeyValuePairs<String?, String?> in [["k1": "a"], ["k2": "b"], ["k1": "c"], ["k2": "d"], ["k3": "e"], ["k9": "z"]] {
                    try log.append([batch(pair)])
                }
                original = try contents(log)
                try FileManager.default.copyItem(atPath: cleaned, toPath: beforeCrash)
                try FileManager.default.copyItem(atPath: cleaned, toPath: afterSwap)
                // Larger segments from now on: the five closed ones clean into one.
                var configuration = compacting()
                configuration.segmentBytes = 10_000
                log.configuration = configuration
                try LogCleaner().clean(log, nowMilliseconds: now)
                compacted = try contents(log)
                #expect(compacted == ["2 k1=c", "3 k2=d", "4 k3=e", "5 k9=z"])
                #expect(try segmentFiles(cleaned) == [Segment.fileName(0) + ".log", Segment.fileName(5) + ".log"])
            }
            let merged = try fileBytes(cleaned + "/" + Segment.fileName(0) + ".log")

            // A crash while the cleaned segment was being written: half of it in the temporary
            // file. At start-up the file goes and the old segments are read as they were.
            let temporary = beforeCrash + "/" + PartitionLog.cleanedFileName(0)
            try merged.prefix(merged.count / 2).write(to: URL(fileURLWithPath: temporary))
            let old = try PartitionLog(directory: beforeCrash, configuration: compacting(), validate: intact)
            #expect(try contents(old) == original)
            #expect(!FileManager.default.fileExists(atPath: temporary))
            #expect(try segmentFiles(beforeCrash).count == 6)

            // A crash after the swap file was in place and one old segment removed: start-up
            // removes the rest of the group and renames the swap file.
            try merged.write(to: URL(fileURLWithPath: afterSwap + "/" + PartitionLog.swapFileName(first: 0, last: 4)))
            try FileManager.default.removeItem(atPath: afterSwap + "/" + Segment.fileName(2) + ".log")
            let swapped = try PartitionLog(directory: afterSwap, configuration: compacting(), validate: intact)
            #expect(try contents(swapped) == compacted)
            #expect(try segmentFiles(afterSwap) == [Segment.fileName(0) + ".log", Segment.fileName(5) + ".log"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: afterSwap).allSatisfy { !$0.hasSuffix(".swap") })
        }
    }

    @Test func moreKeysThanTheMapHoldsAreCleanedInSeveralPasses() throws {
        try withDirectory { path in
            let log = try PartitionLog(directory: path, configuration: compacting(segmentBytes: 4096), validate: intact)
            let keys = 2000
            for round in 0 ..< 2 {
                for start in stride(from: 0, to: keys, by: 100) {
                    var records: [KafkaRecord] = []
                    for key in start ..< start + 100 {
                        records.append(
                            KafkaRecord(
                                offset: Int64(key - start), timestamp: now, key: ByteBuffer(string: "key\(key)"), value: ByteBuffer(string: "r\(round)")))
                    }
                    var buffer = ByteBuffer()
                    RecordBatchEncoder().encode(records, into: &buffer)
                    try log.append([buffer])
                }
            }
            // A new segment for the last record, so that every update is in a closed one.
            log.configuration = compacting()
            try log.append([batch(["k9": "z"])])
            // The smallest map: 1,024 slots, 768 keys a pass.
            let cleaner = LogCleaner(maximumMapBytes: 0)
            let done = try cleaner.clean(log, nowMilliseconds: now)
            #expect(done.passes > 2)
            #expect(done.recordsRemoved == Int64(keys))
            #expect(cleaner.statistics == done)
            let remaining = try contents(log)
            #expect(remaining.count == keys + 1)
            #expect(remaining.dropLast().allSatisfy { $0.hasSuffix("=r1") })
            #expect(Set(remaining.map { $0.split(separator: " ")[1].split(separator: "=")[0] }).count == keys + 1)
        }
    }

    @Test func theCleanupPolicyComesFromTheTopicsConfigsAndCompactOnlyIgnoresRetention() throws {
        try withDirectory { path in
            var broker = LogConfiguration()
            broker.segmentBytes = 100
            broker.retentionMilliseconds = 1
            let store = try TopicStore(directory: path, logConfiguration: broker)
            try store.create("compacted", partitions: 1, configs: ["cleanup.policy": "compact", "delete.retention.ms": "5", "min.compaction.lag.ms": "7"])
            try store.create("both", partitions: 1, configs: ["cleanup.policy": "compact, delete"])
            try store.create("plain", partitions: 1)
            let compacted = try #require(store.log("compacted", 0))
            #expect(compacted.configuration.compacts && !compacted.configuration.deletes)
            #expect(compacted.configuration.deleteRetentionMilliseconds == 5 && compacted.configuration.minCompactionLagMilliseconds == 7)
            #expect(store.log("both", 0).map { $0.configuration.compacts && $0.configuration.deletes } == true)
            #expect(store.log("plain", 0).map { !$0.configuration.compacts && $0.configuration.deletes } == true)
            #expect(Set(store.compactedLogs.map(\.directory)) == [path + "/compacted-0", path + "/both-0"])

            // retention.ms is 1 ms, but a compact-only log deletes nothing.
            for key in ["a", "b", "c"] { try compacted.append([batch([key: "v"], timestamp: 0)]) }
            #expect(compacted.enforceRetention(nowMilliseconds: now) == 0)
            // Set at run time, the policy applies at once.
            try store.setConfigs("compacted", ["cleanup.policy": "delete"])
            #expect(!compacted.configuration.compacts)
            #expect(compacted.enforceRetention(nowMilliseconds: now) == 2)

            // A deleted topic's log is cleaned no more (the directory may soon be a new topic's).
            let both = try #require(store.log("both", 0))
            for key in ["a", "a", "a"] { try both.append([batch([key: "v"])]) }
            try store.delete("both")
            #expect(both.cleaningPlan(nowMilliseconds: now) == nil)
        }
    }
}
