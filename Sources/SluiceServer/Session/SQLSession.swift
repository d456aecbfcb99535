import Foundation
import Synchronization
import SluiceBatch
import SluiceCore
import SluiceExpr
import SluicePGWire
import SluicePlan
import SluicePlanner
import SluiceSQL

/// Starts a ``SQLSession`` per connection.
package struct SQLBackend: PGBackend {
    package let database: Database

    package init(database: Database) {
        self.database = database
    }

    package func startSession(_ startup: PGStartup) throws(SluiceError) -> any PGSession {
        guard startup.database == "dev" else {
            throw SluiceError(.invalidCatalogName, "database \"\(startup.database)\" does not exist")
        }
        return SQLSession(database: database, user: startup.user, databaseName: startup.database, parameters: startup.parameters)
    }
}

/// A statement a client prepared, with its plan when it was bound at Parse and can be run as
/// bound: an INSERT without parameters, valid while the catalog and the session's settings are
/// as they were (a bulk load of INSERTs is bound once, not twice).
private struct Prepared {
    var statement: Statement
    var bound: (planned: PlannedStatement, catalogGeneration: Int, settings: [String: String])?
}

/// One client session: parses, binds and runs statements against the shared ``Database``.
package final class SQLSession: PGSession {
    private struct State {
        var statements: [Int: Prepared] = [:]
        var nextStatementID = 1
        var settings: [String: String]
        var transactionStatus = PGTransactionStatus.idle
        var info: SessionInfo
        /// Flink's catalogs the session created (`CREATE CATALOG`), by name: their options.
        var catalogs: [String: [String: String]] = [:]
        /// The catalog `USE CATALOG` chose; nil: the default one (Sluice's own).
        var currentCatalog: String?
    }

    let database: Database
    /// Who the session is and what it sees: its current role changes with `SET ROLE`.
    var info: SessionInfo {
        let (stored, path, catalogs, interval) = state.withLock {
            ($0.info, $0.settings["search_path"], $0.catalogs, $0.settings[FlinkDialect.checkpointIntervalKey])
        }
        var info = stored
        info.schema = currentSchema(searchPath: path)
        info.catalogs = catalogs
        info.timeZones = database.timeZones
        info.dialect = dialect
        info.checkpointMilliseconds = database.streams.runtime.barrierIntervalMilliseconds * database.checkpointFrequency
        info.flinkCheckpointIntervalMilliseconds = interval.flatMap(FlinkDialect.durationMilliseconds)
        return info
    }

    /// The schema unqualified names resolve in and new relations go to: the first schema of
    /// `search_path` that exists (`USE db` sets it), else `public`.
    func currentSchema(searchPath: String?) -> String {
        for entry in (searchPath ?? "").split(separator: ",") {
            var name = entry.trimmingCharacters(in: .whitespaces)
            if name.hasPrefix("\""), name.hasSuffix("\""), name.count >= 2 { name = String(name.dropFirst().dropLast()) }
            if name == "$user" || name.isEmpty { continue }
            if database.catalog.hasSchema(name) { return name }
        }
        return "public"
    }

    /// Flink's catalogs of the session, and the current one.
    var flinkCatalogs: (catalogs: [String: [String: String]], current: String?) {
        state.withLock { ($0.catalogs, $0.currentCatalog) }
    }

    func updateFlinkCatalogs(_ body: (inout [String: [String: String]], inout String?) throws(SluiceError) -> Void) throws(SluiceError) {
        try state.withLock { (state) throws(SluiceError) in try body(&state.catalogs, &state.currentCatalog) }
    }
    private let state: Mutex<State>
    private let cancelled = CancelFlag()
    /// The files this session's `file_scan` calls read.
    let fileScans: FileScans
    /// The dialect of a session that speaks no other (a Flink gateway session's); nil: the
    /// `sql_dialect` setting's.
    let fixedDialect: SQLDialect?

    /// Whether `?` is a positional parameter in its statements (a front door whose clients
    /// write them so, as Trino's); else `$n` only, as in Postgres.
    let questionMarkParameters: Bool

    /// `names` resolves a front door's own names in FROM (Trino's catalogs); nil: the catalog's.
    package init(
        database: Database, user: String, databaseName: String, parameters: [String: String], dialect: SQLDialect? = nil,
        names: FileScans.NameResolver? = nil, questionMarkParameters: Bool = false
    ) {
        self.database = database
        fixedDialect = dialect
        self.questionMarkParameters = questionMarkParameters
        fileScans = FileScans(makeSource: database.makeDetachedSource, nameResolver: names)
        var info = SessionInfo(user: user, database: databaseName)
        let stores = database.tables.stores
        info.rowCount = { stores.rowCount(id: $0) }
        var settings = Dictionary(uniqueKeysWithValues: SessionDefaults.values)
        for (key, value) in parameters { settings[key.lowercased()] = value }
        self.state = Mutex(State(settings: settings, info: info))
    }

    package var transactionStatus: PGTransactionStatus { state.withLock { $0.transactionStatus } }

    package func prepare(_ sql: String, parameterTypes: [DataType?]) async throws(SluiceError) -> [PGPreparedStatement] {
        do {
            return try prepareStatements(sql, parameterTypes: parameterTypes)
        } catch {
            // As in Postgres, an error while planning fails an open transaction block too.
            if transactionStatus == .inBlock { setTransactionStatus(.failed) }
            throw error
        }
    }

    private func prepareStatements(_ sql: String, parameterTypes: [DataType?]) throws(SluiceError) -> [PGPreparedStatement] {
        let statements = try SQLParser.parse(sql, dialect: dialect, questionMarkParameters: questionMarkParameters)
        var prepared: [PGPreparedStatement] = []
        for statement in statements {
            var types = parameterTypes.map { $0 ?? .unknown }
            var columns: [PGColumn]? = nil
            var entry = Prepared(statement: statement)
            // A lone statement is bound now so Describe can report parameter and result types;
            // in a multi-statement string, later statements may depend on earlier ones, so they
            // are bound only when they run.
            if statements.count == 1 && transactionStatus != .failed {
                let generation = database.catalog.generation
                var binder = Binder(catalog: database.catalog, session: info, parameterTypes: types)
                binder.externalRelations = fileScans
                let planned = try binder.bindUnoptimized(statement)
                types = binder.parameterTypes.map { $0 == .unknown ? .varchar : $0 }
                columns = Self.resultColumns(of: planned)
                // (A query is bound again: system relations are bound with their contents.)
                if case .insert = planned, types.isEmpty {
                    entry.bound = (planned, generation, state.withLock { $0.settings })
                }
            }
            let id = state.withLock { state in
                defer { state.nextStatementID += 1 }
                state.statements[state.nextStatementID] = entry
                return state.nextStatementID
            }
            prepared.append(PGPreparedStatement(id: id, sql: statement.sourceText, parameterTypes: types, resultColumns: columns))
        }
        return prepared
    }

    package func execute(_ prepared: PGPreparedStatement, parameters: [Value]) async throws(SluiceError) -> PGStatementResult {
        cancelled.value.store(false, ordering: .relaxed)
        let timeout = Self.milliseconds(setting("statement_timeout") ?? "0") ?? 0
        cancelled.deadline.store(timeout > 0 ? DispatchTime.now().uptimeNanoseconds + UInt64(timeout) * 1_000_000 : 0, ordering: .relaxed)
        guard let (statement, bound, settings) = state.withLock({ state in state.statements[prepared.id].map { ($0.statement, $0.bound, state.settings) } }) else {
            throw SluiceError(.invalidSQLStatementName, "prepared statement does not exist")
        }
        if transactionStatus == .failed {
            switch statement.kind {
            case .rollback:
                setTransactionStatus(.idle)
                return PGStatementResult(commandTag: "ROLLBACK")
            case .savepoint(.rollbackTo, _):
                // Nothing was applied inside the failed part, so the block may go on.
                setTransactionStatus(.inBlock)
                return PGStatementResult(commandTag: "ROLLBACK")
            case .commit:
                // COMMIT of a failed transaction block rolls it back, as in Postgres.
                setTransactionStatus(.idle)
                return PGStatementResult(commandTag: "ROLLBACK")
            default:
                throw SluiceError(
                    SQLState("25P02"), "current transaction is aborted, commands ignored until end of transaction block")
            }
        }
        do {
            var session = info
            session.zone = zone
            var binder = Binder(
                catalog: database.catalog, session: session, parameterTypes: prepared.parameterTypes,
                parameterValues: parameters)
            binder.optimizer = database.optimizer(foldingIn: evaluationContext(statementTimestamp: 0))
            binder.externalRelations = fileScans
            let planned: PlannedStatement
            if let bound, bound.catalogGeneration == database.catalog.generation, bound.settings == settings {
                planned = binder.optimized(bound.planned)
            } else {
                planned = try binder.bind(statement)
            }
            return try await run(planned)
        } catch {
            if transactionStatus == .inBlock { setTransactionStatus(.failed) }
            if error.code == .queryCanceled, !cancelled.value.load(ordering: .relaxed), cancelled.isPastDeadline {
                throw SluiceError(.queryCanceled, "canceling statement due to statement timeout")
            }
            throw error
        }
    }

    package func close(_ statement: PGPreparedStatement) {
        state.withLock { _ = $0.statements.removeValue(forKey: statement.id) }
    }

    package func cancel() {
        cancelled.value.store(true, ordering: .relaxed)
    }

    package func terminate() {
        state.withLock { $0.statements.removeAll() }
    }

    /// Polled by the executor between chunks: a cancel request, or the statement's timeout.
    var isCancelled: @Sendable () -> Bool {
        { [cancelled] in cancelled.value.load(ordering: .relaxed) || cancelled.isPastDeadline }
    }

    /// A duration setting in milliseconds, as PostgreSQL reads `statement_timeout`: a number
    /// (milliseconds) or a number with a unit (`us`, `ms`, `s`, `min`, `h`, `d`). Nil when it is
    /// not one.
    static func milliseconds(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "'")))
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        guard let number = Double(digits), number >= 0 else { return nil }
        let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        let scale: Double
        switch unit {
        case "", "ms": scale = 1
        case "us": scale = 0.001
        case "s": scale = 1000
        case "min": scale = 60_000
        case "h": scale = 3_600_000
        case "d": scale = 86_400_000
        default: return nil
        }
        let value = number * scale
        return value < Double(Int32.max) ? Int(value.rounded(.up)) : Int(Int32.max)
    }

    /// The rules of the session's `TimeZone` (UTC if the setting names none: it is checked
    /// when set).
    var zone: TimeZoneRules {
        (try? database.timeZones.sessionTimeZone(setting: setting("timezone") ?? "UTC")) ?? .utc
    }

    /// What a statement's expressions evaluate in: its start time and the session's time zone.
    func evaluationContext(statementTimestamp: Int64) -> EvaluationContext {
        EvaluationContext(statementTimestamp: statementTimestamp, timeZone: setting("timezone") ?? "UTC", zone: zone, timeZones: database.timeZones)
    }

    func setting(_ name: String) -> String? {
        state.withLock { $0.settings[name] }
    }

    /// The SQL the session speaks now.
    var dialect: SQLDialect {
        fixedDialect ?? SQLDialect(setting: setting("sql_dialect") ?? "") ?? .native
    }

    /// Every setting the session holds now.
    var settings: [String: String] {
        state.withLock { $0.settings }
    }

    func updateSettings(_ body: (inout [String: String]) -> Void) {
        state.withLock { body(&$0.settings) }
    }

    func setTransactionStatus(_ status: PGTransactionStatus) {
        state.withLock { $0.transactionStatus = status }
    }

    func deallocateAll() {
        state.withLock { $0.statements.removeAll() }
    }

    static func resultColumns(of planned: PlannedStatement) -> [PGColumn]? {
        switch planned {
        case .query(_, let columns):
            return columns.map(Self.pgColumn)
        case .explain:
            return [PGColumn(name: "QUERY PLAN", type: .varchar)]
        case .insert(_, _, let returning?), .update(_, _, _, _, let returning?), .delete(_, _, _, let returning?):
            return returning.columns.map(Self.pgColumn)
        case .utility(let utility):
            switch utility {
            case .show(let name):
                let key = name == "time zone" ? "timezone" : name
                return [PGColumn(name: ["timezone": "TimeZone", "datestyle": "DateStyle", "intervalstyle": "IntervalStyle"][key] ?? name, type: .varchar)]
            case .showAll: return [PGColumn(name: "Name", type: .varchar), PGColumn(name: "Setting", type: .varchar), PGColumn(name: "Description", type: .varchar)]
            case .showList: return [PGColumn(name: "Name", type: .varchar)]
            case .describe: return DescribeHandler.columns
            case .catalog(let statement): return CatalogHandler.columns(of: statement)
            default: return nil
            }
        default:
            return nil
        }
    }

    static func pgColumn(_ column: OutputColumn) -> PGColumn {
        var typeModifier: Int32 = -1
        if case .decimal(let precision?, let scale) = column.type { typeModifier = Int32((precision << 16) | (scale ?? 0)) + 4 }
        var result = PGColumn(
            name: column.name, type: column.type, tableOID: Int32(column.tableID), columnNumber: Int16(column.columnNumber),
            typeModifier: typeModifier)
        result.typeOID = column.typeOID
        return result
    }

    /// Microseconds since 1970 now, for `now()`.
    static func currentTimestamp() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
    }
}

/// A cancellation request shared between a session and the query it runs.
final class CancelFlag: Sendable {
    let value = Atomic<Bool>(false)
    /// When the running statement's `statement_timeout` runs out, in monotonic nanoseconds
    /// (0: no timeout).
    let deadline = Atomic<UInt64>(0)

    var isPastDeadline: Bool {
        let deadline = deadline.load(ordering: .relaxed)
        return deadline != 0 && DispatchTime.now().uptimeNanoseconds >= deadline
    }
}

extension SQLSession {
    /// `SET ROLE name`, or with nil `SET ROLE NONE` and `RESET ROLE`: the current role becomes
    /// `name`, which the session's user must be a member of (or a superuser), as in Postgres.
    /// Returns the new `is_superuser`, which the client is told.
    func setRole(_ name: String?) throws(SluiceError) -> Bool {
        let catalog = database.catalog
        let sessionUser = info.sessionUser
        guard let login = catalog.role(named: sessionUser) else { throw SluiceError(.insufficientPrivilege, "role \"\(sessionUser)\" does not exist") }
        let target: RoleDefinition
        if let name, name != sessionUser {
            guard let role = catalog.role(named: name) else { throw SluiceError(.undefinedObject, "role \"\(name)\" does not exist") }
            guard login.superuser || catalog.memberRoles(of: login).contains(role.oid) else {
                throw SluiceError(.insufficientPrivilege, "permission denied to set role \"\(name)\"")
            }
            target = role
        } else {
            target = login
        }
        state.withLock { $0.info.user = target.name }
        return target.superuser
    }
}
