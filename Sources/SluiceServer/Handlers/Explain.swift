import SluiceCore
import SluicePGWire

/// EXPLAIN: the plan the binder printed, one row per line.
enum ExplainHandler {
    /// The plan's `lines` as the `QUERY PLAN` column.
    static func run(_ lines: [String]) -> PGStatementResult {
        let column = Column(type: .varchar, values: lines.map { .string($0) })
        return PGStatementResult(commandTag: "EXPLAIN", columns: [PGColumn(name: "QUERY PLAN", type: .varchar)], chunks: [Chunk(columns: [column])])
    }
}
