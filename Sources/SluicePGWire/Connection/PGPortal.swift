import SluiceCore

/// A prepared statement as the connection keeps it: nil `statement` is an empty query.
struct PreparedStatementEntry: Sendable {
    var statement: PGPreparedStatement?
    /// The parameter types Describe reports.
    var parameterTypes: [DataType]
}

/// A bound statement (Bind), possibly partly executed.
struct PGPortal: Sendable {
    enum Progress: Sendable {
        case unexecuted
        /// Execute stopped at its row limit; the rest of the result waits here.
        case suspended(PGResultCursor)
        /// All rows were sent; the tag Execute reports if asked again.
        case completed(commandTag: String)
    }

    var statement: PreparedStatementEntry
    var parameters: [Value]
    var resultFormats: [PGFormat]
    var progress: Progress = .unexecuted
}

/// Walks the rows of a statement result, a limited number at a time: its chunks, then those its
/// stream gives as they are pulled.
package struct PGResultCursor: Sendable {
    let result: PGStatementResult
    private var chunks: [Chunk]
    private var chunkIndex = 0
    private var rowIndex = 0
    /// The rows still to be pulled; nil once the stream ended (or there is none).
    private(set) var stream: PGRowStream?
    /// Rows handed out so far.
    private(set) var rowsSent = 0
    /// True once a batch stopped before the end.
    private(set) var wasSuspended = false

    init(_ result: PGStatementResult) {
        self.result = result
        chunks = result.chunks
        stream = result.stream
        skipExhaustedChunks()
    }

    /// True when the held chunks are all sent (more may come from the stream).
    private var chunksSent: Bool { chunkIndex >= chunks.count }

    /// No row is left, held or to be pulled.
    var isExhausted: Bool { chunksSent && stream == nil }

    /// The held rows are all sent and the stream must be asked for more.
    var needsPull: Bool { chunksSent && stream != nil }

    /// The tag for CommandComplete: a streamed result counts the rows it sent.
    var commandTag: String {
        result.stream == nil ? result.commandTag : ConnectionStateMachine.commandTag(result.commandTag, rowCount: rowsSent)
    }

    /// A chunk the stream gave, or nil when it ended.
    mutating func pulled(_ chunk: Chunk?) {
        guard let chunk else {
            stream = nil
            return
        }
        chunks = [chunk]
        chunkIndex = 0
        rowIndex = 0
        skipExhaustedChunks()
    }

    /// The next held rows, at most `limit` of them.
    mutating func nextRows(limit: Int, formats: [PGFormat]) -> [PGDataRow] {
        var rows: [PGDataRow] = []
        while rows.count < limit, !chunksSent {
            rows.append(PGDataRow(chunk: chunks[chunkIndex], rowIndex: rowIndex, formats: formats, zone: result.timeZone))
            rowIndex += 1
            skipExhaustedChunks()
        }
        rowsSent += rows.count
        return rows
    }

    /// Marks that the client's row limit stopped a batch before the end.
    mutating func suspend() {
        wasSuspended = true
    }

    private mutating func skipExhaustedChunks() {
        while chunkIndex < chunks.count, rowIndex >= chunks[chunkIndex].count {
            chunkIndex += 1
            rowIndex = 0
        }
    }
}
