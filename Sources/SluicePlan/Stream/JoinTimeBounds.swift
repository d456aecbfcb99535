import SluiceCore
import SluiceExpr

/// What a join's condition says about event time, for watermarks: in every matched pair,
/// `bounded`, an expression over one side's row that never decreases as its column `column`
/// grows, is at least `lowerBound`, one over the other side's row that never decreases as its
/// column `otherColumn` grows. An equality key gives one each way (`l.k = r.k`); an interval
/// join's `l.ts BETWEEN r.ts AND r.ts + INTERVAL '1' HOUR` gives `l.ts >= r.ts` and
/// `r.ts + 1 hour >= l.ts`.
///
/// Once the other side's watermark on `otherColumn` is `w`, no later row of it can match a
/// stored row whose `bounded` is below `lowerBound` at `w`: the join drops those rows. Where
/// `bounded` is the column itself, the output's column is at least the smaller of that bound
/// and the side's own watermark.
package struct JoinTimeBound: Sendable, Equatable {
    package var side: Side
    /// Over the bounded side's columns.
    package var bounded: ScalarExpr
    /// The column `bounded` reads, in its side's columns.
    package var column: Int
    /// The other side's column `lowerBound` reads, in that side's columns.
    package var otherColumn: Int
    /// Over the other side's columns.
    package var lowerBound: ScalarExpr

    package enum Side: Sendable, Equatable {
        case left, right
    }
}

extension EquiJoin where Input == StreamPlan {
    /// The bounds the join keys and the residual's comparisons give (``JoinTimeBound``).
    package var timeBounds: [JoinTimeBound] {
        let leftTypes = left.outputTypes
        let rightTypes = right.outputTypes
        var bounds: [JoinTimeBound] = []
        for (leftKey, rightKey) in zip(leftKeys, rightKeys) {
            let (leftColumn, rightColumn) = (ScalarExpr.column(leftKey, leftTypes[leftKey]), ScalarExpr.column(rightKey, rightTypes[rightKey]))
            bounds.append(JoinTimeBound(side: .left, bounded: leftColumn, column: leftKey, otherColumn: rightKey, lowerBound: rightColumn))
            bounds.append(JoinTimeBound(side: .right, bounded: rightColumn, column: rightKey, otherColumn: leftKey, lowerBound: leftColumn))
        }
        guard let residual else { return bounds }
        let width = leftTypes.count
        for conjunct in residual.conjuncts {
            guard case .call(let function, let arguments) = conjunct, arguments.count == 2 else { continue }
            let (larger, smaller): (ScalarExpr, ScalarExpr)
            switch function.name {
            case ">=", ">": (larger, smaller) = (arguments[0], arguments[1])
            case "<=", "<": (larger, smaller) = (arguments[1], arguments[0])
            default: continue
            }
            guard larger.referencedColumns.count == 1, let column = larger.referencedColumns.first, larger.isNonDecreasing(in: column),
                  smaller.referencedColumns.count == 1, let other = smaller.referencedColumns.first, smaller.isNonDecreasing(in: other)
            else { continue }
            if column < width, other >= width {
                bounds.append(
                    JoinTimeBound(
                        side: .left, bounded: larger, column: column, otherColumn: other - width, lowerBound: smaller.remappingColumns { $0 - width }))
            } else if column >= width, other < width {
                bounds.append(
                    JoinTimeBound(side: .right, bounded: larger.remappingColumns { $0 - width }, column: column - width, otherColumn: other, lowerBound: smaller))
            }
        }
        return bounds
    }

    /// The output columns whose watermark the join carries: a column of a side with a
    /// watermark and a bound on it from a watermarked column of the other side; a right column
    /// only in an inner join (a left join pads it with NULL).
    package var watermarkColumns: [Int] {
        let leftMarked = left.watermarkColumns
        let rightMarked = right.watermarkColumns
        var columns: [Int] = []
        for bound in timeBounds where bound.bounded == .column(bound.column, bound.bounded.type) {
            switch bound.side {
            case .left:
                if leftMarked.contains(bound.column), rightMarked.contains(bound.otherColumn) { columns.append(bound.column) }
            case .right:
                if kind == .inner, rightMarked.contains(bound.column), leftMarked.contains(bound.otherColumn) {
                    columns.append(left.outputTypes.count + bound.column)
                }
            }
        }
        return Array(Set(columns)).sorted()
    }
}
