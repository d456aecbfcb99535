import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

/// What binding needs to know about the session.
package struct SessionInfo: Sendable {
    /// The current role, whose privileges are checked (`current_user`): the session's user
    /// until `SET ROLE`.
    package var user: String
    /// The role that logged in (`session_user`).
    package var sessionUser: String
    package var database: String
    package var schema: String = "public"
    /// The session's time zone: literals of `timestamptz` without an offset read in it, and
    /// constant folding evaluates in it.
    package var zone: TimeZoneRules = .utc
    /// The zone database that names in constants resolve against (`make_timestamptz(…, 'Europe/Paris')`,
    /// `AT TIME ZONE`), when folded while planning.
    package var timeZones: TimeZoneDatabase?
    /// The SQL the session speaks: a Flink session's calls of Flink's own functions are theirs.
    package var dialect: SQLDialect = .native
    /// The rows a table or materialized view holds now, for the statistics views
    /// (`pg_stat_user_tables.n_live_tup`); nil when not known.
    package var rowCount: @Sendable (Int) -> Int? = { _ in nil }
    /// Flink's catalogs the session created, by name: their options (`type` is
    /// `generic_in_memory` or `iceberg`). A three-part name's first part is the database,
    /// `default_catalog`, or one of these.
    package var catalogs: [String: [String: String]] = [:]
    /// How often the server checkpoints (its barrier interval times its checkpoint frequency).
    package var checkpointMilliseconds = 1000
    /// Flink's `execution.checkpointing.interval` as the session set it; nil: not set. A job's
    /// exactly-once sink commits once per that much time, in whole checkpoints.
    package var flinkCheckpointIntervalMilliseconds: Int?

    package init(user: String, database: String) {
        self.user = user
        self.sessionUser = user
        self.database = database
    }
}

extension Binder {
    /// The name of the hidden row id of a table without a primary key (RisingWave's).
    static let rowIDName = "_row_id"

    /// Whether `text` names `_row_id` (as a word or quoted, outside strings and comments). A
    /// statement that does not hold the letters (in any case) is not lexed: a bulk INSERT's
    /// text is scanned once, with no copy.
    static func namesRowID(_ text: String) -> Bool {
        var text = text
        let holdsLetters = text.withUTF8 { bytes -> Bool in
            let pattern = Array(rowIDName.utf8)
            guard bytes.count >= pattern.count else { return false }
            for start in 0 ... bytes.count - pattern.count where bytes[start] == pattern[0] {
                var index = 1
                while index < pattern.count {
                    let byte = bytes[start + index]
                    guard (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == pattern[index] else { break }
                    index += 1
                }
                if index == pattern.count { return true }
            }
            return false
        }
        guard holdsLetters else { return false }
        var lexer = Lexer(text)
        guard let tokens = try? lexer.tokenize() else { return false }
        return tokens.contains { ($0.kind == .word || $0.kind == .quotedIdentifier) && $0.text == rowIDName }
    }

    /// A three-part name's catalog: the database itself, Flink's `default_catalog`, or an
    /// in-memory catalog of the session (whose databases are schemas); another database is
    /// PostgreSQL's 0A000.
    func checkCatalog(of name: ObjectName, position: Int?) throws(SluiceError) {
        guard name.qualifier.count >= 2, let first = name.qualifier.first else { return }
        if first == session.database || first == "default_catalog" { return }
        switch session.catalogs[first]?["type"] {
        case "generic_in_memory"?: return
        case "iceberg"?:
            throw SluiceError(
                .featureNotSupported, "the databases and tables of the Iceberg catalog \"\(first)\" are not reachable from SQL yet", position: position)
        default:
            throw SluiceError(.featureNotSupported, "cross-database references are not implemented: \"\(name.description)\"", position: position)
        }
    }
}

/// Turns parsed statements into plans: resolves names against the catalog, types every
/// expression, chooses functions and inserts casts.
///
/// A binder is used for one statement. Parameters `$n` are typed from their context (their
/// inferred types are left in ``parameterTypes``); when ``parameterValues`` is given, they bind
/// as literals.
package struct Binder {
    package let catalog: Catalog
    package let session: SessionInfo
    /// Types of `$1 …`: declared by the client, or inferred during binding (`.unknown` until then).
    package var parameterTypes: [DataType]
    package let parameterValues: [Value]?
    /// Common table expressions in scope, innermost last.
    var commonTables: [[String: (plan: BatchPlan, scope: Scope)]] = []
    /// For a correlated subquery: the columns of the row it runs for.
    var outerScope: Scope?
    /// Set when binding resolved a name through ``outerScope``.
    var usesOuterReferences = false
    /// Inside CASE arms and COALESCE arguments, a constant that fails to fold is left for run
    /// time (where only rows reaching it evaluate it), as Postgres simplifies those first.
    var foldingDeferrals = 0
    /// The user relations (tables, views, sources, materialized views) the statement names,
    /// for a new view's or materialized view's dependencies; a view's own references are not
    /// added where it is used.
    var referencedRelations: [Int] = []
    /// While a SQL function's body is bound: its arguments, which its parameters name.
    var inlinedArguments: InlinedArguments?
    /// The SQL functions being inlined around the binding, outermost first.
    var inliningFunctions: [Int] = []
    /// How many SQL function calls the statement has inlined (bounded by ``maximumInlinedCalls``).
    var inlinedCallCount = 0
    /// The bodies of the SQL functions inlined so far, parsed once per statement.
    var parsedFunctionBodies: [Int: (text: String, expression: Expression)] = [:]
    /// How many views are being expanded around the binding (a limit stops a cycle).
    var viewDepth = 0
    /// Inside a view: its owner, whose privileges its relations are read with (nil: the session's user).
    var privilegeUser: String?
    /// Rewrites the plans of queries, of INSERT's source and of CREATE TABLE AS.
    package var optimizer = Optimizer()
    /// What `file_scan(…)` reads, in statements that run once (queries, INSERT … SELECT,
    /// CREATE TABLE AS); nil where a relation must outlive the statement (views, sinks).
    package var externalRelations: (any ExternalRelations)?
    /// How the hidden row id (`_row_id`) of a table without a primary key is seen: a statement
    /// that names it reads it from the table's scans (a query), or is refused (a view, which
    /// cannot carry it yet); one that does not name it scans the stored columns only, so its
    /// plans are as they were.
    var rowIDs = RowIDs.notNamed

    enum RowIDs {
        case notNamed
        case read
        case refused
    }

    package init(catalog: Catalog, session: SessionInfo, parameterTypes: [DataType] = [], parameterValues: [Value]? = nil) {
        self.catalog = catalog
        self.session = session
        self.parameterTypes = parameterTypes
        self.parameterValues = parameterValues
    }

    /// Binds one statement, its plans optimized.
    package mutating func bind(_ statement: Statement) throws(SluiceError) -> PlannedStatement {
        try owned(optimized(try bindUnoptimized(statement)))
    }

    /// `planned` with its plans optimized.
    package func optimized(_ planned: PlannedStatement) -> PlannedStatement {
        switch planned {
        case .query(let plan, let columns): .query(optimizer.optimize(plan), columns: columns)
        case .copyTo(let plan, let columns, let options, let name): .copyTo(optimizer.optimize(plan), columns: columns, options: options, relationName: name)
        case .insert(let table, let source, let returning): .insert(table: table, source: optimizer.optimize(source), returning: returning)
        case .createTable(let relation, let populate?): .createTable(relation, populate: optimizer.optimize(populate))
        case let planned: planned
        }
    }

    /// A result's vector-typed system columns (``Scope/Entry/vectorOID``) as PostgreSQL's text
    /// form of them, elements separated by spaces, described with the vector type's OID.
    static func vectorsAsText(_ bound: BoundQuery) -> (plan: BatchPlan, columns: [OutputColumn]) {
        var columns = bound.outputColumns
        guard bound.scope.entries.contains(where: { $0.vectorOID != nil }) else { return (bound.plan, columns) }
        var expressions: [ScalarExpr] = []
        for (index, entry) in bound.scope.entries.enumerated() {
            let column = ScalarExpr.column(index, entry.type)
            if let oid = entry.vectorOID, case .list(let element) = entry.type {
                expressions.append(.call(ArrayFunctions.toString(elementType: element), [column, .literal(.string(" "), .varchar)]))
                columns[index].type = .varchar
                columns[index].typeOID = oid
            } else {
                expressions.append(column)
            }
        }
        return (.project(input: bound.plan, expressions: expressions), columns)
    }

    /// Binds one statement, its plans as written.
    package mutating func bindUnoptimized(_ statement: Statement) throws(SluiceError) -> PlannedStatement {
        switch statement.kind {
        case .query, .insert, .createTable, .explain, .copy: break
        default: externalRelations = nil
        }
        if Self.namesRowID(statement.sourceText) {
            switch statement.kind {
            case .createSink, .createView, .createIndex: rowIDs = .refused
            default: rowIDs = .read
            }
        }
        switch statement.kind {
        case .query(let query):
            let bound = try bindQuery(query)
            let result = Self.vectorsAsText(bound)
            return .query(result.plan, columns: result.columns)
        case .insert(let insert) where insert.table.qualifier.count == 2 && session.catalogs[insert.table.qualifier[0]]?["type"] == "iceberg":
            return try bindIcebergCatalogJob(insert.table, query: insert.source, columns: insert.columns, creates: false)
        case .insert(let insert):
            return try bindInsert(insert)
        case .update(let update):
            return try bindUpdate(update)
        case .delete(let delete):
            return try bindDelete(delete)
        case .createTable(let create) where create.name.qualifier.count == 2 && session.catalogs[create.name.qualifier[0]]?["type"] == "iceberg":
            guard create.query != nil else {
                throw SluiceError(
                    .featureNotSupported, "CREATE TABLE in Iceberg catalog \"\(create.name.qualifier[0])\" takes AS SELECT",
                    hint: "CREATE TABLE c.db.t AS SELECT … makes the table and a job that fills it.")
            }
            return try bindIcebergCatalogJob(create.name, query: create.query, columns: create.columns.map(\.name), creates: true)
        case .createTable(let create):
            return try bindCreateTable(create, sourceText: statement.sourceText)
        case .drop(let drop):
            return try bindDrop(drop)
        case .show(let show):
            return try bindShow(show)
        case .setVariable(let set):
            switch set.value {
            case .default: return .utility(.reset(name: set.name.lowercased()))
            case .values(let values): return .utility(.set(name: set.name.lowercased(), value: values.joined(separator: ", ")))
            }
        case .setTransaction:
            return .nothing(tag: "SET", notice: nil)
        case .reset(let name):
            return .utility(.reset(name: name.lowercased()))
        case .describe(let name):
            let relation = try relation(named: name, position: statement.position.errorPosition)
            try requireVisible(relation)
            return .utility(.describe(relation))
        case .explain(let explain):
            var inner = self
            let planned = try inner.bind(explain.statement)
            switch planned {
            case .query(let plan, _): return .explain(lines: plan.description.split(separator: "\n").map(String.init))
            case .insert(_, let source, _): return .explain(lines: ["BatchInsert"] + source.description.split(separator: "\n").map { "  " + $0 })
            case .createMaterializedView(_, let plan), .createSink(_, let plan):
                return .explain(lines: plan.explainLines)
            default: throw SluiceError(.featureNotSupported, "EXPLAIN is not supported for this statement yet")
            }
        case .flush:
            return .utility(.flush)
        case .checkpoint:
            return .utility(.checkpoint)
        case .begin:
            return .utility(.begin)
        case .commit:
            return .utility(.commit)
        case .rollback:
            return .utility(.rollback)
        case .savepoint(let action, _):
            return .utility(.savepoint(action.rawValue))
        case .discard:
            return .utility(.discard)
        case .deallocate(let name):
            return .utility(.deallocate(name))
        case .comment:
            return .nothing(tag: "COMMENT", notice: nil)
        case .createSchema(let name, let ifNotExists):
            return try bindCreateSchema(name, ifNotExists: ifNotExists)
        case .createDatabase(_, _):
            throw SluiceError(.featureNotSupported, "CREATE DATABASE is not supported yet; use database \"dev\"")
        case .createIndex(let create):
            return try bindCreateIndex(create)
        case .createView(let view):
            if view.isMaterialized { return try bindCreateMaterializedView(view, sourceText: statement.sourceText) }
            return try bindCreateView(view, sourceText: statement.sourceText)
        case .createSource(let create):
            return try bindCreateSource(create, sourceText: statement.sourceText)
        case .createSink(let create):
            return try bindCreateSink(create, sourceText: statement.sourceText)
        case .copy(let copy):
            return try bindCopy(copy, position: statement.position.errorPosition)
        case .alter(let objectType, _):
            throw SluiceError(.featureNotSupported, "ALTER \(objectType) is not supported yet", position: statement.position.errorPosition)
        case .createRole(let create):
            return try bindCreateRole(create)
        case .createSecret(let name, let ifNotExists, let options, let value):
            return try bindCreateSecret(name.name, ifNotExists: ifNotExists, options: options, value: value)
        case .createFunction(let create):
            return try bindCreateFunction(create, sourceText: statement.sourceText)
        case .dropFunction(let drop):
            return try bindDropFunction(drop)
        case .alterRole(let alter):
            return try bindAlterRole(alter)
        case .dropRoles(let names, let ifExists):
            return try bindDropRoles(names, ifExists: ifExists)
        case .grant(let grant):
            return try bindGrant(grant)
        case .grantRole(let grant):
            return try bindGrantRole(grant)
        case .catalog(.createDatabase(let name, _)) where name.qualifier.count == 1 && session.catalogs[name.qualifier[0]]?["type"] == "iceberg":
            // In an Iceberg catalog, a database is a namespace.
            return .utility(.catalog(.createDatabase(name, ifNotExists: true)))
        case .catalog(.createDatabase(let name, let ifNotExists)):
            // In Sluice's own catalog or an in-memory one, a database is a schema.
            try checkCatalog(of: ObjectName(name.qualifier + [name.name, "_"]), position: statement.position.errorPosition)
            return try bindCreateSchema(ObjectName(name.name == "default_database" ? "public" : name.name), ifNotExists: ifNotExists)
        case .catalog(.stopJob(let job, _, _)):
            // A job is a sink or a materialized view: its id is the relation's, in hexadecimal.
            guard let id = Int(job, radix: 16), let relation = catalog.relation(id: id), relation.kind == .sink || relation.kind == .materializedView else {
                throw SluiceError(.undefinedObject, "Could not stop job \(job): there is no such job", position: statement.position.errorPosition)
            }
            return try bindDrop(Drop(objectType: relation.kind == .sink ? .sink : .materializedView, names: [ObjectName([relation.schema, relation.name])]))
        case .catalog(let statement):
            return .utility(.catalog(statement))
        }
    }

    /// The user relation `name`, or 42P01.
    func relation(named name: ObjectName, position: Int?) throws(SluiceError) -> RelationDefinition {
        try checkCatalog(of: name, position: position)
        let schema = name.qualifier.last ?? session.schema
        guard let relation = catalog.relation(named: name.name, schema: schema) else {
            throw SluiceError(.undefinedTable, "relation \"\(name.description)\" does not exist", position: position)
        }
        return relation
    }
}
