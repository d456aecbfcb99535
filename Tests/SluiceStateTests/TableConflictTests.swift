import SluiceCore
import Testing

@testable import SluiceState

/// A table's ON CONFLICT behaviour against a model: each row written in turn.
@Suite struct TableConflictTests {
    /// Rows of (id int, v int?, w int?), a random history with many repeated keys and nulls.
    func randomRows(_ generator: inout SplitMix64, count: Int) -> [(Int64, Int64?, Int64?)] {
        (0 ..< count).map { _ in
            (Int64.random(in: 0 ..< 8, using: &generator), Bool.random(using: &generator) ? nil : Int64.random(in: 0 ..< 100, using: &generator),
             Bool.random(using: &generator) ? nil : Int64.random(in: 0 ..< 100, using: &generator))
        }
    }

    func chunk(_ rows: [(Int64, Int64?, Int64?)]) -> Chunk {
        var builders = [ColumnBuilder(type: .int64), ColumnBuilder(type: .int64), ColumnBuilder(type: .int64)]
        for row in rows {
            builders[0].append(.int64(row.0))
            builders[1].append(row.1.map(Value.int64) ?? .null)
            builders[2].append(row.2.map(Value.int64) ?? .null)
        }
        return Chunk(columns: builders.map { $0.finish() })
    }

    /// The rows `store` holds, by id: (v, w).
    func storedRows(of store: TableStore) -> [Int64: (Int64?, Int64?)] {
        var stored: [Int64: (Int64?, Int64?)] = [:]
        for part in store.snapshot().chunks {
            for row in 0 ..< part.count {
                func value(_ column: Int) -> Int64? {
                    if case .int64(let v) = part.columns[column].value(at: row) { return v }
                    return nil
                }
                stored[value(0)!] = (value(1), value(2))
            }
        }
        return stored
    }

    @Test(arguments: [ConflictBehavior.overwrite, .ignore, .updateIfNotNull])
    func writesInChunksEqualTheModel(behavior: ConflictBehavior) throws {
        // Seeded, so that a failure reproduces.
        var generator = SplitMix64(seed: 42)
        for _ in 0 ..< 20 {
            let store = TableStore(types: [.int64, .int64, .int64], primaryKey: [0], onConflict: behavior)
            var model: [Int64: (Int64?, Int64?)] = [:]
            for _ in 0 ..< 5 {
                let rows = randomRows(&generator, count: Int.random(in: 1 ... 12, using: &generator))
                try store.insert(chunk(rows))
                for row in rows {
                    switch (behavior, model[row.0]) {
                    case (.ignore, .some): break
                    case (.updateIfNotNull, .some(let old)): model[row.0] = (row.1 ?? old.0, row.2 ?? old.1)
                    default: model[row.0] = (row.1, row.2)
                    }
                }
            }
            let stored = storedRows(of: store)
            #expect(stored.count == model.count)
            for (key, values) in model {
                #expect(stored[key].map { $0 == values } == true, "key \(key) under \(behavior)")
            }
        }
    }

    /// Rows of (id, v, version): versions from a small range, so ties and NULLs are common.
    func randomVersionedRows(_ generator: inout SplitMix64, count: Int) -> [(Int64, Int64?, Int64?)] {
        (0 ..< count).map { _ in
            (Int64.random(in: 0 ..< 6, using: &generator), Bool.random(using: &generator) ? nil : Int64.random(in: 0 ..< 100, using: &generator),
             Int.random(in: 0 ..< 5, using: &generator) == 0 ? nil : Int64.random(in: 0 ..< 4, using: &generator))
        }
    }

    /// RisingWave's rule for `WITH VERSION COLUMN`: the stored row gives way when its version is
    /// at most the new one, NULLs first (a NULL loses to any version and ties with a NULL).
    func versionAllows(stored: Int64?, new: Int64?) -> Bool {
        switch (stored, new) {
        case (nil, _): true
        case (.some, nil): false
        case (.some(let old), .some(let new)): old <= new
        }
    }

    @Test(arguments: [ConflictBehavior.overwrite, .updateIfNotNull])
    func versionedWritesInChunksEqualTheModel(behavior: ConflictBehavior) throws {
        // Seeded, so that a failure reproduces.
        var generator = SplitMix64(seed: 42)
        for _ in 0 ..< 40 {
            let store = TableStore(types: [.int64, .int64, .int64], primaryKey: [0], onConflict: behavior, versionColumn: 2)
            var model: [Int64: (Int64?, Int64?)] = [:]
            for _ in 0 ..< 6 {
                let rows = randomVersionedRows(&generator, count: Int.random(in: 1 ... 14, using: &generator))
                let result = try store.insert(chunk(rows))
                var written = 0
                for row in rows {
                    guard let old = model[row.0] else {
                        model[row.0] = (row.1, row.2)
                        written += 1
                        continue
                    }
                    guard versionAllows(stored: old.1, new: row.2) else { continue }
                    model[row.0] = behavior == .overwrite ? (row.1, row.2) : (row.1 ?? old.0, row.2 ?? old.1)
                    written += 1
                }
                // A write whose every row lost stores nothing.
                if written == 0 { #expect(result.inserted.count == 0) }
            }
            let stored = storedRows(of: store)
            #expect(stored.count == model.count)
            for (key, values) in model {
                #expect(stored[key].map { $0 == values } == true, "key \(key) under \(behavior) with a version column")
            }
        }
    }

    @Test func olderVersionIsDroppedAndReplacedRowIsReported() throws {
        let store = TableStore(types: [.int64, .int64, .int64], primaryKey: [0], onConflict: .overwrite, versionColumn: 2)
        try store.insert(chunk([(1, 10, 5)]))
        let older = try store.insert(chunk([(1, 11, 4)]))
        #expect(older.inserted.count == 0 && older.replaced == nil)
        let tie = try store.insert(chunk([(1, 12, 5)]))
        #expect(tie.inserted.count == 1 && tie.replaced?.count == 1)
        #expect(tie.replaced?.columns[1].value(at: 0) == .int64(10))
        let nullVersion = try store.insert(chunk([(1, 13, nil)]))
        #expect(nullVersion.inserted.count == 0)
        #expect(store.snapshot().chunks.first?.columns[1].value(at: 0) == .int64(12))
    }
}

