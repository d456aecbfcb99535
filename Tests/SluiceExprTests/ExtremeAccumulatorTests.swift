import SluiceCore
import Testing

@testable import SluiceExpr

/// bigint min and max keep whether each group has a value without a flag per group while every
/// group a chunk creates is named by one of its rows (a GROUP BY's chunks). A window's frames
/// create groups no row names (an empty frame): those are NULL, and a group whose value is the
/// extreme's start itself (the smallest bigint for max) still has it.
@Suite struct ExtremeAccumulatorTests {
    @Test(arguments: [true, false])
    func groupsNoRowNamesAreNullAndTheStartValueIsAValue(isMax: Bool) throws {
        let start = isMax ? Int64.min : Int64.max
        let accumulator = AggregateAccumulators.make(kind: isMax ? .max : .min, argumentType: .int64, resultType: .int64)
        // Groups 0 and 3 of five get values; group 2 gets the start value itself.
        try accumulator.update(
            groups: [0, 3, 2, 0], rowCount: 4, groupCount: 5, argument: Column(type: .int64, values: [.int64(5), .int64(7), .int64(start), .int64(9)]),
            delimiter: nil, signs: nil, rows: nil)
        // A second chunk that names every group it creates.
        try accumulator.update(
            groups: [5, 1], rowCount: 2, groupCount: 6, argument: Column(type: .int64, values: [.int64(1), .int64(2)]), delimiter: nil, signs: nil,
            rows: nil)
        let result = try accumulator.finish(groupCount: 6)
        let expected: [Value] = [.int64(isMax ? 9 : 5), .int64(2), .int64(start), .int64(7), .null, .int64(1)]
        #expect((0 ..< 6).map { result.value(at: $0) } == expected)
    }

    @Test func groupsEveryChunkNamesNeedNoFlags() throws {
        let accumulator = AggregateAccumulators.make(kind: .max, argumentType: .int64, resultType: .int64)
        try accumulator.update(
            groups: [1, 0, 1], rowCount: 3, groupCount: 2, argument: Column(type: .int64, values: [.int64(3), .int64(4), .int64(8)]), delimiter: nil,
            signs: nil, rows: nil)
        let result = try accumulator.finish(groupCount: 2)
        #expect(result.validity == nil)
        #expect((0 ..< 2).map { result.value(at: $0) } == [.int64(4), .int64(8)])
    }
}
