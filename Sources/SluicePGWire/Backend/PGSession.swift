import SluiceCore

/// One client session. Methods are called one at a time per connection (never concurrently), except cancel().
package protocol PGSession: AnyObject, Sendable {
    /// Parses and plans `sql`, which may hold several statements (simple query) — return one prepared statement per statement, in order.
    /// `parameterTypes[i]` is the type the client declared for $i+1, or nil if unspecified. Syntax errors throw (42601 with position).
    ///
    /// Text holding no statement (empty or only `;` and comments) returns an empty array; the
    /// server then answers EmptyQueryResponse.
    func prepare(_ sql: String, parameterTypes: [DataType?]) async throws(SluiceError) -> [PGPreparedStatement]
    /// Runs a prepared statement with bound parameter values.
    func execute(_ statement: PGPreparedStatement, parameters: [Value]) async throws(SluiceError) -> PGStatementResult
    /// Drops server-side state of a statement closed by the client (Close 'S').
    func close(_ statement: PGPreparedStatement)
    /// Asks a running execute() to stop; it then throws 57014. May be called from any thread.
    func cancel()
    /// The transaction status reported in ReadyForQuery.
    var transactionStatus: PGTransactionStatus { get }
    /// Called when the connection ends.
    func terminate()
}

/// The transaction status byte of ReadyForQuery.
package enum PGTransactionStatus: UInt8, Sendable {
    /// Not in a transaction block (`I`).
    case idle = 73
    /// In a transaction block (`T`).
    case inBlock = 84
    /// In a failed transaction block; queries are rejected until it ends (`E`).
    case failed = 69
}
