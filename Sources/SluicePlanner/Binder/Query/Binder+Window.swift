import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

/// Window functions in the select list and ORDER BY: each call becomes a sort of the rows
/// (after WHERE, GROUP BY and HAVING) by its partition and order expressions and a
/// ``SluicePlan/BatchPlan/window(input:partitionColumns:orderColumns:functions:)`` that
/// appends its value as a hidden column, which the call then binds to.
///
/// The ranking functions (`row_number`, `rank`, `dense_rank`) number rows as they stream past
/// (``SluicePlan/BatchPlan/window(input:partitionColumns:orderColumns:functions:)``); aggregates
/// over frames, `lag`/`lead` and `first_value`/`last_value` are computed a partition at a time
/// (``SluicePlan/BatchPlan/overWindow(input:partitionColumns:order:calls:)``).
extension Binder {
    /// The window calls in `expressions`, each once, in the order met.
    func collectWindowCalls(_ expressions: [Expression]) -> [FunctionCall] {
        var calls: [FunctionCall] = []
        for expression in expressions {
            Self.walk(expression) { node in
                if case .function(let call) = node.node, call.over != nil {
                    if !calls.contains(call) { calls.append(call) }
                    return false
                }
                return true
            }
        }
        return calls
    }

    /// The PARTITION BY and ORDER BY expressions of `calls`' windows and of the `WINDOW` clause.
    static func windowDefinitionExpressions(_ calls: [FunctionCall], named: [NamedWindow]) -> [Expression] {
        var expressions: [Expression] = []
        for specification in calls.compactMap({ call -> WindowSpecification? in
            if case .specification(let specification)? = call.over { specification } else { nil }
        }) + named.map(\.specification) {
            expressions += specification.partitionBy + specification.orderBy.map(\.expression)
        }
        return expressions
    }

    /// `input` with one hidden column per window call appended; `columns` maps each call to its
    /// column, for ``ExpressionContext/windows``. `named` are the query's `WINDOW` clause.
    mutating func bindWindows(
        _ calls: [FunctionCall], input: BoundQuery, aggregates: AggregateMapping?, named: [NamedWindow] = []
    ) throws(SluiceError) -> (query: BoundQuery, columns: [FunctionCall: Int]) {
        var query = input
        var columns: [FunctionCall: Int] = [:]
        for call in calls {
            let name = call.name.name
            let specification = try resolveWindow(call.over!, named: named)
            let ranking: WindowFunctionKind? = switch name {
            case "row_number": .rowNumber
            case "rank": .rank
            case "dense_rank": .denseRank
            default: nil
            }
            var context = ExpressionContext(scope: query.scope, clause: "window definitions", aggregates: aggregates)
            context.allowsSubqueries = false
            var extra: [ScalarExpr] = []
            for expression in specification.partitionBy + specification.orderBy.map(\.expression) {
                let bound = try bindExpression(expression, &context)
                extra.append(bound.type == .unknown ? try coerce(bound, to: .varchar, position: nil) : bound)
            }
            let width = query.scope.entries.count
            let partitionColumns = Array(width ..< width + specification.partitionBy.count)
            let orderColumns = Array(width + specification.partitionBy.count ..< width + extra.count)
            let orderKeys = zip(orderColumns, specification.orderBy).map {
                SortKey(column: $0, descending: $1.ascending == false, nullsFirst: $1.nullsFirst)
            }
            let keys = partitionColumns.map { SortKey(column: $0) } + orderKeys
            var window: WindowCall?
            if ranking != nil {
                guard call.arguments.isEmpty, !call.isStar, !call.isDistinct, call.filter == nil, call.orderBy.isEmpty else {
                    throw SluiceError(.undefinedFunction, "function \(name) with these arguments does not exist")
                }
            } else {
                var argumentContext = ExpressionContext(scope: query.scope, clause: "window function arguments", aggregates: aggregates)
                argumentContext.allowsSubqueries = false
                (window, extra) = try bindWindowCall(call, specification: specification, orderKeys: orderKeys, context: &argumentContext, extra: extra, width: width)
            }
            var plan = BatchPlan.project(input: query.plan, expressions: query.scope.types.enumerated().map { .column($0.offset, $0.element) } + extra)
            if !keys.isEmpty { plan = .sort(input: plan, keys: keys) }
            let resultType: DataType
            if let ranking {
                plan = .window(input: plan, partitionColumns: partitionColumns, orderColumns: orderColumns, functions: [ranking])
                resultType = .int64
            } else {
                plan = .overWindow(input: plan, partitionColumns: partitionColumns, order: orderKeys, calls: [window!])
                resultType = window!.resultType
            }
            var entries = query.scope.entries
            entries += extra.map { Scope.Entry(qualifier: nil, name: "?window?", type: $0.type, isHidden: true) }
            entries.append(Scope.Entry(qualifier: nil, name: "?window?", type: resultType, isHidden: true))
            columns[call] = entries.count - 1
            query = BoundQuery(plan: plan, scope: Scope(entries: entries))
        }
        return (query, columns)
    }

    /// The specification a call's `OVER` names or writes, a named window's refined by the
    /// call's own ORDER BY and frame (PostgreSQL's rules: the base's partitioning is kept, and
    /// it may not have an ORDER BY when the call adds one, nor a frame).
    private func resolveWindow(_ reference: WindowReference, named: [NamedWindow]) throws(SluiceError) -> WindowSpecification {
        func lookup(_ name: String) throws(SluiceError) -> WindowSpecification {
            guard let found = named.first(where: { $0.name == name }) else {
                throw SluiceError(.undefinedObject, "window \"\(name)\" does not exist")
            }
            if let base = found.specification.baseName {
                var resolved = try lookup(base)
                if !found.specification.orderBy.isEmpty { resolved.orderBy = found.specification.orderBy }
                if let frame = found.specification.frame { resolved.frame = frame }
                return resolved
            }
            return found.specification
        }
        switch reference {
        case .named(let name):
            return try lookup(name)
        case .specification(let specification):
            guard let baseName = specification.baseName else { return specification }
            var resolved = try lookup(baseName)
            if !specification.partitionBy.isEmpty {
                throw SluiceError(.windowingError, "cannot override PARTITION BY clause of window \"\(baseName)\"")
            }
            if !specification.orderBy.isEmpty {
                if !resolved.orderBy.isEmpty { throw SluiceError(.windowingError, "cannot override ORDER BY clause of window \"\(baseName)\"") }
                resolved.orderBy = specification.orderBy
            }
            if resolved.frame != nil { throw SluiceError(.windowingError, "cannot copy window \"\(baseName)\" because it has a frame clause") }
            resolved.frame = specification.frame
            return resolved
        }
    }

    /// An aggregate, `lag`/`lead` or `first_value`/`last_value` call: its arguments bound as
    /// more columns after `extra` (the window's partition and order columns), and its frame.
    private mutating func bindWindowCall(
        _ call: FunctionCall, specification: WindowSpecification, orderKeys: [SortKey], context: inout ExpressionContext, extra: [ScalarExpr],
        width: Int
    ) throws(SluiceError) -> (WindowCall, [ScalarExpr]) {
        let name = call.name.name
        var extra = extra
        func column(_ expression: ScalarExpr) -> Int {
            extra.append(expression)
            return width + extra.count - 1
        }
        if call.isDistinct { throw SluiceError(.featureNotSupported, "DISTINCT is not implemented for window functions") }
        if !call.orderBy.isEmpty { throw SluiceError(.featureNotSupported, "aggregate ORDER BY is not implemented for window functions") }
        if call.filter != nil { throw SluiceError(.featureNotSupported, "FILTER is not implemented for window functions yet") }
        let frame = try windowFrame(specification, orderKeys: orderKeys, orderTypes: orderKeys.map { extra[$0.column - width].type })
        switch name {
        case "lag", "lead":
            guard (1 ... 3).contains(call.arguments.count) else {
                throw SluiceError(.undefinedFunction, "function \(name) with \(call.arguments.count) arguments does not exist")
            }
            let value = try bindExpression(call.arguments[0], &context)
            var type = value.type == .unknown ? DataType.varchar : value.type
            var defaultValue: ScalarExpr?
            if call.arguments.count > 2 {
                // The value and the default meet in their common type (PostgreSQL's
                // anycompatible), a numeric's precision and scale dropped when they differ.
                let given = try bindExpression(call.arguments[2], &context)
                if given.type != .unknown && given.type != type {
                    type = try FunctionRegistry.commonType(type, given.type, context: name)
                    if case .decimal = type { type = .numeric }
                }
                defaultValue = given
            }
            var offset = 1
            if call.arguments.count > 1 {
                let bound = try coerce(try bindExpression(call.arguments[1], &context), to: .int64, position: nil)
                guard bound.isConstant, case .int64(let given) = try ExpressionEvaluator.evaluate(
                    bound, on: Chunk(columns: [], count: 1), context: EvaluationContext(zone: session.zone)).value(at: 0)
                else { throw SluiceError(.featureNotSupported, "the offset of \(name) must be a constant") }
                guard given >= 0, given <= Int64(Int32.max) else { throw SluiceError(.invalidParameterValue, "the offset of \(name) must not be negative") }
                offset = Int(given)
            }
            let defaultColumn = try defaultValue.map { (given) throws(SluiceError) -> Int in column(try coerce(given, to: type, position: nil, clause: name)) }
            let argument = column(try coerce(value, to: type, position: nil))
            return (WindowCall(function: name == "lag" ? .lag : .lead, argument: argument, offset: offset, defaultValue: defaultColumn, frame: frame, resultType: type), extra)
        case "first_value", "last_value":
            guard call.arguments.count == 1 else { throw SluiceError(.undefinedFunction, "function \(name) with \(call.arguments.count) arguments does not exist") }
            let value = try bindExpression(call.arguments[0], &context)
            let type = value.type == .unknown ? DataType.varchar : value.type
            let argument = column(try coerce(value, to: type, position: nil))
            return (WindowCall(function: name == "first_value" ? .firstValue : .lastValue, argument: argument, frame: frame, resultType: type), extra)
        default:
            guard var kind = AggregateKind(name: name), kind != .stringAgg, kind != .arrayAgg, name != "approx_distinct" else {
                throw SluiceError(.featureNotSupported, "window function \(name) is not supported yet")
            }
            if call.isStar || (kind == .count && call.arguments.isEmpty) {
                kind = .countStar
                return (WindowCall(function: .aggregate(.countStar), argument: nil, frame: frame, resultType: .int64), extra)
            }
            guard call.arguments.count == 1 else { throw SluiceError(.undefinedFunction, "function \(name) with \(call.arguments.count) arguments does not exist") }
            var argument = try bindExpression(call.arguments[0], &context)
            if argument.type == .unknown { argument = try coerce(argument, to: kind == .boolAnd || kind == .boolOr ? .boolean : .varchar, position: nil) }
            guard let resultType = kind.resultType(for: argument.type), !(argument.type == .varchar && (kind == .sum || kind == .avg)) else {
                throw SluiceError(
                    .undefinedFunction, "function \(name)(\(argument.type.sqlName)) does not exist",
                    hint: "No function matches the given name and argument types. You might need to add explicit type casts.")
            }
            return (WindowCall(function: .aggregate(kind), argument: column(argument), frame: frame, resultType: resultType), extra)
        }
    }

    /// The call's frame: the one written, or SQL's default. A ROWS offset is a count, a RANGE
    /// offset a distance in the one order column's values (an interval for times).
    private mutating func windowFrame(_ specification: WindowSpecification, orderKeys: [SortKey], orderTypes: [DataType]) throws(SluiceError) -> WindowFrameBounds {
        guard let frame = specification.frame else { return .standard }
        let units: WindowFrameBounds.Units
        switch frame.units {
        case .rows: units = .rows
        case .range: units = .range
        case .groups: throw SluiceError(.featureNotSupported, "GROUPS frames are not supported yet")
        case .session:
            guard orderKeys.count == 1, !orderKeys[0].descending else {
                throw SluiceError(
                    .windowingError, "a SESSION frame requires exactly one ascending ORDER BY column",
                    hint: "Order the window by the time column the sessions are cut on.")
            }
            units = .range
        }
        func bound(_ bound: WindowFrame.Bound) throws(SluiceError) -> WindowFrameBounds.Bound {
            switch bound {
            case .unboundedPreceding: return .unboundedPreceding
            case .unboundedFollowing: return .unboundedFollowing
            case .currentRow: return .currentRow
            case .preceding(let expression), .following(let expression):
                let isPreceding = if case .preceding = bound { true } else { false }
                var context = ExpressionContext(scope: Scope(), clause: "window frame")
                context.allowsSubqueries = false
                var offset = try bindExpression(expression, &context)
                if units == .rows {
                    offset = try coerce(offset, to: .int64, position: expression.position.errorPosition, clause: "ROWS")
                } else {
                    guard orderKeys.count == 1 else {
                        throw SluiceError(.windowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
                    }
                    let target: DataType = switch orderTypes[0] {
                    case .timestamp, .timestamptz, .date, .time, .interval: .interval
                    default: orderTypes[0]
                    }
                    offset = try coerce(offset, to: target, position: expression.position.errorPosition, clause: "RANGE")
                }
                guard offset.isConstant else {
                    throw SluiceError(.featureNotSupported, "a window frame's offset must be a constant", position: expression.position.errorPosition)
                }
                let value = try ExpressionEvaluator.evaluate(offset, on: Chunk(columns: [], count: 1), context: EvaluationContext(zone: session.zone)).value(at: 0)
                if value.isNull { throw SluiceError(.nullValueNotAllowed, "frame starting offset must not be null") }
                let negative: Bool = switch value {
                case .int64(let v): v < 0
                case .int32(let v): v < 0
                case .int16(let v): v < 0
                case .decimal(let v): v < .zero
                case .float64(let v): v < 0
                case .float32(let v): v < 0
                case .interval(let v): v.months < 0 || v.days < 0 || v.microseconds < 0
                default: false
                }
                if negative {
                    throw SluiceError(.invalidPrecedingOrFollowingSize, "frame starting offset must not be negative")
                }
                return isPreceding ? .preceding(value) : .following(value)
            }
        }
        if frame.units == .session {
            guard case .preceding(let gap) = try bound(frame.start) else { throw SluiceError.internalError("a session frame without its gap") }
            return WindowFrameBounds(units: .session, start: .preceding(gap), end: .following(gap))
        }
        let start = try bound(frame.start)
        let end = try frame.end.map { (value) throws(SluiceError) -> WindowFrameBounds.Bound in try bound(value) } ?? .currentRow
        if start == .unboundedFollowing { throw SluiceError(.windowingError, "frame start cannot be UNBOUNDED FOLLOWING") }
        if end == .unboundedPreceding { throw SluiceError(.windowingError, "frame end cannot be UNBOUNDED PRECEDING") }
        return WindowFrameBounds(units: units, start: start, end: end)
    }
}
