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
}
