import SluicePGWire

/// DISCARD ALL and DEALLOCATE: a session's prepared statements forgotten.
enum DiscardHandler {
    /// `DISCARD ALL`: every prepared statement of the session goes.
    static func run(in session: SQLSession) -> PGStatementResult {
        session.deallocateAll()
        return PGStatementResult(commandTag: "DISCARD ALL")
    }

    /// `DEALLOCATE [name | ALL]`: accepted (a client's prepared statements go when it closes them).
    static func runDeallocate() -> PGStatementResult {
        PGStatementResult(commandTag: "DEALLOCATE")
    }
}
