import SluiceBatch
import SluiceCore
import SluicePGWire
import SluicePlan
import SluicePlanner
import SluiceSQL

/// COPY … FROM STDIN and COPY … TO STDOUT: the formats and the row transfer are the session's
/// (`Session/Copy/`).
enum CopyHandler {
    /// `COPY table FROM STDIN`: the client's rows go into `columns` of `table`.
    static func runFrom(_ table: RelationDefinition, columns: [Int], options: [CopyOption], in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        try session.copyFrom(table, columns: columns, options: options)
    }

    /// `COPY … TO STDOUT`: the rows of `plan` go to the client.
    static func runTo(_ plan: BatchPlan, columns: [OutputColumn], options: [CopyOption], in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        let batch = session.statementBatch()
        return try session.copyTo(try batch.executor.stream(plan), columns: columns, options: options, reader: batch.reader)
    }
}
