import Foundation
import SluiceCore
import SluiceExpr
import SluicePlan

/// Rough row counts of plans, for ordering joins: stored row counts at the scans, fixed
/// selectivities for predicates (as System R did), and equi-joins as |L| x |R| / the larger
/// number of distinct key values of the two sides (each side's capped by its rows), from the
/// store's sampled estimates; where those are unknown (views are planned without statistics),
/// under the foreign-key assumption: a key has as many values as the smaller table it comes
/// from has rows.
struct CardinalityEstimator {
    var rowCount: (Int) -> Int?
    var distinctValues: (Int, Int) -> Double? = { _, _ in nil }

    /// Rows assumed for a relation whose count is unknown.
    static let unknownRows = 1_000.0

    func rows(_ plan: BatchPlan) -> Double {
        switch plan {
        case .scan(let scan): return Double(rowCount(scan.tableID) ?? Int(Self.unknownRows))
        case .values(let rows, _): return Double(rows.count)
        case .tableFunction: return Self.unknownRows
        case .filter(let input, let predicate): return max(rows(input) * selectivity(predicate, over: input), 1)
        case .project(let input, _), .sort(let input, _), .apply(let input, _, _), .window(let input, _, _, _), .overWindow(let input, _, _, _): return rows(input)
        case .projectSet(let input, _, _): return rows(input) * 2
        case .maxOneRow: return 1
        case .limit(let input, let limit, let offset):
            let available = max(rows(input) - Double(offset), 0)
            return limit.map { min(available, Double($0)) } ?? available
        case .topN(let input, _, let limit, let offset):
            return min(max(rows(input) - Double(offset), 0), Double(limit))
        case .hashAggregate(let input, let groupCount, _):
            if groupCount == 0 { return 1 }
            return max(min(rows(input), pow(max(rows(input), 1), 0.75)), 1)
        case .union(let inputs, let distinct):
            let total = inputs.reduce(0) { $0 + rows($1) }
            return distinct ? max(total / 2, 1) : total
        case .setOperation(let left, _, _, _): return rows(left)
        case .hashJoin(let join):
            let pairs = join.leftKeys.indices.map { (join.leftKeys[$0], join.rightKeys[$0]) }
            return joinRows(left: join.left, right: join.right, kind: join.kind, keys: pairs, residual: join.residual)
        case .nestedLoopJoin(let left, let right, let kind, let predicate):
            return joinRows(left: left, right: right, kind: kind, keys: [], residual: predicate)
        }
    }

    private func joinRows(left: BatchPlan, right: BatchPlan, kind: JoinKind, keys: [(Int, Int)], residual: ScalarExpr?) -> Double {
        let (l, r) = (rows(left), rows(right))
        switch kind {
        case .semi:
            // At most half the rows; fewer when the right side has few rows for the left key's
            // values (each right row keeps the left rows of one value).
            guard let key = keys.first else { return max(l * 0.5, 1) }
            let values = distinctValues(of: key.0, in: left) ?? baseRows(of: key.0, in: left) ?? l
            return max(min(l * 0.5, r * l / max(min(values, l), 1)), 1)
        case .anti: return max(l * 0.5, 1)
        default: break
        }
        var inner = l * r
        if !keys.isEmpty {
            let distinct = keys.map { key -> Double in
                if let a = distinctValues(of: key.0, in: left), let b = distinctValues(of: key.1, in: right) {
                    return max(min(a, l), min(b, r))
                }
                return min(baseRows(of: key.0, in: left) ?? l, baseRows(of: key.1, in: right) ?? r)
            }.max() ?? 1
            inner /= max(distinct, 1)
        }
        if let residual { inner *= selectivity(residual) }
        inner = max(inner, 1)
        switch kind {
        case .left: return max(inner, l)
        case .right: return max(inner, r)
        case .full: return max(inner, l + r)
        default: return inner
        }
    }

    /// The sampled number of distinct values of the stored column a column comes from, when the
    /// column can be traced to one and the store has an estimate.
    func distinctValues(of column: Int, in plan: BatchPlan) -> Double? {
        storedColumn(column, in: plan).flatMap { distinctValues($0.scan.tableID, $0.scan.columns[$0.column]) }
    }

    /// The stored rows of the table a column comes from, unfiltered (the number of distinct
    /// values a key may have), when the column can be traced to one.
    func baseRows(of column: Int, in plan: BatchPlan) -> Double? {
        storedColumn(column, in: plan).flatMap { rowCount($0.scan.tableID).map(Double.init) }
    }

    /// The scan, and the column of it, that a column of `plan` passes through from unchanged.
    private func storedColumn(_ column: Int, in plan: BatchPlan) -> (scan: TableScan, column: Int)? {
        switch plan {
        case .scan(let scan): return column < scan.columns.count ? (scan, column) : nil
        case .filter(let input, _), .sort(let input, _), .limit(let input, _, _), .maxOneRow(let input):
            return storedColumn(column, in: input)
        case .project(let input, let expressions):
            guard column < expressions.count, case .column(let index, _) = expressions[column] else { return nil }
            return storedColumn(index, in: input)
        case .apply(let input, _, _):
            return column < input.outputTypes.count ? storedColumn(column, in: input) : nil
        case .hashAggregate(let input, let groupCount, _):
            // A single group key has the values of the column it groups.
            return column < groupCount && groupCount == 1 ? storedColumn(column, in: input) : nil
        case .hashJoin(let join):
            let width = join.left.outputTypes.count
            return column < width ? storedColumn(column, in: join.left) : storedColumn(column - width, in: join.right)
        case .nestedLoopJoin(let left, let right, _, _):
            let width = left.outputTypes.count
            return column < width ? storedColumn(column, in: left) : storedColumn(column - width, in: right)
        default:
            return nil
        }
    }

    /// The fraction of rows a predicate is assumed to keep; over `input`, a column equal to a
    /// constant keeps one of its column's distinct values' share, when the store has an estimate.
    func selectivity(_ predicate: ScalarExpr, over input: BatchPlan? = nil) -> Double {
        switch predicate {
        case .and(let operands): return operands.reduce(1) { $0 * selectivity($1, over: input) }
        case .or(let operands): return min(operands.reduce(0) { $0 + selectivity($1, over: input) }, 1)
        case .not(let operand): return 1 - selectivity(operand, over: input)
        case .isNull(_, let negated): return negated ? 0.9 : 0.1
        case .literal(let value, _):
            if case .bool(true) = value { return 1 }
            return 0
        case .call(let function, let arguments):
            switch function.name {
            case "=", "is_not_distinct_from":
                // A column equal to a column (of one input) or to a constant.
                if let input, arguments.count == 2, case .column(let column, _) = arguments[0], arguments[1].referencedColumns.isEmpty,
                    let values = distinctValues(of: column, in: input), values >= 1
                {
                    return 1 / values
                }
                return arguments.allSatisfy({ !$0.referencedColumns.isEmpty }) ? 0.1 : 0.05
            case "<>", "is_distinct_from": return 0.9
            case "<", "<=", ">", ">=": return 0.33
            case "like", "~~", "ilike", "~~*", "similar to", "~", "~*": return 0.1
            case "not like", "!~~", "not ilike", "!~~*", "!~", "!~*": return 0.9
            default: return 0.25
            }
        default:
            return 0.25
        }
    }
}
