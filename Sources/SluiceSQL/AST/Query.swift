/// A query: `[WITH …] body [ORDER BY …] [LIMIT …] [OFFSET …]`.
///
/// `FETCH FIRST n ROWS ONLY` is stored as `limit`.
package struct Query: Hashable, Sendable {
    package var with: WithClause?
    package var body: SetExpression
    package var orderBy: [OrderByItem]
    /// nil when absent or `LIMIT ALL`.
    package var limit: Expression?
    package var offset: Expression?

    package init(
        with: WithClause? = nil, body: SetExpression, orderBy: [OrderByItem] = [], limit: Expression? = nil,
        offset: Expression? = nil
    ) {
        self.with = with
        self.body = body
        self.orderBy = orderBy
        self.limit = limit
        self.offset = offset
    }
}

/// `WITH [RECURSIVE] name [(columns)] AS ([NOT] MATERIALIZED] (query)), …`.
package struct WithClause: Hashable, Sendable {
    package var isRecursive: Bool
    package var tables: [CommonTableExpression]

    package init(isRecursive: Bool = false, tables: [CommonTableExpression]) {
        self.isRecursive = isRecursive
        self.tables = tables
    }
}

/// One named query of a `WITH` clause.
package struct CommonTableExpression: Hashable, Sendable {
    package var alias: TableAlias
    package var query: Query
    /// `MATERIALIZED` → true, `NOT MATERIALIZED` → false, nil when not written.
    package var isMaterialized: Bool?

    package init(alias: TableAlias, query: Query, isMaterialized: Bool? = nil) {
        self.alias = alias
        self.query = query
        self.isMaterialized = isMaterialized
    }
}

/// The body of a query: a `SELECT`, `VALUES`, a parenthesized query, or a set operation.
package indirect enum SetExpression: Hashable, Sendable {
    case select(Select)
    /// `VALUES (…), (…)`: rows of equal length.
    case values([[Expression]])
    /// `(query)` used as an operand, keeping its own ORDER BY/LIMIT.
    case query(Query)
    /// `left UNION|INTERSECT|EXCEPT [ALL|DISTINCT] right`; `isAll` false means distinct.
    case setOperation(SetOperator, isAll: Bool, SetExpression, SetExpression)
    /// `left UNION|INTERSECT|EXCEPT [ALL] CORRESPONDING [BY (a, b)] right`: the columns both
    /// sides name (or those listed), matched by name, not position.
    case corresponding(SetOperator, isAll: Bool, by: [String]?, SetExpression, SetExpression)
}

package enum SetOperator: String, Hashable, Sendable {
    case union = "UNION"
    case intersect = "INTERSECT"
    case except = "EXCEPT"
}
