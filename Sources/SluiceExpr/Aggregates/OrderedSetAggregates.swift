import SluiceCore

/// Aggregates over the ordered values of a group: PostgreSQL's ordered-set aggregates
/// `percentile_cont(f)`, `percentile_disc(f)` and `mode()` `WITHIN GROUP (ORDER BY x)`, and
/// RisingWave's `first_value(x ORDER BY …)` and `last_value(x ORDER BY …)`.
///
/// The binder computes each from an `array_agg` of the values in that order (without NULLs
/// for PostgreSQL's, which ignore them; with them for first_value and last_value, which
/// return them), so they work alike in queries and in materialized views; this finishes them.
package enum OrderedSetAggregate: String, Sendable, CaseIterable {
    case percentileContinuous = "percentile_cont"
    case percentileDiscrete = "percentile_disc"
    case mode
    case firstValue = "first_value"
    case lastValue = "last_value"

    package init?(name: String) { self.init(rawValue: name) }

    /// Whether NULL values are left out of the ordered values.
    package var ignoresNulls: Bool { self != .firstValue && self != .lastValue }

    /// Whether the call takes a fraction as its direct argument.
    package var takesFraction: Bool { self == .percentileContinuous || self == .percentileDiscrete }

    /// The function of the ordered values (an array of `elementType`) and, for the percentiles,
    /// the fraction, giving the aggregate's value.
    package func finish(elementType: DataType) -> ScalarFunction {
        let aggregate = self
        let argumentTypes: [DataType] = takesFraction ? [.list(elementType), .float64] : [.list(elementType)]
        return ScalarFunction(name: rawValue, argumentTypes: argumentTypes, resultType: elementType) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            var builder = ColumnBuilder(type: elementType, capacity: rowCount)
            for row in 0 ..< rowCount {
                guard case .list(let values) = arguments[0].value(at: row), !values.isEmpty else {
                    builder.appendNull()
                    continue
                }
                var fraction = 0.0
                if aggregate.takesFraction {
                    guard case .float64(let given) = arguments[1].value(at: row) else {
                        builder.appendNull()
                        continue
                    }
                    guard given >= 0, given <= 1, !given.isNaN else {
                        throw SluiceError(.numericValueOutOfRange, "percentile value \(Value.float64(given).textForm) is not between 0 and 1")
                    }
                    fraction = given
                }
                builder.append(aggregate.value(of: values, fraction: fraction))
            }
            return builder.finish()
        }.withOrigin(.orderedSetFinish(self, elementType: elementType))
    }

    func value(of values: [Value], fraction: Double) -> Value {
        switch self {
        case .firstValue:
            return values[0]
        case .lastValue:
            return values[values.count - 1]
        case .percentileDiscrete:
            // The first value whose place in the order reaches the fraction of the rows.
            let place = Int((fraction * Double(values.count)).rounded(.up))
            return values[max(place, 1) - 1]
        case .percentileContinuous:
            // Linear interpolation between the values around place f·(n−1).
            let position = fraction * Double(values.count - 1)
            let lower = Int(position.rounded(.down))
            let upper = Int(position.rounded(.up))
            guard case .float64(let low) = values[lower], case .float64(let high) = values[upper] else { return .null }
            return .float64(lower == upper ? low : low + (position - Double(lower)) * (high - low))
        case .mode:
            // The most frequent value; among equally frequent ones, the first in the order.
            var best = values[0]
            var bestCount = 0
            var index = 0
            while index < values.count {
                var end = index + 1
                while end < values.count && values[end] == values[index] { end += 1 }
                if end - index > bestCount {
                    best = values[index]
                    bestCount = end - index
                }
                index = end
            }
            return best
        }
    }
}
