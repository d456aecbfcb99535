import SluiceCore
import SluicePGWire

/// BEGIN, COMMIT, ROLLBACK and the savepoint statements. Each statement takes effect when it
/// completes, so a transaction block is only tracked (for the client's status and for failing
/// the rest of a block after an error), as RisingWave does.
enum TransactionHandler {
    /// `BEGIN`: the session is in a block; a notice says statements are not held back.
    static func runBegin(in session: SQLSession) -> PGStatementResult {
        if session.transactionStatus == .inBlock {
            return PGStatementResult(commandTag: "BEGIN", notices: [SluiceError(.warning, "there is already a transaction in progress")])
        }
        session.setTransactionStatus(.inBlock)
        return PGStatementResult(
            commandTag: "BEGIN",
            notices: [SluiceError(.successfulCompletion, "transactions are not supported: each statement takes effect when it completes")])
    }

    /// `COMMIT` or `ROLLBACK` (`tag`): the block ends.
    static func runEnd(_ tag: String, in session: SQLSession) -> PGStatementResult {
        if session.transactionStatus == .idle {
            return PGStatementResult(commandTag: tag, notices: [SluiceError(.noActiveSQLTransaction, "there is no transaction in progress")])
        }
        session.setTransactionStatus(.idle)
        return PGStatementResult(commandTag: tag)
    }

    /// SAVEPOINT, RELEASE SAVEPOINT or ROLLBACK TO SAVEPOINT (`tag`): statements take effect as
    /// they complete, so savepoints only need to be accepted.
    static func runSavepoint(_ tag: String) -> PGStatementResult {
        PGStatementResult(commandTag: tag == "ROLLBACK TO SAVEPOINT" ? "ROLLBACK" : (tag == "RELEASE SAVEPOINT" ? "RELEASE" : "SAVEPOINT"))
    }
}
