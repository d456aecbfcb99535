import Foundation
import SluiceCore
import Testing

@testable import SluiceState

/// The seen-keys table of `dedup.key` against a model: events judged one after the other.
@Suite struct TableSeenKeysTests {
    func events(_ rows: [(key: Int64, time: Int64)]) -> Chunk {
        var keys = ColumnBuilder(type: .int64)
        var times = ColumnBuilder(type: .timestamp)
        for row in rows {
            keys.append(.int64(row.key))
            times.append(.timestamp(row.time))
        }
        return Chunk(columns: [keys.finish(), times.finish()])
    }

    @Test func admitsEachKeyOncePerWindowInAnyChunking() {
        var generator = SplitMix64(seed: 7)
        for _ in 0 ..< 30 {
            let window: Int64 = 10
            let store = TableStore.seenKeys(keyTypes: [.int64], timeType: .timestamp, memory: nil)
            var model: [Int64: Int64] = [:]
            var time: Int64 = 0
            for _ in 0 ..< 8 {
                let rows = (0 ..< Int.random(in: 1 ... 40, using: &generator)).map { _ -> (key: Int64, time: Int64) in
                    time += Int64.random(in: 0 ... 2, using: &generator)
                    return (Int64.random(in: 0 ..< 12, using: &generator), time - Int64.random(in: 0 ... 3, using: &generator))
                }
                var expected: [Int] = []
                for (index, row) in rows.enumerated() {
                    if let latest = model[row.key], abs(row.time - latest) <= window { continue }
                    expected.append(index)
                    model[row.key] = max(model[row.key] ?? row.time, row.time)
                }
                #expect(store.admit(events(rows), window: window) == expected)
            }
            // Forgetting what the watermark put out of reach changes nothing for later events.
            let bound = time - 3 - window
            store.forgetKeys(before: bound)
            for part in store.snapshot().chunks {
                guard case .int64(let times) = part.columns[1].storage else { continue }
                #expect(times.allSatisfy { $0 >= bound })
            }
            let late = (0 ..< 12).map { (key: Int64($0), time: time + 1) }
            let expected = late.indices.filter { index in model[late[index].key].map { abs(late[index].time - $0) > window } ?? true }
            #expect(store.admit(events(late), window: window) == expected)
        }
    }

    @Test func survivesACheckpointAndRestore() throws {
        let store = TableStore.seenKeys(keyTypes: [.int64], timeType: .timestamp, memory: nil)
        store.enableCheckpoints()
        #expect(store.admit(events([(1, 100), (2, 100), (1, 105)]), window: 50) == [0, 1])
        let directory = NSTemporaryDirectory() + "sluice-seen-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let checkpoints = try StateCheckpoints(directory: directory)
        _ = try checkpoints.write(
            epoch: 1, log: LogPosition(segment: 1, offset: 1), positions: [:], catalogVersion: 8, pieces: [store.checkpointPiece(id: 7, generation: 0)])
        let checkpoint = try #require(StateCheckpoints.recover(directory: directory, lazily: .all).checkpoint)
        #expect(checkpoint.manifest.holds(table: 7))
        let restored = TableStore.seenKeys(keyTypes: [.int64], timeType: .timestamp, memory: nil)
        try restored.restore(from: try FragmentCheckpoint.contents(of: checkpoint.views[7]!), generation: 0)
        #expect(restored.admit(events([(1, 120), (3, 120), (2, 200)]), window: 50) == [1, 2])
    }

    @Test func takeBackRestoresTheKeysAsTheyWere() {
        let store = TableStore.seenKeys(keyTypes: [.int64], timeType: .timestamp, memory: nil)
        #expect(store.admit(events([(1, 100), (2, 100)]), window: 10) == [0, 1])
        var undo = TableStore.SeenKeysUndo()
        // A new key, a key moved on past the window, then the moved key moved again.
        #expect(store.admit(events([(3, 100), (1, 200)]), window: 10, recordingIn: &undo) == [0, 1])
        #expect(store.admit(events([(1, 300), (2, 105)]), window: 10, recordingIn: &undo) == [0])
        store.takeBack(undo)
        // As before the two admissions: 3 unknown, 1 at 100, 2 at 100.
        #expect(store.admit(events([(3, 100), (1, 105), (2, 105), (1, 200)]), window: 10) == [0, 3])
    }

    @Test func forgettingReadsEvictedPagesWithoutKeepingThem() throws {
        let directory = NSTemporaryDirectory() + "sluice-seen-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let memory = StateMemory(limit: 64 * 1024, spillDirectory: directory)
        let store = TableStore.seenKeys(keyTypes: [.int64], timeType: .timestamp, memory: memory)
        for part in 0 ..< 20 {
            let rows = (0 ..< 5_000).map { (key: Int64(part * 5_000 + $0), time: Int64(part * 5_000 + $0)) }
            #expect(store.admit(events(rows), window: 10).count == rows.count)
        }
        #expect(store.rowCount == 100_000)
        #expect(memory.evictedPages > 0)
        // A scan that forgets nothing reads the evicted pages back for itself alone.
        let loaded = memory.loadedPages
        #expect(store.forgetKeys(before: 0) == 0)
        #expect(memory.loadedPages == loaded)
        #expect(store.forgetKeys(before: 50_000) == 50_000)
        #expect(store.rowCount == 50_000)
        #expect(store.admit(events([(49_999, 49_999), (50_000, 50_000)]), window: 10) == [0])
    }
}
