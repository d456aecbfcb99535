import SluiceBatch
import SluiceCore
import SluiceExpr
import SluicePGWire
import SluicePlan
import SluicePlanner

/// DELETE: the subqueries run once first, then the matching rows go.
enum DeleteHandler {
    /// Removes the rows of `table` matching `filter`; column `table.columns.count + i` of it is
    /// `subqueries[i]`'s value.
    static func run(
        _ table: RelationDefinition, filter: ScalarExpr?, subqueries: [DMLSubquery], returning: DMLReturning?, in session: SQLSession
    ) async throws(SluiceError) -> PGStatementResult {
        let batch = session.statementBatch()
        let context = batch.context
        let values = try session.subqueryValues(subqueries, executor: batch.executor)
        let filter = filter.map { SQLSession.substitute(values, after: table.columns.count + (table.hasRowIDs ? 1 : 0), in: $0) }
        let removed = session.returningRows(returning, of: table)
        let database = session.database
        let affected = try database.tables.modify(
            table, spillDirectory: database.spillDirectory,
            matching: { (chunk) throws(SluiceError) in
                let mask = try SQLSession.matching(filter, chunk, context)
                if let removed, mask.setCount > 0 {
                    // (Without the hidden row id a table without a primary key's rows carry.)
                    try removed.append(Chunk(columns: Array(chunk.columns.prefix(table.columns.count)), count: chunk.count).filter(mask))
                }
                return mask
            })
        let result = try SQLSession.result(tag: "DELETE \(affected)", returning: returning, rows: removed, context: context)
        try await session.acknowledgeWrite(isDML: true)
        return result
    }
}
