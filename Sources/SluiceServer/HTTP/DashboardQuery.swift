import SluiceCore
import SluicePGWire
import SluiceSQL

/// Read-only SQL for the dashboard's SQL box and its live tables: one SELECT, SHOW, EXPLAIN or
/// DESCRIBE, run in a session of its own with a statement timeout, answered as JSON with at
/// most ``maximumRows`` rows. Anything else is refused before it is bound, with its SQLSTATE.
///
/// Statements run on `threads`, as the SQL port's do (``SessionThreads``): a query runs
/// synchronously for as long as it takes, and on Swift's cooperative pool two of them would hold
/// every thread the HTTP app, the catalog and the demo run on.
package struct DashboardQuery: Sendable {
    package static let maximumRows = 1_000
    package static let maximumStatementBytes = 64 << 10
    /// The statement timeout, in milliseconds.
    static let timeoutMilliseconds = 10_000

    let database: Database
    let threads: SessionThreads

    package init(database: Database, threads: SessionThreads) {
        self.database = database
        self.threads = threads
    }

    /// `{"columns": [{"name", "type"}], "rows": [[…]], "truncated": bool, "tag": "SELECT 3"}`,
    /// or `{"error": {"sqlstate", "message"}}`.
    package func run(_ sql: String, as user: String = "root") async -> [UInt8] {
        do {
            return try await result(of: sql, as: user).bytes
        } catch {
            return Self.failure(error)
        }
    }

    /// Runs as `user`, with that role's privileges (the feed's own queries, and a trusted
    /// dashboard's, run as `root`).
    func result(of sql: String, limit: Int = maximumRows, as user: String = "root") async throws(SluiceError) -> JSONDocument {
        try await withTaskExecutorPreference(threads) { () async throws(SluiceError) -> JSONDocument in
            try await resultOnSessionThread(of: sql, limit: limit, user: user)
        }
    }

    private func resultOnSessionThread(of sql: String, limit: Int, user: String) async throws(SluiceError) -> JSONDocument {
        let statements = try SQLParser.parse(sql)
        guard statements.count == 1, let statement = statements.first else {
            throw SluiceError(.syntaxError, statements.isEmpty ? "no statement to run" : "one statement at a time, please")
        }
        switch statement.kind {
        case .query, .show, .explain, .describe: break
        default: throw SluiceError(SQLState("25006"), "the dashboard runs read-only statements only (SELECT, SHOW, EXPLAIN, DESCRIBE)")
        }
        let session = SQLSession(
            database: database, user: user, databaseName: "dev", parameters: ["statement_timeout": String(Self.timeoutMilliseconds)])
        defer { session.terminate() }
        guard let prepared = try await session.prepare(sql, parameterTypes: []).first else { throw SluiceError(.syntaxError, "no statement to run") }
        let result = try await session.execute(prepared, parameters: [])
        let columns = result.columns ?? []
        var rows: [JSONDocument] = []
        var truncated = false
        var chunks = result.chunks[...]
        while rows.count < limit {
            let chunk: Chunk
            if let next = chunks.popFirst() {
                chunk = next
            } else if let next = try result.stream?.next() {
                chunk = next
            } else {
                break
            }
            for row in 0..<chunk.count {
                guard rows.count < limit else {
                    truncated = true
                    break
                }
                rows.append(.array(chunk.columns.map { Self.json($0, row: row, zone: result.timeZone) }))
            }
        }
        if rows.count == limit && !truncated {
            if !chunks.isEmpty {
                truncated = true
            } else if let next = try result.stream?.next() {
                truncated = next.count > 0
            }
        }
        return .object([
            "columns": .array(columns.map { .object(["name": .string($0.name), "type": .string($0.type.sqlName)]) }),
            "rows": .array(rows),
            "truncated": .bool(truncated),
            "tag": .string(result.commandTag),
        ])
    }

    /// A value as JSON: numbers as numbers (decimals too, for charts), booleans as booleans,
    /// everything else in its Postgres text form.
    static func json(_ column: Column, row: Int, zone: TimeZoneRules) -> JSONDocument {
        if column.isNull(row) { return .null }
        switch (column.type, column.storage) {
        case (.boolean, .bool(let values)): return .bool(values[row])
        case (.int16, .int16(let values)): return .int(Int64(values[row]))
        case (.int32, .int32(let values)): return .int(Int64(values[row]))
        case (.int64, .int64(let values)): return .int(values[row])
        case (.float32, .float32(let values)) where values[row].isFinite: return .double(Double(values[row]))
        case (.float64, .float64(let values)) where values[row].isFinite: return .double(values[row])
        default: break
        }
        var text: [UInt8] = []
        column.appendText(at: row, to: &text, zone: zone)
        let string = String(decoding: text, as: UTF8.self)
        if case .decimal = column.type, let number = Double(string), number.isFinite { return .double(number) }
        return .string(string)
    }

    static func failure(_ error: SluiceError) -> [UInt8] {
        JSONDocument.object(["error": .object(["sqlstate": .string(error.code.description), "message": .string(error.message)])]).bytes
    }
}
