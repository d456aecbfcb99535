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
    /// Carries out a bound statement.
    func run(_ planned: PlannedStatement) async throws(SluiceError) -> PGStatementResult {
        if case .createMaterializedView(let relation, let plan) = planned {
            // The statement completes once the view shows the rows it started from.
            await database.streams.runtime.waitForCommit(try database.createMaterializedView(relation, plan: plan))
            try dropIfBackfillFailed(relation)
            // Accepted as RisingWave accepts it, with a word on state that only grows.
            let notices = plan.unboundedState.map { SluiceError(.successfulCompletion, $0.message, hint: $0.hint) }
            return PGStatementResult(commandTag: "CREATE_MATERIALIZED_VIEW", notices: notices)
        }
        if case .createSink(let relation, let plan) = planned {
            // The statement completes once the sink has taken the rows it starts from.
            await database.streams.runtime.waitForCommit(try database.createSink(relation, plan: plan))
            try dropIfBackfillFailed(relation)
            return PGStatementResult(commandTag: "CREATE_SINK")
        }
        if case .createSource(let relation) = planned, relation.kind == .source, relation.connector?.forAllTables == true {
            var result = try runStatement(planned)
            result.notices += try await createTablesForAllTables(of: relation)
            return result
        }
        if case .utility(.checkpoint) = planned {
            try await database.checkpoint()
            return PGStatementResult(commandTag: "CHECKPOINT")
        }
        var result = try runStatement(planned)
        result.timeZone = zone
        switch planned {
        case .insert, .update, .delete, .createTable:
            // The write is in the log; it is acknowledged once an fsync covers it, waited for off
            // the session's thread (PostgreSQL's synchronous_commit; `off` does not wait).
            if synchronousCommit { try await database.tables.makeWritesDurable() }
        default:
            break
        }
        switch planned {
        case .insert, .update, .delete:
            // RisingWave's session setting: DML returns once every view shows its effects.
            if ["true", "on", "1"].contains(setting("rw_implicit_flush")?.lowercased() ?? "") { await database.streams.runtime.flush() }
        case .utility(.flush):
            await database.streams.runtime.flush()
        default:
            break
        }
        return result
    }

    /// A view or sink whose backfill could not read what it starts from (a source's history:
    /// a topic gone, a broker down) is dropped again, and its CREATE fails with the reason.
    private func dropIfBackfillFailed(_ relation: RelationDefinition) throws(SluiceError) {
        guard let failure = database.streams.runtime.backfillFailure(view: relation.id) else { return }
        let made = database.catalog.relation(id: relation.id) ?? relation
        try? database.drop(made)
        throw failure
    }

    private func runStatement(_ planned: PlannedStatement) throws(SluiceError) -> PGStatementResult {
        let context = evaluationContext(statementTimestamp: Self.currentTimestamp())
        let reader = database.reader(fileScans: fileScans)
        let executor = BatchExecutor(tables: reader, context: context, isCancelled: isCancelled, memory: QueryMemory(limit: queryMemoryLimit, spillDirectory: database.spillDirectory, server: database.queryMemory))
        switch planned {
        case .query(let plan, let columns):
            // The first chunks are made now; a result with more streams to the client as it
            // reads (the connection pulls each next chunk once the socket drains).
            let stream = try executor.stream(plan)
            var chunks: [Chunk] = []
            while chunks.count < Self.chunksBeforeStreaming, let chunk = try stream.next() { chunks.append(chunk) }
            if chunks.count < Self.chunksBeforeStreaming {
                if let failure = reader.failure { throw failure }
                let count = chunks.reduce(0) { $0 + $1.count }
                return PGStatementResult(commandTag: "SELECT \(count)", columns: columns.map(Self.pgColumn), chunks: chunks)
            }
            var result = PGStatementResult(commandTag: "SELECT 0", columns: columns.map(Self.pgColumn), chunks: chunks)
            result.stream = PGRowStream { () throws(SluiceError) -> Chunk? in
                guard let chunk = try stream.next() else {
                    if let failure = reader.failure { throw failure }
                    return nil
                }
                return chunk
            }
            return result
        case .insert(let table, let source, let returning):
            // Every row is made and checked first, staged on disk past a few chunks, so a
            // failure part way inserts nothing and memory stays bounded whatever the size.
            let returned = returningRows(returning, of: table)
            var keeping: ((Chunk) throws(SluiceError) -> Void)?
            if let returned { keeping = { (chunk: Chunk) throws(SluiceError) in try returned.append(chunk) } }
            let staged = try stage(source, into: table, executor: executor, keeping: keeping)
            if let failure = reader.failure { throw failure }
            let count = try database.tables.insert(staged, into: table)
            return try Self.result(tag: "INSERT 0 \(count)", returning: returning, rows: returned, context: context)
        case .update(let table, var filter, var assignments, let subqueries, let returning):
            let values = try subqueryValues(subqueries, executor: executor)
            filter = filter.map { Self.substitute(values, after: table.columns.count, in: $0) }
            assignments = assignments.mapValues { Self.substitute(values, after: table.columns.count, in: $0) }
            let updated = returningRows(returning, of: table)
            let affected = try database.tables.modify(
                table, spillDirectory: database.spillDirectory, matching: { (chunk) throws(SluiceError) in try Self.matching(filter, chunk, context) }
            ) {
                (old: Chunk) throws(SluiceError) -> Chunk in
                var columns = old.columns
                for (index, expression) in assignments {
                    columns[index] = try ExpressionEvaluator.evaluate(expression, on: old, context: context)
                }
                let new = Chunk(columns: columns, count: old.count)
                try self.checkNotNull(new, table: table)
                try updated?.append(new)
                return new
            }
            return try Self.result(tag: "UPDATE \(affected)", returning: returning, rows: updated, context: context)
        case .delete(let table, var filter, let subqueries, let returning):
            let values = try subqueryValues(subqueries, executor: executor)
            filter = filter.map { Self.substitute(values, after: table.columns.count, in: $0) }
            let removed = returningRows(returning, of: table)
            let affected = try database.tables.modify(
                table, spillDirectory: database.spillDirectory,
                matching: { (chunk) throws(SluiceError) in
                    let mask = try Self.matching(filter, chunk, context)
                    if let removed, mask.setCount > 0 { try removed.append(chunk.filter(mask)) }
                    return mask
                })
            return try Self.result(tag: "DELETE \(affected)", returning: returning, rows: removed, context: context)
        case .createTable(let relation, let populate):
            let staged = try populate.map { (plan) throws(SluiceError) in try stage(plan, into: relation, executor: executor) }
            if let failure = reader.failure { throw failure }
            _ = try database.create(relation)
            if let staged { _ = try database.tables.insert(staged, into: relation) }
            return PGStatementResult(commandTag: populate == nil ? "CREATE_TABLE" : "SELECT \(staged?.rowCount ?? 0)")
        case .createMaterializedView:
            throw SluiceError.internalError("materialized views are created by run(_:)")
        case .createSink:
            throw SluiceError.internalError("sinks are created by run(_:)")
        case .createSchema(let name, let oid, let owner):
            try database.catalog.addSchema(name, oid: oid)
            database.catalog.setSchemaAccess(ObjectAccess(owner: owner), for: name)
            try database.saveCatalog()
            return PGStatementResult(commandTag: "CREATE_SCHEMA")
        case .dropSchemas(let names, let relations):
            for relation in relations { try database.drop(relation) }
            for name in names {
                database.catalog.removeSchema(name)
                database.catalog.setSchemaAccess(nil, for: name)
            }
            try database.saveCatalog()
            return PGStatementResult(commandTag: "DROP_SCHEMA")
        case .createView(let relation, let replacing):
            try database.createView(relation, replacing: replacing)
            return PGStatementResult(commandTag: "CREATE_VIEW")
        case .createSource(let relation):
            let notices = try database.createSource(relation)
            return PGStatementResult(
                commandTag: relation.kind == .table ? "CREATE_TABLE" : "CREATE_SOURCE", notices: notices.map { SluiceError(.warning, $0) })
        case .drop(let relations):
            for relation in relations { try database.drop(relation) }
            let kind = relations.last!.kind.rawValue.uppercased().replacing(" ", with: "_")
            return PGStatementResult(commandTag: "DROP_\(kind)")
        case .createIndex(let table, let index):
            try database.createIndex(index, on: table)
            return PGStatementResult(commandTag: "CREATE_INDEX")
        case .dropIndexes(let doomed):
            for (table, index) in doomed { try database.dropIndex(index, of: table) }
            return PGStatementResult(commandTag: "DROP_INDEX")
        case .nothing(let tag, let notice):
            return PGStatementResult(commandTag: tag, notices: notice.map { [SluiceError(.successfulCompletion, $0)] } ?? [])
        case .createSecret(let name, let value):
            try database.catalog.addSecret(name, value: value)
            try database.saveCatalog()
            return PGStatementResult(commandTag: "CREATE_SECRET")
        case .dropSecrets(let names):
            for name in names { database.catalog.removeSecret(name) }
            try database.saveCatalog()
            return PGStatementResult(commandTag: "DROP_SECRET")
        case .createRole(var role, let password):
            role.oid = database.catalog.allocateID()
            role.password = password.map(RolePassword.derived(from:))
            try database.catalog.addRole(role)
            try database.saveCatalog()
            return PGStatementResult(commandTag: "CREATE_ROLE")
        case .alterRole(let name, var role, let password):
            switch password {
            case .keep: break
            case .remove: role.password = nil
            case .set(let text): role.password = RolePassword.derived(from: text)
            }
            try database.catalog.replaceRole(named: name, with: role)
            try database.saveCatalog()
            return PGStatementResult(commandTag: "ALTER_ROLE")
        case .grant(let changes, let isRevoke, let notices):
            let catalog = database.catalog
            for change in changes {
                switch change.kind {
                case .relation: if let id = Int(change.object) { catalog.setAccess(change.access, relationID: id) }
                case .schema: catalog.setSchemaAccess(change.access, for: change.object)
                case .database: catalog.setDatabaseAccess(change.access)
                }
            }
            try database.saveCatalog()
            return PGStatementResult(commandTag: isRevoke ? "REVOKE" : "GRANT", notices: notices.map { SluiceError(.warning, $0) })
        case .grantRoles(let changes, let isRevoke, let notices):
            for (member, memberships) in changes { database.catalog.setMemberships(memberships, of: member) }
            try database.saveCatalog()
            return PGStatementResult(
                commandTag: isRevoke ? "REVOKE ROLE" : "GRANT ROLE",
                notices: notices.map { SluiceError(isRevoke ? .warning : .successfulCompletion, $0) })
        case .dropRoles(let names, let notices):
            for name in names { database.catalog.removeRole(named: name) }
            if !names.isEmpty { try database.saveCatalog() }
            return PGStatementResult(commandTag: "DROP_ROLE", notices: notices.map { SluiceError(.successfulCompletion, $0) })
        case .explain(let lines):
            let column = Column(type: .varchar, values: lines.map { .string($0) })
            return PGStatementResult(
                commandTag: "EXPLAIN", columns: [PGColumn(name: "QUERY PLAN", type: .varchar)], chunks: [Chunk(columns: [column])])
        case .utility(let utility):
            return try runUtility(utility)
        case .copyFrom(let table, let columns, let options):
            return try copyFrom(table, columns: columns, options: options)
        case .copyTo(let plan, let columns, let options, _):
            return try copyTo(try executor.stream(plan), columns: columns, options: options, reader: reader)
        }
    }

    /// Where a DML statement with RETURNING sets aside the rows it changes: on disk past a few
    /// chunks, as the changes themselves, so that a RETURNING of any size is bounded too.
    private func returningRows(_ returning: DMLReturning?, of table: RelationDefinition) -> ChunkStaging? {
        returning.map { _ in ChunkStaging(types: table.columns.map(\.type), spillDirectory: database.spillDirectory) }
    }

    /// A DML statement's result: its tag, and with RETURNING the expressions over the rows it
    /// changed, streamed to the client from where they were staged when they were many.
    static func result(tag: String, returning: DMLReturning?, rows: ChunkStaging?, context: EvaluationContext) throws(SluiceError) -> PGStatementResult {
        guard let returning, let rows else { return PGStatementResult(commandTag: tag) }
        var result = PGStatementResult(commandTag: tag, columns: returning.columns.map(Self.pgColumn), chunks: [])
        if rows.isInMemory {
            for chunk in rows.heldChunks { result.chunks.append(try returned(chunk, returning.expressions, context)) }
            return result
        }
        let source = try rows.chunks()
        let expressions = returning.expressions
        result.stream = PGRowStream { () throws(SluiceError) -> Chunk? in
            guard let chunk = try source.next() else { return nil }
            return try returned(chunk, expressions, context)
        }
        return result
    }

    /// RETURNING's `expressions` over the changed rows `chunk`.
    private static func returned(_ chunk: Chunk, _ expressions: [ScalarExpr], _ context: EvaluationContext) throws(SluiceError) -> Chunk {
        var columns: [Column] = []
        for expression in expressions { columns.append(try ExpressionEvaluator.evaluate(expression, on: chunk, context: context)) }
        return Chunk(columns: columns, count: chunk.count)
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

    /// Chunks of a query's result made before it is sent; past them, the rest streams.
    static let chunksBeforeStreaming = 8

    /// Whether a write waits for the log's fsync (PostgreSQL's `synchronous_commit`; `off`
    /// acknowledges before it, so a crash may lose the last writes).
    var synchronousCommit: Bool {
        switch setting("synchronous_commit")?.lowercased() {
        case "off", "false", "0", "no": false
        default: true
        }
    }

    /// The value of each DML subquery.
    func subqueryValues(_ subqueries: [DMLSubquery], executor: BatchExecutor) throws(SluiceError) -> [(Value, DataType)] {
        var values: [(Value, DataType)] = []
        // (The arrays' memory is held until the statement ends with its executor.)
        var held = 0
        for subquery in subqueries {
            let value = try executor.subqueryValue(subquery.plan, kind: subquery.kind, holding: &held)
            values.append((value, subquery.kind == .exists ? .boolean : subquery.type))
        }
        return values
    }

    /// `expression` with columns `width + i` replaced by `values[i]`.
    static func substitute(_ values: [(Value, DataType)], after width: Int, in expression: ScalarExpr) -> ScalarExpr {
        if values.isEmpty { return expression }
        return expression.rewritten { node in
            if case .column(let index, _) = node, index >= width, index - width < values.count {
                return .literal(values[index - width].0, values[index - width].1)
            }
            return node
        }
    }

    /// Runs `plan` (rows in `table`'s column order and types) and stages its rows, each chunk
    /// checked against the table's NOT NULL columns; `keeping` sees every chunk as well.
    private func stage(
        _ plan: BatchPlan, into table: RelationDefinition, executor: BatchExecutor, keeping: ((Chunk) throws(SluiceError) -> Void)? = nil
    ) throws(SluiceError) -> ChunkStaging {
        let staged = ChunkStaging(types: table.columns.map(\.type), spillDirectory: database.spillDirectory)
        let stream = try executor.stream(plan)
        while let chunk = try stream.next() {
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            try checkNotNull(chunk, table: table)
            try staged.append(chunk)
            try keeping?(chunk)
        }
        return staged
    }

    func checkNotNull(_ chunk: Chunk, table: RelationDefinition) throws(SluiceError) {
        for (index, column) in table.columns.enumerated() where !column.isNullable && chunk.columns[index].hasNulls {
            throw SluiceError(.notNullViolation, "null value in column \"\(column.name)\" of relation \"\(table.name)\" violates not-null constraint")
        }
    }

    static func matching(_ filter: ScalarExpr?, _ chunk: Chunk, _ context: EvaluationContext) throws(SluiceError) -> Bitmap {
        guard let filter else { return Bitmap(count: chunk.count, value: true) }
        return ExpressionEvaluator.mask(of: try ExpressionEvaluator.evaluate(filter, on: chunk, context: context))
    }

    private func runUtility(_ utility: UtilityStatement) throws(SluiceError) -> PGStatementResult {
        switch utility {
        case .set("role", let value):
            var text = value ?? ""
            if text.hasPrefix("'") && text.hasSuffix("'") && text.count >= 2 { text = String(text.dropFirst().dropLast()) }
            let superuser = try setRole(text.lowercased() == "none" ? nil : text)
            return PGStatementResult(commandTag: "SET", parameterChanges: [("is_superuser", superuser ? "on" : "off")])
        case .reset("role"):
            let superuser = try setRole(nil)
            return PGStatementResult(commandTag: "RESET", parameterChanges: [("is_superuser", superuser ? "on" : "off")])
        case .set(let name, let value):
            var text = value ?? ""
            if text.hasPrefix("'") && text.hasSuffix("'") && text.count >= 2 { text = String(text.dropFirst().dropLast()) }
            let settingName = name == "time zone" ? "timezone" : name
            guard SessionDefaults.isKnown(settingName) else {
                throw SluiceError(.undefinedObject, "unrecognized configuration parameter \"\(name)\"")
            }
            if settingName == "statement_timeout", Self.milliseconds(text) == nil {
                throw SluiceError(
                    .invalidParameterValue, "invalid value for parameter \"statement_timeout\": \"\(text)\"",
                    hint: "Valid units for this parameter are \"us\", \"ms\", \"s\", \"min\", \"h\", and \"d\".")
            }
            if settingName == "query_memory_limit", Self.bytes(text) == nil {
                throw SluiceError(
                    .invalidParameterValue, "invalid value for parameter \"query_memory_limit\": \"\(text)\"",
                    hint: "Valid units for this parameter are \"B\", \"kB\", \"MB\", \"GB\", and \"TB\".")
            }
            if settingName == "timezone" {
                // A zone of the system's tzdata, a POSIX zone string or an offset in hours, as
                // in PostgreSQL; shown by its own name.
                if text.lowercased() == "local" || text.lowercased() == "default" {
                    text = "UTC"
                } else {
                    do {
                        text = try database.timeZones.sessionTimeZone(setting: text).name
                    } catch {
                        throw SluiceError(.invalidParameterValue, "invalid value for parameter \"TimeZone\": \"\(text)\"")
                    }
                }
            }
            if settingName == "barrier_interval_ms" {
                guard let milliseconds = Int(text), milliseconds > 0 else {
                    throw SluiceError(.invalidParameterValue, "barrier_interval_ms must be a positive number of milliseconds")
                }
                database.streams.runtime.barrierIntervalMilliseconds = milliseconds
            }
            updateSettings { $0[settingName] = text }
            let reported: Set<String> = ["timezone", "application_name", "datestyle", "intervalstyle", "client_encoding", "standard_conforming_strings"]
            let displayName = ["timezone": "TimeZone", "datestyle": "DateStyle", "intervalstyle": "IntervalStyle"][settingName] ?? settingName
            return PGStatementResult(commandTag: "SET", parameterChanges: reported.contains(settingName) ? [(displayName, text)] : [])
        case .reset(let name):
            let value = SessionDefaults.value(of: name)
            updateSettings { $0[name] = value }
            return PGStatementResult(commandTag: "RESET")
        case .show(let name):
            let key = name == "time zone" ? "timezone" : (name == "transaction isolation level" ? "transaction_isolation" : name)
            // The barrier interval is the server's, whichever session set it.
            let info = info
            let current = switch key {
            case "barrier_interval_ms": String(database.streams.runtime.barrierIntervalMilliseconds)
            case "role": info.user == info.sessionUser ? "none" : info.user
            case "session_authorization": info.sessionUser
            case "is_superuser": database.catalog.role(named: info.user)?.superuser == true ? "on" : "off"
            default: setting(key)
            }
            guard let value = current else {
                throw SluiceError(.undefinedObject, "unrecognized configuration parameter \"\(name)\"")
            }
            let displayName = ["timezone": "TimeZone", "datestyle": "DateStyle", "intervalstyle": "IntervalStyle"][key] ?? name
            return PGStatementResult(
                commandTag: "SHOW", columns: [PGColumn(name: displayName, type: .varchar)],
                chunks: [Chunk(columns: [Column(type: .varchar, values: [.string(value)])])])
        case .showAll:
            let settings = SessionDefaults.values.map { ($0.0, setting($0.0) ?? $0.1) }
            let columns = [
                Column(type: .varchar, values: settings.map { .string($0.0) }),
                Column(type: .varchar, values: settings.map { .string($0.1) }),
                Column(type: .varchar, values: settings.map { _ in .string("") }),
            ]
            return PGStatementResult(commandTag: "SHOW", columns: Self.resultColumns(of: .utility(.showAll)), chunks: [Chunk(columns: columns)])
        case .showList(let kind):
            let wanted: RelationKind?
            switch kind {
            case "tables": wanted = .table
            case "materialized views": wanted = .materializedView
            case "views": wanted = .view
            case "sources": wanted = .source
            case "sinks": wanted = .sink
            default: wanted = nil
            }
            var names: [String]
            switch kind {
            case "databases": names = [info.database]
            case "schemas": names = ["information_schema", "pg_catalog", "public"]
            default:
                let catalog = database.catalog
                names = catalog.visibleRelations(to: catalog.role(named: info.user)).filter { $0.kind == wanted }.map(\.name).sorted()
            }
            if wanted == nil && kind != "databases" && kind != "schemas" { names = [] }
            let chunks = names.isEmpty ? [] : [Chunk(columns: [Column(type: .varchar, values: names.map { .string($0) })])]
            return PGStatementResult(commandTag: "SHOW", columns: [PGColumn(name: "Name", type: .varchar)], chunks: chunks)
        case .describe(let relation):
            return DescribeOutput.result(for: relation)
        case .begin:
            if transactionStatus == .inBlock {
                return PGStatementResult(commandTag: "BEGIN", notices: [SluiceError(.warning, "there is already a transaction in progress")])
            }
            setTransactionStatus(.inBlock)
            return PGStatementResult(
                commandTag: "BEGIN",
                notices: [SluiceError(.successfulCompletion, "transactions are not supported: each statement takes effect when it completes")])
        case .commit, .rollback:
            let tag = utility == .commit ? "COMMIT" : "ROLLBACK"
            if transactionStatus == .idle {
                return PGStatementResult(commandTag: tag, notices: [SluiceError(.noActiveSQLTransaction, "there is no transaction in progress")])
            }
            setTransactionStatus(.idle)
            return PGStatementResult(commandTag: tag)
        case .savepoint(let tag):
            // Statements take effect as they complete, so savepoints only need to be accepted.
            return PGStatementResult(commandTag: tag == "ROLLBACK TO SAVEPOINT" ? "ROLLBACK" : (tag == "RELEASE SAVEPOINT" ? "RELEASE" : "SAVEPOINT"))
        case .flush:
            return PGStatementResult(commandTag: "FLUSH")
        case .checkpoint:
            throw SluiceError.internalError("CHECKPOINT is run by run(_:)")
        case .discard:
            deallocateAll()
            return PGStatementResult(commandTag: "DISCARD ALL")
        case .deallocate:
            return PGStatementResult(commandTag: "DEALLOCATE")
        }
    }
}

/// `DESCRIBE t`, as RisingWave shows it: one row per column, then the primary key.
enum DescribeOutput {
    static let columns = [
        PGColumn(name: "Name", type: .varchar), PGColumn(name: "Type", type: .varchar),
        PGColumn(name: "Is Hidden", type: .varchar), PGColumn(name: "Description", type: .varchar),
    ]

    static func result(for relation: RelationDefinition) -> PGStatementResult {
        var rows: [[Value]] = relation.columns.map { [.string($0.name), .string($0.type.sqlName), .string("false"), .null] }
        if !relation.primaryKey.isEmpty {
            let key = Value.string(relation.primaryKey.map { relation.columns[$0].name }.joined(separator: ", "))
            rows.append([.string("primary key"), key, .null, .null])
            rows.append([.string("distribution key"), key, .null, .null])
        }
        rows.append([.string("table description"), .string(relation.name), .null, .null])
        let chunk = Chunk(columns: (0 ..< 4).map { index in Column(type: .varchar, values: rows.map { $0[index] }) })
        return PGStatementResult(commandTag: "DESCRIBE", columns: columns, chunks: [chunk])
    }
}
