import SluiceCore
import SluiceState
import Testing

@testable import SluiceDataflow

/// A source's `dedup.key`: repeats within the window dropped and counted, rows without a time
/// kept, keys forgotten behind the watermark.
@Suite struct SourceDeduplicatorTests {
    /// Rows of (event_id varchar, amount int, ts timestamp).
    func rows(_ values: [(String, Int64, Int64?)]) -> Chunk {
        var ids = ColumnBuilder(type: .varchar)
        var amounts = ColumnBuilder(type: .int64)
        var times = ColumnBuilder(type: .timestamp)
        for value in values {
            ids.append(.string(value.0))
            amounts.append(.int64(value.1))
            times.append(value.2.map(Value.timestamp) ?? .null)
        }
        return Chunk(columns: [ids.finish(), amounts.finish(), times.finish()])
    }

    func ids(_ chunk: Chunk) -> [String] {
        (0 ..< chunk.count).map { chunk.columns[0].value(at: $0).textForm }
    }

    @Test func dropsRepeatsWithinTheWindowAndCountsThem() {
        let deduplicator = SourceDeduplicator(
            types: [.varchar, .int64, .timestamp], keyColumns: [0], timeColumn: 2, window: 100, stateTableID: 9, memory: nil)
        let first = deduplicator.apply(rows([("a", 1, 1_000), ("b", 2, 1_010), ("a", 3, 1_050), ("c", 4, nil), ("c", 5, nil)]), watermark: nil)
        #expect(ids(first) == ["a", "b", "c", "c"])
        // "a" again within the window of its kept time, "b" past it: a new event under an old id.
        let second = deduplicator.apply(rows([("a", 6, 1_090), ("b", 7, 1_200), ("b", 8, 1_250), ("d", 9, 1_250)]), watermark: 1_240)
        #expect(ids(second) == ["b", "d"])
        #expect(deduplicator.rowsDeduplicated.load(ordering: .relaxed) == 3)
        // The watermark put "a" (1000) and "b"'s first time out of reach: forgotten, "b" (1200) and "d" kept.
        #expect(deduplicator.seen.rowCount == 2)
    }

    @Test func keysOfSeveralColumnsAreComparedWhole() {
        let deduplicator = SourceDeduplicator(
            types: [.varchar, .int64, .timestamp], keyColumns: [0, 1], timeColumn: 2, window: 1_000, stateTableID: 9, memory: nil)
        let kept = deduplicator.apply(rows([("a", 1, 10), ("a", 2, 10), ("a", 1, 20), ("b", 1, 30)]), watermark: nil)
        #expect((0 ..< kept.count).map { kept.columns[1].value(at: $0) } == [.int64(1), .int64(2), .int64(1)])
        #expect(ids(kept) == ["a", "a", "b"])
    }

    @Test func takeBackUndoesTheKeysAndTheCount() {
        let deduplicator = SourceDeduplicator(
            types: [.varchar, .int64, .timestamp], keyColumns: [0], timeColumn: 2, window: 100, stateTableID: 9, memory: nil)
        #expect(ids(deduplicator.apply(rows([("a", 1, 1_000)]), watermark: nil)) == ["a"])
        var undo = SourceDeduplicator.Undo()
        let kept = deduplicator.apply(rows([("a", 2, 1_010), ("b", 3, 1_010), ("b", 4, 1_020)]), watermark: nil, recordingIn: &undo)
        #expect(ids(kept) == ["b"])
        #expect(deduplicator.rowsDeduplicated.load(ordering: .relaxed) == 2)
        // The write failed: a retry is judged as the first try was.
        deduplicator.takeBack(undo)
        #expect(deduplicator.rowsDeduplicated.load(ordering: .relaxed) == 0)
        #expect(ids(deduplicator.apply(rows([("b", 3, 1_010)]), watermark: nil)) == ["b"])
    }

    @Test func watermarksFarApartDoNotOverflow() {
        let deduplicator = SourceDeduplicator(
            types: [.varchar, .int64, .timestamp], keyColumns: [0], timeColumn: 2, window: 1, stateTableID: 9, memory: nil)
        _ = deduplicator.apply(rows([("a", 1, 5)]), watermark: nil)
        deduplicator.forget(below: Int64.min + 2)
        // The bound moves by more than Int64 holds: due, and "a" (5) is forgotten.
        deduplicator.forget(below: Int64.max)
        #expect(deduplicator.seen.rowCount == 0)
    }
}
