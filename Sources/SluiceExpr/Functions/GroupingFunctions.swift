import SluiceCore

/// Functions the planner puts around an aggregate: `GROUPING(…)` under grouping sets, and the
/// copies of a counted row that INTERSECT and EXCEPT keep.
package enum GroupingFunctions {
    /// `GROUPING(a, b, …)` under GROUPING SETS, over each row's grouping set number: that set's
    /// mask in `masks` (a bit per argument, first argument highest, set where the set leaves
    /// the argument out).
    package static func grouping(masks: [Int32]) -> ScalarFunction {
        ScalarFunction(name: "grouping", argumentTypes: [.int32], resultType: .int32) {
            (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            guard case .int32(let numbers) = arguments[0].storage else { throw SluiceError.internalError("grouping over a set number that is not an integer") }
            var values: [Int32] = []
            values.reserveCapacity(numbers.count)
            for number in numbers {
                guard masks.indices.contains(Int(number)) else { throw SluiceError.internalError("grouping set \(number) of \(masks.count)") }
                values.append(masks[Int(number)])
            }
            return Column(type: .int32, storage: .int32(values), validity: nil)
        }.withOrigin(.grouping(masks: masks))
    }

    /// How many copies of a row with `left` and `right` occurrences INTERSECT (or EXCEPT) [ALL]
    /// keeps: ALL, the smaller count or the left count less the right's; else once or not at all.
    package static func copies(intersect: Bool, all: Bool, left: Int64, right: Int64) -> Int64 {
        let count: Int64 = switch (intersect, all) {
        case (true, true): min(left, right)
        case (true, false): left > 0 && right > 0 ? 1 : 0
        case (false, true): left - right
        case (false, false): left > 0 && right == 0 ? 1 : 0
        }
        return max(count, 0)
    }

    /// ``copies(intersect:all:left:right:)`` of each row's two counts, as an array of that many
    /// elements (for a set-returning expansion).
    package static func copiesArray(intersect: Bool, all: Bool) -> ScalarFunction {
        let name = (intersect ? "intersect" : "except") + (all ? "_all" : "") + "_copies"
        return ScalarFunction(name: name, argumentTypes: [.int64, .int64], resultType: .list(.int64)) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            guard case .int64(let lefts) = arguments[0].storage, case .int64(let rights) = arguments[1].storage else {
                throw SluiceError.internalError("set operation counts are not bigint")
            }
            var builder = ColumnBuilder(type: .list(.int64), capacity: rowCount)
            for row in 0 ..< rowCount {
                let count = copies(intersect: intersect, all: all, left: lefts[row], right: rights[row])
                builder.append(.list((0 ..< count).map { .int64($0) }))
            }
            return builder.finish()
        }.withOrigin(.setOperationCopies(intersect: intersect, all: all))
    }
}
