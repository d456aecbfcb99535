import Foundation
import SluiceCore
import SluicePGWire
import SluiceServer

/// Runs statements through a session of an in-process database: parse, bind, plan and
/// execute. Errors are expected; a crash is a bug. The database is rebuilt every few hundred
/// statements so tables stay small, and a statement running over two seconds is cancelled.
final class EngineFuzzer {
    private(set) var errors = 0
    private(set) var successes = 0
    private var session: SQLSession

    init() throws {
        session = try Self.freshSession()
    }

    private static func freshSession() throws -> SQLSession {
        let database = try Database(dataDirectory: nil)
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        return session
    }

    func run(_ sql: String, iteration: Int) async throws {
        if iteration % 300 == 1 {
            session = try Self.freshSession()
            for statement in FuzzCorpus.setup { _ = try? await execute(statement) }
        }
        do {
            _ = try await execute(sql)
            successes += 1
        } catch {
            errors += 1
        }
    }

    private func execute(_ sql: String) async throws -> PGStatementResult? {
        let session = self.session
        let watchdog = Task {
            try? await Task.sleep(for: .seconds(2))
            if !Task.isCancelled { session.cancel() }
        }
        defer { watchdog.cancel() }
        var last: PGStatementResult?
        for statement in try await session.prepare(sql, parameterTypes: []) {
            let parameters = statement.parameterTypes.map { _ in Value.null }
            last = try await session.execute(statement, parameters: parameters)
        }
        return last
    }
}
