import SluiceCore
import SluiceExpr
import SluicePlan

// Two rewrites that make a join's rows fewer before the work that grows with them:
// - a selective semi join over inner joins moves onto the input of them whose columns it reads
//   (``PredicatePushdown/sinkingSemiJoin(_:)``), so the rows it drops never reach the joins
//   (TPC-H q18's `o_orderkey IN (…)` keeps 57 orders of 1.5 million before they meet lineitem);
// - an aggregate joined on its group keys reads only the rows whose keys the other side can have
//   (``AggregateKeyReduction``): the magic-set rewrite of Mumick et al., which DuckDB's
//   delim joins do for decorrelated subqueries (TPC-H q17 averages 200 parts' lineitems, not
//   200,000's).

extension PredicatePushdown {
    /// The largest estimated fraction of its left rows a semi join may keep and be moved below
    /// inner joins.
    static let sinkingSelectivity = 0.25

    /// The semi join `join` moved below the inner joins of its left side, onto the input of them
    /// that has every left column its keys and condition read: nil when there is no inner join to
    /// move below, or when the join is not estimated to keep few enough rows to be worth doing
    /// before the inner joins (which may drop more rows, for less work, first: TPC-H q21's
    /// EXISTS). Each left row's fate depends on its own columns only, so it is the same whether
    /// the row is matched before the inner joins or after.
    func sinkingSemiJoin(_ join: HashJoin) -> BatchPlan? {
        guard join.kind == .semi,
            estimator.rows(.hashJoin(join)) <= estimator.rows(join.left) * Self.sinkingSelectivity
        else { return nil }
        let width = join.left.outputTypes.count
        let residualColumns = (join.residual?.referencedColumns ?? []).filter { $0 < width }.sorted()
        let needed = join.leftKeys + residualColumns
        return Self.sink(join.left, needed) { leaf, mapped in
            var position: [Int: Int] = [:]
            for (index, column) in needed.enumerated() { position[column] = mapped[index] }
            let leafWidth = leaf.outputTypes.count
            var moved = join
            moved.left = leaf
            moved.leftKeys = Array(mapped[0 ..< join.leftKeys.count])
            moved.residual = join.residual?.remappingColumns { $0 < width ? position[$0]! : $0 - width + leafWidth }
            return .hashJoin(moved)
        }
    }

    /// `node` with `make` applied to the input below its inner joins that has all of `needed`
    /// (columns of `node`, which `make` receives as columns of that input): nil when `needed`
    /// does not pass unchanged through an inner join below `node`.
    private static func sink(_ node: BatchPlan, _ needed: [Int], _ make: (BatchPlan, [Int]) -> BatchPlan) -> BatchPlan? {
        switch node {
        case .project(let input, let expressions):
            guard let mapped = ScalarExpr.inputColumns(of: needed, through: expressions) else { return nil }
            return sink(input, mapped, make).map { .project(input: $0, expressions: expressions) }
        case .filter(let input, let predicate):
            return sink(input, needed, make).map { .filter(input: $0, predicate: predicate) }
        case .hashJoin(var inner) where inner.kind == .inner:
            let width = inner.left.outputTypes.count
            if needed.allSatisfy({ $0 < width }) {
                inner.left = sink(inner.left, needed, make) ?? make(inner.left, needed)
            } else if needed.allSatisfy({ $0 >= width }) {
                let shifted = needed.map { $0 - width }
                inner.right = sink(inner.right, shifted, make) ?? make(inner.right, shifted)
            } else {
                return nil
            }
            return .hashJoin(inner)
        case .nestedLoopJoin(let left, let right, .inner, let predicate):
            let width = left.outputTypes.count
            if needed.allSatisfy({ $0 < width }) {
                return .nestedLoopJoin(left: sink(left, needed, make) ?? make(left, needed), right: right, kind: .inner, predicate: predicate)
            } else if needed.allSatisfy({ $0 >= width }) {
                let shifted = needed.map { $0 - width }
                return .nestedLoopJoin(left: left, right: sink(right, shifted, make) ?? make(right, shifted), kind: .inner, predicate: predicate)
            }
            return nil
        default:
            return nil
        }
    }
}

/// Where a join's right side is an aggregate grouped by the join's keys, and the left side's
/// keys come from an input that is cheap to read again and has far fewer rows than the
/// aggregate's input, the aggregate's input is first semi-joined with that input: the groups it
/// can no longer make are those no left row could have matched. Batch queries only (a view would
/// keep the input's state twice).
struct AggregateKeyReduction {
    var estimator: CardinalityEstimator

    /// How many times fewer rows the key source must be estimated to have than the aggregate's
    /// input: reading the source twice and probing its keys costs little only then.
    static let minimumReduction = 4.0

    func apply(_ plan: BatchPlan) -> BatchPlan {
        let rewritten = plan.mappingInputs(includingSubqueries: true) { apply($0) }
        guard case .hashJoin(var join) = rewritten, join.kind == .inner || join.kind == .left,
            let source = keySource(join.left, join.leftKeys),
            let reduced = reducing(join.right, keys: join.rightKeys, source: source)
        else { return rewritten }
        join.right = reduced
        return .hashJoin(join)
    }

    /// `plan` (projections over an aggregate whose group keys `keys` are) with the aggregate's
    /// input semi-joined with `source` on the keys; nil when `plan` has another shape or the
    /// source would not make its input markedly smaller.
    private func reducing(_ plan: BatchPlan, keys: [Int], source: (plan: BatchPlan, columns: [Int], rows: Double)) -> BatchPlan? {
        switch plan {
        case .project(let input, let expressions):
            guard let mapped = ScalarExpr.inputColumns(of: keys, through: expressions) else { return nil }
            return reducing(input, keys: mapped, source: source).map { .project(input: $0, expressions: expressions) }
        case .hashAggregate(let input, let groupCount, let aggregates):
            guard keys.allSatisfy({ $0 < groupCount }), source.rows * Self.minimumReduction < estimator.rows(input) else { return nil }
            // The aggregate's first columns are its group keys, its input's first columns.
            let inputTypes = input.outputTypes
            let sourceTypes = source.plan.outputTypes
            var conditions: [ScalarExpr] = []
            for (key, column) in zip(keys, source.columns) {
                guard inputTypes[key] == sourceTypes[column] else { return nil }
                conditions.append(
                    .call(.comparison(.equal, inputTypes[key]), [.column(key, inputTypes[key]), .column(inputTypes.count + column, sourceTypes[column])]))
            }
            let filtered = BatchPlan.join(input, source.plan, kind: .semi, on: conditions)
            return .hashAggregate(input: filtered, groupCount: groupCount, aggregates: aggregates)
        default:
            return nil
        }
    }

    /// Of the plans along the path `columns` take down from `plan` unchanged, the one estimated
    /// smallest that is cheap to read again, with the columns' positions in it.
    private func keySource(_ plan: BatchPlan, _ columns: [Int]) -> (plan: BatchPlan, columns: [Int], rows: Double)? {
        var best: (plan: BatchPlan, columns: [Int], rows: Double)?
        if Self.isCheap(plan) { best = (plan, columns, estimator.rows(plan)) }
        var child: (BatchPlan, [Int])?
        switch plan {
        case .project(let input, let expressions):
            guard let mapped = ScalarExpr.inputColumns(of: columns, through: expressions) else { return best }
            child = (input, mapped)
        case .filter(let input, _):
            child = (input, columns)
        case .hashJoin(let join) where join.kind == .inner || join.kind == .semi:
            let width = join.left.outputTypes.count
            if columns.allSatisfy({ $0 < width }) {
                child = (join.left, columns)
            } else if join.kind == .inner, columns.allSatisfy({ $0 >= width }) {
                child = (join.right, columns.map { $0 - width })
            }
        case .nestedLoopJoin(let left, let right, .inner, _):
            let width = left.outputTypes.count
            if columns.allSatisfy({ $0 < width }) {
                child = (left, columns)
            } else if columns.allSatisfy({ $0 >= width }) {
                child = (right, columns.map { $0 - width })
            }
        default:
            break
        }
        if let (input, mapped) = child, let below = keySource(input, mapped), best == nil || below.rows < best!.rows {
            best = below
        }
        return best
    }

    /// Whether `plan` is scans with filters, projections and semi joins of such plans, none of
    /// whose expressions is volatile: a plan that gives the same rows, cheaply, when read twice.
    static func isCheap(_ plan: BatchPlan) -> Bool {
        switch plan {
        case .scan: return true
        case .filter(let input, let predicate): return !predicate.isVolatile && isCheap(input)
        case .project(let input, let expressions): return !expressions.contains(where: \.isVolatile) && isCheap(input)
        case .hashJoin(let join) where join.kind == .semi:
            return !(join.residual?.isVolatile ?? false) && isCheap(join.left) && isCheap(join.right)
        default: return false
        }
    }
}

extension ScalarExpr {
    /// The input columns that projection `expressions` passes through unchanged as its columns
    /// `columns`; nil when one of them is computed.
    static func inputColumns(of columns: [Int], through expressions: [ScalarExpr]) -> [Int]? {
        var mapped: [Int] = []
        for column in columns {
            guard case .column(let index, _) = expressions[column] else { return nil }
            mapped.append(index)
        }
        return mapped
    }
}

/// Batch joins that keep their left side's rows (semi, anti and left joins) hash that side
/// when it is estimated at most half the right side:
/// - A semi or anti join builds its table on the left side (``EquiJoin/buildsLeft``):
///   `EXISTS (SELECT … FROM lineitem …)` over a few thousand orders then streams lineitem past
///   a table of those orders, instead of hashing all of lineitem.
/// - A left join becomes the right join of its sides swapped, its columns put back in order
///   above it: customers `LEFT JOIN` orders hashes the customers (TPC-H q13).
struct JoinBuildSide {
    var estimator: CardinalityEstimator

    func apply(_ plan: BatchPlan) -> BatchPlan {
        let rebuilt = plan.mappingInputs(includingSubqueries: true) { apply($0) }
        guard case .hashJoin(var join) = rebuilt, !join.leftKeys.isEmpty,
              join.kind == .semi || join.kind == .anti || join.kind == .left,
              estimator.rows(join.left) * 2 <= estimator.rows(join.right)
        else { return rebuilt }
        if join.kind != .left {
            join.buildsLeft = true
            return .hashJoin(join)
        }
        let (leftTypes, rightTypes) = (join.left.outputTypes, join.right.outputTypes)
        let (leftWidth, rightWidth) = (leftTypes.count, rightTypes.count)
        let swapped = HashJoin(
            left: join.right, right: join.left, kind: .right, leftKeys: join.rightKeys, rightKeys: join.leftKeys,
            residual: join.residual?.remappingColumns { $0 < leftWidth ? rightWidth + $0 : $0 - leftWidth })
        let order = leftTypes.indices.map { ScalarExpr.column(rightWidth + $0, leftTypes[$0]) }
            + rightTypes.indices.map { ScalarExpr.column($0, rightTypes[$0]) }
        return .project(input: .hashJoin(swapped), expressions: order)
    }
}
