/// A scalar expression with the position where it starts.
///
/// Equality ignores positions (see ``SourcePosition``). Parentheses are not kept: the tree
/// shape records the grouping, and printing adds parentheses around every compound operand.
package struct Expression: Hashable, Sendable {
    package var node: Node
    package var position: SourcePosition

    package init(_ node: Node, at position: SourcePosition = .none) {
        self.node = node
        self.position = position
    }

    /// The forms of an expression.
    package indirect enum Node: Hashable, Sendable {
        /// A column or other name: `a`, `t.a`, `s.t.a` (parts folded unless quoted).
        case column([String])
        /// A constant.
        case literal(Literal)
        /// `TIMESTAMP '…'`, `DATE '…'`, `jsonb '…'`: a string constant of a named type.
        case typedLiteral(TypeName, String)
        /// `INTERVAL '15 seconds'`, `INTERVAL '5' SECOND`, `INTERVAL '1' HOUR TO SECOND`.
        case interval(String, IntervalQualifier?)
        /// `$n`, 1-based.
        case parameter(Int)
        /// `-x`, `+x`, `NOT x`, `~x`, `@x`.
        case unary(UnaryOperator, Expression)
        /// `a + b`, `a AND b`, `a ~ b`, `a OPERATOR(pg_catalog.~) b`, …
        case binary(Expression, BinaryOperator, Expression)
        /// `x op ANY (…)` / `x op ALL (…)`; the right side is an array expression or a `.subquery`.
        case quantified(Expression, BinaryOperator, Quantifier, Expression)
        /// `x IS [NOT] NULL` (also `ISNULL`, `NOTNULL`).
        case isNull(Expression, negated: Bool)
        /// `x IS [NOT] TRUE|FALSE|UNKNOWN`; `value` nil is UNKNOWN.
        case isBoolean(Expression, value: Bool?, negated: Bool)
        /// `a IS [NOT] DISTINCT FROM b`.
        case isDistinctFrom(Expression, Expression, negated: Bool)
        /// `x [NOT] BETWEEN [SYMMETRIC] low AND high`.
        case between(Expression, low: Expression, high: Expression, negated: Bool, symmetric: Bool)
        /// `x [NOT] IN (a, b, …)`.
        case inList(Expression, [Expression], negated: Bool)
        /// `x [NOT] IN (SELECT …)`.
        case inSubquery(Expression, Query, negated: Bool)
        /// `x [NOT] LIKE|ILIKE pattern [ESCAPE e]`; `~~` and friends parse to this too.
        case like(Expression, pattern: Expression, escape: Expression?, caseInsensitive: Bool, negated: Bool)
        /// `x [NOT] SIMILAR TO pattern [ESCAPE e]`.
        case similarTo(Expression, pattern: Expression, escape: Expression?, negated: Bool)
        /// `CASE [operand] WHEN … THEN … [ELSE …] END`.
        case caseWhen(operand: Expression?, branches: [CaseBranch], otherwise: Expression?)
        /// `CAST(x AS t)` or `x::t`.
        case cast(Expression, TypeName, CastSyntax)
        /// `x COLLATE name`.
        case collate(Expression, ObjectName)
        /// `x AT TIME ZONE zone`.
        case atTimeZone(Expression, zone: Expression)
        /// A function call, aggregate or window function (also `coalesce`, `nullif`, `greatest`,
        /// `least`, which are plain calls here).
        case function(FunctionCall)
        /// `EXTRACT(field FROM x)`; the field is folded to lower case (`epoch`, `year`, …).
        case extract(field: String, from: Expression)
        /// `SUBSTRING(x FROM a FOR b)`; the comma form `substring(x, a, b)` is a plain call.
        case substring(Expression, from: Expression?, for: Expression?)
        /// `POSITION(needle IN haystack)`.
        case position(Expression, in: Expression)
        /// `TRIM([BOTH|LEADING|TRAILING] [characters] FROM x)` or `TRIM(x)`.
        case trim(Expression, side: TrimSide, characters: Expression?)
        /// `OVERLAY(x PLACING y FROM a [FOR b])`.
        case overlay(Expression, placing: Expression, from: Expression, for: Expression?)
        /// `EXISTS (SELECT …)`.
        case exists(Query)
        /// A scalar subquery `(SELECT …)`.
        case subquery(Query)
        /// `ARRAY[a, b]`, also nested `ARRAY[[1, 2], [3, 4]]` (inner brackets are `.array` too).
        case array([Expression])
        /// `ARRAY(SELECT …)`.
        case arraySubquery(Query)
        /// `x[i]`: an array element.
        case element(Expression, index: Expression)
        /// `x[lower:upper]`, either bound may be omitted.
        case slice(Expression, lower: Expression?, upper: Expression?)
        /// `(x).field`.
        case fieldAccess(Expression, field: String)
        /// `ROW(a, b)` (explicit) or `(a, b)` (implicit).
        case row([Expression], explicit: Bool)
        /// `CURRENT_DATE`, `CURRENT_TIMESTAMP`, `CURRENT_USER`, … written without parentheses.
        case valueFunction(SQLValueFunction)
        /// `DEFAULT` in an `INSERT … VALUES` row or `UPDATE … SET c = DEFAULT`.
        case defaultValue
    }
}

/// A constant written in SQL.
package enum Literal: Hashable, Sendable {
    /// An integer that fits in `Int64`.
    case integer(Int64)
    /// A numeric constant as written: with a point or exponent, or an integer beyond `Int64`.
    case numeric(String)
    case string(String)
    case boolean(Bool)
    case null
}

/// `ANY` (`SOME`) or `ALL`.
package enum Quantifier: String, Hashable, Sendable {
    case any = "ANY"
    case all = "ALL"
}

/// Which syntax wrote a cast; it matters only for printing.
package enum CastSyntax: Hashable, Sendable {
    /// `CAST(x AS t)`.
    case function
    /// `x::t`.
    case doubleColon
    /// `TRY_CAST(x AS t)`.
    case tryCast
}

/// `WHEN condition THEN result`.
package struct CaseBranch: Hashable, Sendable {
    package var condition: Expression
    package var result: Expression

    package init(condition: Expression, result: Expression) {
        self.condition = condition
        self.result = result
    }
}

/// Which end `TRIM` removes characters from.
package enum TrimSide: String, Hashable, Sendable {
    case both = "BOTH"
    case leading = "LEADING"
    case trailing = "TRAILING"
}

/// The fields of an interval qualifier: `SECOND`, `HOUR TO SECOND`; names are lower case.
package struct IntervalQualifier: Hashable, Sendable {
    /// `year`, `month`, `day`, `hour`, `minute` or `second`.
    package var leading: String
    package var trailing: String?
    /// Fractional-second precision: `SECOND(3)`.
    package var precision: Int?

    package init(leading: String, trailing: String? = nil, precision: Int? = nil) {
        self.leading = leading
        self.trailing = trailing
        self.precision = precision
    }
}

/// SQL-standard functions written without parentheses.
package enum SQLValueFunction: String, Hashable, Sendable, CaseIterable {
    case currentDate = "CURRENT_DATE"
    case currentTime = "CURRENT_TIME"
    case currentTimestamp = "CURRENT_TIMESTAMP"
    case localTime = "LOCALTIME"
    case localTimestamp = "LOCALTIMESTAMP"
    case currentUser = "CURRENT_USER"
    case currentRole = "CURRENT_ROLE"
    case sessionUser = "SESSION_USER"
    case user = "USER"
    case currentSchema = "CURRENT_SCHEMA"
    case currentCatalog = "CURRENT_CATALOG"
}
