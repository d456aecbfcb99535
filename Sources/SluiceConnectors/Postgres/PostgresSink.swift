#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SluiceCore
import SluiceDataflow
import SluiceFormats
import SluiceLakehouse
import SluicePostgresClient

/// `CREATE SINK s FROM v WITH (connector = 'jdbc', jdbc.url = 'jdbc:postgresql://…',
/// table.name = '…', type = 'append-only' | 'upsert' [, primary_key = '…'])`, and the same
/// with `connector = 'postgres'` (``PostgresSinkOptions``): a view's changes as rows of a
/// PostgreSQL table, exactly once (design 0016, step 4).
///
/// Each checkpoint's changes reach the table in one PostgreSQL transaction, committed only once
/// the checkpoint is durable, together with the sink's progress row, so whatever crashes the
/// table holds each epoch once:
/// - ``write(_:)`` turns the changes into COPY text as they come, in a staging file of the
///   sink's own folder, a megabyte at a time. An upsert sink first merges an epoch's changes by
///   key (a key's last version, or its delete), in parts of at most `partBytes`.
/// - An append-only sink also ships the rows while their epoch runs: one of two lanes
///   (``PostgresSinkLane``), taken by turns epoch by epoch, opens a transaction for the epoch
///   whose COPY takes each piece of the staging file as it is written, on a thread of its own.
///   PostgreSQL's work, which bounds the sink's pace, so starts with the epoch rather than once
///   its checkpoint is durable, and the two lanes' COPYs run at once.
/// - ``prepare(epoch:)`` ends the live transaction's COPY (the transaction stays open), fsyncs
///   the staging file and names it after the epoch: the token the checkpoint keeps names the
///   file and the live transaction.
/// - ``commit(_:)``, once the checkpoint is durable, takes the epochs in order. An epoch whose
///   live transaction is still open and sound commits there: its lane sets the sink's row of
///   `sluice_sink_progress` (in the table's schema) to the epoch, or rolls back if the row says
///   the table holds it, and commits. Any other epoch goes from its file: one transaction locks
///   the progress row, skips the epochs it says the table holds, streams each remaining epoch's
///   file in with COPY (an upsert sink's through a temporary table: `DELETE … USING` for the
///   keys deleted, `INSERT … ON CONFLICT DO UPDATE` for the versions left), sets the row to the
///   last epoch and commits. Committed epochs' files are removed.
/// - A live transaction is committed only for the epoch whose rows it holds, after every epoch
///   before it; one whose epoch was dropped (its prepare failed, or a later epoch committed
///   first) is rolled back. One that is gone (the connection dropped, PostgreSQL restarted,
///   Sluice restarted: a new sink has none) loses nothing, since its epoch's file commits.
/// - After a crash the checkpoint's pending epochs are committed again: an epoch whose
///   transaction committed before the crash is skipped by its progress row; one whose did not is
///   written from its file, which ``resume(_:)`` kept.
/// - A PostgreSQL that cannot be reached fails the commit; the committer retries with backoff
///   and reports the error in `sluice_sinks`, and the epochs wait in their files.
package final class PostgresSink: StreamSink, @unchecked Sendable {
    private static let make: ConnectorEntry.SinkFactory = { description, context throws(SluiceError) in
        try PostgresSink(description, validate: context.validate)
    }
    package static let jdbcEntry = ConnectorEntry(name: "jdbc", sinkOptions: PostgresSinkOptions.jdbcSchema, makeSink: make)
    package static let postgresEntry = ConnectorEntry(name: "postgres", sinkOptions: PostgresSinkOptions.postgresSchema, makeSink: make)

    /// Every durable checkpoint commits, as RisingWave's JDBC sink does.
    package var defaultCommitInterval: Int { 1 }

    /// The table the progress rows are kept in, in the sink table's schema.
    static let progressTable = "sluice_sink_progress"

    private let options: PostgresSinkOptions
    private let description: SinkDescription
    private let staging: String
    /// An upsert sink's changes are merged by key in parts of at most this many bytes.
    private let partBytes: Int
    private let memory = MemoryShare(.sinkBuffers)

    // The fragment's side: write and prepare.
    private var file: StagingWriter?
    /// The epoch's live transaction, when a lane took it (an append-only sink's).
    private var shipment: (lane: Int, shipment: PostgresShipment)?
    /// The lane the next epoch tries first: epochs alternate between the two.
    private var nextLane = 0
    private var rowsText: [UInt8] = []
    /// COPY text, column by column: the rows, and an upsert sink's deleted keys.
    private var rowEncoder: RowTextEncoder
    private var keyEncoder: RowTextEncoder
    private var upserts: IcebergUpsertBatch?
    private var epochRows = 0
    private var isStagingSettled = false

    /// An append-only sink's two lanes that ship rows while their epoch runs (none for an
    /// upsert sink, whose epochs are merged by key first).
    private let lanes: [PostgresSinkLane]
    /// Names this sink object in the tokens of its live transactions: a token restored from a
    /// checkpoint after a restart names another, and commits from its file.
    private let instance = UInt64.random(in: 1 ... .max)

    // The committer's side.
    private let lock = NSLock()
    /// Rows committed by a commit that failed later on, reported with the next one that
    /// succeeds.
    private var unreportedRows = 0
    private var connection: PostgresConnection?
    /// Whether the connection has made its temporary tables (an upsert sink's).
    private var hasStageTables = false
    /// The table, the progress table and the sink's column list, quoted; the statements the
    /// lanes and the file commits share.
    private let target: String
    private let progress: String
    private let columnList: String
    private let statements: PostgresSinkLane.Statements
    /// Whether the connection has made sure of `sluice_sink_progress`.
    private var hasProgressTable = false

    init(_ description: SinkDescription, validate: Bool, partBytes: Int = 16 << 20) throws(SluiceError) {
        self.description = description
        self.partBytes = partBytes
        options = try PostgresSinkOptions(description)
        staging = description.localStaging("postgres")
        rowEncoder = RowTextEncoder(kind: .copyText, columnNames: description.columns.map(\.name))
        keyEncoder = RowTextEncoder(kind: .copyText, columnNames: description.primaryKey.map { description.columns[$0].name })
        if !description.appendOnly {
            upserts = IcebergUpsertBatch(keyColumns: description.primaryKey, types: description.columns.map(\.type))
        }
        let target = "\(PostgresConnection.quoted(options.schema)).\(PostgresConnection.quoted(options.table))"
        let progress = "\(PostgresConnection.quoted(options.schema)).\(PostgresConnection.quoted(Self.progressTable))"
        let columnList = description.columns.map { PostgresConnection.quoted($0.name) }.joined(separator: ", ")
        (self.target, self.progress, self.columnList) = (target, progress, columnList)
        let statements = PostgresSinkLane.Statements(
            copy: "COPY \(target) (\(columnList)) FROM STDIN",
            makeProgress: Self.makeProgressStatement(progress),
            setProgress: """
                INSERT INTO \(progress) AS p (sink_id, epoch, committed_at) VALUES ($1, $2, now())
                ON CONFLICT (sink_id) DO UPDATE SET epoch = EXCLUDED.epoch, committed_at = EXCLUDED.committed_at
                WHERE p.epoch < EXCLUDED.epoch RETURNING p.epoch
                """,
            sinkID: description.sinkID)
        self.statements = statements
        let settings = options.settings
        lanes = description.appendOnly
            ? (0 ..< 2).map { PostgresSinkLane(name: "\(description.name) lane \($0)", settings: settings, statements: statements) }
            : []
        if validate {
            try POSIXFile.createDirectories(staging)
            try withConnection { connection throws(SluiceError) in
                try checkTable(on: connection)
                try makeProgressTable(on: connection)
            }
        }
    }


    // MARK: StreamSink

    package func write(_ chunk: StreamChunk) throws(SluiceError) {
        try settleStaging()
        guard chunk.count > 0 else { return }
        if var batch = upserts {
            upserts = nil
            defer {
                upserts = batch
                memory.set(batch.byteCount)
            }
            batch.take(chunk)
            epochRows += chunk.count
            if batch.byteCount >= partBytes { try drain(&batch) }
            return
        }
        guard let rows = chunk.insertedRows else { return }
        rowEncoder.append(rows, to: &rowsText)
        epochRows += rows.count
        if rowsText.count >= 1 << 20 { try flushRows() }
        memory.set(rowsText.count)
    }

    package func prepare(epoch: UInt64) throws(SluiceError) -> [UInt8]? {
        try settleStaging()
        if var batch = upserts {
            upserts = nil
            defer { upserts = batch }
            try drain(&batch)
        } else {
            try flushRows()
        }
        memory.set(0)
        guard let open = file else { return nil }
        let name = "epoch-\(epoch).copy"
        // The live transaction's COPY ends while the file is synced.
        var live: (lane: Int, shipment: PostgresShipment)?
        swap(&live, &shipment)
        if let live {
            lanes[live.lane].seal(live.shipment, as: epoch)
            nextLane = (live.lane + 1) % lanes.count
        }
        do throws(SluiceError) {
            try open.publish(as: "\(staging)/\(name)")
        } catch {
            if let live { lanes[live.lane].abort(live.shipment) }
            // A file that could not be synced is kept for the next prepare; one lost in the
            // rename cannot be written to again.
            if !open.isOpen { file = nil }
            throw error
        }
        file = nil
        let rows = epochRows
        epochRows = 0
        let token = live.map { PostgresSinkToken.Live(lane: $0.lane, shipment: $0.shipment.id, instance: instance) }
        return PostgresSinkToken(file: name, rows: rows, live: token).encoded
    }

    package func commit(_ prepared: [PreparedEpoch]) throws(SluiceError) -> SinkCommitSummary {
        var rows = 0
        var fromFiles: [PreparedEpoch] = []
        do throws(SluiceError) {
            for entry in prepared.sorted(by: { $0.epoch < $1.epoch }) {
                let token = try PostgresSinkToken(decoding: entry.token)
                guard let live = token.live, live.instance == instance, live.lane < lanes.count else {
                    fromFiles.append(entry)
                    continue
                }
                // The epochs before this one reach the table first.
                rows += try commitFiles(fromFiles)
                fromFiles.removeAll()
                for lane in lanes { lane.abortPrepared(before: entry.epoch) }
                switch lanes[live.lane].commit(live.shipment, as: entry.epoch) {
                case .committed:
                    rows += token.rows
                    unlink("\(staging)/\(token.file)")
                case .held:
                    unlink("\(staging)/\(token.file)")
                case .unavailable:
                    fromFiles.append(entry)
                }
            }
            rows += try commitFiles(fromFiles)
        } catch {
            unreportedRows += rows
            throw error
        }
        if let last = prepared.map(\.epoch).max(), last < .max {
            for lane in lanes { lane.abortPrepared(before: last + 1) }
        }
        let total = rows + unreportedRows
        unreportedRows = 0
        return SinkCommitSummary(rows: total)
    }

    /// Commits `prepared` (in epoch order) from their files in one transaction, with the
    /// progress row; returns the rows written.
    private func commitFiles(_ prepared: [PreparedEpoch]) throws(SluiceError) -> Int {
        guard !prepared.isEmpty else { return 0 }
        var rows = 0
        let done = try withConnection { connection throws(SluiceError) -> UInt64? in
            try makeProgressTable(on: connection)
            // Outside the transaction, so a rolled-back commit does not take them with it.
            if !description.appendOnly { try makeStageTables(on: connection) }
            try connection.execute("BEGIN")
            do throws(SluiceError) {
                let result = try connection.execute("SELECT epoch FROM \(progress) WHERE sink_id = $1 FOR UPDATE", [description.sinkID])
                let held = (result.rows.first?.first ?? nil).flatMap { UInt64($0) }
                var last: UInt64?
                for entry in prepared.sorted(by: { $0.epoch < $1.epoch }) where held.map({ entry.epoch > $0 }) ?? true {
                    let token = try PostgresSinkToken(decoding: entry.token)
                    try apply("\(staging)/\(token.file)", on: connection)
                    rows += token.rows
                    last = entry.epoch
                }
                // (The row is locked above and older than `last`: the upsert always applies.)
                if let last { try connection.execute(statements.setProgress, [description.sinkID, String(last)]) }
                try connection.execute("COMMIT")
                return max(held ?? 0, last ?? 0)
            } catch {
                if connection.isUsable { _ = try? connection.execute("ROLLBACK") }
                throw error
            }
        }
        // The table holds these epochs now: their files go.
        for entry in prepared where entry.epoch <= done ?? 0 {
            if let token = try? PostgresSinkToken(decoding: entry.token) { unlink("\(staging)/\(token.file)") }
        }
        return rows
    }

    package func lastCommittedEpoch() throws(SluiceError) -> UInt64? {
        try withConnection { connection throws(SluiceError) -> UInt64? in
            try makeProgressTable(on: connection)
            let result = try connection.execute("SELECT epoch FROM \(progress) WHERE sink_id = $1", [description.sinkID])
            return (result.rows.first?.first ?? nil).flatMap { UInt64($0) }
        }
    }

    package func resume(_ pending: [PreparedEpoch]) throws(SluiceError) {
        var keep = Set<String>()
        for entry in pending { keep.insert(try PostgresSinkToken(decoding: entry.token).file) }
        // Files of epochs whose checkpoint never became durable, and a half-written one, go:
        // their changes come again.
        for name in try POSIXFile.names(in: staging) ?? [] where !keep.contains(name) {
            unlink("\(staging)/\(name)")
        }
        isStagingSettled = true
    }

    package func close() {
        // Open live transactions roll back with their connections; their epochs' files stay
        // for the next start.
        for lane in lanes { lane.close() }
        shipment = nil
        file?.discard()
        file = nil
        lock.withLock {
            connection?.close()
            connection = nil
        }
        memory.set(0)
    }

    // MARK: Staging

    /// A new sink, or one restarted without a checkpoint, starts from an empty folder.
    private func settleStaging() throws(SluiceError) {
        guard !isStagingSettled else { return }
        isStagingSettled = true
        try POSIXFile.createDirectories(staging)
        for name in try POSIXFile.names(in: staging) ?? [] { unlink("\(staging)/\(name)") }
    }

    private func stagingFile() throws(SluiceError) -> StagingWriter {
        if let file { return file }
        let made = try StagingWriter(besides: "\(staging)/epoch")
        file = made
        // The epoch's live transaction, on the next lane, or the other when that one is full.
        for offset in lanes.indices {
            let index = (nextLane + offset) % lanes.count
            if let started = lanes[index].begin(reading: made.temporary) {
                shipment = (index, started)
                break
            }
        }
        return made
    }

    /// Appends the buffered rows to the staging file as one section, and ships them.
    private func flushRows() throws(SluiceError) {
        guard !rowsText.isEmpty else { return }
        let writer = try stagingFile()
        do throws(SluiceError) {
            let piece = try writer.append(.rows, rowsText)
            if let shipment { lanes[shipment.lane].ship(piece, of: shipment.shipment) }
        } catch {
            // The live transaction cannot hold what the file does not: it goes.
            if let shipment { lanes[shipment.lane].abort(shipment.shipment) }
            shipment = nil
            throw error
        }
        rowsText.removeAll(keepingCapacity: true)
    }

    /// Writes the merged part of an upsert epoch: the keys it deletes, then the versions it
    /// leaves, then a part boundary (a key may come again in the next part).
    private func drain(_ batch: inout IcebergUpsertBatch) throws(SluiceError) {
        guard !batch.isEmpty else { return }
        let result = batch.result()
        let keyColumns = description.primaryKey
        let deleted = result.present.indices.filter { !result.present[$0] }
        let writer = try stagingFile()
        if !deleted.isEmpty {
            let keys = Chunk(columns: keyColumns.map { result.touched.columns[$0] }, count: result.touched.count).gather(deleted)
            var text: [UInt8] = []
            keyEncoder.append(keys, to: &text)
            try writer.append(.deletedKeys, text)
        }
        if result.rows.count > 0 {
            var text: [UInt8] = []
            rowEncoder.append(result.rows, to: &text)
            try writer.append(.rows, text)
        }
        try writer.append(.boundary, [])
        batch.removeAll()
    }

    // MARK: Committing

    /// Streams one epoch's file into the open transaction.
    private func apply(_ path: String, on connection: PostgresConnection) throws(SluiceError) {
        let reader = try StagingReader(path)
        defer { reader.close() }
        let isUpsert = !description.appendOnly
        while let section = try reader.nextSection() {
            switch section.kind {
            case .rows where !isUpsert:
                try connection.copyIn("COPY \(target) (\(columnList)) FROM STDIN") { writer throws(SluiceError) in
                    try reader.stream(section, into: &writer)
                }
            case .rows:
                try connection.copyIn("COPY pg_temp.sluice_stage_rows FROM STDIN") { writer throws(SluiceError) in
                    try reader.stream(section, into: &writer)
                }
                let keys = description.primaryKey.map { PostgresConnection.quoted(description.columns[$0].name) }
                let others = description.columns.indices.filter { !description.primaryKey.contains($0) }
                    .map { PostgresConnection.quoted(description.columns[$0].name) }
                let action = others.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + others.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
                try connection.execute(
                    "INSERT INTO \(target) (\(columnList)) SELECT \(columnList) FROM pg_temp.sluice_stage_rows ON CONFLICT (\(keys.joined(separator: ", "))) \(action)")
                try connection.execute("TRUNCATE pg_temp.sluice_stage_rows")
            case .deletedKeys:
                try connection.copyIn("COPY pg_temp.sluice_stage_keys FROM STDIN") { writer throws(SluiceError) in
                    try reader.stream(section, into: &writer)
                }
                let match = description.primaryKey.map { PostgresConnection.quoted(description.columns[$0].name) }
                    .map { "t.\($0) = k.\($0)" }.joined(separator: " AND ")
                try connection.execute("DELETE FROM \(target) AS t USING pg_temp.sluice_stage_keys AS k WHERE \(match)")
                try connection.execute("TRUNCATE pg_temp.sluice_stage_keys")
            case .boundary:
                break
            }
        }
    }

    /// An upsert sink's temporary tables, shaped as the sink's columns and its key's in the
    /// target table's types, once per connection.
    private func makeStageTables(on connection: PostgresConnection) throws(SluiceError) {
        guard !hasStageTables else { return }
        let keys = description.primaryKey.map { PostgresConnection.quoted(description.columns[$0].name) }.joined(separator: ", ")
        try connection.execute("CREATE TEMPORARY TABLE IF NOT EXISTS sluice_stage_rows AS SELECT \(columnList) FROM \(target) WITH NO DATA")
        try connection.execute("CREATE TEMPORARY TABLE IF NOT EXISTS sluice_stage_keys AS SELECT \(keys) FROM \(target) WITH NO DATA")
        hasStageTables = true
    }

    /// `sluice_sink_progress` in the table's schema, once per connection.
    private func makeProgressTable(on connection: PostgresConnection) throws(SluiceError) {
        guard !hasProgressTable else { return }
        try connection.execute(Self.makeProgressStatement(progress))
        hasProgressTable = true
    }

    private static func makeProgressStatement(_ progress: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(progress) (
            sink_id text PRIMARY KEY, epoch bigint NOT NULL, committed_at timestamptz NOT NULL DEFAULT now())
        """
    }

    /// Runs `body` on the sink's connection, made (again) if there is none or it failed.
    private func withConnection<R>(_ body: (PostgresConnection) throws(SluiceError) -> R) throws(SluiceError) -> R {
        lock.lock()
        defer { lock.unlock() }
        if let existing = connection, !existing.isUsable {
            existing.close()
            connection = nil
        }
        let current: PostgresConnection
        if let connection {
            current = connection
        } else {
            current = try PostgresConnection(options.settings)
            connection = current
            hasStageTables = false
            hasProgressTable = false
        }
        do throws(SluiceError) {
            return try body(current)
        } catch {
            // A connection that failed is made again next time.
            if !current.isUsable {
                current.close()
                connection = nil
            }
            throw error
        }
    }

    /// At CREATE: the table must exist, have a column of each of the sink's names, and for an
    /// upsert sink a primary key or unique index on exactly the sink's `primary_key`.
    private func checkTable(on connection: PostgresConnection) throws(SluiceError) {
        let columns = try connection.execute(
            """
            SELECT a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p')
            """, [options.schema, options.table]
        ).rows.compactMap { $0.first ?? nil }
        guard !columns.isEmpty else {
            throw SluiceError(
                .undefinedTable, "table \"\(options.schema).\(options.table)\" does not exist in PostgreSQL at \(connection.endpoint)",
                hint: "Create the table in PostgreSQL first; the sink writes into an existing table.")
        }
        for column in description.columns where !columns.contains(column.name) {
            throw SluiceError(
                .undefinedColumn, "table \"\(options.schema).\(options.table)\" in PostgreSQL has no column \"\(column.name)\", which the sink writes",
                hint: "Its columns: \(columns.joined(separator: ", ")).")
        }
        guard !description.appendOnly else { return }
        let keys = Set(description.primaryKey.map { description.columns[$0].name })
        let indexes = try connection.execute(
            """
            SELECT array_to_string(array_agg(a.attname ORDER BY a.attname), ',')
            FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = ANY (i.indkey)
            WHERE n.nspname = $1 AND c.relname = $2 AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL
            GROUP BY i.indexrelid
            """, [options.schema, options.table]
        ).rows.compactMap { $0.first ?? nil }
        guard indexes.contains(where: { Set($0.split(separator: ",").map(String.init)) == keys }) else {
            throw SluiceError(
                .invalidColumnReference,
                "table \"\(options.schema).\(options.table)\" in PostgreSQL has no primary key or unique index on (\(keys.sorted().joined(separator: ", "))), which an upsert sink needs",
                hint: "Add PRIMARY KEY (\(keys.sorted().joined(separator: ", "))) to the PostgreSQL table, or make the sink append-only.")
        }
    }
}
