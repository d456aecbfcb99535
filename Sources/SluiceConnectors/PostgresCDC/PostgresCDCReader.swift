import Foundation
import SluiceCore
import SluiceDataflow
import SluiceFormats
import SluicePostgresClient

/// The thread of one CDC table (``PostgresCDCTable``): connects, copies the snapshot when the
/// table has no position yet, then applies the replication stream until stopped. A failure
/// (PostgreSQL restarting, the network) is retried with backoff from the last applied position;
/// an upstream table that no longer fits stops the table.
final class PostgresCDCReader: @unchecked Sendable {
    private let options: PostgresCDCOptions
    private let columns: [(name: String, type: DataType)]
    private let primaryKey: [Int]
    private let statistics: SourceStatistics
    private let output: SourceOutput
    private let position: @Sendable () -> UInt64?
    private let setPosition: @Sendable (UInt64) -> Void
    private let confirmed: @Sendable () -> UInt64?
    private let isStopped: @Sendable () -> Bool

    /// Rows waiting to be applied: upserts or deletes (never both, so their order holds).
    private enum Pending { case none, upserts, deletes }
    private var pending = Pending.none
    private var builders: [ColumnBuilder] = []
    /// The upstream relation's id in the stream, and per table column its field in the rows.
    private var relationID: UInt32?
    private var fieldOf: [Int] = []
    private var inTransaction = false
    /// The rows of the message being applied, filled again for each.
    private var tuples = PgOutputTuples()
    /// While a snapshot is copied, what applies its chunks.
    private var snapshotApplier: SnapshotApplier?

    /// An error no retry mends: the upstream table changed under the table.
    private struct Fatal: Error { var error: SluiceError }

    init(
        options: PostgresCDCOptions, columns: [(name: String, type: DataType)], primaryKey: [Int], statistics: SourceStatistics, output: SourceOutput,
        position: @escaping @Sendable () -> UInt64?, setPosition: @escaping @Sendable (UInt64) -> Void, confirmed: @escaping @Sendable () -> UInt64?,
        isStopped: @escaping @Sendable () -> Bool
    ) {
        self.options = options
        self.columns = columns
        self.primaryKey = primaryKey
        self.statistics = statistics
        self.output = output
        self.position = position
        self.setPosition = setPosition
        self.confirmed = confirmed
        self.isStopped = isStopped
        builders = columns.map { ColumnBuilder(type: $0.type) }
    }

    func run() {
        var backoff = Duration.seconds(1)
        while !isStopped() {
            do throws(SluiceError) {
                try session()
                backoff = .seconds(1)
            } catch {
                if case .fatal(let reason) = fatalReason(error) {
                    statistics.status = "stopped: \(reason)"
                    return
                }
                statistics.status = "retrying: \(error.message)"
                resetPending()
                let until = ContinuousClock.now + backoff
                while !isStopped() && ContinuousClock.now < until { Thread.sleep(forTimeInterval: 0.05) }
                backoff = min(backoff * 2, .seconds(30))
            }
        }
    }

    private enum Outcome { case fatal(String), retry }

    /// Errors of the upstream table's shape stop the table; the rest are retried.
    private func fatalReason(_ error: SluiceError) -> Outcome {
        error.code == .invalidTableDefinition ? .fatal(error.message) : .retry
    }

    // MARK: Session

    private func session() throws(SluiceError) {
        var settings = options.settings
        settings.replication = true
        let replication = try PostgresConnection(settings)
        defer { replication.close() }
        var start = position()
        if start != nil {
            // A slot that is gone (dropped upstream) lost the changes since: copy the table again.
            let slot = try replication.execute("SELECT 1 FROM pg_replication_slots WHERE slot_name = '\(options.slot)'")
            if slot.rows.isEmpty {
                notice("replication slot \(options.slot) was gone; the upstream table is copied again")
                start = nil
            }
        }
        if start == nil {
            statistics.status = "copying the upstream table"
            start = try beginFromSnapshot(on: replication)
        }
        guard let start else { return }
        let publications = "'\(PostgresConnection.quoted(options.publication).replacingOccurrences(of: "'", with: "''"))'"
        try replication.startStreaming(
            "START_REPLICATION SLOT \(options.slot) LOGICAL \(LSN(start)) (proto_version '1', publication_names \(publications))")
        statistics.status = "running"
        try stream(on: replication)
    }

    /// Makes a new slot (dropping an old one of the name) and copies the upstream rows in its
    /// snapshot; returns the slot's consistent point, where the stream starts.
    private func beginFromSnapshot(on replication: PostgresConnection) throws(SluiceError) -> UInt64 {
        let existing = try replication.execute("SELECT active_pid FROM pg_replication_slots WHERE slot_name = '\(options.slot)'")
        if let row = existing.rows.first {
            if let pid = row.first ?? nil {
                // A walsender of an earlier run (killed without closing) still holds it.
                _ = try? replication.execute("SELECT pg_terminate_backend(\(Int(pid) ?? 0))")
            }
            try replication.execute("DROP_REPLICATION_SLOT \(options.slot) WAIT")
        }
        let snapshotMode = options.takesSnapshot ? "export" : "nothing"
        let command = replication.serverVersion >= 150_000
            ? "CREATE_REPLICATION_SLOT \(options.slot) LOGICAL pgoutput (SNAPSHOT '\(snapshotMode)')"
            : "CREATE_REPLICATION_SLOT \(options.slot) LOGICAL pgoutput \(options.takesSnapshot ? "EXPORT_SNAPSHOT" : "NOEXPORT_SNAPSHOT")"
        let created = try replication.execute(command)
        guard let row = created.rows.first, row.count >= 3, let point = (row[1]).flatMap(LSN.init) else {
            throw SluiceError(.internalError, "CREATE_REPLICATION_SLOT answered without a consistent point")
        }
        if options.takesSnapshot, let name = row[2] {
            // A snapshot copied again (one a crash interrupted, or after the slot was lost)
            // starts from an empty table: a row deleted upstream meanwhile must not stay.
            if let truncate = output.truncate { try truncate() }
            try copySnapshot(named: name)
        }
        try flush(at: point.value)
        return point.value
    }

    /// The upstream rows as of the slot's snapshot, read on a second connection.
    private func copySnapshot(named snapshot: String) throws(SluiceError) {
        let connection = try PostgresConnection(options.settings)
        defer { connection.close() }
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        try connection.execute("SET TRANSACTION SNAPSHOT '\(snapshot.replacingOccurrences(of: "'", with: "''"))'")
        let names = columns.map { PostgresConnection.quoted($0.name) }.joined(separator: ", ")
        var reader = CopyBatchReader(format: CopyFormat(kind: .text), columnNames: columns.map(\.name))
        // The rows are applied on a thread of their own while this one reads and casts the next.
        let applier = SnapshotApplier(output: output, statistics: statistics)
        snapshotApplier = applier
        defer {
            applier.finish()
            snapshotApplier = nil
        }
        let take = { [self] (batch: CopyBatch) throws(SluiceError) in try self.take(batch) }
        // libpq hands over a row at a time: rows are gathered into pieces of about a megabyte.
        var piece: [UInt8] = []
        piece.reserveCapacity(1 << 20 + 65_536)
        try connection.copyOut("COPY (SELECT \(names) FROM \(options.quotedTable)) TO STDOUT") { (bytes: UnsafeRawBufferPointer) throws(SluiceError) in
            piece.append(contentsOf: bytes)
            if piece.count >= 1 << 20 {
                try reader.read(piece, take)
                piece.removeAll(keepingCapacity: true)
            }
        }
        if !piece.isEmpty { try reader.read(piece, take) }
        try reader.finish(take)
        try flush(at: nil)
        try applier.drain()
        try connection.execute("COMMIT")
    }

    /// A snapshot batch's rows, cast a column at a time into the builders, a chunk's room at a
    /// time. A slice with a value its column does not take is cast again a row at a time, so
    /// that only its bad rows are counted and skipped.
    private func take(_ batch: CopyBatch) throws(SluiceError) {
        pending = .upserts
        var start = 0
        while start < batch.rowCount {
            let end = min(batch.rowCount, start + Chunk.preferredSize - builders[0].count)
            var taken = builders
            builders = []
            let count = taken[0].count
            var failed = false
            for column in columns.indices where !TextCaster.append(batch, rows: start ..< end, field: column, as: columns[column].type, to: &taken[column]) {
                failed = true
                break
            }
            if failed {
                for index in taken.indices { taken[index].truncate(to: count) }
                for row in start ..< end { appendRow(row, of: batch, to: &taken) }
            }
            builders = taken
            start = end
            if builders[0].count >= Chunk.preferredSize { try flush(at: nil) }
        }
    }

    /// One snapshot row cast into `builders`; a row with a value its column does not take is
    /// counted as bad and left out.
    private func appendRow(_ row: Int, of batch: CopyBatch, to builders: inout [ColumnBuilder]) {
        let count = builders[0].count
        for column in columns.indices {
            guard let bytes = batch.field(row, column) else {
                builders[column].appendNull()
                continue
            }
            if let problem = TextCaster.append(bytes, as: columns[column].type, to: &builders[column]) {
                for index in builders.indices { builders[index].truncate(to: count) }
                statistics.reject(
                    partition: 0, offset: -1, message: "column \(columns[column].name): \(problem)", payload: UnsafeRawBufferPointer(start: nil, count: 0),
                    at: Connectors.nowMicroseconds())
                return
            }
        }
    }

    // MARK: Stream

    private func stream(on replication: PostgresConnection) throws(SluiceError) {
        var lastStatus = ContinuousClock.now - .seconds(10)
        var idleEnd: UInt64?
        while !isStopped() {
            var reply = false
            let received = try replication.receive(timeout: .milliseconds(100)) { (raw: UnsafeRawBufferPointer) throws(SluiceError) in
                switch try ReplicationStreamMessage.decode(raw) {
                case .data(_, _, let payload):
                    try apply(UnsafeRawBufferPointer(rebasing: raw[payload]))
                    idleEnd = nil
                case .keepalive(let walEnd, let replyRequested):
                    // Caught up and between transactions: everything before the server's end
                    // has been sent, and none of it is ours.
                    if !inTransaction && pending == .none { idleEnd = walEnd }
                    reply = replyRequested
                }
            }
            if received == .ended { throw SluiceError(.unableToEstablishConnection, "PostgreSQL ended the replication stream") }
            if reply { try sendStatus(on: replication) }
            if ContinuousClock.now - lastStatus >= .seconds(1) {
                if let end = idleEnd, end > (position() ?? 0), !inTransaction, pending == .none {
                    try flush(at: end)
                }
                // Between transactions the server is asked for a keepalive, whose WAL end moves
                // an idle table's position on.
                try sendStatus(on: replication, replyRequested: !inTransaction)
                lastStatus = ContinuousClock.now
            }
        }
    }

    /// Tells the server how far the slot may forget: the durable position.
    private func sendStatus(on replication: PostgresConnection, replyRequested: Bool = false) throws(SluiceError) {
        guard let confirmed = confirmed() else { return }
        try replication.sendStreamMessage(
            ReplicationStreamMessage.statusUpdate(confirmed, replyRequested: replyRequested, now: Connectors.nowMicroseconds()))
    }

    /// Applies one pgoutput message.
    private func apply(_ payload: UnsafeRawBufferPointer) throws(SluiceError) {
        switch try PgOutputMessage.decode(payload, tuples: &tuples) {
        case .begin:
            inTransaction = true
        case .commit(_, let endLSN):
            inTransaction = false
            try flush(at: endLSN)
        case .relation(let relation):
            guard relation.namespace == options.schema, relation.name == options.table else { return }
            try flush(at: nil)
            var fields: [Int] = []
            for column in columns {
                guard let field = relation.columns.firstIndex(where: { $0.name == column.name }) else {
                    throw SluiceError(
                        .invalidTableDefinition,
                        "upstream table \(options.schema).\(options.table ?? "") no longer has column \"\(column.name)\"; the table is stopped and keeps the rows it had",
                        hint: "Drop and create the table again to take the upstream table as it is now.")
                }
                fields.append(field)
            }
            relationID = relation.id
            fieldOf = fields
        case .insert(let relation):
            guard relation == relationID else { return }
            try upsert(tuples.new, in: payload)
        case .update(let relation, let hasOld):
            guard relation == relationID else { return }
            if hasOld, !sameKey(tuples.old, tuples.new, in: payload) { try delete(tuples.old, in: payload) }
            try upsert(tuples.new, in: payload)
        case .delete(let relation):
            guard relation == relationID else { return }
            try delete(tuples.old, in: payload)
        case .truncate(let relations):
            guard let relationID, relations.contains(relationID), let truncate = output.truncate else { return }
            try flush(at: nil)
            try truncate()
        case .other:
            break
        }
    }

    private func sameKey(_ old: PgOutputTuple, _ new: PgOutputTuple, in payload: UnsafeRawBufferPointer) -> Bool {
        for column in primaryKey {
            let field = fieldOf[column]
            guard field < old.kinds.count, field < new.kinds.count else { return false }
            if old.kinds[field] != new.kinds[field] { return false }
            if !payload[old.ranges[field]].elementsEqual(payload[new.ranges[field]]) { return false }
        }
        return true
    }

    /// Adds a row of `tuple` (all the table's columns) to the pending upserts; one with an
    /// unchanged TOAST value is applied at once with that value taken from the table.
    private func upsert(_ tuple: PgOutputTuple, in payload: UnsafeRawBufferPointer) throws(SluiceError) {
        if pending == .deletes { try flush(at: nil) }
        pending = .upserts
        var unchanged: [Int] = []
        guard try append(tuple, in: payload, keyOnly: false, unchanged: &unchanged) else { return }
        if !unchanged.isEmpty {
            try applyKeepingUnchanged(unchanged)
        } else if builders[0].count >= Chunk.preferredSize {
            try flush(at: nil)
        }
    }

    private func delete(_ tuple: PgOutputTuple, in payload: UnsafeRawBufferPointer) throws(SluiceError) {
        if pending == .upserts { try flush(at: nil) }
        pending = .deletes
        var unchanged: [Int] = []
        guard try append(tuple, in: payload, keyOnly: true, unchanged: &unchanged) else { return }
        if builders[0].count >= Chunk.preferredSize { try flush(at: nil) }
    }

    /// Casts `tuple`'s fields into the builders (only the key's for a delete, NULL elsewhere);
    /// false when a value does not fit its column (the row is counted and skipped).
    private func append(_ tuple: PgOutputTuple, in payload: UnsafeRawBufferPointer, keyOnly: Bool, unchanged: inout [Int]) throws(SluiceError) -> Bool {
        let count = builders[0].count
        for column in columns.indices {
            let field = fieldOf[column]
            guard field < tuple.kinds.count else {
                throw PgOutputReader.damaged("a row with fewer fields than its relation")
            }
            if keyOnly && !primaryKey.contains(column) {
                builders[column].appendNull()
                continue
            }
            switch tuple.kinds[field] {
            case .null:
                builders[column].appendNull()
            case .unchangedToast:
                builders[column].appendNull()
                unchanged.append(column)
            case .text:
                if let problem = TextCaster.append(UnsafeRawBufferPointer(rebasing: payload[tuple.ranges[field]]), as: columns[column].type, to: &builders[column]) {
                    for index in builders.indices { builders[index].truncate(to: count) }
                    statistics.reject(
                        partition: 0, offset: Int64(bitPattern: position() ?? 0), message: "column \(columns[column].name): \(problem)",
                        payload: UnsafeRawBufferPointer(rebasing: payload[tuple.ranges[field]]), at: Connectors.nowMicroseconds())
                    return false
                }
            case .binary:
                throw PgOutputReader.damaged("a binary field, which this stream did not ask for")
            }
        }
        return true
    }

    /// The last row of the builders lacks `columns`' values (unchanged TOAST): the rows before
    /// it are applied, then it, with those values from the row the table holds.
    private func applyKeepingUnchanged(_ unchangedColumns: [Int]) throws(SluiceError) {
        let rowIndex = builders[0].count - 1
        let all = Chunk(columns: builders.map { $0.finish() }, count: builders[0].count)
        builders = columns.map { ColumnBuilder(type: $0.type) }
        pending = .none
        if rowIndex > 0 {
            try output.deliver(all.gather(Array(0 ..< rowIndex)), {})
            statistics.rowsRead.add(rowIndex, ordering: .relaxed)
        }
        var row = all.gather([rowIndex])
        if let lookup = output.lookup {
            let (stored, positions) = lookup(row)
            if let found = positions.first ?? nil {
                var patched = row.columns
                for column in unchangedColumns {
                    var builder = ColumnBuilder(type: columns[column].type, capacity: 1)
                    builder.append(stored.columns[column].value(at: found))
                    patched[column] = builder.finish()
                }
                row = Chunk(columns: patched, count: 1)
            }
        }
        try output.deliver(row, {})
        statistics.rowsRead.add(1, ordering: .relaxed)
    }

    /// Applies the pending rows; with `position`, moves the table's position there in the same
    /// step (with no rows pending, the position alone).
    private func flush(at position: UInt64?) throws(SluiceError) {
        let count = builders[0].count
        let advance: () -> Void = { [setPosition] in if let position { setPosition(position) } }
        if count == 0 {
            if position != nil { try output.deliver(Chunk(columns: builders.map { $0.finish() }, count: 0), advance) }
            pending = .none
            return
        }
        let chunk = Chunk(columns: builders.map { $0.finish() }, count: count)
        builders = columns.map { ColumnBuilder(type: $0.type) }
        if let applier = snapshotApplier, position == nil {
            try applier.apply(chunk)
            pending = .none
            return
        }
        switch pending {
        case .deletes:
            guard let deleteKeys = output.deleteKeys else { throw SluiceError(.internalError, "a CDC table without deletes") }
            try deleteKeys(chunk, advance)
        case .upserts, .none:
            try output.deliver(chunk, advance)
        }
        // Counted once applied, so that a reader of the count finds the rows in the table.
        statistics.rowsRead.add(count, ordering: .relaxed)
        pending = .none
    }

    private func resetPending() {
        builders = columns.map { ColumnBuilder(type: $0.type) }
        pending = .none
        relationID = nil
        inTransaction = false
    }

    private func notice(_ text: String) {
        statistics.status = text
    }
}

/// Casts PostgreSQL's text output of a value into a column builder: the common types by hand,
/// the rest through ``Value/init(parsingText:as:zone:)``. Returns what is wrong, or nil.
enum TextCaster {
    static func append(_ bytes: UnsafeRawBufferPointer, as type: DataType, to builder: inout ColumnBuilder) -> String? {
        switch type {
        case .varchar:
            builder.append(bytes: bytes)
            return nil
        case .int64:
            if let value = integer(bytes) {
                builder.append(int64: value)
                return nil
            }
        case .int32:
            if let value = integer(bytes), let narrow = Int32(exactly: value) {
                builder.append(int32: narrow)
                return nil
            }
        case .int16:
            if let value = integer(bytes), let narrow = Int16(exactly: value) {
                builder.append(int16: narrow)
                return nil
            }
        case .boolean:
            if bytes.count == 1 && (bytes[0] == UInt8(ascii: "t") || bytes[0] == UInt8(ascii: "f")) {
                builder.append(bool: bytes[0] == UInt8(ascii: "t"))
                return nil
            }
        case .date:
            if let days = JSONTemporal.parseDate(bytes.assumingMemoryBound(to: UInt8.self)) {
                builder.append(int32: days)
                return nil
            }
        case .timestamp, .timestamptz:
            // PostgreSQL writes ISO timestamps (`2024-01-01 00:00:00.001+00`); `infinity` and
            // BC years take the general parser.
            if let fields = JSONTemporal.parseTimestamp(bytes.assumingMemoryBound(to: UInt8.self)) {
                let offset = type == .timestamptz ? Int64(fields.zoneOffset ?? 0) * 1_000_000 : 0
                builder.append(int64: fields.localMicroseconds - offset)
                return nil
            }
        default:
            break
        }
        do throws(SluiceError) {
            builder.append(try Value(parsingText: String(decoding: bytes, as: UTF8.self), as: type))
            return nil
        } catch {
            return error.message
        }
    }

    /// Casts field `field` of `rows` of `batch` into `builder`, the type looked at once for the
    /// column; false at the first value the type does not take (the builder then holds part
    /// of the rows: the caller truncates it).
    static func append(_ batch: CopyBatch, rows: Range<Int>, field: Int, as type: DataType, to builder: inout ColumnBuilder) -> Bool {
        switch type {
        case .varchar:
            return each(batch, rows, field, &builder) { bytes, builder in
                builder.append(bytes: bytes)
                return true
            }
        case .int64:
            return each(batch, rows, field, &builder) { bytes, builder in
                guard let value = integer(bytes) else { return false }
                builder.append(int64: value)
                return true
            }
        case .int32:
            return each(batch, rows, field, &builder) { bytes, builder in
                guard let value = integer(bytes), let narrow = Int32(exactly: value) else { return false }
                builder.append(int32: narrow)
                return true
            }
        case .boolean:
            return each(batch, rows, field, &builder) { bytes, builder in
                guard bytes.count == 1 && (bytes[0] == UInt8(ascii: "t") || bytes[0] == UInt8(ascii: "f")) else { return false }
                builder.append(bool: bytes[0] == UInt8(ascii: "t"))
                return true
            }
        case .timestamp, .timestamptz:
            let isZoned = type == .timestamptz
            return each(batch, rows, field, &builder) { bytes, builder in
                guard let fields = JSONTemporal.parseTimestamp(bytes.assumingMemoryBound(to: UInt8.self)) else { return false }
                builder.append(int64: fields.localMicroseconds - (isZoned ? Int64(fields.zoneOffset ?? 0) * 1_000_000 : 0))
                return true
            }
        default:
            return each(batch, rows, field, &builder) { bytes, builder in append(bytes, as: type, to: &builder) == nil }
        }
    }

    /// Casts field `field` of each of `rows` with `cast` (NULL appended as NULL); false at the
    /// first value `cast` refuses.
    @inline(__always)
    private static func each(
        _ batch: CopyBatch, _ rows: Range<Int>, _ field: Int, _ builder: inout ColumnBuilder,
        _ cast: (UnsafeRawBufferPointer, inout ColumnBuilder) -> Bool
    ) -> Bool {
        for row in rows {
            guard let bytes = batch.field(row, field) else {
                builder.appendNull()
                continue
            }
            if !cast(bytes, &builder) { return false }
        }
        return true
    }

    /// An optionally signed run of ASCII digits that fits 64 bits.
    private static func integer(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard !bytes.isEmpty, bytes.count <= 20 else { return nil }
        var index = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < bytes.count else { return nil }
        var value: Int64 = 0
        while index < bytes.count {
            let digit = Int64(bytes[index]) - 48
            guard digit >= 0 && digit <= 9 else { return nil }
            let (scaled, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? scaled.subtractingReportingOverflow(digit) : scaled.addingReportingOverflow(digit)
            guard !overflow && !overflow2 else { return nil }
            value = next
            index += 1
        }
        return value
    }
}

/// Applies a snapshot's chunks on a thread of its own, in order, while the reader reads and casts
/// the next ones: the copy's two halves on two cores. Up to ``depth`` chunks (a couple of
/// megabytes, counted as source buffers) wait, so that the reader and PostgreSQL go on while
/// a checkpoint holds the table's writes. The first failure stops it and is thrown to the
/// reader at its next chunk or ``drain()``.
private final class SnapshotApplier: @unchecked Sendable {
    private let output: SourceOutput
    private let statistics: SourceStatistics
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queue: [Chunk] = []
    private var queuedBytes = 0
    private let memory = MemoryShare(.sourceBuffers)
    private var applying = false
    private var failure: SluiceError?
    private var finished = false
    private static let depth = 256

    init(output: SourceOutput, statistics: SourceStatistics) {
        self.output = output
        self.statistics = statistics
        let thread = Thread { [self] in run() }
        thread.name = "sluice-cdc-snapshot"
        thread.start()
    }

    /// Queues `chunk`, waiting while ``depth`` chunks wait.
    func apply(_ chunk: Chunk) throws(SluiceError) {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= Self.depth && failure == nil { condition.wait() }
        if let failure { throw failure }
        queue.append(chunk)
        queuedBytes += chunk.byteCount
        memory.set(queuedBytes)
        condition.broadcast()
    }

    /// Returns once every queued chunk is applied; throws the first failure.
    func drain() throws(SluiceError) {
        condition.lock()
        defer { condition.unlock() }
        while (!queue.isEmpty || applying) && failure == nil { condition.wait() }
        if let failure { throw failure }
    }

    /// Ends the thread (once the chunk it applies, if any, is in); chunks still queued are dropped.
    func finish() {
        condition.lock()
        finished = true
        queue.removeAll()
        queuedBytes = 0
        memory.set(0)
        condition.broadcast()
        while applying { condition.wait() }
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !finished { condition.wait() }
            if finished {
                condition.unlock()
                return
            }
            let chunk = queue.removeFirst()
            queuedBytes -= chunk.byteCount
            memory.set(queuedBytes)
            applying = true
            condition.unlock()
            var error: SluiceError?
            do throws(SluiceError) {
                try output.deliver(chunk, {})
                // Counted once applied, so that a reader of the count finds the rows in the table.
                statistics.rowsRead.add(chunk.count, ordering: .relaxed)
                // (A test's SIGKILL in the middle of a snapshot.)
                try ConnectorFailpoints.hit("cdc-snapshot-chunk")
            } catch let thrown {
                error = thrown
            }
            condition.lock()
            applying = false
            if let error {
                failure = error
                queue.removeAll()
                queuedBytes = 0
                memory.set(0)
            }
            condition.broadcast()
            condition.unlock()
        }
    }
}

