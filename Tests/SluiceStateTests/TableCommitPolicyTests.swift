import SluiceCore
import Testing

@testable import SluiceState

/// When staged writes commit: keys that only append to each vnode's range (a table loaded in key
/// order, as a CDC snapshot is) commit in bounded pieces; other keys wait until they are a share
/// of the table.
@Suite struct TableCommitPolicyTests {
    func chunk(_ ids: some Sequence<Int64>) -> Chunk {
        var builders = [ColumnBuilder(type: .int64), ColumnBuilder(type: .int64)]
        for id in ids {
            builders[0].append(.int64(id))
            builders[1].append(.int64(id * 7))
        }
        return Chunk(columns: builders.map { $0.finish() })
    }

    /// Loads `ids` in chunks of 1,024; the most rows staged at once, and the rows held after.
    func load(_ ids: [Int64], into store: TableStore) throws -> Int {
        var most = 0
        for start in stride(from: 0, to: ids.count, by: 1024) {
            try store.insert(chunk(ids[start ..< min(ids.count, start + 1024)]))
            most = max(most, store.state.withLock { $0.stagedRows })
        }
        return most
    }

    func heldIDs(_ store: TableStore) -> Set<Int64> {
        var ids = Set<Int64>()
        for part in store.snapshot().chunks {
            for row in 0 ..< part.count {
                guard case .int64(let id) = part.columns[0].value(at: row), case .int64(let value) = part.columns[1].value(at: row) else { continue }
                #expect(value == id * 7)
                ids.insert(id)
            }
        }
        return ids
    }

    @Test func keysAppendedInOrderCommitInBoundedPieces() throws {
        let store = TableStore(types: [.int64, .int64], primaryKey: [0])
        // Past 256 K rows the share-of-the-table rule alone would let 144 K rows wait.
        let ids = (0 ..< Int64(400_000)).map { $0 }
        let most = try load(ids, into: store)
        #expect(most <= TableStore.stagedAppendLimit + 1024)
        #expect(heldIDs(store) == Set(ids))
    }

    @Test func keysFallingBetweenHeldKeysWaitForAShareOfTheTable() throws {
        let store = TableStore(types: [.int64, .int64], primaryKey: [0])
        let evens = (0 ..< Int64(262_144)).map { $0 * 2 }
        _ = try load(evens, into: store)
        // Odd keys fall between the held ones, on every page: they wait until they are as many
        // as the table holds (or the memory budget says otherwise; there is none here).
        let odds = (0 ..< Int64(160_000)).map { $0 * 2 + 1 }
        let most = try load(odds, into: store)
        #expect(most > TableStore.stagedAppendLimit + 1024)
        #expect(heldIDs(store) == Set(evens + odds))
    }
}
