import SluiceBatch
import SluiceCore
import SluiceExpr
import SluicePGWire
import SluicePlan
import SluicePlanner

/// UPDATE: the subqueries run once first, then each matching row gets its new values.
enum UpdateHandler {
    /// Rows of `table` matching `filter` get `assignments` (column index → new value over the
    /// old row); column `table.columns.count + i` of those expressions is `subqueries[i]`'s value.
    static func run(
        _ table: RelationDefinition, filter: ScalarExpr?, assignments: [Int: ScalarExpr], subqueries: [DMLSubquery], returning: DMLReturning?,
        in session: SQLSession
    ) async throws(SluiceError) -> PGStatementResult {
        let batch = session.statementBatch()
        let context = batch.context
        let values = try session.subqueryValues(subqueries, executor: batch.executor)
        // (Subqueries come after the columns and a table without a primary key's hidden row id.)
        let width = table.columns.count + (table.hasRowIDs ? 1 : 0)
        let filter = filter.map { SQLSession.substitute(values, after: width, in: $0) }
        let assignments = assignments.mapValues { SQLSession.substitute(values, after: width, in: $0) }
        let updated = session.returningRows(returning, of: table)
        let database = session.database
        let affected = try database.tables.modify(
            table, spillDirectory: database.spillDirectory, matching: { (chunk) throws(SluiceError) in try SQLSession.matching(filter, chunk, context) }
        ) {
            (old: Chunk) throws(SluiceError) -> Chunk in
            var columns = Array(old.columns.prefix(table.columns.count))
            for (index, expression) in assignments {
                columns[index] = try ExpressionEvaluator.evaluate(expression, on: old, context: context)
            }
            let new = Chunk(columns: columns, count: old.count)
            try session.checkNotNull(new, table: table)
            try updated?.append(new)
            return new
        }
        let result = try SQLSession.result(tag: "UPDATE \(affected)", returning: returning, rows: updated, context: context)
        try await session.acknowledgeWrite(isDML: true)
        return result
    }
}
