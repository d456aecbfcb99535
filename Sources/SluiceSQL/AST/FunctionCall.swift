/// A call of a scalar, aggregate, table or window function.
package struct FunctionCall: Hashable, Sendable {
    /// The function name, possibly schema-qualified: `["pg_catalog", "format_type"]`.
    package var name: ObjectName
    package var arguments: [Expression]
    /// `count(*)`: `arguments` is empty.
    package var isStar: Bool
    /// `count(DISTINCT x)`.
    package var isDistinct: Bool
    /// `string_agg(x, ',' ORDER BY y)`, or the ORDER BY of `WITHIN GROUP (ORDER BY …)`.
    package var orderBy: [OrderByItem]
    /// The ORDER BY was written `WITHIN GROUP (ORDER BY …)` (an ordered-set aggregate's).
    package var isWithinGroup = false
    /// `FILTER (WHERE …)`.
    package var filter: Expression?
    /// `OVER (…)` or `OVER name`.
    package var over: WindowReference?

    package init(
        name: ObjectName, arguments: [Expression] = [], isStar: Bool = false, isDistinct: Bool = false,
        orderBy: [OrderByItem] = [], filter: Expression? = nil, over: WindowReference? = nil
    ) {
        self.name = name
        self.arguments = arguments
        self.isStar = isStar
        self.isDistinct = isDistinct
        self.orderBy = orderBy
        self.filter = filter
        self.over = over
    }
}

/// One `ORDER BY` key.
package struct OrderByItem: Hashable, Sendable {
    package var expression: Expression
    /// nil when neither `ASC` nor `DESC` was written (ascending).
    package var ascending: Bool?
    /// nil when no `NULLS FIRST|LAST` was written (Postgres: nulls last ascending, first descending).
    package var nullsFirst: Bool?

    package init(expression: Expression, ascending: Bool? = nil, nullsFirst: Bool? = nil) {
        self.expression = expression
        self.ascending = ascending
        self.nullsFirst = nullsFirst
    }
}

/// The window of a window function.
package enum WindowReference: Hashable, Sendable {
    /// `OVER w`, naming a window of the `WINDOW` clause.
    case named(String)
    /// `OVER (…)`.
    case specification(WindowSpecification)
}

/// `[base] PARTITION BY … ORDER BY … frame`.
package struct WindowSpecification: Hashable, Sendable {
    /// `OVER (w ORDER BY …)` refines window `w`.
    package var baseName: String?
    package var partitionBy: [Expression]
    package var orderBy: [OrderByItem]
    package var frame: WindowFrame?

    package init(baseName: String? = nil, partitionBy: [Expression] = [], orderBy: [OrderByItem] = [], frame: WindowFrame? = nil) {
        self.baseName = baseName
        self.partitionBy = partitionBy
        self.orderBy = orderBy
        self.frame = frame
    }
}

/// `ROWS|RANGE|GROUPS BETWEEN start AND end`, `ROWS start`, or RisingWave's session frame
/// `SESSION WITH GAP gap` (`start` is `.preceding(gap)`, `end` nil).
package struct WindowFrame: Hashable, Sendable {
    package enum Units: String, Hashable, Sendable {
        case rows = "ROWS"
        case range = "RANGE"
        case groups = "GROUPS"
        case session = "SESSION"
    }

    package enum Bound: Hashable, Sendable {
        case unboundedPreceding
        case preceding(Expression)
        case currentRow
        case following(Expression)
        case unboundedFollowing
    }

    package var units: Units
    package var start: Bound
    /// nil for the short form `ROWS start`, which ends at the current row.
    package var end: Bound?

    package init(units: Units, start: Bound, end: Bound? = nil) {
        self.units = units
        self.start = start
        self.end = end
    }
}

/// `WINDOW name AS (…)`.
package struct NamedWindow: Hashable, Sendable {
    package var name: String
    package var specification: WindowSpecification

    package init(name: String, specification: WindowSpecification) {
        self.name = name
        self.specification = specification
    }
}
