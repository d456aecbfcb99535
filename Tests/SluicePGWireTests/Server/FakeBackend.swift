import SluiceCore
import Synchronization
@testable import SluicePGWire

/// A tiny backend: one statement per `;`-separated piece; `select …` returns rows, anything else a tag.
///
/// - `select many` returns 1, 2, 3; `select $1` returns its parameter; `select sleep` waits until cancelled;
///   other selects return 1.
/// - Text containing `syntax` fails to prepare with 42601; database `missing` does not exist.
struct FakeBackend: PGBackend {
    /// How many `select sleep` statements have started: a test cancels one only once it runs.
    final class Sleeps: Sendable {
        let started = Atomic<Int>(0)
    }
    let sleeps = Sleeps()

    func startSession(_ startup: PGStartup) throws(SluiceError) -> any PGSession {
        guard startup.database != "missing" else {
            throw SluiceError(.invalidCatalogName, "database \"\(startup.database)\" does not exist")
        }
        return FakeSession(sleeps: sleeps)
    }
}

final class FakeSession: PGSession {
    private let sleeps: FakeBackend.Sleeps
    private let isCancelled = Mutex(false)
    private let nextID = Mutex(0)

    static let column = PGColumn(name: "?column?", type: .int32)

    init(sleeps: FakeBackend.Sleeps) { self.sleeps = sleeps }

    func prepare(_ sql: String, parameterTypes: [DataType?]) async throws(SluiceError) -> [PGPreparedStatement] {
        if let range = sql.firstRange(of: "syntax") {
            throw SluiceError(.syntaxError, "syntax error at or near \"syntax\"", position: sql.distance(from: sql.startIndex, to: range.lowerBound) + 1)
        }
        return sql.split(separator: ";").compactMap { piece -> PGPreparedStatement? in
            let text = String(piece).trimmingSpaces
            guard !text.isEmpty else { return nil }
            let parameterCount = text.filter { $0 == "$" }.count
            let types = (0 ..< parameterCount).map { index in index < parameterTypes.count ? parameterTypes[index] ?? .int32 : .int32 }
            let id = nextID.withLock { id in
                id += 1
                return id
            }
            return PGPreparedStatement(
                id: id, sql: text, parameterTypes: types,
                resultColumns: text.hasPrefix("select") ? [Self.column] : nil
            )
        }
    }

    func execute(_ statement: PGPreparedStatement, parameters: [Value]) async throws(SluiceError) -> PGStatementResult {
        guard statement.sql.hasPrefix("select") else {
            return PGStatementResult(commandTag: statement.sql.uppercased().replacingSpaces())
        }
        let values: [Value]
        switch statement.sql {
        case "select many": values = [.int32(1), .int32(2), .int32(3)]
        case "select sleep":
            isCancelled.withLock { $0 = false }
            sleeps.started.add(1, ordering: .sequentiallyConsistent)
            for _ in 0 ..< 1000 {
                if isCancelled.withLock({ $0 }) { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
                try? await Task.sleep(for: .milliseconds(10))
            }
            values = [.int32(0)]
        default: values = parameters.isEmpty ? [.int32(1)] : [parameters[0]]
        }
        return PGStatementResult(
            commandTag: "SELECT \(values.count)", columns: [Self.column],
            chunks: [Chunk(columns: [Column(type: .int32, values: values)])]
        )
    }

    func close(_ statement: PGPreparedStatement) {}
    func cancel() { isCancelled.withLock { $0 = true } }
    var transactionStatus: PGTransactionStatus { .idle }
    func terminate() {}
}

extension String {
    fileprivate func replacingSpaces() -> String { split(separator: " ").joined(separator: "_") }
}
