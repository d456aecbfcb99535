import SluiceCore
import SluiceExpr
import SluicePlan

extension StreamPlanner {
    /// The names under which `now()` reads the statement's clock; in a view, the barrier's.
    private static let clockFunctions: Set<String> = ["now", "current_timestamp", "transaction_timestamp", "statement_timestamp"]

    private static func readsClock(_ expression: ScalarExpr) -> Bool {
        var found = false
        expression.visit { node in
            if case .call(let function, _) = node, clockFunctions.contains(function.name) { found = true }
        }
        return found
    }

    /// A filter some of whose conjuncts compare a column's time with `now()` (`ts > now() -
    /// INTERVAL '1' HOUR`, `ts <= now()`): RisingWave's temporal filter, the other conjuncts
    /// as a filter below it. Nil when no conjunct reads the clock.
    ///
    /// The conjuncts with `now()` must compare one expression of the input's columns with one
    /// of `now()` alone that never decreases as time goes on, at most once from below and
    /// once from above; anything else is refused (0A000).
    static func temporalFilter(_ input: BatchPlan, _ predicate: ScalarExpr) throws(SluiceError) -> StreamPlan? {
        let all = predicate.conjuncts
        let temporal = all.filter(readsClock)
        guard !temporal.isEmpty else { return nil }
        var time: ScalarExpr?
        var lower: TemporalFilterNode.Bound?
        var upper: TemporalFilterNode.Bound?
        for conjunct in temporal {
            guard case .call(let function, let arguments) = conjunct, arguments.count == 2, ["<", "<=", ">", ">="].contains(function.name)
            else { throw unsupportedTemporalFilter() }
            var (column, clock, name) = (arguments[0], arguments[1], function.name)
            if readsClock(column) {
                // `now() - x < ts` reads as `ts > now() - x`.
                (column, clock) = (clock, column)
                name = ["<": ">", "<=": ">=", ">": "<", ">=": "<="][name]!
            }
            try checkDeterministic(column)
            guard !readsClock(column), !column.referencedColumns.isEmpty, clock.referencedColumns.isEmpty,
                  clockOnly(clock).isNonDecreasing(in: 0)
            else { throw unsupportedTemporalFilter() }
            if let time, time != column {
                throw SluiceError(
                    .featureNotSupported, "the conditions with now() in a materialized view must all bound the same expression",
                    hint: "Compare one time column with now(), from below, above or both: ts > now() - INTERVAL '1' HOUR AND ts <= now().")
            }
            time = column
            let bound = TemporalFilterNode.Bound(now: clock, inclusive: name.hasSuffix("="))
            if name.hasPrefix(">") {
                guard lower == nil else { throw twiceBounded("below") }
                lower = bound
            } else {
                guard upper == nil else { throw twiceBounded("above") }
                upper = bound
            }
        }
        let rest = all.filter { !readsClock($0) }
        let filtered: BatchPlan = rest.isEmpty ? input : .filter(input: input, predicate: rest.count == 1 ? rest[0] : .and(rest))
        return .temporalFilter(input: try convert(filtered), time: time!, lower: lower, upper: upper)
    }

    /// `clock` with each call of `now()` read as column 0, for its monotonicity in time.
    private static func clockOnly(_ clock: ScalarExpr) -> ScalarExpr {
        clock.rewritten { node in
            if case .call(let function, let arguments) = node, arguments.isEmpty, clockFunctions.contains(function.name) {
                return .column(0, function.resultType)
            }
            return node
        }
    }

    private static func unsupportedTemporalFilter() -> SluiceError {
        SluiceError(
            .featureNotSupported, "now() in a materialized view can only be compared with a column, in WHERE",
            hint: "Write a temporal filter: WHERE ts > now() - INTERVAL '1' HOUR, with now() plus or minus a constant interval.")
    }

    private static func twiceBounded(_ side: String) -> SluiceError {
        SluiceError(
            .featureNotSupported, "a materialized view can bound its time by now() only once from \(side)",
            hint: "Keep the tightest of the conditions.")
    }
}
