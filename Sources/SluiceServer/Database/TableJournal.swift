import Foundation
import Synchronization
import SluiceCore
import SluicePlanner
import SluiceState

/// What keeps tables across crashes: a checkpoint of every table's rows as files, and the
/// write-ahead log of every change since.
///
/// On disk, under the data directory:
/// - `wal/wal-<segment>.log`: ``TableLogRecord``s (``WriteAheadLog``);
/// - `tables/<id>-<segment>.chunks`: table `id`'s rows as of the checkpoint that started WAL
///   segment `segment` (``ChunkCodec`` chunks after a header line, then a CRC-32C);
/// - `tables/MANIFEST`: that segment and the tables it covers, fsynced last: a checkpoint
///   exists only once its manifest does, so a crash while writing one leaves the previous one.
///
/// Recovery loads the manifest's table files and replays the log from its segment on.
package final class TableJournal: Sendable {
    package let dataDirectory: String
    package let log: WriteAheadLog
    /// Log bytes after which a checkpoint is taken (bounding replay at start).
    package let checkpointAfterBytes: UInt64
    private let checkpointState = Mutex<(running: Bool, loggedAtLast: UInt64)>((false, 0))
    /// The last ``keptHistory`` checkpoints, written or failed, oldest first.
    private let recent = Mutex<[CheckpointRecord]>([])
    static let keptHistory = 100

    static let manifestHeader = "SLUICE-TABLES-MANIFEST-1"

    /// Opens the log for appending, in a new segment. Call after ``recover(into:)``.
    package init(dataDirectory: String, checkpointAfterBytes: UInt64 = 256 << 20) throws(SluiceError) {
        self.dataDirectory = dataDirectory
        self.checkpointAfterBytes = checkpointAfterBytes
        try Files.createDirectory("\(dataDirectory)/tables")
        log = try WriteAheadLog(directory: "\(dataDirectory)/wal")
    }

    // MARK: Writing

    /// Logs `record`; returns the position to pass to ``makeDurable(upTo:)``.
    package func append(_ record: TableLogRecord) throws(SluiceError) -> UInt64 {
        try log.append(record.encoded())
    }

    /// Returns once every record up to `position` is fsynced (group commit).
    package func makeDurable(upTo position: UInt64) throws(SluiceError) {
        try log.makeDurable(upTo: position)
    }

    /// True when the log has grown enough since the last checkpoint that one should be taken;
    /// marks one as running, so only one caller gets true until ``finishCheckpoint()``.
    package func claimCheckpointIfDue() -> Bool {
        let logged = log.appendedBytes
        return checkpointState.withLock { state in
            guard !state.running, logged - state.loggedAtLast >= checkpointAfterBytes else { return false }
            state.running = true
            return true
        }
    }

    /// Writes a checkpoint: `tables`' rows as they were when `segment` was started (the caller
    /// rotated the log and took the snapshots in one step, with writes held). Then deletes the
    /// files and log segments the new manifest no longer needs.
    /// `positions` are where the connectors feeding tables stood at that moment. Log segments
    /// from `keepingLogFrom` on stay whatever the checkpoints need (the views' state checkpoint
    /// replays the table writes after its cut).
    package func writeCheckpoint(
        segment: UInt64, tables: [(id: Int, contents: TableStore.CheckpointContents)], positions: [Int: [Int32: Int64]] = [:],
        keepingLogFrom: UInt64? = nil
    ) throws(SluiceError) {
        defer { checkpointState.withLock { $0 = (false, log.appendedBytes) } }
        let started = ContinuousClock.now
        let startedAt = Int64(Date().timeIntervalSince1970 * 1_000_000)
        var written = 0
        do throws(SluiceError) {
            written = try writeFiles(segment: segment, tables: tables, positions: positions, keepingLogFrom: keepingLogFrom)
        } catch {
            record(CheckpointRecord(
                epoch: segment, startedAt: startedAt, bytesWritten: written, tables: tables.count,
                durationMicroseconds: Self.microseconds(since: started), error: error.message))
            throw error
        }
        record(CheckpointRecord(
            epoch: segment, startedAt: startedAt, bytesWritten: written, tables: tables.count,
            durationMicroseconds: Self.microseconds(since: started), error: nil))
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

    /// Writes the checkpoint's files, manifest last, and removes what it supersedes; returns the
    /// bytes written.
    private func writeFiles(
        segment: UInt64, tables: [(id: Int, contents: TableStore.CheckpointContents)], positions: [Int: [Int32: Int64]],
        keepingLogFrom: UInt64?
    ) throws(SluiceError) -> Int {
        let directory = "\(dataDirectory)/tables"
        var written = 0
        for table in tables {
            let path = "\(directory)/\(table.id)-\(segment).chunks"
            let chunks: [Chunk]
            switch table.contents {
            case .file(let file):
                // Unchanged since recovery read its file: a copy of that file.
                written += try file.copy(to: path)
                continue
            case .chunks(let rows):
                chunks = rows
            }
            // Written a piece of about a megabyte at a time, checksummed as it goes.
            written += try Files.writeChecksummed(to: path) {
                (write: (borrowing [UInt8]) throws(SluiceError) -> Void) throws(SluiceError) in
                var piece = TableFile.header
                piece.reserveCapacity(1 << 21)
                for chunk in chunks where !chunk.isEmpty {
                    ChunkCodec.encode(chunk, into: &piece)
                    if piece.count >= 1 << 20 {
                        try write(piece)
                        piece.removeAll(keepingCapacity: true)
                    }
                }
                try write(piece)
            }
        }
        try Failpoints.hit("before-manifest")
        var lines = [Self.manifestHeader, "segment \(segment)"] + tables.map { "table \($0.id)" }
        for (relation, partitions) in positions.sorted(by: { $0.key < $1.key }) {
            lines.append("positions \(relation)" + partitions.sorted { $0.key < $1.key }.map { " \($0.key):\($0.value)" }.joined())
        }
        let manifest = lines.joined(separator: "\n") + "\n"
        try Files.writeChecksummed(Array(manifest.utf8), to: "\(directory)/MANIFEST-\(segment)")
        written += manifest.utf8.count + 4
        try Failpoints.hit("after-manifest")
        // The previous checkpoint stays, with the log after it, in case this one is damaged later.
        let checkpoints = Self.manifestSegments(in: directory)
        let kept = Set(checkpoints.suffix(2))
        for name in (try? Files.list(directory)) ?? [] {
            if let fileSegment = Self.segment(ofFile: name), kept.contains(fileSegment) { continue }
            Files.remove("\(directory)/\(name)")
        }
        log.removeSegments(before: min(kept.min() ?? segment, keepingLogFrom ?? .max))
        return written
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
        /// The table changes logged after the position asked for, in log order; nil when the log
        /// no longer reaches back to it (a table checkpoint came after it).
        package var changesAfterCut: [(table: Int, changes: [(op: ChangeOp, rows: Chunk)])]?
        /// How the views came back (restored from a state checkpoint or rebuilt).
        package var stateSummary: String?

        /// One line for the server's log.
        package var summary: String {
            var parts = [segment == 0 ? "no table checkpoint yet" : "tables from the checkpoint at log segment \(segment)"]
            parts.append("\(recordsReplayed) log records replayed")
            if tornBytes > 0 { parts.append("\(tornBytes) bytes of a torn last record dropped") }
            for reason in damaged { parts.append("passed over a damaged checkpoint (\(reason))") }
            if let stateSummary { parts.append(stateSummary) }
            return parts.joined(separator: ", ")
        }
    }

    /// Fills `stores` (empty, by table id) from the last checkpoint and the log after it, and
    /// keeps the changes logged after `cut` (where a state checkpoint of the views was taken).
    /// The table writes logged after `cut` in the segments before `segment`, or nil when the log
    /// no longer holds all of them or one does not read back.
    private static func changes(
        after cut: LogPosition, before segment: UInt64, wal: String, stores: [Int: TableStore]
    ) -> [(table: Int, changes: [(op: ChangeOp, rows: Chunk)])]? {
        guard let older = try? WriteAheadLog.read(directory: wal, from: cut.segment, before: segment),
              Set(older.segments).isSuperset(of: cut.segment ..< segment) else { return nil }
        var result: [(table: Int, changes: [(op: ChangeOp, rows: Chunk)])] = []
        for (index, bytes) in older.records.enumerated() where older.ends[index] > cut {
            let decoded: TableLogRecord?
            do {
                decoded = try TableLogRecord.decode(bytes, types: { stores[$0]?.types })
            } catch {
                return nil
            }
            guard let record = decoded else { continue }
            if case .write(let table, let changes, _) = record, stores[table] != nil { result.append((table, changes)) }
        }
        return result
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
        let contents = try WriteAheadLog.read(directory: "\(dataDirectory)/wal", from: recovery.segment, repair: true)
        recovery.tornBytes = contents.tornBytes
        if let cut, cut.segment >= recovery.segment { recovery.changesAfterCut = [] }
        if let cut, cut.segment < recovery.segment {
            // The table checkpoint is newer than the state cut (a clean stop writes one): the
            // writes between them are in the tables already, and go to the views from the log
            // segments the table checkpoint kept, when it kept them all.
            recovery.changesAfterCut = changes(after: cut, before: recovery.segment, wal: "\(dataDirectory)/wal", stores: stores)
        }
        // A table dropped in the log (its id may since name a new table) ignores its records
        // up to the drop.
        var lastDrop: [Int: Int] = [:]
        for (index, bytes) in contents.records.enumerated() {
            if let table = TableLogRecord.droppedTable(in: bytes) { lastDrop[table] = index }
        }
        for (index, bytes) in contents.records.enumerated() {
            let record = try TableLogRecord.decode(bytes) { id in
                if let drop = lastDrop[id], drop > index { return nil }
                return stores[id]?.types
            }
            switch record {
            case .write(let table, let changes, let positions):
                guard let store = stores[table] else { continue }
                if let cut, recovery.changesAfterCut != nil, contents.ends[index] > cut {
                    recovery.changesAfterCut?.append((table, changes))
                }
                for change in changes { try store.replay(change.op, change.rows) }
                if let positions { recovery.positions[table] = positions }
            case .dropped(let table):
                recovery.positions[table] = nil
            case nil:
                continue
            }
            recovery.recordsReplayed += 1
        }
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
