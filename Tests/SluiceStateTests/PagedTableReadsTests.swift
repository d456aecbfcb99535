import Foundation
import SluiceCore
import Testing

@testable import SluiceState

/// A paged table's reads by prefix (the rows of a join key, the entries of an ordered group)
/// against a sorted model, through random epochs that add and remove rows with counts, with and
/// without a memory limit that evicts pages at every commit; and its staged changes read back
/// before the commit.
@Suite struct PagedTableReadsTests {
    /// Keys of three parts — a group byte (0xFF among them, whose prefix has no upper bound), a
    /// member byte, and a tail — so prefixes of one and two bytes select runs that cross pages.
    private static func key(_ k: Int) -> [UInt8] {
        let groups: [UInt8] = [0x00, 0x01, 0x7F, 0xFE, 0xFF]
        return [groups[k % groups.count], UInt8((k / 5) % 7), UInt8(truncatingIfNeeded: k / 35), UInt8(truncatingIfNeeded: k / 8960)]
    }

    private static let prefixes: [[UInt8]] = [[], [0x00], [0x01], [0x7F], [0xFE], [0xFF], [0xFF, 0xFF], [0x01, 3], [0xFF, 6], [0xFE, 0, 1], [0x02]]

    private static func hasPrefix(_ key: [UInt8], _ prefix: [UInt8]) -> Bool { key.starts(with: prefix) }

    @Test(arguments: [(UInt64(1), false), (2, true), (3, true)])
    func prefixReadsMatchASortedModel(seed: UInt64, limited: Bool) throws {
        let directory = NSTemporaryDirectory() + "sluice-reads-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let memory = limited ? StateMemory(limit: 1, spillDirectory: directory) : nil
        var table = PagedTable(types: [.int64], memory: memory)
        var model: [[UInt8]: (value: Int64, count: Int32)] = [:]
        var random = SplitMix64(seed: seed)
        for epoch in 0 ..< 40 {
            var keys: [[UInt8]] = []
            var counts: [Int32] = []
            var values: [Int64] = []
            // Changes of this epoch, folded per key, as the model sees them.
            var folded: [[UInt8]: (value: Int64, count: Int32)] = [:]
            for _ in 0 ..< Int(random.next() % 900) {
                let k = Int(random.next() % 6000)
                let key = Self.key(k)
                let current = folded[key] ?? model[key] ?? (0, 0)
                var count = Int32(random.next() % 3) + 1
                if current.count > 0 && random.next() % 3 == 0 { count = -min(count, current.count) }
                let value = Int64(epoch * 10_000 + k)
                keys.append(key)
                counts.append(count)
                values.append(value)
                folded[key] = (count > 0 ? value : current.value, current.count + count)
            }
            table.stage(Chunk(columns: [Column(type: .int64, storage: .int64(values))], count: keys.count), counts: counts) { bytes, row in
                bytes += keys[row]
            }
            // Staged changes read back before the commit, in arrival order.
            #expect(table.stagedCount == keys.count)
            if !keys.isEmpty {
                let picks = (0 ..< 20).map { _ in Int(random.next() % UInt64(keys.count)) }
                let rows = table.stagedRows(picks)
                #expect(picks.indices.allSatisfy { rows.row($0) == [.int64(values[picks[$0]])] && table.stagedKey(picks[$0]) == keys[picks[$0]] })
                #expect(picks.allSatisfy { table.stagedSign($0) == counts[$0] })
            }
            table.commitEpoch()
            for (key, entry) in folded { model[key] = entry.count > 0 ? entry : nil }
            #expect(table.isWellFormed && table.inconsistencies == 0, "epoch \(epoch)")

            let sorted = model.keys.sorted { ByteOrder.compare($0, $1) < 0 }
            for prefix in Self.prefixes {
                let expected = sorted.filter { Self.hasPrefix($0, prefix) }
                var actual: [[UInt8]] = []
                var rowsMatch = true
                for run in table.runs(withPrefix: prefix) {
                    for index in run.range {
                        let key = run.contents.keys.key(index)
                        actual.append(key)
                        let entry = model[key]
                        if run.contents.rows.row(index) != [.int64(entry?.value ?? -1)] || (run.contents.counts?[index] ?? 1) != entry?.count {
                            rowsMatch = false
                        }
                    }
                }
                #expect(actual == expected, "epoch \(epoch), prefix \(prefix)")
                #expect(rowsMatch, "epoch \(epoch), prefix \(prefix)")
                let first = table.first(withPrefix: prefix).map { $0.contents.keys.key($0.index) }
                let last = table.last(withPrefix: prefix).map { $0.contents.keys.key($0.index) }
                #expect(first == expected.first && last == expected.last, "epoch \(epoch), prefix \(prefix)")
            }
        }
        if let memory { #expect(memory.evictedPages > 0 && memory.loadedPages > 0) }
    }

    @Test func prefixUpperBoundsCarryPastTrailingFFBytes() {
        #expect(PagedTable.upperBound(ofPrefix: [0x01, 0x02]) == [0x01, 0x03])
        #expect(PagedTable.upperBound(ofPrefix: [0x01, 0xFF, 0xFF]) == [0x02])
        #expect(PagedTable.upperBound(ofPrefix: [0xFF]) == nil)
        #expect(PagedTable.upperBound(ofPrefix: []) == nil)
    }
}
