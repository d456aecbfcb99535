import SluiceConnectors
import SluiceCore
import Testing

/// An upsert sink's epoch, merged by key, against a model: a seeded random sequence of inserts,
/// update pairs (some moving a row to another key) and deletes. The rows left are the model's
/// last version of each key still present; the deleted keys are every key touched, once.
@Suite struct IcebergUpsertBatchTests {
    @Test(arguments: [UInt64(1), 2, 3])
    func mergesEachKeysChangesToItsLastVersion(seed: UInt64) {
        var random = Xorshift(seed: seed)
        var batch = IcebergUpsertBatch(keyColumns: [0], types: [.int32, .varchar])
        var present: [Int32: String] = [:]
        // Two batches, as two parts of an epoch: the second starts from the first's rows.
        for _ in 0..<2 {
        var touched: Set<Int32> = []
        var before: [Int32: String] = present
        for _ in 0..<20 {
            var ops: [ChangeOp] = []
            var keys: [Int32] = []
            var names: [String] = []
            for step in 0..<50 {
                let key = Int32(random.next() % 40)
                let name = "v\(step)-\(random.next() % 1000)"
                if let old = present[key] {
                    if random.next() % 3 == 0 {
                        ops.append(.delete); keys.append(key); names.append(old)
                        present[key] = nil
                    } else {
                        // An update, sometimes moving the row to another key (a pair of rows).
                        let target = random.next() % 4 == 0 ? Int32(random.next() % 40) : key
                        guard present[target] == nil || target == key else { continue }
                        ops += [.updateDelete, .updateInsert]; keys += [key, target]; names += [old, name]
                        present[key] = nil
                        present[target] = name
                        touched.insert(target)
                    }
                } else {
                    ops.append(.insert); keys.append(key); names.append(name)
                    present[key] = name
                }
                touched.insert(key)
            }
            let data = Chunk(
                columns: [Column(type: .int32, values: keys.map { .int32($0) }), Column(type: .varchar, values: names.map { .string($0) })],
                count: keys.count)
            batch.take(StreamChunk(ops: ops, data: data))
        }
        #expect(batch.byteCount > 0)
        let result = batch.result()
        let (rows, deletedRows) = (result.rows, result.touched)
        batch.removeAll()
        var left: [Int32: String] = [:]
        for row in 0..<rows.count {
            let values = rows.row(row)
            guard case .int32(let key) = values[0], case .string(let name) = values[1] else {
                Issue.record("unexpected row \(values)")
                return
            }
            #expect(left[key] == nil, "key \(key) left twice")
            left[key] = name
        }
        #expect(left == present)
        var deleted: [Int32] = []
        for row in 0..<deletedRows.count {
            guard case .int32(let key) = deletedRows.columns[0].value(at: row) else { continue }
            deleted.append(key)
            // A key the batch found present carries the version it found (where its delete goes).
            if let old = before[key] { #expect(deletedRows.columns[1].value(at: row) == .string(old), "key \(key)") }
            before[key] = nil
        }
        #expect(deleted.sorted() == touched.sorted())
        #expect(batch.isEmpty)
        }
    }
}

/// A small deterministic generator for the test's histories.
private struct Xorshift {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
