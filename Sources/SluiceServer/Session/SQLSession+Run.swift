import Foundation
import SluiceBatch
import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluicePGWire
import SluicePlan
import SluicePlanner
import SluiceState

extension SQLSession {
    /// Carries out a bound statement (by its handler, ``StatementHandlers``).
    func run(_ planned: PlannedStatement) async throws(SluiceError) -> PGStatementResult {
        var result = try await StatementHandlers.run(planned, in: self)
        result.timeZone = zone
        return result
    }

    /// After a statement wrote to tables: the write is in the log, and is acknowledged once an
    /// fsync covers it, waited for off the session's thread (PostgreSQL's `synchronous_commit`;
    /// `off` does not wait). DML (`isDML`) then waits, with RisingWave's session setting
    /// `rw_implicit_flush`, until every view shows its effects.
    func acknowledgeWrite(isDML: Bool) async throws(SluiceError) {
        if synchronousCommit { try await database.tables.makeWritesDurable() }
        if isDML, ["true", "on", "1"].contains(setting("rw_implicit_flush")?.lowercased() ?? "") { await database.streams.runtime.flush() }
    }

    /// The batch executor of one statement, with the reader it reads through and the context its
    /// expressions evaluate in (the statement's start time, the session's time zone).
    func statementBatch() -> StatementBatch {
        let context = evaluationContext(statementTimestamp: Self.currentTimestamp())
        let reader = database.reader(fileScans: fileScans)
        let executor = BatchExecutor(
            tables: reader, context: context, isCancelled: isCancelled,
            memory: QueryMemory(limit: queryMemoryLimit, spillDirectory: database.spillDirectory, server: database.queryMemory))
        return StatementBatch(context: context, reader: reader, executor: executor)
    }

    /// The bytes one query's operators may hold: `query_memory_limit`, or the server's
    /// `--memory-limit` when it is 0.
    var queryMemoryLimit: Int {
        let setting = Self.bytes(setting("query_memory_limit") ?? "0") ?? 0
        return setting > 0 ? setting : (database.streams.runtime.memory?.limit ?? StateMemory.defaultLimit)
    }

    /// A memory setting in bytes, as PostgreSQL reads `work_mem`: a number (kilobytes) or a
    /// number with a unit (`B`, `kB`, `MB`, `GB`, `TB`). Nil when it is not one.
    static func bytes(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "'")))
        let digits = trimmed.prefix { $0.isNumber }
        guard let number = Int(digits) else { return nil }
        let scale: Int
        switch trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces) {
        case "B": scale = 1
        case "", "kB": scale = 1 << 10
        case "MB": scale = 1 << 20
        case "GB": scale = 1 << 30
        case "TB": scale = 1 << 40
        default: return nil
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: scale)
        return overflow ? Int.max : bytes
    }

    /// Whether a write waits for the log's fsync (PostgreSQL's `synchronous_commit`; `off`
    /// acknowledges before it, so a crash may lose the last writes).
    var synchronousCommit: Bool {
        switch setting("synchronous_commit")?.lowercased() {
        case "off", "false", "0", "no": false
        default: true
        }
    }
}

/// What a statement that reads rows runs them with (``SQLSession/statementBatch()``).
struct StatementBatch {
    /// What its expressions evaluate in.
    let context: EvaluationContext
    /// The tables, views and sources it reads; a failure of a source's read ends its rows.
    let reader: SourceScanningReader
    /// Runs its plans over `reader`, within the session's query memory.
    let executor: BatchExecutor
}
