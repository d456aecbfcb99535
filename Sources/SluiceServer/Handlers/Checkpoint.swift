import SluiceCore
import SluicePGWire

/// CHECKPOINT: a checkpoint of every table and view, now.
enum CheckpointHandler {
    /// Returns once the checkpoint is on disk; throws what made it fail.
    static func run(in session: SQLSession) async throws(SluiceError) -> PGStatementResult {
        try await session.database.checkpoint()
        return PGStatementResult(commandTag: "CHECKPOINT")
    }
}
