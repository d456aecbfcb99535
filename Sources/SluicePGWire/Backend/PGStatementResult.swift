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
    /// Set for `COPY … FROM STDIN`: the connection answers CopyInResponse and hands the client's
    /// CopyData to this sink; `commandTag` is unused (the sink's ``PGCopyInSink/finished()``
    /// gives it).
    package var copyIn: (any PGCopyInSink)?
    /// Set for `COPY … TO STDOUT`: the connection answers CopyOutResponse and sends the stream's
    /// rows as CopyData; `commandTag` is unused (the stream gives it).
    package var copyOut: PGCopyOutStream?

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

/// Where the data of a `COPY … FROM STDIN` goes ("COPY Operations" in "Message Flow"). Calls
/// come one at a time, off the event loop, in order: any number of `received`, then `finished`
/// or `failed` (once, and `failed` also when the connection closes mid-copy).
package protocol PGCopyInSink: AnyObject, Sendable {
    /// The number of columns CopyInResponse announces.
    var columnCount: Int { get }
    /// Takes the next bytes of the data, in the order the client sent them (cut anywhere). A
    /// throw ends the COPY: nothing of it takes effect.
    func received(_ data: [UInt8]) throws(SluiceError)
    /// The client sent CopyDone: takes the rest and returns the CommandComplete tag (`COPY n`).
    func finished() async throws(SluiceError) -> String
    /// The COPY ends without effect (CopyFail, an error, the connection closing).
    func failed()
}

/// The rows of a `COPY … TO STDOUT`, made as they are asked for (as ``PGRowStream``): each call
/// of `next` gives the CopyData of some rows, one message per row, or nil at the end.
package final class PGCopyOutStream: @unchecked Sendable, Equatable {
    /// The number of columns CopyOutResponse announces.
    package let columnCount: Int
    private let source: () throws(SluiceError) -> [[UInt8]]?
    private let tag: () -> String

    /// `source` gives the next lines (or nil at the end); `commandTag` is asked once it ended.
    package init(columnCount: Int, source: @escaping () throws(SluiceError) -> [[UInt8]]?, commandTag: @escaping () -> String) {
        self.columnCount = columnCount
        self.source = source
        self.tag = commandTag
    }

    /// The next lines, or nil once all are out.
    package func next() throws(SluiceError) -> [[UInt8]]? {
        try source()
    }

    /// The CommandComplete tag, `COPY n`, once the stream ended.
    package var commandTag: String { tag() }

    package static func == (lhs: PGCopyOutStream, rhs: PGCopyOutStream) -> Bool { lhs === rhs }
}
