import Foundation
import SluiceCore
import Testing

@testable import SluiceState

/// A paged table checked against a plain dictionary that applies the same changes one at a
/// time: after every commit both hold the same keys, rows and counts, in key order.
@Suite struct PagedTableTests {
    /// A chunk of (k, v) rows with the given ops.
    static func changes(_ rows: [(op: ChangeOp, k: Int64, v: Int64)]) -> StreamChunk {
        StreamChunk(
            ops: rows.map(\.op),
            data: Chunk(columns: [
                Column(type: .int64, storage: .int64(rows.map(\.k))), Column(type: .int64, storage: .int64(rows.map(\.v))),
            ]))
    }

    /// Stages `chunk` keyed by its first column (two vnode bytes, then the value big-endian).
    static func stage(_ chunk: StreamChunk, into table: inout PagedTable) {
        guard case .int64(let keys) = chunk.data.columns[0].storage else { return }
        table.stage(chunk) { bytes, rowIndex in
            bytes.append(UInt8(keys[rowIndex] % 3))
            bytes.append(0)
            withUnsafeBytes(of: UInt64(bitPattern: keys[rowIndex]).bigEndian) { bytes.append(contentsOf: $0) }
        }
    }

    static func keyBytes(_ k: Int64) -> [UInt8] {
        [UInt8(k % 3), 0] + withUnsafeBytes(of: UInt64(bitPattern: k).bigEndian) { Array($0) }
    }

    /// A budget that bounds the process leaves the pages the limit less what the process holds
    /// outside them, and never less than a quarter of the limit.
    @Test func aBudgetThatBoundsTheProcessCountsWhatTheProcessHolds() {
        let small = StateMemory(limit: 1 << 20, spillDirectory: NSTemporaryDirectory(), boundsProcess: true)
        // (This test process holds far more than a MiB.)
        #expect(small.pageBudget == (1 << 20) / 4)
        small.acquire(300 << 10)
        #expect(small.isOverLimit)
        let large = StateMemory(limit: 1 << 40, spillDirectory: NSTemporaryDirectory(), boundsProcess: true)
        #expect(large.pageBudget < 1 << 40)
        #expect(large.pageBudget == (1 << 40) - large.outsideBytes)
        #expect(large.outsideBytes > 1 << 20)
        let pagesOnly = StateMemory(limit: 1 << 20, spillDirectory: NSTemporaryDirectory())
        #expect(pagesOnly.pageBudget == 1 << 20)
        pagesOnly.acquire(300 << 10)
        #expect(!pagesOnly.isOverLimit)
    }

    @Test func updatesReplaceRowsAndDeletesRemoveThem() {
        var table = PagedTable(types: [.int64, .int64])
        Self.stage(Self.changes([(.insert, 1, 10), (.insert, 2, 20), (.insert, 1, 11)]), into: &table)
        #expect(table.snapshot.isEmpty)
        let committed = table.commitEpoch()
        #expect(committed)
        // Key 1 holds its last row twice.
        #expect(table.entries().map(\.count) == [2, 1] || table.entries().map(\.count) == [1, 2])
        #expect(table.rowCount == 3 && table.keyCount == 2)
        Self.stage(Self.changes([(.updateDelete, 2, 20), (.updateInsert, 2, 21), (.delete, 1, 11), (.delete, 1, 11)]), into: &table)
        table.commitEpoch()
        #expect(table.entries().map(\.row) == [[.int64(2), .int64(21)]])
        #expect(table.snapshot.flatMap(\.published.rows) == [[.int64(2), .int64(21)]])
        #expect(table.inconsistencies == 0)
        let committedNothing = !table.commitEpoch()
        #expect(committedNothing)
    }

    @Test func aReplaceKeepsTheCountAndTakesTheNewRow() {
        var table = PagedTable(types: [.int64, .int64])
        Self.stage(Self.changes([(.insert, 1, 10), (.insert, 2, 20)]), into: &table)
        table.commitEpoch()
        let rows = Self.changes([(.updateInsert, 1, 11), (.updateInsert, 1, 12)]).data
        guard case .int64(let keys) = rows.columns[0].storage else { return }
        table.stage(rows, signs: [0, 0]) { bytes, rowIndex in bytes += Self.keyBytes(keys[rowIndex]) }
        table.commitEpoch()
        #expect(table.entries().map(\.row) == [[.int64(1), .int64(12)], [.int64(2), .int64(20)]])
        #expect(table.entries().map(\.count) == [1, 1])
        #expect(table.rowCount == 2 && table.isWellFormed)
    }

    @Test func deletesOfAbsentRowsAreCountedNotApplied() {
        var table = PagedTable(types: [.int64, .int64])
        Self.stage(Self.changes([(.delete, 5, 1)]), into: &table)
        table.commitEpoch()
        #expect(table.inconsistencies == 1)
        #expect(table.rowCount == 0 && table.pages.isEmpty)
    }

    @Test func aCommitKeepsUntouchedPagesByReference() {
        var table = PagedTable(types: [.int64, .int64])
        Self.stage(Self.changes((0 ..< 5000).map { (.insert, Int64($0), Int64($0)) }), into: &table)
        table.commitEpoch()
        let before = table.pages
        #expect(before.count >= 5)
        Self.stage(Self.changes([(.updateDelete, 4000, 4000), (.updateInsert, 4000, -1)]), into: &table)
        table.commitEpoch()
        let after = table.pages
        let shared = after.filter { page in before.contains { $0 === page } }
        #expect(shared.count == after.count - 1)
        #expect(table.isWellFormed)
    }

    @Test(arguments: [1, 2, 3, 4])
    func randomHistoriesMatchAModel(seed: UInt64) {
        randomHistory(seed: seed, memory: nil)
    }

    /// The same histories under a memory limit a few pages wide: commits evict and read pages
    /// back all the time, and every byte counted in is counted out again.
    @Test(arguments: [5, 6, 7])
    func randomHistoriesUnderAMemoryLimitMatchAModel(seed: UInt64) throws {
        let directory = NSTemporaryDirectory() + "sluice-spill-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let memory = StateMemory(limit: 48 << 10, spillDirectory: directory)
        randomHistory(seed: seed, memory: memory, preload: 12_000, rowsPerChunk: 40)
        #expect(memory.evictedPages > 0)
        #expect(memory.loadedPages > 0)
        #expect(memory.residentBytes == 0)
        #expect(memory.spilledBytes == 0)
    }

    /// A view of groups under a tight limit: every epoch replaces the rows of random keys in
    /// place (sign 0, an aggregate's updates), over many more pages than fit; commits evict
    /// pages while they write them.
    @Test func replacementsUnderATightLimitMatchAModel() throws {
        let directory = NSTemporaryDirectory() + "sluice-spill-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let memory = StateMemory(limit: 256 << 10, spillDirectory: directory)
        var table = PagedTable(types: [.int64, .int64], memory: memory)
        var model: [Int64: Int64] = [:]
        var random = SplitMix64(seed: 77)
        let keys = 50_000
        Self.stage(Self.changes((0 ..< keys).map { (.insert, Int64($0), 0) }), into: &table)
        for k in 0 ..< keys { model[Int64(k)] = 0 }
        table.commitEpoch()
        for epoch in 1 ... 30 {
            let changed = (0 ..< Int(random.next() % 8000)).map { _ in Int64(random.next() % UInt64(keys)) }
            let rows = Chunk(columns: [
                Column(type: .int64, storage: .int64(changed)), Column(type: .int64, storage: .int64(changed.map { _ in Int64(epoch) })),
            ])
            table.stage(rows, signs: [Int8](repeating: 0, count: changed.count)) { bytes, row in bytes += Self.keyBytes(changed[row]) }
            for k in changed { model[k] = Int64(epoch) }
            table.commitEpoch()
            #expect(table.isWellFormed)
            #expect(table.inconsistencies == 0)
        }
        let actual = table.entries()
        #expect(actual.count == keys)
        var wrong = 0
        for entry in actual {
            guard case .int64(let k) = entry.row[0], case .int64(let v) = entry.row[1] else { continue }
            if model[k] != v || entry.count != 1 { wrong += 1 }
        }
        #expect(wrong == 0)
        #expect(memory.evictedPages > 0)
    }

    @Test func evictedPagesReadBackForSnapshotsTakenBeforeTheEviction() throws {
        let directory = NSTemporaryDirectory() + "sluice-spill-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let memory = StateMemory(limit: 64 << 10, spillDirectory: directory)
        var table = PagedTable(types: [.int64, .int64], memory: memory)
        Self.stage(Self.changes((0 ..< 20_000).map { (.insert, Int64($0), Int64($0) * 3) }), into: &table)
        table.commitEpoch()
        let snapshot = table.snapshot
        // Another epoch over the limit evicts every page it does not write.
        Self.stage(Self.changes([(.insert, 20_000, 1)]), into: &table)
        table.commitEpoch()
        #expect(memory.evictedPages > 0)
        #expect(memory.residentBytes <= memory.limit)
        #expect(snapshot.contains { !$0.isResident })
        // (Pages are in key order, which begins with a hash of the key: the rows are compared as
        // pairs, each present once.)
        let rows = snapshot.flatMap(\.published.rows).map { row -> [Int64] in row.map { if case .int64(let value) = $0 { value } else { -1 } } }
        let expected = (0 ..< 20_000).map { [Int64($0), Int64($0) * 3] }
        #expect(rows.count == expected.count)
        #expect(rows.sorted { $0[0] < $1[0] } == expected, "rows differ")
        #expect(table.rowCount == 20_001)
    }

    /// `preload` keys are inserted first; then each epoch stages up to three chunks of fewer
    /// than `rowsPerChunk` random changes.
    private func randomHistory(seed: UInt64, memory: StateMemory?, preload: Int = 0, rowsPerChunk: Int = 700) {
        var random = SplitMix64(seed: seed)
        var table = PagedTable(types: [.int64, .int64], memory: memory)
        var model: [[UInt8]: (k: Int64, v: Int64, count: Int)] = [:]
        let keySpace = Int64(max(200 + Int(seed) * 1500, preload))
        if preload > 0 {
            let rows = (0 ..< preload).map { (op: ChangeOp.insert, k: Int64($0), v: Int64($0)) }
            for row in rows { model[Self.keyBytes(row.k)] = (row.k, row.v, 1) }
            Self.stage(Self.changes(rows), into: &table)
        }
        for _ in 0 ..< 40 {
            let chunks = Int(random.next() % 4)
            for _ in 0 ..< chunks {
                var rows: [(op: ChangeOp, k: Int64, v: Int64)] = []
                for _ in 0 ..< Int(random.next() % UInt64(rowsPerChunk)) {
                    let k = Int64(random.next() % UInt64(keySpace))
                    let bytes = Self.keyBytes(k)
                    let present = model[bytes]?.count ?? 0
                    let pending = rows.filter { $0.k == k }.reduce(0) { $0 + ($1.op.isInsertion ? 1 : -1) }
                    if present + pending > 0 && random.next() % 2 == 0 {
                        rows.append((.delete, k, model[bytes]?.v ?? 0))
                    } else {
                        rows.append((.insert, k, Int64(random.next() % 1000)))
                    }
                }
                // The model applies changes one at a time, in order.
                for row in rows {
                    let bytes = Self.keyBytes(row.k)
                    var entry = model[bytes] ?? (row.k, row.v, 0)
                    entry.count += row.op.isInsertion ? 1 : -1
                    if row.op.isInsertion { entry.v = row.v }
                    model[bytes] = entry.count == 0 ? nil : entry
                }
                Self.stage(Self.changes(rows), into: &table)
            }
            table.commitEpoch()
            if let memory {
                // Only pages this commit wrote may stay above the eviction target.
                let fresh = table.pages.filter { $0.lastUsed == memory.now && $0.isResident }.reduce(0) { $0 + $1.byteCount }
                #expect(memory.residentBytes <= max(memory.evictionTarget, fresh + (table.pages.last?.byteCount ?? 0)))
            }
            #expect(table.isWellFormed)
            let expected = model.sorted { ByteOrder.compare($0.key, $1.key) < 0 }
            let actual = table.entries()
            #expect(actual.map(\.key) == expected.map(\.key))
            #expect(actual.map(\.row) == expected.map { [.int64($0.value.k), .int64($0.value.v)] })
            #expect(actual.map(\.count) == expected.map(\.value.count))
            #expect(table.rowCount == model.values.reduce(0) { $0 + $1.count })
            #expect(table.snapshot.reduce(0) { $0 + $1.published.count } == table.rowCount)
        }
        #expect(table.inconsistencies == 0)
    }
}
