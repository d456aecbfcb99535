import SluicePGWire

/// FLUSH: returns once every write made before it is visible in every view.
enum FlushHandler {
    /// Injects a barrier and waits for it.
    static func run(in session: SQLSession) async -> PGStatementResult {
        await session.database.streams.runtime.flush()
        return PGStatementResult(commandTag: "FLUSH")
    }
}
