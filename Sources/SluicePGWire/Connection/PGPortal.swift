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

/// Walks the rows of a statement result, a limited number at a time.
struct PGResultCursor: Sendable {
    let result: PGStatementResult
    private var chunkIndex = 0
    private var rowIndex = 0
    /// True once a batch stopped before the end.
    private(set) var wasSuspended = false

    init(_ result: PGStatementResult) {
        self.result = result
        skipExhaustedChunks()
    }

    var isExhausted: Bool { chunkIndex >= result.chunks.count }

    /// The next rows, at most `limit` of them.
    mutating func nextRows(limit: Int, formats: [PGFormat]) -> [PGDataRow] {
        var rows: [PGDataRow] = []
        while rows.count < limit, !isExhausted {
            rows.append(PGDataRow(chunk: result.chunks[chunkIndex], rowIndex: rowIndex, formats: formats))
            rowIndex += 1
            skipExhaustedChunks()
        }
        if !isExhausted { wasSuspended = true }
        return rows
    }

    private mutating func skipExhaustedChunks() {
        while chunkIndex < result.chunks.count, rowIndex >= result.chunks[chunkIndex].count {
            chunkIndex += 1
            rowIndex = 0
        }
    }
}
