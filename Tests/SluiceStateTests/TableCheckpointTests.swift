import Foundation
import SluiceCore
import SluiceState
import Testing

/// Tables in the state checkpoints: a seeded random history of upserts, deletes and appends
/// over a table with a primary key and one without, with a checkpoint piece taken at random
/// points (a base first, then deltas, a base again after a lost checkpoint or a compaction)
/// and written by ``StateCheckpoints``, and restarts that restore each table from its chain.
/// After every restart both tables equal a model kept beside them (a dictionary, and a bag).
@Suite struct TableCheckpointTests {
    static let types: [DataType] = [.int64, .varchar]

    static func chunk(_ ids: [Int64], _ notes: [String]) -> Chunk {
        Chunk(columns: [
            Column(type: .int64, values: ids.map(Value.int64)),
            Column(type: .varchar, values: notes.map(Value.string)),
        ])
    }

    static func rows(_ store: TableStore) -> [String] {
        store.snapshot().chunks.flatMap(\.rows).map { "\($0[0].textForm)=\($0[1].textForm)" }.sorted()
    }

    @Test(arguments: Array(UInt64(1) ... 40))
    func randomHistoriesThroughCheckpointChainsMatchAModel(seed: UInt64) throws {
        let directory = NSTemporaryDirectory() + "sluice-table-checkpoints-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SplitMix64(seed: seed)
        var checkpoints = try StateCheckpoints(directory: directory)
        func fresh(_ primaryKey: [Int]) -> TableStore {
            let store = TableStore(types: Self.types, primaryKey: primaryKey)
            store.enableCheckpoints()
            return store
        }
        var keyed = fresh([0])
        var bag = fresh([])
        var keyedModel: [Int64: String] = [:]
        var bagModel: [String] = []
        var generation = 0
        var epoch: UInt64 = 0
        for round in 0 ..< 8 {
            for _ in 0 ..< Int(random.next() % 60) {
                let id = Int64(random.next() % 40)
                let note = "n\(random.next() % 1000)"
                switch random.next() % 8 {
                case 0, 1, 2:
                    // Several rows, the last of a key winning.
                    let ids = [id, (id + 7) % 40, id]
                    let notes = [note, note + "b", note + "c"]
                    try keyed.insert(Self.chunk(ids, notes))
                    for (key, value) in zip(ids, notes) { keyedModel[key] = value }
                case 3:
                    _ = keyed.delete(keysOf: Self.chunk([id, id + 1], ["", ""]))
                    keyedModel[id] = nil
                    keyedModel[id + 1] = nil
                case 4:
                    _ = try keyed.rewrite { chunk in
                        let ids = chunk.columns[0]
                        let mask = Bitmap(bits: (0 ..< chunk.count).map { ids.value(at: $0) == .int64(id) || ids.value(at: $0) == .int64(id + 2) })
                        guard mask.setCount > 0 else { return (nil, nil) }
                        let picked = chunk.filter(mask)
                        let updated = Self.chunk((0 ..< picked.count).map { row in
                            guard case .int64(let key) = picked.columns[0].value(at: row) else { return 0 }
                            return key
                        }, [String](repeating: note, count: picked.count))
                        return (mask, updated)
                    }
                    for key in [id, id + 2] where keyedModel[key] != nil { keyedModel[key] = note }
                case 5:
                    let count = Int(random.next() % 3) == 0 ? 700 : 3
                    let ids = (0 ..< count).map { Int64($0 % 50) }
                    let notes = ids.map { "b\($0 + id)" }
                    try bag.insert(Self.chunk(ids, notes))
                    for (key, value) in zip(ids, notes) { bagModel.append("\(key)=\(value)") }
                case 6:
                    let victim = Self.chunk([id], ["b\(id + id)"])
                    let removed = bag.removeRows(equalTo: victim)
                    if let index = bagModel.firstIndex(of: "\(id)=b\(id + id)") {
                        #expect(removed == 1)
                        bagModel.remove(at: index)
                    } else {
                        #expect(removed == 0)
                    }
                default:
                    // A checkpoint of both (one in five is lost: every table writes a base next).
                    epoch += 1
                    let pieces = [keyed.checkpointPiece(id: 1, generation: generation), bag.checkpointPiece(id: 2, generation: generation)]
                    if random.next() % 5 == 0 {
                        generation += 1
                        continue
                    }
                    _ = try checkpoints.write(epoch: epoch, log: LogPosition(segment: 1, offset: Int64(epoch)), positions: [:], pieces: pieces)
                }
                // Reads commit what is staged, as a SELECT would.
                if random.next() % 4 == 0 { _ = keyed.rowCount }
            }
            // A restart from the last checkpoint written: the model goes back to it.
            epoch += 1
            let pieces = [keyed.checkpointPiece(id: 1, generation: generation), bag.checkpointPiece(id: 2, generation: generation)]
            _ = try checkpoints.write(
                epoch: epoch, log: LogPosition(segment: 1, offset: Int64(epoch)), positions: [:], catalogVersion: 2, pieces: pieces)
            let (recovered, damaged) = StateCheckpoints.recover(directory: directory, lazily: .all)
            #expect(damaged.isEmpty)
            let checkpoint = try #require(recovered)
            #expect(checkpoint.manifest.tables == [1, 2] && checkpoint.manifest.catalogVersion == 2)
            // Table 2 has the catalog's next id: it came after the cut, whatever its chain says.
            #expect(checkpoint.manifest.holds(table: 1) && !checkpoint.manifest.holds(view: 1) && !checkpoint.manifest.holds(table: 2))
            keyed = fresh([0])
            bag = fresh([])
            try keyed.restore(from: try FragmentCheckpoint.contents(of: checkpoint.views[1]!), generation: generation)
            try bag.restore(from: try FragmentCheckpoint.contents(of: checkpoint.views[2]!), generation: generation)
            checkpoints = try StateCheckpoints(directory: directory)
            checkpoints.resume(from: checkpoint.manifest)
            #expect(Self.rows(keyed) == keyedModel.map { "\($0.key)=\($0.value)" }.sorted(), "round \(round)")
            #expect(Self.rows(bag) == bagModel.sorted(), "round \(round)")
        }
    }
}
