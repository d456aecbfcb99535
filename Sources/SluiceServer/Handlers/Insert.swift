import SluiceBatch
import SluiceCore
import SluicePGWire
import SluicePlan
import SluicePlanner

/// INSERT: every row is made and checked first, staged on disk past a few chunks, so a
/// failure part way inserts nothing and memory stays bounded whatever the size.
enum InsertHandler {
    /// Inserts the rows of `source` (in `table`'s column order and types) into `table`.
    static func run(
        _ source: BatchPlan, into table: RelationDefinition, returning: DMLReturning?, in session: SQLSession
    ) async throws(SluiceError) -> PGStatementResult {
        let batch = session.statementBatch()
        let returned = session.returningRows(returning, of: table)
        var keeping: ((Chunk) throws(SluiceError) -> Void)?
        if let returned { keeping = { (chunk: Chunk) throws(SluiceError) in try returned.append(chunk) } }
        let staged = try session.stage(source, into: table, executor: batch.executor, keeping: keeping)
        if let failure = batch.reader.failure { throw failure }
        let count = try session.database.tables.insert(staged, into: table)
        let result = try SQLSession.result(tag: "INSERT 0 \(count)", returning: returning, rows: returned, context: batch.context)
        try await session.acknowledgeWrite(isDML: true)
        return result
    }
}
