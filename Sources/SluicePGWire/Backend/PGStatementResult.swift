import SluiceCore

/// What executing one statement produced.
package struct PGStatementResult: Sendable {
    /// The CommandComplete tag, e.g. "SELECT 2", "INSERT 0 3", "CREATE_TABLE".
    package var commandTag: String
    /// The result columns; nil for commands without rows.
    package var columns: [PGColumn]?
    /// Result rows as columnar chunks whose columns match `columns`.
    package var chunks: [Chunk]
    /// Sent as NoticeResponse before the rows. The severity follows the SQLSTATE class:
    /// `01xxx` (warning) is sent as WARNING, anything else as NOTICE.
    package var notices: [SluiceError]
    /// Sent as ParameterStatus after CommandComplete, e.g. after `SET TimeZone`.
    package var parameterChanges: [(String, String)]
    /// True when the statement was empty: the server answers EmptyQueryResponse instead of CommandComplete.
    package var isEmptyQuery: Bool
    /// More rows after `chunks`, pulled as the client takes them: the connection asks for the
    /// next chunk only once the previous ones are written and the socket is writable again, so a
    /// result of any size holds about a chunk in memory. The tag's row count is then counted as
    /// the rows go out.
    package var stream: PGRowStream?
    /// The session's time zone, in which `timestamptz` values are sent as text.
    package var timeZone: TimeZoneRules = .utc

    package init(
        commandTag: String, columns: [PGColumn]? = nil, chunks: [Chunk] = [],
        notices: [SluiceError] = [], parameterChanges: [(String, String)] = []
    ) {
        self.commandTag = commandTag
        self.columns = columns
        self.chunks = chunks
        self.notices = notices
        self.parameterChanges = parameterChanges
        self.isEmptyQuery = false
    }

    /// The result of an empty statement.
    package static var emptyQuery: PGStatementResult {
        var result = PGStatementResult(commandTag: "")
        result.isEmptyQuery = true
        return result
    }

    /// The number of result rows over all chunks.
    package var rowCount: Int { chunks.reduce(0) { $0 + $1.count } }

    /// This result with its stream read to the end into `chunks` (for callers in the process,
    /// not the wire), its tag counting every row.
    package func collected() throws(SluiceError) -> PGStatementResult {
        guard let stream else { return self }
        var result = self
        result.stream = nil
        while let chunk = try stream.next() { result.chunks.append(chunk) }
        result.commandTag = ConnectionStateMachine.commandTag(commandTag, rowCount: result.rowCount)
        return result
    }
}

/// Rows of a result made as they are asked for (see ``PGStatementResult/stream``). `next` is
/// called off the event loop, one call at a time.
package final class PGRowStream: @unchecked Sendable, Equatable {
    private let source: () throws(SluiceError) -> Chunk?

    package init(_ source: @escaping () throws(SluiceError) -> Chunk?) {
        self.source = source
    }

    /// The next chunk, or nil once the rows are all out.
    package func next() throws(SluiceError) -> Chunk? {
        try source()
    }

    package static func == (lhs: PGRowStream, rhs: PGRowStream) -> Bool { lhs === rhs }
}
