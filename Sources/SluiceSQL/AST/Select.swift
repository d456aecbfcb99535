/// One `SELECT … FROM … WHERE … GROUP BY … HAVING … WINDOW …` block.
package struct Select: Hashable, Sendable {
    package var distinct: Distinct?
    package var projection: [SelectItem]
    /// Comma-separated FROM items; empty for `SELECT 1`.
    package var from: [TableReference]
    package var filter: Expression?
    package var groupBy: [Expression]
    package var having: Expression?
    package var windows: [NamedWindow]
    package var position: SourcePosition

    package init(
        distinct: Distinct? = nil, projection: [SelectItem], from: [TableReference] = [], filter: Expression? = nil,
        groupBy: [Expression] = [], having: Expression? = nil, windows: [NamedWindow] = [], at position: SourcePosition = .none
    ) {
        self.distinct = distinct
        self.projection = projection
        self.from = from
        self.filter = filter
        self.groupBy = groupBy
        self.having = having
        self.windows = windows
        self.position = position
    }
}

/// `DISTINCT` or `DISTINCT ON (…)`.
package enum Distinct: Hashable, Sendable {
    case distinct
    case on([Expression])
}

/// One item of a select list (also of `RETURNING`).
package enum SelectItem: Hashable, Sendable {
    /// `expr [[AS] alias]`.
    case expression(Expression, alias: String?)
    /// `*` (empty qualifier) or `t.*` / `s.t.*`.
    case wildcard(qualifier: [String], position: SourcePosition)
}
