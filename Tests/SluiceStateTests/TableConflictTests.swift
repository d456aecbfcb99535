import SluiceCore
import Testing

@testable import SluiceState

/// A table's ON CONFLICT behaviour against a model: each row written in turn.
@Suite struct TableConflictTests {
    /// Rows of (id int, v int?, w int?), a random history with many repeated keys and nulls.
    func randomRows(_ generator: inout SystemRandomNumberGenerator, count: Int) -> [(Int64, Int64?, Int64?)] {
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

    @Test(arguments: [ConflictBehavior.overwrite, .ignore, .updateIfNotNull])
    func writesInChunksEqualTheModel(behavior: ConflictBehavior) throws {
        var generator = SystemRandomNumberGenerator()
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
            #expect(stored.count == model.count)
            for (key, values) in model {
                #expect(stored[key].map { $0 == values } == true, "key \(key) under \(behavior)")
            }
        }
    }
}
