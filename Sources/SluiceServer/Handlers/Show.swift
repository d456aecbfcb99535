import SluiceCore
import SluicePGWire
import SluicePlanner

/// SHOW name, SHOW ALL and SHOW TABLES (MATERIALIZED VIEWS, SOURCES, …), answered from the
/// session's settings and the catalog.
enum ShowHandler {
    /// `SHOW name`: one setting's value (the barrier interval is the server's, whichever session
    /// set it; the role and superuser status are the session's).
    static func run(_ name: String, in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        let key = name == "time zone" ? "timezone" : (name == "transaction isolation level" ? "transaction_isolation" : name)
        let database = session.database
        let info = session.info
        let current = switch key {
        case "barrier_interval_ms": String(database.streams.runtime.barrierIntervalMilliseconds)
        case "role": info.user == info.sessionUser ? "none" : info.user
        case "session_authorization": info.sessionUser
        case "is_superuser": database.catalog.role(named: info.user)?.superuser == true ? "on" : "off"
        default: session.setting(key)
        }
        guard let value = current else {
            throw SluiceError(.undefinedObject, "unrecognized configuration parameter \"\(name)\"")
        }
        let displayName = ["timezone": "TimeZone", "datestyle": "DateStyle", "intervalstyle": "IntervalStyle"][key] ?? name
        return PGStatementResult(
            commandTag: "SHOW", columns: [PGColumn(name: displayName, type: .varchar)],
            chunks: [Chunk(columns: [Column(type: .varchar, values: [.string(value)])])])
    }

    /// `SHOW ALL`: every setting, with its value in this session.
    static func runAll(in session: SQLSession) -> PGStatementResult {
        let settings = SessionDefaults.values.map { ($0.0, session.setting($0.0) ?? $0.1) }
        let columns = [
            Column(type: .varchar, values: settings.map { .string($0.0) }),
            Column(type: .varchar, values: settings.map { .string($0.1) }),
            Column(type: .varchar, values: settings.map { _ in .string("") }),
        ]
        return PGStatementResult(commandTag: "SHOW", columns: SQLSession.resultColumns(of: .utility(.showAll)), chunks: [Chunk(columns: columns)])
    }

    /// `SHOW TABLES` and its kin (`kind`: "tables", "materialized views", "views", "sources",
    /// "sinks", "databases", "schemas"): the names the session's role may see, sorted.
    static func runList(_ kind: String, in session: SQLSession) -> PGStatementResult {
        let wanted: RelationKind?
        switch kind {
        case "tables": wanted = .table
        case "materialized views": wanted = .materializedView
        case "views": wanted = .view
        case "sources": wanted = .source
        case "sinks": wanted = .sink
        default: wanted = nil
        }
        let info = session.info
        var names: [String]
        switch kind {
        case "databases": names = [info.database]
        case "schemas": names = ["information_schema", "pg_catalog", "public"]
        default:
            let catalog = session.database.catalog
            names = catalog.visibleRelations(to: catalog.role(named: info.user)).filter { $0.kind == wanted }.map(\.name).sorted()
        }
        if wanted == nil && kind != "databases" && kind != "schemas" { names = [] }
        let chunks = names.isEmpty ? [] : [Chunk(columns: [Column(type: .varchar, values: names.map { .string($0) })])]
        return PGStatementResult(commandTag: "SHOW", columns: [PGColumn(name: "Name", type: .varchar)], chunks: chunks)
    }
}

/// `DESCRIBE t` (and `SHOW COLUMNS FROM t`), as RisingWave shows it: one row per column, then
/// the primary key.
enum DescribeHandler {
    /// The columns of its result.
    static let columns = [
        PGColumn(name: "Name", type: .varchar), PGColumn(name: "Type", type: .varchar),
        PGColumn(name: "Is Hidden", type: .varchar), PGColumn(name: "Description", type: .varchar),
    ]

    /// `relation`'s columns, key and name.
    static func run(_ relation: RelationDefinition) -> PGStatementResult {
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
