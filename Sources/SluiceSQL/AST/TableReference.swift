/// An item of a FROM clause.
package indirect enum TableReference: Hashable, Sendable {
    /// A table, view, source or CTE by name.
    case table(ObjectName, alias: TableAlias?, position: SourcePosition)
    /// `name FOR SYSTEM_TIME AS OF PROCTIME() [AS alias]`: a table or materialized view read as
    /// it is when each row of the other side of a join arrives (a lookup join, Flink's and
    /// RisingWave's process-time temporal join). Flink's `AS OF t.p_time`, a processing-time
    /// column, is read the same way.
    case processingTime(ObjectName, alias: TableAlias?, position: SourcePosition)
    /// `[LATERAL] (query) [AS] alias`.
    case subquery(Query, alias: TableAlias?, isLateral: Bool, position: SourcePosition)
    /// A table function: `TUMBLE(t, ts, INTERVAL '15 SECONDS')`, `HOP(…)`, `generate_series(1, 3)`,
    /// `unnest(a)`. Table arguments such as `t` in `TUMBLE(t, …)` are `.column(["t"])` expressions.
    case function(FunctionCall, alias: TableAlias?, isLateral: Bool, withOrdinality: Bool, position: SourcePosition)
    /// `left [NATURAL] {INNER|LEFT|RIGHT|FULL|CROSS} JOIN right [ON …|USING (…)]`.
    case join(Join)
}

package struct Join: Hashable, Sendable {
    package var left: TableReference
    package var right: TableReference
    package var kind: JoinKind
    package var condition: JoinCondition

    package init(left: TableReference, right: TableReference, kind: JoinKind, condition: JoinCondition) {
        self.left = left
        self.right = right
        self.kind = kind
        self.condition = condition
    }
}

package enum JoinKind: String, Hashable, Sendable {
    case inner = "JOIN"
    case left = "LEFT JOIN"
    case right = "RIGHT JOIN"
    case full = "FULL JOIN"
    case cross = "CROSS JOIN"
    /// RisingWave's and DuckDB's `ASOF JOIN`: each left row with the one right row of equal keys
    /// nearest in the order one inequality gives; `ASOF LEFT JOIN` keeps unmatched left rows.
    case asof = "ASOF JOIN"
    case asofLeft = "ASOF LEFT JOIN"
}

package enum JoinCondition: Hashable, Sendable {
    case on(Expression)
    case using([String])
    case natural
    /// `CROSS JOIN`, or a comma join.
    case none
}
