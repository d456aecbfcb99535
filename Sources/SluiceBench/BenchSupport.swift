import SluicePGWire
import SluiceServer

/// What every benchmark needs: seconds from a clock's durations, and SQL run through a session.
enum BenchClock {
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

extension SQLSession {
    /// Runs every statement of `sql` and returns the last one's result.
    func execute(script sql: String) async throws -> PGStatementResult {
        let statements = try await prepare(sql, parameterTypes: [])
        var last = PGStatementResult(commandTag: "")
        for statement in statements { last = try await execute(statement, parameters: []) }
        return last
    }
}
