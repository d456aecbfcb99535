import Foundation
import SluiceCore
import SluiceDataflow
import SluiceFormats
import SluiceLakehouse
import SluiceState

/// Writes an upsert sink's epoch parts (``IcebergUpsertBatch``) so that every Iceberg reader
/// reads the table at once: a key whose row the sink wrote before is deleted by position (the
/// ``IcebergRowIndex`` knows where), and equality deletes are kept for what only they can
/// delete — a row the sink did not write (a table that had rows before the sink, or another
/// writer's).
///
/// Each part comes with a *fallback*: an equality delete file of every key it touched that it
/// does not already delete by equality, committed only if another writer changed the table
/// between the part's prepare and its commit in a way the part cannot answer by position (added
/// rows, deleted some), so a row is never left undeleted.
/// The index follows such rewrites before the next part (``catchUp(_:writers:)``).
///
/// Used on the sink's fragment thread only.
final class IcebergUpsertWriter {
    private(set) var index = IcebergRowIndex()
    let sinkID: String
    /// The primary key's indexes among the sink's columns.
    let keyColumns: [Int]

    /// What a fallback equality delete file's name ends in (before `.parquet`).
    static let fallbackKind = "-fallback-deletes"
    /// What a position delete file's name ends in. Before it (and before ``fallbackKind``),
    /// `-seen-<snapshot id>` names the table snapshot the index had followed when the part was
    /// written.
    static let positionDeletesKind = "-pos-deletes"

    init(sinkID: String, keyColumns: [Int]) {
        self.sinkID = sinkID
        self.keyColumns = keyColumns
    }

    /// The writers a part needs: its data files, its equality deletes, and the fallback.
    struct Writers {
        var data: IcebergDataWriter
        var equalityDeletes: IcebergDataWriter
        var fallback: IcebergDataWriter
        var fileIO: any FileIO
        var compression: ParquetCompression
        /// The table's fields of the key columns.
        var keyFields: [IcebergNestedField]
    }

    /// Writes one part: the equality deletes, fallback and position deletes of the keys it
    /// touched, then its rows; records where the rows went. All or nothing: on failure nothing
    /// is recorded (the caller drops the files).
    func write(
        _ result: IcebergUpsertResult, epoch: UInt64, loaded: IcebergLoadedTable, writers: Writers
    ) throws(SluiceError) -> [IcebergDataFile] {
        var progress = try catchUp(loaded, writers: writers)
        let touched = result.touched
        var keyColumns: [Column] = []
        for (position, column) in self.keyColumns.enumerated() {
            keyColumns.append(try IcebergDataWriter.convert(touched.columns[column], to: try writers.keyFields[position].type.sluiceType()))
        }
        // The touched keys in one buffer, and each built in one reused array for its lookup.
        var keys = KeyBuffer()
        keys.reserve(additionalKeys: touched.count)
        var key: [UInt8] = []
        var existed = [Bool](repeating: false, count: touched.count)
        var positionPicks: [Int] = []
        var targets: [(file: Int64, position: Int64)] = []
        var equalityPicks: [Int] = []
        var changes = IcebergRowIndex.Changes()
        let partitioned = writers.data.partitioner != nil
        for row in 0 ..< touched.count {
            key.removeAll(keepingCapacity: true)
            IcebergRowIndex.appendKey(keyColumns, row: row, to: &key)
            keys.append(key)
            if let at = index.position(of: key) {
                existed[row] = true
                // A retraction's row is the version the table holds, so its partition is the
                // data file's; an insert over a key (an append-only input with a primary key)
                // tells no partition, and a partitioned table deletes it by equality.
                if result.retracts[row] || !partitioned {
                    positionPicks.append(row)
                    targets.append(at)
                } else {
                    equalityPicks.append(row)
                }
                if !result.present[row] { changes.remove(key) }
            } else if result.retracts[row] || !progress.coversTable {
                equalityPicks.append(row)
            }
        }
        var fallbackPicks: [Int] = []
        var nextEquality = 0
        for row in 0 ..< touched.count {
            if nextEquality < equalityPicks.count && equalityPicks[nextEquality] == row {
                nextEquality += 1
            } else {
                fallbackPicks.append(row)
            }
        }
        let seen = "-seen-\(progress.seenSnapshot.map(String.init) ?? "none")"

        var files: [IcebergDataFile] = []
        do throws(SluiceError) {
            if !equalityPicks.isEmpty { try writers.equalityDeletes.write(touched.gather(equalityPicks), epoch: epoch) }
            files += try writers.equalityDeletes.finish()
            if !fallbackPicks.isEmpty {
                writers.fallback.kind = seen + Self.fallbackKind
                try writers.fallback.write(touched.gather(fallbackPicks), epoch: epoch)
                files += try writers.fallback.finish()
            }
            if !positionPicks.isEmpty {
                let deleted = touched.gather(positionPicks)
                var paths: [Int64: String] = [:]
                for (partition, picks) in try writers.data.partitions(of: deleted) {
                    var rows: [(path: String, position: Int64)] = []
                    rows.reserveCapacity(picks.count)
                    for pick in picks {
                        let target = targets[pick]
                        guard let path = paths[target.file] ?? index.path(ofFile: target.file) else {
                            throw SluiceError(.dataCorrupted, "the sink's row index names data file \(target.file), which it does not list")
                        }
                        paths[target.file] = path
                        rows.append((path, target.position))
                    }
                    let location = writers.data.newLocation(partition, epoch: epoch, kind: seen + Self.positionDeletesKind)
                    files.append(try IcebergPositionDeletes.write(
                        rows, to: location, partition: partition, fileIO: writers.fileIO, compression: writers.compression))
                }
            }
            // The rows left, and where each went.
            var touchedOfRow: [Int] = []
            touchedOfRow.reserveCapacity(result.rows.count)
            for row in 0 ..< touched.count where result.present[row] { touchedOfRow.append(row) }
            var fileIDs: [String: Int64] = [:]
            var nextFileID = progress.nextFileID
            try writers.data.write(result.rows, epoch: epoch) { picks, location, first in
                let id: Int64
                if let known = fileIDs[location] {
                    id = known
                } else {
                    id = nextFileID
                    nextFileID += 1
                    fileIDs[location] = id
                    changes.addedFiles.append((id, location))
                }
                for offset in 0 ..< (picks?.count ?? result.rows.count) {
                    let row = touchedOfRow[picks?[offset] ?? offset]
                    changes.place(keyAt: row, of: keys, file: id, position: first + Int64(offset), isNew: !existed[row])
                }
            }
            files += try writers.data.finish()
            progress.nextFileID = nextFileID
        } catch {
            for file in files { try? writers.fileIO.delete(file.filePath) }
            writers.equalityDeletes.abandon()
            writers.fallback.abandon()
            writers.data.abandon()
            throw error
        }
        index.apply(changes, progress: progress)
        return files
    }

    /// Brings the index up to the table's current snapshot: where another writer rewrote files
    /// the sink wrote (a compaction's `replace`), the keys the index placed in them are looked
    /// up in the files that replaced them; any other writer's change means the sink's rows may
    /// no longer be all the table holds. Returns the progress after.
    private func catchUp(_ loaded: IcebergLoadedTable, writers: Writers) throws(SluiceError) -> IcebergRowIndex.Progress {
        let metadata = loaded.metadata
        let current = metadata.currentSnapshot
        guard var progress = index.load() else {
            // First write: the index covers the table when the table holds no rows yet.
            let empty = current.map { ($0.summary["total-records"].flatMap { Int64($0) } ?? 1) == 0 } ?? true
            let started = IcebergRowIndex.Progress(seenSnapshot: current?.snapshotID, coversTable: empty, nextFileID: 1)
            index.apply(IcebergRowIndex.Changes(), progress: started)
            return started
        }
        guard let current, current.snapshotID != progress.seenSnapshot else { return progress }
        // A snapshot gone from the history (expired) leaves the whole history to follow.
        var history = try Self.foreignChanges(after: progress.seenSnapshot, in: metadata, sinkID: sinkID, fileIO: writers.fileIO)
        if history == nil { history = try Self.foreignChanges(after: nil, in: metadata, sinkID: sinkID, fileIO: writers.fileIO) }
        var changes = IcebergRowIndex.Changes()
        for (snapshot, rewritten) in history ?? [] {
            guard snapshot.operation == "replace" else {
                progress.coversTable = false
                continue
            }
            let removed = index.fileIDs(of: rewritten.removed)
            guard !removed.isEmpty else { continue }
            for file in rewritten.added where file.content == .data {
                let id = progress.nextFileID
                var used = false
                var key: [UInt8] = []
                try IcebergDataFileColumns.read(file.filePath, fields: writers.keyFields, fileIO: writers.fileIO) { rows, first throws(SluiceError) in
                    for row in 0 ..< rows.count {
                        key.removeAll(keepingCapacity: true)
                        IcebergRowIndex.appendKey(rows.columns, row: row, to: &key)
                        if let at = index.position(of: key), removed[at.file] != nil {
                            changes.place(key, file: id, position: first + Int64(row), isNew: false)
                            used = true
                        }
                    }
                }
                if used {
                    changes.addedFiles.append((id, file.filePath))
                    progress.nextFileID += 1
                }
            }
            changes.removedFiles += removed.keys
            // The next snapshot's lookups see this one's moves.
            index.apply(changes, progress: progress)
            changes = IcebergRowIndex.Changes()
        }
        progress.seenSnapshot = current.snapshotID
        index.apply(changes, progress: progress)
        return progress
    }

    /// The snapshot a part's index had followed, from the name of one of its position delete
    /// or fallback files: nil for none (an empty table), or no answer when the name is not one
    /// this writer gives.
    static func seenSnapshot(of path: String) -> Int64?? {
        guard let kind = [positionDeletesKind, fallbackKind].first(where: { path.hasSuffix($0 + ".parquet") }),
              let range = path.range(of: "-seen-", options: .backwards) else { return .none }
        let text = path[range.upperBound...].dropLast((kind + ".parquet").count)
        if text == "none" { return .some(nil) }
        return Int64(text).map { .some($0) } ?? .none
    }
}

// MARK: Commit

extension IcebergUpsertWriter {
    static func isFallback(_ file: IcebergDataFile) -> Bool { file.filePath.hasSuffix(fallbackKind + ".parquet") }

    /// What settling the fallbacks left to clean: fallback files no part commits (deleted once
    /// the commit lands) and position delete files it wrote (deleted if the commit fails).
    struct Settled {
        var unneeded: [String] = []
        var written: [String] = []
        var fileIO: (any FileIO)?

        func delete(_ paths: [String]) {
            guard let fileIO else { return }
            for path in paths { try? fileIO.delete(path) }
        }
    }

    /// Settles each part's fallback equality deletes before the part commits on top of
    /// `metadata`. Other writers' snapshots since the part's index last followed the table
    /// (named in its files) decide:
    /// - one that is not a rewrite (another writer added or deleted rows), or a snapshot no
    ///   longer in the table's history: the fallback's equality deletes are committed, the one
    ///   way to delete rows the index does not know;
    /// - rewrites (`replace`, a compaction) that removed no data file the part's position
    ///   deletes point into, or none at all: the position deletes hold, and the fallback is left
    ///   out;
    /// - rewrites that removed such a file: the keys are found in the files that replaced it
    ///   and deleted there by position, and the fallback is left out.
    static func settle(
        _ parts: inout [[IcebergDataFile]], metadata: IcebergTableMetadata, sinkID: String, fileIO: any FileIO,
        keyFields: [IcebergNestedField], compression: ParquetCompression
    ) throws(SluiceError) -> Settled {
        var settled = Settled(fileIO: fileIO)
        var history: [Int64?: [(snapshot: IcebergSnapshot, changes: IcebergSnapshotChanges)]?] = [:]
        for index in parts.indices where parts[index].contains(where: isFallback) {
            // A part's files are written together, after one snapshot.
            guard let fallback = parts[index].first(where: isFallback), case .some(let since) = seenSnapshot(of: fallback.filePath) else { continue }
            if history[since] == nil { history[since] = .some(try foreignChanges(after: since, in: metadata, sinkID: sinkID, fileIO: fileIO)) }
            guard case .some(.some(let changes)) = history[since], changes.allSatisfy({ $0.snapshot.operation == "replace" }) else { continue }
            var referenced = Set<String>()
            for file in parts[index] where file.content == .positionDeletes {
                if let single = file.referencedDataFile {
                    referenced.insert(single)
                } else {
                    referenced.formUnion(try IcebergPositionDeletes.read(file.filePath, fileIO: fileIO).keys)
                }
            }
            let touching = changes.filter { !$0.changes.removed.isDisjoint(with: referenced) }
            if touching.isEmpty {
                settled.unneeded += parts[index].filter(isFallback).map(\.filePath)
                parts[index].removeAll(where: isFallback)
                continue
            }
            // Find the keys in the files the rewrites left.
            var keys = Set<[UInt8]>()
            for fallback in parts[index] where isFallback(fallback) {
                try IcebergDataFileColumns.read(fallback.filePath, fields: keyFields, fileIO: fileIO) { rows, _ throws(SluiceError) in
                    for row in 0 ..< rows.count { keys.insert(IcebergRowIndex.key(rows.columns, row: row)) }
                }
            }
            let removed = changes.reduce(into: Set<String>()) { $0.formUnion($1.changes.removed) }
            let epochName = parts[index].first.map { ($0.filePath as NSString).lastPathComponent.prefix(20) } ?? "0"
            for change in changes {
                for file in change.changes.added where file.content == .data && !removed.contains(file.filePath) {
                    var rows: [(path: String, position: Int64)] = []
                    try IcebergDataFileColumns.read(file.filePath, fields: keyFields, fileIO: fileIO) { read, first throws(SluiceError) in
                        for row in 0 ..< read.count where keys.contains(IcebergRowIndex.key(read.columns, row: row)) {
                            rows.append((file.filePath, first + Int64(row)))
                        }
                    }
                    guard !rows.isEmpty else { continue }
                    let directory = (file.filePath as NSString).deletingLastPathComponent
                    let location = "\(directory)/\(epochName)-\(sinkID.prefix(8))-\(UUID().uuidString.lowercased().prefix(8))-moved\(positionDeletesKind).parquet"
                    settled.written.append(location)
                    parts[index].append(try IcebergPositionDeletes.write(rows, to: location, partition: file.partition, fileIO: fileIO, compression: compression))
                }
            }
            settled.unneeded += parts[index].filter(isFallback).map(\.filePath)
            parts[index].removeAll(where: isFallback)
        }
        return settled
    }

    /// Other writers' snapshots after `seen` (nil: from the table's start) on the current
    /// branch, oldest first, each with the data files it removed and added (an append's added
    /// files are not read: they remove nothing); nil when `seen` is not on the branch any more.
    static func foreignChanges(
        after seen: Int64?, in metadata: IcebergTableMetadata, sinkID: String, fileIO: any FileIO
    ) throws(SluiceError) -> [(snapshot: IcebergSnapshot, changes: IcebergSnapshotChanges)]? {
        var found: [(snapshot: IcebergSnapshot, changes: IcebergSnapshotChanges)] = []
        guard let current = metadata.currentSnapshot else { return seen == nil ? [] : nil }
        for at in IcebergSnapshotRetention.ancestors(of: current.snapshotID, in: metadata) {
            if at.snapshotID == seen { return found.reversed() }
            guard at.summary[IcebergSink.sinkIDKey] != sinkID else { continue }
            // An append removes nothing: its manifests are not read (but it is another writer's rows).
            found.append((at, at.operation == "append" ? IcebergSnapshotChanges() : try IcebergSnapshotChanges.read(at, fileIO: fileIO)))
        }
        return seen == nil ? found.reversed() : nil
    }
}
