import SluiceCore
import SluiceExpr

/// A window function other than the ranks (which ``WindowFunctionKind`` numbers as rows
/// stream past): an aggregate over a frame, `lag`/`lead`, `first_value`/`last_value`.
package struct WindowCall: Sendable, Equatable {
    package enum Function: Sendable, Equatable, CustomStringConvertible {
        case aggregate(AggregateKind)
        case lag, lead, firstValue, lastValue
        /// `row_number`, `rank`, `dense_rank` (in a view's over-window; queries number rows
        /// with ``BatchPlan/window(input:partitionColumns:orderColumns:functions:)``).
        case ranking(WindowFunctionKind)

        package var description: String {
            switch self {
            case .aggregate(let kind): kind == .countStar ? "count" : kind.rawValue
            case .lag: "lag"
            case .lead: "lead"
            case .firstValue: "first_value"
            case .lastValue: "last_value"
            case .ranking(let kind): kind.rawValue
            }
        }
    }

    package var function: Function
    /// The input column the function reads (nil for `count(*)`).
    package var argument: Int?
    /// For `lag`/`lead`: how many rows back or ahead.
    package var offset: Int
    /// For `lag`/`lead`: the input column with the value where there is no such row (nil: NULL).
    package var defaultValue: Int?
    package var frame: WindowFrameBounds
    package var resultType: DataType

    package init(function: Function, argument: Int?, offset: Int = 1, defaultValue: Int? = nil, frame: WindowFrameBounds, resultType: DataType) {
        self.function = function
        self.argument = argument
        self.offset = offset
        self.defaultValue = defaultValue
        self.frame = frame
        self.resultType = resultType
    }

    package var explainText: String {
        "\(function)(\(argument.map { "$\($0)" } ?? "*")) \(frame)"
    }
}

/// A window frame: which rows around the current one an aggregate or `first_value` reads.
package struct WindowFrameBounds: Sendable, Equatable, CustomStringConvertible {
    package enum Units: String, Sendable, Equatable {
        case rows = "ROWS"
        case range = "RANGE"
        /// RisingWave's session frame: the rows of the current row's session, where a session
        /// ends before a row whose order value is at least the previous row's plus the gap
        /// (`start` is `.preceding(gap)`, `end` `.following(gap)`).
        case session = "SESSION"
    }

    package enum Bound: Sendable, Equatable {
        case unboundedPreceding
        /// Rows back (ROWS, a count) or an order value's distance back (RANGE).
        case preceding(Value)
        case currentRow
        case following(Value)
        case unboundedFollowing
    }

    package var units: Units
    package var start: Bound
    package var end: Bound

    package init(units: Units, start: Bound, end: Bound) {
        self.units = units
        self.start = start
        self.end = end
    }

    /// SQL's default: from the partition's start to the current row and its peers (the whole
    /// partition when there is no ORDER BY: every row is a peer).
    package static let standard = WindowFrameBounds(units: .range, start: .unboundedPreceding, end: .currentRow)

    package var description: String {
        func text(_ bound: Bound) -> String {
            switch bound {
            case .unboundedPreceding: "UNBOUNDED PRECEDING"
            case .preceding(let value): "\(value.textForm) PRECEDING"
            case .currentRow: "CURRENT ROW"
            case .following(let value): "\(value.textForm) FOLLOWING"
            case .unboundedFollowing: "UNBOUNDED FOLLOWING"
            }
        }
        if units == .session, case .preceding(let gap) = start { return "SESSION WITH GAP \(gap.textForm)" }
        return "\(units.rawValue) BETWEEN \(text(start)) AND \(text(end))"
    }
}
