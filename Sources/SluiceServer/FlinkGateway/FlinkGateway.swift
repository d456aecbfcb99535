import Foundation
import Synchronization
import SluiceCore
import SluiceFormats
import SluiceHTTP
import SluiceNet
import SluicePGWire
import SluiceSQL

/// Flink's SQL Gateway REST API (`--flink-gateway-listen`, Flink's port 8083): sessions,
/// statements run as operations, and their results fetched page by page by token, as Flink 2.x
/// serves them under `/v1` to `/v4`. Flink's SQL client in gateway mode and any gateway client
/// (`flink-sql-gateway-api` from PyPI) talk to Sluice as to Flink.
///
/// Each gateway session is a ``SQLSession`` in the Flink dialect over the same engine: one
/// parser with Flink's spellings, one binder, one executor. An operation runs its statement on
/// the SQL port's threads (``SessionThreads``) and keeps its result's unread rows as the SQL
/// port does, a chunk at a time: a page is rendered when it is asked for, never the whole result.
package final class FlinkGateway: Sendable {
    /// The REST API versions served (each also under its path prefix, `/v3/sessions`).
    static let versions = ["V1", "V2", "V3", "V4"]
    /// What `/info` reports: the Flink release whose API this is.
    static let flinkVersion = "2.1.0"
    /// Sessions open at once; a new one beyond them is refused until one closes or idles out.
    static let maximumSessions = 1_000
    /// Operations a session keeps (finished ones are dropped oldest first beyond it).
    static let maximumOperations = 1_000
    /// A page's rows: at most this many, and it stops once its bytes pass ``pageBytes``.
    static let pageRows = 4_096
    static let pageBytes = 1 << 20
    /// The largest statement taken.
    static let maximumStatementBytes = 1 << 20

    let database: Database
    let threads: SessionThreads
    /// Sessions untouched this long are closed (Flink's `sql-gateway.session.idle-timeout`, 10 min).
    let idleTimeout: Duration
    private let sessions = Mutex<[String: FlinkGatewaySession]>([:])

    package init(database: Database, threads: SessionThreads = SessionThreads(), idleTimeout: Duration = .seconds(600)) {
        self.database = database
        self.threads = threads
        self.idleTimeout = idleTimeout
    }

    /// Closes every session (the server is stopping).
    package func closeAll() {
        let all = sessions.withLock { sessions in
            defer { sessions.removeAll() }
            return Array(sessions.values)
        }
        for session in all { session.close() }
    }

    // MARK: Sessions

    func openSession(properties: [String: String], name: String?, user: String) throws(FlinkGatewayError) -> String {
        closeIdleSessions()
        let handle = UUID().uuidString.lowercased()
        let sql = SQLSession(database: database, user: user, databaseName: "dev", parameters: [:], dialect: .flink)
        let session = FlinkGatewaySession(handle: handle, name: name, user: user, sql: sql)
        for (key, value) in properties { session.set(key, value) }
        // Flink's keys given at open are the session's settings too, as `SET` would make them.
        sql.updateSettings { settings in for (key, value) in properties where key.contains(".") { settings[key] = value } }
        let opened = sessions.withLock { sessions in
            guard sessions.count < Self.maximumSessions else { return false }
            sessions[handle] = session
            return true
        }
        guard opened else {
            sql.terminate()
            throw FlinkGatewayError(status: .serviceUnavailable, "Failed to open a new session: \(Self.maximumSessions) sessions are open.")
        }
        return handle
    }

    func session(_ handle: String) throws(FlinkGatewayError) -> FlinkGatewaySession {
        closeIdleSessions()
        guard let session = sessions.withLock({ $0[handle] }) else {
            throw FlinkGatewayError(status: .notFound, "Session '\(handle)' does not exist.")
        }
        session.touch()
        return session
    }

    func closeSession(_ handle: String) throws(FlinkGatewayError) {
        guard let session = sessions.withLock({ $0.removeValue(forKey: handle) }) else {
            throw FlinkGatewayError(status: .notFound, "Session '\(handle)' does not exist.")
        }
        session.close()
    }

    private func closeIdleSessions() {
        let now = ContinuousClock.now
        let idle = sessions.withLock { sessions in
            let idle = sessions.values.filter { now - $0.lastUsed > idleTimeout }
            for session in idle { sessions[session.handle] = nil }
            return idle
        }
        for session in idle { session.close() }
    }

    var sessionCount: Int { sessions.withLock { $0.count } }

    // MARK: Statements

    /// Starts `statement` as an operation of `session`; it runs on the session threads.
    func execute(_ statement: String, in session: FlinkGatewaySession) throws(FlinkGatewayError) -> String {
        guard statement.utf8.count <= Self.maximumStatementBytes else {
            throw FlinkGatewayError(status: .payloadTooLarge, "The statement is longer than \(Self.maximumStatementBytes) bytes.")
        }
        let operation = FlinkGatewayOperation(handle: UUID().uuidString.lowercased())
        try session.add(operation)
        let threads = threads
        let task = Task.detached { [session] in
            await withTaskExecutorPreference(threads) {
                await operation.run(statement, in: session.sql)
            }
        }
        operation.attach(task)
        return operation.handle
    }
}

/// One gateway session: its SQL session, its properties (`SET 'key' = 'value'` and what was
/// given at open) and its operations.
final class FlinkGatewaySession: Sendable {
    let handle: String
    let name: String?
    let user: String
    let sql: SQLSession
    private struct State {
        var lastUsed = ContinuousClock.now
        var properties: [String: String] = [:]
        var operations: [String: FlinkGatewayOperation] = [:]
        var order: [String] = []
    }
    private let state = Mutex(State())

    init(handle: String, name: String?, user: String, sql: SQLSession) {
        self.handle = handle
        self.name = name
        self.user = user
        self.sql = sql
    }

    var lastUsed: ContinuousClock.Instant { state.withLock { $0.lastUsed } }

    func touch() {
        state.withLock { $0.lastUsed = .now }
    }

    /// The session's configuration as Flink reports it: what was set, over Sluice's own
    /// settings in Flink's names.
    var properties: [String: String] {
        var all = ["sql-gateway.session.user": user, "table.sql-dialect": "default", "execution.runtime-mode": "streaming"]
        if let name { all["sql-gateway.session.name"] = name }
        for (key, value) in state.withLock({ $0.properties }) { all[key] = value }
        // What `SET 'key' = 'value'` set in the session: Flink's keys are dotted.
        for (key, value) in sql.settings where key.contains(".") { all[key] = value }
        return all
    }

    func set(_ key: String, _ value: String) {
        state.withLock { $0.properties[key] = value }
    }

    func add(_ operation: FlinkGatewayOperation) throws(FlinkGatewayError) {
        let dropped = state.withLock { state -> FlinkGatewayOperation? in
            state.operations[operation.handle] = operation
            state.order.append(operation.handle)
            guard state.order.count > FlinkGateway.maximumOperations else { return nil }
            let oldest = state.order.removeFirst()
            return state.operations.removeValue(forKey: oldest)
        }
        dropped?.close()
    }

    func operation(_ handle: String) throws(FlinkGatewayError) -> FlinkGatewayOperation {
        guard let operation = state.withLock({ $0.operations[handle] }) else {
            throw FlinkGatewayError(status: .notFound, "Can not find the submitted operation in the OperationManager with the \(handle).")
        }
        return operation
    }

    func removeOperation(_ handle: String) throws(FlinkGatewayError) -> FlinkGatewayOperation {
        guard let operation = state.withLock({ state in
            state.order.removeAll { $0 == handle }
            return state.operations.removeValue(forKey: handle)
        }) else {
            throw FlinkGatewayError(status: .notFound, "Can not find the submitted operation in the OperationManager with the \(handle).")
        }
        return operation
    }

    /// Cancels and drops every operation, and ends the SQL session.
    func close() {
        let operations = state.withLock { state in
            defer { state.operations.removeAll() }
            return Array(state.operations.values)
        }
        for operation in operations { operation.close() }
        sql.cancel()
        sql.terminate()
    }
}

/// An error answered as Flink's REST errors are: `{"errors": [...]}` with an HTTP status.
struct FlinkGatewayError: Error {
    var status: HTTPResponseStatus
    var message: String

    init(status: HTTPResponseStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}
