import SluiceCore

/// What one expiry round did.
package struct IcebergExpiryResult: Hashable, Sendable {
    package enum Outcome: Hashable, Sendable {
        case nothingToExpire
        case committed
        /// Another writer moved a ref first; nothing was removed.
        case abandonedOnConflict
    }

    package var outcome: Outcome
    package var expiredSnapshotIDs: [Int64] = []
    package var deletedManifestLists = 0
    package var deletedManifests = 0
    package var deletedDataFiles = 0
    package var deletedDeleteFiles = 0
    /// Files that could not be deleted (left for orphan cleanup).
    package var failedDeletes = 0
    /// Set when the snapshots were removed but finding their files failed: nothing was deleted.
    package var cleanupError: SluiceError?

    package init(outcome: Outcome) {
        self.outcome = outcome
    }

    package var deletedFiles: Int { deletedManifestLists + deletedManifests + deletedDataFiles + deletedDeleteFiles }
}

/// Removes old snapshots (see ``IcebergSnapshotRetention`` for which) with one `remove-snapshots`
/// commit, then deletes the files only they reached: their manifest lists, the manifests no
/// kept snapshot lists, and the data and delete files no kept snapshot's manifests mention
/// (Java's `ExpireSnapshots` with its reachability cleanup).
///
/// The commit requires every ref to still point where it pointed when the round chose, so a
/// concurrent rollback cannot bring back a snapshot whose files are being deleted; on a
/// conflict the round removes nothing. Files are deleted only after the commit, and only
/// those no snapshot of the committed metadata reaches.
package struct IcebergSnapshotExpiry: Sendable {
    package let catalog: any IcebergCatalog
    package let fileIO: any FileIO
    package let identifier: IcebergTableIdentifier
    package let options: IcebergMaintenanceOptions
    package let clock: @Sendable () -> Int64

    package init(catalog: any IcebergCatalog, fileIO: any FileIO, identifier: IcebergTableIdentifier,
                 options: IcebergMaintenanceOptions = IcebergMaintenanceOptions(),
                 clock: @escaping @Sendable () -> Int64 = icebergMaintenanceSystemClock) {
        self.catalog = catalog
        self.fileIO = fileIO
        self.identifier = identifier
        self.options = options
        self.clock = clock
    }

    /// Loads the table and runs one round.
    package func run() async throws(SluiceError) -> IcebergExpiryResult {
        guard let table = try await catalog.loadTable(identifier) else {
            throw IcebergCatalogError.noSuchTable(identifier.namespace, identifier.name)
        }
        return try await run(on: table)
    }

    /// Runs one round from `table` as loaded.
    /// - Throws: catalog errors other than a conflict; file errors after the commit are
    ///   reported in ``IcebergExpiryResult/cleanupError`` instead.
    package func run(on table: IcebergLoadedTable) async throws(SluiceError) -> IcebergExpiryResult {
        let metadata = table.metadata
        let retention = IcebergSnapshotRetention(options: options, properties: metadata.properties)
        let expired = retention.expiredSnapshotIDs(in: metadata, nowMs: clock())
        guard !expired.isEmpty else { return IcebergExpiryResult(outcome: .nothingToExpire) }
        var requirements: [IcebergTableRequirement] = [.assertTableUUID(metadata.tableUUID)]
        for name in metadata.refs.keys.sorted() {
            requirements.append(.assertRefSnapshotID(ref: name, snapshotID: metadata.refs[name]?.snapshotID))
        }
        let committed: IcebergLoadedTable
        do throws(SluiceError) {
            committed = try await catalog.commitTable(identifier, requirements: requirements, updates: [.removeSnapshots(expired)])
        } catch where error.code == IcebergCatalogError.commitConflictCode {
            return IcebergExpiryResult(outcome: .abandonedOnConflict)
        }
        var result = IcebergExpiryResult(outcome: .committed)
        result.expiredSnapshotIDs = expired
        let expiredSet = Set(expired)
        let removed = metadata.snapshots.filter { expiredSet.contains($0.snapshotID) }
        // A snapshot the commit kept (or one added meanwhile) keeps its files.
        let kept = committed.metadata.snapshots.filter { !expiredSet.contains($0.snapshotID) }
        let fileIO = self.fileIO
        let committedResult = result
        do throws(SluiceError) {
            result = try await offloadBlocking { () throws(SluiceError) -> IcebergExpiryResult in
                var cleaned = committedResult
                try Self.deleteFiles(of: removed, keeping: kept, fileIO: fileIO, into: &cleaned)
                return cleaned
            }
        } catch {
            result.cleanupError = error
        }
        return result
    }

    /// Deletes what `removed` reached and `kept` does not: data and delete files first, then
    /// manifests, then manifest lists, so an interrupted cleanup never leaves a manifest
    /// pointing at nothing while its files remain unfound.
    static func deleteFiles(of removed: [IcebergSnapshot], keeping kept: [IcebergSnapshot], fileIO: any FileIO,
                            into result: inout IcebergExpiryResult) throws(SluiceError) {
        let keptFiles = try IcebergReachableFiles.read(kept, fileIO: fileIO, readingManifests: false, liveEntriesOnly: false, skippingMissing: false)
        let removedFiles = try IcebergReachableFiles.read(
            removed, fileIO: fileIO, readingManifests: true, liveEntriesOnly: true, skippingMissing: true,
            excludingManifests: Set(keptFiles.manifests.keys))
        var candidates = removedFiles.contentFiles
        if !candidates.isEmpty {
            // A kept snapshot needs the files its manifests list as live; a DELETED entry records
            // a removal and needs nothing (Java's `ManifestFiles.readPaths` reads live entries).
            let stillReached = try IcebergReachableFiles.read(kept, fileIO: fileIO, readingManifests: true, liveEntriesOnly: true, skippingMissing: false)
            for path in stillReached.contentFiles.keys { candidates[path] = nil }
        }
        func delete(_ path: String) -> Bool {
            do throws(SluiceError) {
                try fileIO.delete(path)
                return true
            } catch {
                result.failedDeletes += 1
                return false
            }
        }
        for (path, content) in candidates.sorted(by: { $0.key < $1.key }) where delete(path) {
            if content == .data { result.deletedDataFiles += 1 } else { result.deletedDeleteFiles += 1 }
        }
        for path in removedFiles.manifests.keys.sorted() where delete(path) { result.deletedManifests += 1 }
        for path in removedFiles.manifestLists.subtracting(keptFiles.manifestLists).sorted() where delete(path) {
            result.deletedManifestLists += 1
        }
    }
}
