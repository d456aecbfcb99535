import Foundation
import Synchronization
import SluiceCore
import SluicePlanner
import SluiceState

/// What keeps tables across crashes: the write-ahead log of every change, and the state
/// checkpoints (``StateCheckpoints``), which hold every table's rows at their cut.
///
/// On disk, under the data directory:
/// - `wal/wal-<segment>.log`: ``TableLogRecord``s (``WriteAheadLog``); a checkpoint's cut starts a
///   new segment when the current one has passed ``segmentBytes``, and once two checkpoints that
///   hold the tables are written, the segments before the older one's cut are deleted;
/// - `tables/<id>-<segment>.chunks` and `tables/MANIFEST-<segment>`: table checkpoints as an
///   earlier version wrote them (every table whole, at a log segment), still read at a start
///   whose state checkpoints do not hold the tables, and deleted once two of them do.
///
/// Recovery restores the tables from the state checkpoint and replays the log after its cut.
package final class TableJournal: Sendable {
    package let dataDirectory: String
    package let log: WriteAheadLog
    /// Bytes of a log segment past which a checkpoint's cut starts a new one.
    package let segmentBytes: Int64
    /// The last ``keptHistory`` checkpoints, written or failed, oldest first.
    private let recent = Mutex<[CheckpointRecord]>([])
    static let keptHistory = 100

    static let manifestHeader = "SLUICE-TABLES-MANIFEST-1"

    /// Opens the log for appending, in a new segment. Call after recovery.
    package init(dataDirectory: String, segmentBytes: Int64 = 64 << 20) throws(SluiceError) {
        self.dataDirectory = dataDirectory
        self.segmentBytes = segmentBytes
        log = try WriteAheadLog(directory: "\(dataDirectory)/wal")
        statementNumbers = Atomic(UInt64(Date().timeIntervalSince1970 * 1_000_000))
    }

    // MARK: Writing

    /// Numbers for statements logged in parts: from the time the log was opened, in
    /// microseconds, so a number is never reused by a later start, whose log segments follow.
    private let statementNumbers: Atomic<UInt64>

    /// A new statement number for ``TableLogRecord/part(table:statement:changes:)`` records.
    package func nextStatement() -> UInt64 {
        statementNumbers.add(1, ordering: .relaxed).newValue
    }

    /// Starts a new log segment when the current one has passed ``segmentBytes``: a long
    /// statement's parts then fill segments of the usual size (recovery reads a segment at a time).
    package func rotateIfFull() throws(SluiceError) {
        if log.position.offset >= segmentBytes { try log.rotate() }
    }

    /// Logs `record`; returns the position to pass to ``makeDurable(upTo:)``.
    package func append(_ record: TableLogRecord) throws(SluiceError) -> UInt64 {
        try log.append(record.encoded())
    }

    /// Returns once every record up to `position` is fsynced (group commit).
    package func makeDurable(upTo position: UInt64) throws(SluiceError) {
        try log.makeDurable(upTo: position)
    }

    /// Where a checkpoint's cut leaves the log (called with no write in progress): the current
    /// position, in a new segment when the current one has grown past ``segmentBytes`` (so the
    /// segments before it can go once checkpoints hold their records).
    package func cut() -> LogPosition {
        if log.position.offset >= segmentBytes { _ = try? log.rotate() }
        return log.position
    }

    /// Drops what checkpoint `written` and the one kept before it no longer need: the log
    /// segments before the older one's cut and the table checkpoint files of an earlier version,
    /// once both hold the tables. (With no checkpoint before it, nothing goes: the log is what a
    /// damaged single checkpoint falls back to.)
    package func checkpointWritten(_ written: StateCheckpoints.Written) {
        guard written.manifest.includesTables, let previous = written.previous, previous.includesTables else { return }
        log.removeSegments(before: previous.log.segment)
        let directory = "\(dataDirectory)/tables"
        for name in (try? Files.list(directory)) ?? [] { Files.remove("\(directory)/\(name)") }
    }

    /// The recent checkpoints, oldest first (`sluice_checkpoints`).
    package var history: [CheckpointRecord] { recent.withLock { $0 } }

    /// Adds a checkpoint, of the tables or of the views' state, to the history.
    package func record(_ checkpoint: CheckpointRecord) {
        recent.withLock { recent in
            recent.append(checkpoint)
            if recent.count > Self.keptHistory { recent.removeFirst(recent.count - Self.keptHistory) }
        }
    }

    package static func microseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
    }

    /// The segments of the checkpoint manifests in `directory`, ascending.
    static func manifestSegments(in directory: String) -> [UInt64] {
        Files.numbers(in: directory, prefix: "MANIFEST-")
    }

    /// The checkpoint a file of the tables directory belongs to (`MANIFEST-<s>`, `<id>-<s>.chunks`).
    static func segment(ofFile name: String) -> UInt64? {
        if name.hasPrefix("MANIFEST-") { return UInt64(name.dropFirst("MANIFEST-".count)) }
        guard name.hasSuffix(".chunks"), let dash = name.lastIndex(of: "-") else { return nil }
        return UInt64(name[name.index(after: dash)...].dropLast(".chunks".count))
    }

    // MARK: Recovery

    /// What recovery found and did.
    package struct Recovery {
        /// The log segment the checkpoint starts replay at (0: no checkpoint yet).
        package var segment: UInt64 = 0
        package var recordsReplayed = 0
        package var tornBytes = 0
        /// The last logged positions of each connector-fed table.
        package var positions: [Int: [Int32: Int64]] = [:]
        /// Checkpoints that could not be read and were passed over, and why.
        package var damaged: [String] = []
        /// The table changes logged after the position asked for, read back from the log as
        /// they are gone through; nil when the log no longer reaches back to it (a table
        /// checkpoint came after it).
        package var changesAfterCut: LoggedChanges?
        /// How the views came back (restored from a state checkpoint or rebuilt).
        package var stateSummary: String?
        /// The state checkpoint the tables came from (nil: a table checkpoint, or none).
        package var stateCheckpoint: UInt64?

        /// One line for the server's log.
        package var summary: String {
            var parts = [
                stateCheckpoint.map { "tables from state checkpoint \($0)" }
                    ?? (segment == 0 ? "no checkpoint yet" : "tables from the table checkpoint at log segment \(segment)")
            ]
            parts.append("\(recordsReplayed) log records replayed")
            if tornBytes > 0 { parts.append("\(tornBytes) bytes of a torn last record dropped") }
            for reason in damaged { parts.append("passed over a damaged checkpoint (\(reason))") }
            if let stateSummary { parts.append(stateSummary) }
            return parts.joined(separator: ", ")
        }
    }

    package static func recover(dataDirectory: String, into stores: [Int: TableStore], changesAfter cut: LogPosition? = nil) throws(SluiceError) -> Recovery {
        var recovery = Recovery()
        let directory = "\(dataDirectory)/tables"
        let checkpoints = manifestSegments(in: directory)
        if checkpoints.isEmpty {
            // Written before the log existed: one file per table, saved at a clean stop.
            for (id, store) in stores where Files.exists("\(directory)/\(id).chunks") {
                let legacy = try Files.read("\(directory)/\(id).chunks")
                let loaded = legacy.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Result<Void, SluiceError> in
                    do throws(SluiceError) {
                        try load(bytes, path: "\(directory)/\(id).chunks", into: store)
                        return .success(())
                    } catch {
                        return .failure(error)
                    }
                }
                try loaded.get()
            }
        }
        // The newest checkpoint that reads back whole; a damaged one falls back to the one before.
        var failures: [SluiceError] = []
        for segment in checkpoints.reversed() {
            do {
                recovery.positions = try loadCheckpoint(segment, directory: directory, into: stores)
                recovery.segment = segment
                failures = []
                break
            } catch {
                failures.append(error)
                recovery.damaged.append(error.message)
                for store in stores.values { store.truncate() }
            }
        }
        if let failure = failures.last {
            throw SluiceError(
                .dataCorrupted, "no table checkpoint in \(directory) can be read: \(failure.message)",
                detail: failures.map(\.message).joined(separator: "; "))
        }
        let wal = "\(dataDirectory)/wal"
        let summary = try LogSummary(wal: wal, from: recovery.segment, repair: true, counting: cut)
        if recovery.segment == 0, let first = summary.extent.segments.first, first > 1 {
            // The segments before it went with checkpoints, none of which reads back.
            throw SluiceError(
                .dataCorrupted, "the write-ahead log in \(dataDirectory)/wal begins at segment \(first), and no checkpoint that covers what came before it can be read",
                detail: recovery.damaged.joined(separator: "; "))
        }
        recovery.tornBytes = summary.extent.tornBytes
        if let cut {
            // When the table checkpoint is newer than the state cut (a clean stop writes one),
            // the writes between them are in the tables already, and go to the views from the
            // log segments the table checkpoint kept, when it kept them all.
            // (From the replay's own summary when both begin at the cut's segment.)
            let types = stores.mapValues(\.types)
            recovery.changesAfterCut = cut.segment == recovery.segment
                ? LoggedChanges(wal: wal, cut: cut, types: types, summary: summary)
                : try LoggedChanges(wal: wal, cut: cut, types: types)
        }
        try replay(wal: wal, from: recovery.segment, after: nil, summary: summary, into: stores, &recovery)
        return recovery
    }

    /// Applies the records of the log from segment `first` that end after `start` (all, when
    /// nil) to `stores`, a record at a time, and records each connector-fed table's last
    /// positions. `summary` is of the same segments.
    private static func replay(
        wal: String, from first: UInt64, after start: LogPosition?, summary: LogSummary, into stores: [Int: TableStore], _ recovery: inout Recovery
    ) throws(SluiceError) {
        var index = 0
        _ = try WriteAheadLog.scan(directory: wal, from: first) { (bytes, end) throws(SluiceError) in
            defer { index += 1 }
            if let start, end <= start { return }
            let record = try TableLogRecord.decode(bytes) { id in summary.takes(table: id, at: index) ? stores[id]?.types : nil }
            switch record {
            case .write(let table, let changes, let positions):
                guard let store = stores[table] else { return }
                for change in changes { try store.replay(change.op, change.rows) }
                if let positions { recovery.positions[table] = positions }
            case .part(let table, let statement, let changes):
                // A statement logged in parts counts only if its end was logged before the crash.
                guard let store = stores[table], summary.committed.contains(statement) else { return }
                for change in changes { try store.replay(change.op, change.rows) }
            case .committed:
                return
            case .dropped(let table):
                recovery.positions[table] = nil
            case nil:
                return
            }
            recovery.recordsReplayed += 1
        }
    }

    /// Fills `stores` (empty, by table id) from state checkpoint `manifest` (which holds every
    /// table there was at its cut: `chains`, each table's) and the log after its cut, whose
    /// writes it keeps in `changesAfterCut` for the views. A table the log drops after the cut
    /// does not take the checkpoint's rows (its id now names a table created after the drop).
    package static func recover(
        dataDirectory: String, into stores: [Int: TableStore], stateCheckpoint manifest: StateManifest,
        chains: [Int: [FragmentCheckpoint]], generation: Int
    ) throws(SluiceError) -> Recovery {
        var recovery = Recovery()
        recovery.stateCheckpoint = manifest.sequence
        let cut = manifest.log
        let wal = "\(dataDirectory)/wal"
        let summary = try LogSummary(wal: wal, from: cut.segment, repair: true, counting: cut)
        let segments = summary.extent.segments
        if let first = segments.first, first != cut.segment || segments != Array(first ... segments.last!) {
            throw SluiceError(
                .dataCorrupted, "the write-ahead log in \(wal) does not hold every segment from \(cut.segment), where state checkpoint \(manifest.sequence) was cut")
        }
        recovery.tornBytes = summary.extent.tornBytes
        recovery.changesAfterCut = LoggedChanges(wal: wal, cut: cut, types: stores.mapValues(\.types), summary: summary)
        for (id, store) in stores where manifest.holds(table: id) && !summary.droppedAfterCut.contains(id) {
            guard let chain = chains[id] else { continue }
            do throws(SluiceError) {
                try store.restore(from: try FragmentCheckpoint.contents(of: chain), generation: generation)
            } catch {
                throw SluiceError(.dataCorrupted, "table \(id) in state checkpoint \(manifest.sequence) cannot be restored: \(error.message)")
            }
            if let positions = manifest.positions[id] { recovery.positions[id] = positions }
        }
        try replay(wal: wal, from: cut.segment, after: cut, summary: summary, into: stores, &recovery)
        return recovery
    }

    /// Loads checkpoint `segment`'s tables into `stores`; returns its connectors' positions.
    private static func loadCheckpoint(
        _ segment: UInt64, directory: String, into stores: [Int: TableStore]
    ) throws(SluiceError) -> [Int: [Int32: Int64]] {
        let path = "\(directory)/MANIFEST-\(segment)"
        let lines = String(decoding: try Files.readChecksummed(path), as: UTF8.self).split(separator: "\n").map(String.init)
        guard lines.first == manifestHeader, lines.count >= 2, lines[1] == "segment \(segment)" else {
            throw SluiceError(.dataCorrupted, "table checkpoint manifest \(path) is malformed")
        }
        let covered = Set(lines.dropFirst(2).compactMap { $0.hasPrefix("table ") ? Int($0.dropFirst(6)) : nil })
        // Each file is checked whole now and read in at its table's first use.
        for (id, store) in stores where covered.contains(id) {
            store.restore(from: try TableFile.open("\(directory)/\(id)-\(segment).chunks", types: store.types))
        }
        var positions: [Int: [Int32: Int64]] = [:]
        for line in lines where line.hasPrefix("positions ") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, let relation = Int(fields[1]) else { throw SluiceError(.dataCorrupted, "table checkpoint manifest \(path) is malformed") }
            var partitions: [Int32: Int64] = [:]
            for field in fields.dropFirst(2) {
                let pair = field.split(separator: ":")
                guard pair.count == 2, let partition = Int32(pair[0]), let offset = Int64(pair[1]) else {
                    throw SluiceError(.dataCorrupted, "table checkpoint manifest \(path) is malformed")
                }
                partitions[partition] = offset
            }
            positions[relation] = partitions
        }
        return positions
    }

    private static func load(_ bytes: UnsafeRawBufferPointer, path: String, into store: TableStore) throws(SluiceError) {
        guard bytes.starts(with: TableFile.header) else { throw SluiceError(.dataCorrupted, "table file \(path) has an unknown format") }
        var offset = TableFile.header.count
        do {
            while offset < bytes.count {
                try store.insert(try ChunkCodec.decode(bytes, offset: &offset, types: store.types))
            }
        } catch {
            throw SluiceError(.dataCorrupted, "table file \(path) is damaged: \(error.message)")
        }
    }
}

/// What a first pass over the log finds, without decoding any rows: the statements whose end
/// was logged (only their parts count), where each table was dropped last (its id may since
/// name a new table, which must not take the old one's records), and, past a cut, how many
/// records change tables.
struct LogSummary {
    private(set) var committed = Set<UInt64>()
    /// The index of the record that dropped each table last, counted from the first record read.
    private(set) var lastDrops: [Int: Int] = [:]
    /// The tables dropped after the cut.
    private(set) var droppedAfterCut = Set<Int>()
    /// The writes after the cut, and the parts after it of each statement.
    private(set) var writesAfterCut = 0
    private var partsAfterCut: [UInt64: Int] = [:]
    let extent: WriteAheadLog.Extent

    init(wal: String, from first: UInt64, repair: Bool = false, counting cut: LogPosition? = nil) throws(SluiceError) {
        var index = 0
        var committed = Set<UInt64>()
        var lastDrops: [Int: Int] = [:]
        var droppedAfterCut = Set<Int>()
        var writesAfterCut = 0
        var partsAfterCut: [UInt64: Int] = [:]
        extent = try WriteAheadLog.scan(directory: wal, from: first, repair: repair) { (bytes, end) throws(SluiceError) in
            defer { index += 1 }
            let afterCut = cut.map { end > $0 } ?? false
            if let statement = TableLogRecord.committedStatement(in: bytes) { committed.insert(statement) }
            if let table = TableLogRecord.droppedTable(in: bytes) {
                lastDrops[table] = index
                if afterCut { droppedAfterCut.insert(table) }
            }
            guard afterCut else { return }
            if TableLogRecord.isWrite(bytes) { writesAfterCut += 1 }
            if let statement = TableLogRecord.partStatement(in: bytes) { partsAfterCut[statement, default: 0] += 1 }
        }
        (self.committed, self.lastDrops, self.droppedAfterCut) = (committed, lastDrops, droppedAfterCut)
        (self.writesAfterCut, self.partsAfterCut) = (writesAfterCut, partsAfterCut)
    }

    /// Whether record `index` may apply to table `table` (no later record dropped it).
    func takes(table: Int, at index: Int) -> Bool {
        lastDrops[table].map { $0 <= index } ?? true
    }

    /// The records after the cut that change tables.
    var changesAfterCut: Int {
        writesAfterCut + partsAfterCut.reduce(0) { $0 + (committed.contains($1.key) ? $1.value : 0) }
    }
}

/// The table writes logged after a state checkpoint's cut, which the views restored from it
/// have not seen: read back from the log, a record at a time, each time they are gone
/// through, so that a crash after a big statement does not hold its rows in memory at start-up.
package struct LoggedChanges {
    private let wal: String
    private let cut: LogPosition
    private let types: [Int: [DataType]]
    private let summary: LogSummary
    /// The records after the cut that change tables.
    package var count: Int { summary.changesAfterCut }

    /// The changes after `cut`, of tables of `types`, where `summary` was made from `cut`'s segment.
    init(wal: String, cut: LogPosition, types: [Int: [DataType]], summary: LogSummary) {
        self.wal = wal
        self.cut = cut
        self.types = types
        self.summary = summary
    }

    /// The changes after `cut`; nil when the log no longer holds every segment from the cut's
    /// on (a table checkpoint came after it and the segments before it went).
    init?(wal: String, cut: LogPosition, types: [Int: [DataType]]) throws(SluiceError) {
        let summary = try LogSummary(wal: wal, from: cut.segment, counting: cut)
        let segments = summary.extent.segments
        guard segments.first == cut.segment, segments == Array(cut.segment ... segments.last!) else { return nil }
        self.init(wal: wal, cut: cut, types: types, summary: summary)
    }

    /// Hands each table write after the cut, in log order, to `body`.
    package func forEach(_ body: (_ table: Int, _ changes: [(op: ChangeOp, rows: Chunk)]) throws(SluiceError) -> Void) throws(SluiceError) {
        var index = 0
        let (cut, types, summary) = (self.cut, self.types, self.summary)
        _ = try WriteAheadLog.scan(directory: wal, from: cut.segment) { (bytes, end) throws(SluiceError) in
            defer { index += 1 }
            guard end > cut else { return }
            switch try TableLogRecord.decode(bytes, types: { id in summary.takes(table: id, at: index) ? types[id] : nil }) {
            case .write(let table, let changes, _): try body(table, changes)
            case .part(let table, let statement, let changes) where summary.committed.contains(statement): try body(table, changes)
            default: break
            }
        }
    }
}
