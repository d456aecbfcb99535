import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

/// The time-window table functions of FROM, as RisingWave writes them.
enum TimeWindowKind: String {
    /// `TUMBLE(relation, time_col, size [, offset])`: each row in the one window holding it.
    case tumble
    /// `HOP(relation, time_col, slide, size [, offset])`: each row in the `size / slide`
    /// overlapping windows holding it.
    case hop
    /// Flink's `CUMULATE(relation, time_col, step, size [, offset])`: windows of a `size`
    /// period that all start with it and end every `step`; each row in those ending after it.
    case cumulate
}

extension Binder {
    /// `TUMBLE(…)` or `HOP(…)`: the relation's columns, then `window_start` and `window_end`, of
    /// the time column's type. The windows are a projection of each row (tumbling) or its
    /// expansion into one row per window (hopping), so views maintain them like any projection.
    mutating func bindTimeWindow(_ call: FunctionCall, alias: TableAlias?, position: Int?) throws(SluiceError) -> BoundQuery {
        let kind = TimeWindowKind(rawValue: call.name.name)!
        let title = kind.rawValue.uppercased()
        let intervalNames = kind == .tumble ? ["size"] : kind == .hop ? ["slide", "size"] : ["step", "size"]
        let usage = "\(title)(relation, time column, \(intervalNames.joined(separator: ", ")) [, offset])"
        guard call.arguments.count == intervalNames.count + 2 || call.arguments.count == intervalNames.count + 3,
              !call.isStar, !call.isDistinct, call.filter == nil, call.over == nil, call.orderBy.isEmpty
        else {
            throw SluiceError(.undefinedFunction, "\(title) takes \(call.arguments.count) arguments here; its form is \(usage)", position: position)
        }
        guard case .column(let parts) = call.arguments[0].node else {
            throw SluiceError(
                .syntaxError, "the first argument of \(title) must name a table, source or materialized view",
                hint: "Put a subquery in a WITH clause and name it.", position: call.arguments[0].position.errorPosition ?? position)
        }
        var relation = try bindNamedRelation(ObjectName(parts), position: call.arguments[0].position.errorPosition ?? position)
        applyAlias(nil, defaultQualifier: parts.last, to: &relation.scope)

        var context = ExpressionContext(scope: relation.scope, clause: title)
        context.allowsSubqueries = false
        var time = try bindExpression(call.arguments[1], &context)
        switch time.type {
        case .timestamp, .timestamptz: break
        case .date: time = .cast(time, .timestamp)
        default:
            throw SluiceError(
                .datatypeMismatch, "the time column of \(title) must be a timestamp or timestamptz, not \(time.type.sqlName)",
                hint: "Convert it first, for example with to_timestamp() for Unix seconds.",
                position: call.arguments[1].position.errorPosition ?? position)
        }
        let type = time.type
        var lengths: [Int64] = []
        for (index, argument) in call.arguments.dropFirst(2).enumerated() {
            let role = index < intervalNames.count ? intervalNames[index] : "offset"
            let argumentPosition = argument.position.errorPosition ?? position
            var constant = ExpressionContext(scope: Scope(), clause: title)
            constant.allowsSubqueries = false
            let bound = try coerce(try bindExpression(argument, &constant), to: .interval, position: argumentPosition)
            guard bound.isConstant, !bound.isVolatile,
                  case .interval(let interval) = try ExpressionEvaluator.evaluate(
                    bound, on: Chunk(columns: [], count: 1), context: EvaluationContext(zone: session.zone)).value(at: 0)
            else {
                throw SluiceError(.invalidParameterValue, "the window \(role) of \(title) must be a constant interval", position: argumentPosition)
            }
            do {
                lengths.append(role == "offset" ? try TimeWindows.microseconds(of: interval, role: role) : try TimeWindows.windowSize(interval, role: role))
            } catch {
                throw error.at(position: argumentPosition)
            }
        }
        let columns = relation.scope.types.enumerated().map { ScalarExpr.column($0.offset, $0.element) }
        let width = columns.count
        let size = lengths[intervalNames.count - 1]
        let offset = lengths.count > intervalNames.count ? lengths[intervalNames.count] : 0
        var plan: BatchPlan
        switch kind {
        case .tumble:
            let start = ScalarExpr.call(
                try FunctionRegistry.resolve(name: "tumble_start", argumentTypes: [type, .interval, .interval]),
                [time, .literal(.interval(Interval(microseconds: size)), .interval), .literal(.interval(Interval(microseconds: offset)), .interval)])
            plan = .project(input: relation.plan, expressions: columns + [start])
        case .hop:
            let slide = lengths[0]
            try Self.checkWindowCount(title, size: size, part: slide, partName: "slide", position: position)
            plan = .projectSet(
                input: relation.plan, expressions: columns + [.call(TimeWindows.hopStarts(type, slide: slide, size: size, offset: offset), [time])],
                expands: Array(repeating: false, count: width) + [true])
        case .cumulate:
            let step = lengths[0]
            try Self.checkWindowCount(title, size: size, part: step, partName: "step", position: position)
            // Each row in the windows ending after it; a window's start is its period's.
            plan = .projectSet(
                input: relation.plan, expressions: columns + [.call(TimeWindows.cumulateEnds(type, step: step, size: size, offset: offset), [time])],
                expands: Array(repeating: false, count: width) + [true])
            let periodStart = ScalarExpr.call(
                try FunctionRegistry.resolve(name: "tumble_start", argumentTypes: [type, .interval, .interval]),
                [time, .literal(.interval(Interval(microseconds: size)), .interval), .literal(.interval(Interval(microseconds: offset)), .interval)])
            plan = .project(input: plan, expressions: columns + [periodStart, .column(width, type)])
        }
        let start = ScalarExpr.column(width, type)
        if kind != .cumulate {
            plan = .project(input: plan, expressions: columns + [start, .call(TimeWindows.end(type, size: size), [start])])
        }
        var scope = relation.scope
        let qualifier = scope.entries.first?.qualifier ?? parts.last
        scope.entries.append(Scope.Entry(qualifier: qualifier, name: "window_start", type: type))
        scope.entries.append(Scope.Entry(qualifier: qualifier, name: "window_end", type: type))
        var bound = BoundQuery(plan: plan, scope: scope)
        if let alias { applyAlias(alias, defaultQualifier: nil, to: &bound.scope) }
        return bound
    }

    /// HOP's and CUMULATE's size: a whole multiple of the slide (step), at most 10,000 of them
    /// (a row is in that many windows).
    static func checkWindowCount(_ title: String, size: Int64, part: Int64, partName: String, position: Int?) throws(SluiceError) {
        guard size % part == 0 else {
            throw SluiceError(
                .invalidParameterValue, "the window size of \(title) must be a whole multiple of its \(partName)",
                hint: "Each row belongs to up to size / \(partName) windows.", position: position)
        }
        guard size / part <= 10_000 else {
            throw SluiceError(
                .invalidParameterValue, "a \(title) window's size may be at most 10000 \(partName)s, each row being in that many windows", position: position)
        }
    }
}
