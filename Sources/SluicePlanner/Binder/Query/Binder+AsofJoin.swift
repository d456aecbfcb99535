import SluiceCore
import SluiceExpr
import SluicePlan

extension Binder {
    /// `left ASOF [LEFT] JOIN right ON l.k = r.k AND l.t >= r.t` (RisingWave's and DuckDB's):
    /// each left row with the right row of equal keys whose `r.t` is the nearest to `l.t` on the
    /// inequality's side (the largest `r.t <= l.t` here), or none; `keepsUnmatched` pads
    /// the left rows without one with NULLs.
    ///
    /// Planned with the operators every query and view already has: the distinct `(keys, l.t)`
    /// of the left side, each with the nearest `r.t` among the right rows of its keys (an
    /// aggregate over their join), then the left rows joined with it and with the right rows at
    /// that time. A view keeps it up to date through their changes. Where several right rows
    /// share the keys and the nearest time, each of them is a match (DuckDB and RisingWave pick
    /// one).
    mutating func asofJoin(
        _ left: BatchPlan, _ right: BatchPlan, on conjuncts: [ScalarExpr], keepsUnmatched: Bool, position: Int?
    ) throws(SluiceError) -> BatchPlan {
        let leftTypes = left.outputTypes
        let rightTypes = right.outputTypes
        let leftWidth = leftTypes.count
        func side(_ expression: ScalarExpr) -> Bool? {
            let columns = expression.referencedColumns
            if columns.isEmpty { return nil }
            if columns.allSatisfy({ $0 < leftWidth }) { return true }
            if columns.allSatisfy({ $0 >= leftWidth }) { return false }
            return nil
        }
        var keys: [(left: ScalarExpr, right: ScalarExpr)] = []
        var inequality: (left: ScalarExpr, right: ScalarExpr, op: ComparisonOperator)?
        for conjunct in conjuncts {
            guard case .call(let function, let arguments) = conjunct, arguments.count == 2,
                  let op = ComparisonOperator(rawValue: function.name), op != .notEqual,
                  let firstIsLeft = side(arguments[0]), let secondIsLeft = side(arguments[1]), firstIsLeft != secondIsLeft
            else { throw asofConditionError(position) }
            let (leftSide, rightSide) = firstIsLeft ? (arguments[0], arguments[1]) : (arguments[1], arguments[0])
            let rightColumns = rightSide.remappingColumns { $0 - leftWidth }
            if op == .equal {
                keys.append((leftSide, rightColumns))
            } else {
                guard inequality == nil else { throw asofConditionError(position) }
                inequality = (leftSide, rightColumns, firstIsLeft ? op : op.mirrored)
            }
        }
        guard let inequality, !keys.isEmpty else { throw asofConditionError(position) }

        let keyCount = keys.count
        let timeType = inequality.left.type
        func columns(_ types: [DataType]) -> [ScalarExpr] { types.enumerated().map { .column($0.offset, $0.element) } }
        func column(_ index: Int, in plan: BatchPlan) -> ScalarExpr { .column(index, plan.outputTypes[index]) }
        func compare(_ op: ComparisonOperator, _ a: ScalarExpr, _ b: ScalarExpr) -> ScalarExpr {
            .call(.comparison(op, a.type), [a, b])
        }
        // Each side with its keys and time as columns at its end.
        let leftKeyed = BatchPlan.project(input: left, expressions: columns(leftTypes) + keys.map(\.left) + [inequality.left])
        let rightKeyed = BatchPlan.project(input: right, expressions: columns(rightTypes) + keys.map(\.right) + [inequality.right])
        let width = keyCount + 1
        // The distinct (keys, time) of the left side, and the right side's (keys, time).
        let wanted = BatchPlan.hashAggregate(
            input: .project(input: leftKeyed, expressions: (leftWidth ..< leftWidth + width).map { column($0, in: leftKeyed) }),
            groupCount: width, aggregates: [])
        let offered = BatchPlan.project(
            input: rightKeyed, expressions: (rightTypes.count ..< rightTypes.count + width).map { column($0, in: rightKeyed) })
        // Each wanted (keys, time) with the right times on its side of the inequality: the
        // nearest is their max below it, their min above.
        var candidateConditions = (0 ..< keyCount).map { compare(.equal, column($0, in: wanted), .column(width + $0, offered.outputTypes[$0])) }
        let wantedTime = column(keyCount, in: wanted)
        let offeredTime = ScalarExpr.column(width + keyCount, timeType)
        candidateConditions.append(compare(inequality.op, wantedTime, offeredTime))
        let candidates = BatchPlan.join(wanted, offered, kind: .inner, on: candidateConditions)
        let nearest = BatchPlan.hashAggregate(
            input: .project(input: candidates, expressions: (0 ..< width).map { column($0, in: candidates) } + [offeredTime]),
            groupCount: width,
            aggregates: [AggregateCall(kind: [.greaterOrEqual, .greater].contains(inequality.op) ? .max : .min, argument: width, resultType: timeType)])
        // The right rows at the nearest time: (keys, time, nearest) then the right side's columns.
        let rightStart = width + 1
        var atNearest = (0 ..< keyCount).map { compare(.equal, column($0, in: nearest), .column(rightStart + rightTypes.count + $0, rightKeyed.outputTypes[rightTypes.count + $0])) }
        atNearest.append(compare(.equal, column(width, in: nearest), .column(rightStart + rightTypes.count + keyCount, timeType)))
        let matches = BatchPlan.join(nearest, rightKeyed, kind: .inner, on: atNearest)
        // Each left row with its matches.
        let leftKeyedWidth = leftWidth + width
        let matchesTypes = matches.outputTypes
        let rowConditions = (0 ..< width).map { index in
            compare(.equal, column(leftWidth + index, in: leftKeyed), .column(leftKeyedWidth + index, matchesTypes[index]))
        }
        let joined = BatchPlan.join(leftKeyed, matches, kind: keepsUnmatched ? .left : .inner, on: rowConditions)
        let joinedTypes = joined.outputTypes
        let rightColumnsStart = leftKeyedWidth + rightStart
        return .project(
            input: joined,
            expressions: (0 ..< leftWidth).map { .column($0, joinedTypes[$0]) }
                + (0 ..< rightTypes.count).map { .column(rightColumnsStart + $0, joinedTypes[rightColumnsStart + $0]) })
    }

    private func asofConditionError(_ position: Int?) -> SluiceError {
        SluiceError(
            .featureNotSupported, "ASOF JOIN needs equalities between the two sides and exactly one inequality (<, <=, >, >=) between them",
            hint: "Write the condition as ON l.key = r.key AND l.ts >= r.ts, with nothing else.", position: position)
    }
}

extension ComparisonOperator {
    /// The operator with its operands swapped: `a < b` is `b > a`.
    var mirrored: ComparisonOperator {
        switch self {
        case .less: .greater
        case .lessOrEqual: .greaterOrEqual
        case .greater: .less
        case .greaterOrEqual: .lessOrEqual
        case .equal, .notEqual: self
        }
    }
}
