import SluiceCore
import SluicePlan
import Testing

@testable import SluiceBatch

@Suite struct WindowNumberingTests {
    /// Partition column 0, order column 1; the rows arrive sorted, as the planner's sort leaves them.
    @Test func numbersRestartPerPartitionAndPeersShareRanks() throws {
        var numbering = WindowNumbering(partitionColumns: [0], orderColumns: [1], functions: [.rowNumber, .rank, .denseRank])
        let chunk = Chunk(columns: [strings(["a", "a", "a", "a", "b", nil]), int64s([1, 2, 2, 5, 7, nil])])
        #expect(numbering.number(chunk).rows.map { Array($0.suffix(3)) } == [
            [.int64(1), .int64(1), .int64(1)], [.int64(2), .int64(2), .int64(2)], [.int64(3), .int64(2), .int64(2)],
            [.int64(4), .int64(4), .int64(3)], [.int64(1), .int64(1), .int64(1)], [.int64(1), .int64(1), .int64(1)],
        ])
    }

    @Test func aPartitionAndItsPeersSpanChunks() throws {
        var numbering = WindowNumbering(partitionColumns: [0], orderColumns: [1], functions: [.rowNumber, .rank])
        let first = numbering.number(Chunk(columns: [strings(["a", "a"]), int64s([1, 3])]))
        let second = numbering.number(Chunk(columns: [strings(["a", "b"]), int64s([3, 3])]))
        #expect(first.rows.map { Array($0.suffix(2)) } == [[.int64(1), .int64(1)], [.int64(2), .int64(2)]])
        #expect(second.rows.map { Array($0.suffix(2)) } == [[.int64(3), .int64(2)], [.int64(1), .int64(1)]])
    }

    @Test func planSortsThenNumbers() throws {
        let input = values([[.int64(2)], [.int64(9)], [.int64(4)]], [.int64])
        let plan = BatchPlan.window(
            input: .sort(input: input, keys: [SortKey(column: 0, descending: true)]), partitionColumns: [], orderColumns: [0],
            functions: [.rowNumber])
        #expect(plan.outputTypes == [.int64, .int64])
        #expect(try run(plan) == [[.int64(9), .int64(1)], [.int64(4), .int64(2)], [.int64(2), .int64(3)]])
    }
}
