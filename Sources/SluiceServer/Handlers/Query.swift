import SluiceBatch
import SluiceCore
import SluicePGWire
import SluicePlan
import SluicePlanner

/// SELECT (and VALUES, TABLE, SHOW CREATE): runs the plan on the batch executor.
enum QueryHandler {
    /// Chunks of a query's result made before it is sent; past them, the rest streams.
    static let chunksBeforeStreaming = 8

    /// The first chunks are made now; a result with more streams to the client as it reads
    /// (the connection pulls each next chunk once the socket drains).
    static func run(_ plan: BatchPlan, columns: [OutputColumn], in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        let batch = session.statementBatch()
        let reader = batch.reader
        let stream = try batch.executor.stream(plan)
        var chunks: [Chunk] = []
        while chunks.count < chunksBeforeStreaming, let chunk = try stream.next() { chunks.append(chunk) }
        if chunks.count < chunksBeforeStreaming {
            if let failure = reader.failure { throw failure }
            let count = chunks.reduce(0) { $0 + $1.count }
            return PGStatementResult(commandTag: "SELECT \(count)", columns: columns.map(SQLSession.pgColumn), chunks: chunks)
        }
        var result = PGStatementResult(commandTag: "SELECT 0", columns: columns.map(SQLSession.pgColumn), chunks: chunks)
        result.stream = PGRowStream { () throws(SluiceError) -> Chunk? in
            guard let chunk = try stream.next() else {
                if let failure = reader.failure { throw failure }
                return nil
            }
            return chunk
        }
        return result
    }
}
