import Foundation
import Synchronization
import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluiceFormats
import SluicePostgresClient

/// `CREATE SOURCE pg WITH (connector = 'postgres-cdc', hostname, port, username, password,
/// database.name, …)`, then `CREATE TABLE t (… PRIMARY KEY …) FROM pg TABLE 'public.t'`:
/// PostgreSQL's rows as they change, by logical replication (design 0016, step 7).
///
/// The source only checks the server (logical `wal_level`, the publication). Each table made
/// from it has its own replication slot and reads its upstream table's changes:
/// - at first, a new slot (`CREATE_REPLICATION_SLOT … LOGICAL pgoutput`) exports a snapshot;
///   the upstream rows are copied in that snapshot (`COPY … TO STDOUT` on a second connection),
///   and the stream starts at the slot's consistent point, so no change is lost or doubled;
/// - the stream (`START_REPLICATION`, pgoutput protocol 1) is applied by primary key: inserts
///   and updates upsert the new row (an update that moves a key deletes the old key first),
///   deletes delete by the old key, TRUNCATE empties the table; a value left out as an
///   unchanged TOAST value keeps the one the table holds;
/// - the position is the end of the last transaction applied, logged with the table's rows. A
///   large transaction is applied in chunks as it arrives and never held whole: replaying it
///   after a crash applies the same upserts and deletes again, which leaves the same rows;
/// - the slot's confirmed position is the one in Sluice's last durable checkpoint
///   (``durable(positions:)``), so the server keeps every change Sluice could still need and no
///   more; while nothing changes, keepalives move the position on, so an idle slot does not
///   hold WAL back;
/// - a relation message that no longer has one of the table's columns stops the table with the
///   reason in `sluice_sources`; no row is written wrong.
package enum PostgresCDCConnector {
    static let entry = ConnectorEntry(
        name: "postgres-cdc", sourceOptions: PostgresCDCOptions.schema,
        makeSource: { description, context throws(SluiceError) in
            if description.isTable { return try PostgresCDCTable(description, validate: context.validate) }
            return try PostgresCDCSharedSource(description, validate: context.validate)
        })

    /// The upstream tables a `FOR ALL TABLES` source makes tables of: the publication's when it
    /// exists, else every table of `schema.name` with a primary key; and the tables left out
    /// (no primary key), for a notice.
    package static func upstreamTables(_ description: SourceDescription) throws(SluiceError) -> (tables: [(schema: String, name: String)], keyless: [String]) {
        let options = try PostgresCDCOptions(description)
        let connection = try PostgresConnection(options.settings)
        defer { connection.close() }
        let published = try connection.execute(
            "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = $1 ORDER BY 1, 2", [options.publication]
        ).rows
        let publicationExists = try !connection.execute("SELECT 1 FROM pg_publication WHERE pubname = $1", [options.publication]).rows.isEmpty
        let candidates = publicationExists
            ? published.map { ($0[0] ?? "", $0[1] ?? "") }
            : try connection.execute(
                "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') ORDER BY 2",
                [options.schema]
            ).rows.map { ($0[0] ?? "", $0[1] ?? "") }
        let keyed = Set(try connection.execute(
            "SELECT n.nspname || '.' || c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE i.indisprimary"
        ).rows.compactMap { $0.first ?? nil })
        var tables: [(schema: String, name: String)] = []
        var keyless: [String] = []
        for (schema, name) in candidates {
            if keyed.contains("\(schema).\(name)") { tables.append((schema, name)) } else { keyless.append("\(schema).\(name)") }
        }
        return (tables, keyless)
    }

    /// Checks what every CDC table needs of the server: logical decoding.
    static func checkServer(_ connection: PostgresConnection) throws(SluiceError) {
        let level = try connection.execute("SHOW wal_level").rows.first?.first ?? nil
        guard level == "logical" else {
            throw SluiceError(
                SQLState("55000"), "PostgreSQL at \(connection.endpoint) has wal_level = \(level ?? "unknown"); CDC needs wal_level = logical",
                hint: "Set wal_level = logical in postgresql.conf and restart PostgreSQL.")
        }
    }
}

/// The source itself: checked at CREATE, then only the tables made from it read; it lists the
/// upstream tables for `FOR ALL TABLES`.
final class PostgresCDCSharedSource: SourceConnector, UpstreamTableListing, @unchecked Sendable {
    let statistics = SourceStatistics()
    let notices: [String] = []
    private let name: String
    private let description: SourceDescription

    init(_ description: SourceDescription, validate: Bool) throws(SluiceError) {
        name = description.name
        self.description = description
        let options = try PostgresCDCOptions(description)
        if validate {
            let connection = try PostgresConnection(options.settings)
            defer { connection.close() }
            try PostgresCDCConnector.checkServer(connection)
            if !options.createsPublication {
                let found = try connection.execute("SELECT 1 FROM pg_publication WHERE pubname = $1", [options.publication])
                guard !found.rows.isEmpty else {
                    throw SluiceError(
                        .externalTableNotFound, "publication \"\(options.publication)\" does not exist in PostgreSQL at \(connection.endpoint)",
                        hint: "Create it (CREATE PUBLICATION \(options.publication) FOR TABLE …), or leave publication.create.enable out so that Sluice does.")
                }
            }
        }
        statistics.status = "shared: read by its tables"
    }

    func upstreamTables() throws(SluiceError) -> (tables: [(schema: String, name: String)], keyless: [String]) {
        try PostgresCDCConnector.upstreamTables(description)
    }

    func start(output: SourceOutput) {}
    func stop() {}

    private var unreadable: SluiceError {
        SluiceError(
            .featureNotSupported, "\"\(name)\" is a CDC source: its upstream tables are read through tables made from it",
            hint: "CREATE TABLE t (… PRIMARY KEY (…)) FROM \(name) TABLE 'public.t', then read t.")
    }

    func snapshot(columns: Set<Int>?) throws(SluiceError) -> SourceSnapshot { throw unreadable }
    func scan(pruningBy filter: ScalarExpr?, each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) { throw unreadable }
    var inferredColumns: [(name: String, type: DataType)]? { [] }
    var positions: [Int32: Int64]? { nil }
}

/// One table's reader of its upstream table's changes.
final class PostgresCDCTable: SourceConnector, @unchecked Sendable {
    let statistics = SourceStatistics()
    private(set) var notices: [String] = []
    private let options: PostgresCDCOptions
    private var columns: [(name: String, type: DataType)]
    private var primaryKey: [Int]
    private let upstreamKey: [String]?
    private let upstreamColumns: [(name: String, type: DataType)]?
    /// Without a data directory nothing is ever durable: the slot is confirmed as rows are applied.
    private let confirmsOnDelivery: Bool

    private struct Shared {
        var delivered: UInt64?
        var durable: UInt64?
        var stopped = false
    }
    /// Shared with the reader's thread: where delivery and the durable checkpoint stand.
    private final class SharedBox: Sendable {
        let state: Mutex<Shared>
        init(_ shared: Shared) { state = Mutex(shared) }
        func withLock<R>(_ body: (inout Shared) -> R) -> R { state.withLock { body(&$0) } }
    }
    private let shared: SharedBox
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    init(_ description: SourceDescription, validate: Bool) throws(SluiceError) {
        options = try PostgresCDCOptions(description)
        columns = description.columns
        primaryKey = description.primaryKey
        confirmsOnDelivery = description.stateDirectory == nil
        let start = description.startPositions?[0].map { UInt64(bitPattern: $0) }
        shared = SharedBox(Shared(delivered: start, durable: start))
        guard validate else {
            upstreamKey = nil
            upstreamColumns = nil
            return
        }
        let connection = try PostgresConnection(options.settings)
        defer { connection.close() }
        try PostgresCDCConnector.checkServer(connection)
        let upstream = try Self.upstreamTable(options, on: connection)
        upstreamColumns = upstream.columns
        upstreamKey = upstream.key
        if columns.isEmpty {
            columns = upstream.columns
            primaryKey = upstream.key.compactMap { name in columns.firstIndex { $0.name == name } }
        } else {
            for column in columns where !upstream.columns.contains(where: { $0.name == column.name }) {
                throw SluiceError(
                    .undefinedColumn, "table \(options.schema).\(options.table ?? "") in PostgreSQL has no column \"\(column.name)\"",
                    hint: "Its columns: \(upstream.columns.map(\.name).joined(separator: ", ")).")
            }
            let key = Set(primaryKey.map { columns[$0].name })
            guard key == Set(upstream.key) else {
                throw SluiceError(
                    .invalidTableDefinition,
                    "the primary key (\(primaryKey.map { columns[$0].name }.joined(separator: ", "))) is not the upstream table's (\(upstream.key.joined(separator: ", ")))",
                    hint: "Declare the same primary key as \(options.schema).\(options.table ?? "") has in PostgreSQL.")
            }
        }
        try preparePublication(on: connection)
        // The user must be allowed to replicate: asked now rather than found out by the stream.
        var replicating = options.settings
        replicating.replication = true
        let replication = try PostgresConnection(replicating)
        defer { replication.close() }
        try replication.execute("IDENTIFY_SYSTEM")
    }

    var inferredColumns: [(name: String, type: DataType)]? { upstreamColumns }
    var inferredPrimaryKey: [String]? { upstreamKey }

    /// The upstream table's columns (as Sluice types) and primary key.
    private static func upstreamTable(_ options: PostgresCDCOptions, on connection: PostgresConnection) throws(SluiceError) -> (columns: [(name: String, type: DataType)], key: [String]) {
        let relation = "quote_ident($1) || '.' || quote_ident($2)"
        let found = try connection.execute(
            "SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')",
            [options.schema, options.table])
        guard !found.rows.isEmpty else {
            throw SluiceError(
                .externalTableNotFound, "table \(options.schema).\(options.table ?? "") does not exist in PostgreSQL at \(connection.endpoint)",
                hint: "Name it as TABLE 'schema.table'.")
        }
        let columnRows = try connection.execute(
            """
            SELECT a.attname, t.typname, e.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
            LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typcategory = 'A'
            WHERE a.attrelid = (\(relation))::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum
            """, [options.schema, options.table]
        ).rows
        let columns = columnRows.map { row in
            (name: row[0] ?? "", type: PostgresTypeMapping.dataType(typeName: row[1] ?? "", elementTypeName: row[2]))
        }
        let key = try connection.execute(
            """
            SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
            WHERE i.indrelid = (\(relation))::regclass AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)
            """, [options.schema, options.table]
        ).rows.compactMap { $0.first ?? nil }
        guard !key.isEmpty else {
            throw SluiceError(
                .invalidTableDefinition, "table \(options.schema).\(options.table ?? "") in PostgreSQL has no primary key; CDC applies changes by it",
                hint: "Add a primary key to the upstream table.")
        }
        return (columns, key)
    }

    /// The publication must publish the table: made or extended when `publication.create.enable`
    /// (the default), else an error that says what is missing.
    private func preparePublication(on connection: PostgresConnection) throws(SluiceError) {
        let publication = PostgresConnection.quoted(options.publication)
        let exists = try !connection.execute("SELECT 1 FROM pg_publication WHERE pubname = $1", [options.publication]).rows.isEmpty
        if !exists {
            guard options.createsPublication else {
                throw SluiceError(
                    .externalTableNotFound, "publication \"\(options.publication)\" does not exist in PostgreSQL at \(connection.endpoint)",
                    hint: "Create it FOR TABLE \(options.schema).\(options.table ?? ""), or leave publication.create.enable out.")
            }
            try connection.execute("CREATE PUBLICATION \(publication) FOR TABLE \(options.quotedTable)")
            return
        }
        let published = try !connection.execute(
            "SELECT 1 FROM pg_publication_tables WHERE pubname = $1 AND schemaname = $2 AND tablename = $3",
            [options.publication, options.schema, options.table]
        ).rows.isEmpty
        guard !published else { return }
        guard options.createsPublication else {
            throw SluiceError(
                .invalidParameterValue, "publication \"\(options.publication)\" does not publish table \(options.schema).\(options.table ?? "")",
                hint: "ALTER PUBLICATION \(options.publication) ADD TABLE \(options.schema).\(options.table ?? ""), or leave publication.create.enable out.")
        }
        try connection.execute("ALTER PUBLICATION \(publication) ADD TABLE \(options.quotedTable)")
    }

    // MARK: SourceConnector

    var positions: [Int32: Int64]? {
        shared.withLock { $0.delivered }.map { [0: Int64(bitPattern: $0)] }
    }

    func durable(positions: [Int32: Int64]) {
        guard let position = positions[0] else { return }
        shared.withLock { $0.durable = max($0.durable ?? 0, UInt64(bitPattern: position)) }
    }

    func snapshot(columns: Set<Int>?) throws(SluiceError) -> SourceSnapshot { SourceSnapshot([]) }
    func scan(pruningBy filter: ScalarExpr?, each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) {}

    func start(output: SourceOutput) {
        let reader = PostgresCDCReader(
            options: options, columns: columns, primaryKey: primaryKey, statistics: statistics, output: output,
            position: { [shared] in shared.withLock { $0.delivered } },
            setPosition: { [shared, confirmsOnDelivery] position in
                shared.withLock {
                    $0.delivered = position
                    if confirmsOnDelivery { $0.durable = position }
                }
            },
            confirmed: { [shared] in shared.withLock { $0.durable } },
            isStopped: { [shared] in shared.withLock { $0.stopped } })
        let finished = self.finished
        let thread = Thread {
            reader.run()
            finished.signal()
        }
        thread.name = "sluice-postgres-cdc"
        self.thread = thread
        thread.start()
    }

    func stop() {
        shared.withLock { $0.stopped = true }
        if thread != nil {
            finished.wait()
            thread = nil
        }
    }
}
