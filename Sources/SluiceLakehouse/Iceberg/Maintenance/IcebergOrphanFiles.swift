import SluiceCore

/// When files were first seen unreferenced, for stores that cannot tell a file's age
/// (``FileModificationTimes``): a file is then old enough once it has stayed unreferenced for
/// the grace period since the first sighting. Kept by the caller between rounds; losing it (a
/// restart) only delays cleanup.
package struct IcebergOrphanSightings: Hashable, Sendable {
    /// Normalized location → milliseconds since the epoch of the first sighting.
    package var firstSeenMs: [String: Int64] = [:]

    package init() {}
}

/// What one orphan cleanup round did.
package struct IcebergOrphanCleanupResult: Hashable, Sendable {
    /// Files under `data/` and `metadata/` that nothing references.
    package var unreferencedFiles = 0
    /// Unreferenced files left alone because they are younger than the grace period.
    package var youngFilesKept = 0
    package var deletedFiles = 0
    package var deletedBytes: Int64 = 0
    package var failedDeletes = 0
    /// The deleted locations, in order.
    package var deletedLocations: [String] = []

    package init() {}
}

/// Deletes the files under a table's `data/` and `metadata/` folders that the table's current
/// metadata does not reference and that are older than a grace period: files a sink wrote and
/// prepared but never committed (a crash between prepare and commit), files of commits that
/// lost a race, metadata files dropped from the metadata log (Java's `DeleteOrphanFiles`).
///
/// Referenced are: the current metadata file and those in its `metadata-log`; every snapshot's
/// manifest list, the manifests they list and every file those mention (deleted entries too);
/// statistics files. Locations compare after normalizing their scheme spelling (`file:` forms,
/// `s3a://`). The grace period protects what is being written or committed right now: a file
/// is only deleted when it is older than the period (by the store's modification time when
/// ``FileIO`` can tell, else by ``IcebergOrphanSightings``).
package struct IcebergOrphanFiles: Sendable {
    package let fileIO: any FileIO
    package let gracePeriodMs: Int64
    package let clock: @Sendable () -> Int64

    package init(fileIO: any FileIO, gracePeriodMs: Int64 = 3_600_000, clock: @escaping @Sendable () -> Int64 = icebergMaintenanceSystemClock) {
        self.fileIO = fileIO
        self.gracePeriodMs = gracePeriodMs
        self.clock = clock
    }

    /// Finds and deletes the orphans of `table` (blocking: call off the event loops).
    /// - Throws: when the table's metadata cannot be read completely; then nothing is deleted.
    package func clean(_ table: IcebergLoadedTable, sightings: inout IcebergOrphanSightings) throws(SluiceError) -> IcebergOrphanCleanupResult {
        var result = IcebergOrphanCleanupResult()
        for file in try orphans(of: table, sightings: &sightings, result: &result) {
            do throws(SluiceError) {
                try fileIO.delete(file.location)
                result.deletedFiles += 1
                result.deletedBytes += Int64(file.size)
                result.deletedLocations.append(file.location)
                sightings.firstSeenMs[Self.normalized(file.location)] = nil
            } catch {
                result.failedDeletes += 1
            }
        }
        return result
    }

    /// The unreferenced files old enough to delete; counts in `result` what it saw.
    func orphans(of table: IcebergLoadedTable, sightings: inout IcebergOrphanSightings,
                 result: inout IcebergOrphanCleanupResult) throws(SluiceError) -> [FileEntry] {
        let referenced = try referencedLocations(table)
        var location = table.metadata.location
        while location.hasSuffix("/") { location.removeLast() }
        var unreferenced: [FileEntry] = []
        for folder in ["data", "metadata"] {
            for entry in try fileIO.list(prefix: "\(location)/\(folder)/") where !referenced.contains(Self.normalized(entry.location)) {
                unreferenced.append(entry)
            }
        }
        result.unreferencedFiles = unreferenced.count
        let now = clock()
        let times = fileIO as? any FileModificationTimes
        var seen: [String: Int64] = [:]
        var old: [FileEntry] = []
        for entry in unreferenced {
            let key = Self.normalized(entry.location)
            let since: Int64
            if let times {
                guard let modified = try times.lastModifiedMs(entry.location) else { continue }  // gone meanwhile
                since = modified
            } else {
                since = sightings.firstSeenMs[key] ?? now
                seen[key] = since
            }
            if now - since > gracePeriodMs {
                old.append(entry)
            } else {
                result.youngFilesKept += 1
            }
        }
        // Forget files that are gone or referenced now.
        if times == nil { sightings.firstSeenMs = seen }
        return old
    }

    /// Every location the table's current metadata references, normalized.
    func referencedLocations(_ table: IcebergLoadedTable) throws(SluiceError) -> Set<String> {
        let metadata = table.metadata
        var locations: [String] = []
        if let current = table.metadataLocation { locations.append(current) }
        locations += metadata.metadataLog.map(\.metadataFile)
        for statistics in metadata.statistics + metadata.partitionStatistics {
            if case .string(let path)? = statistics["statistics-path"] { locations.append(path) }
        }
        let reachable = try IcebergReachableFiles.read(metadata.snapshots, fileIO: fileIO, readingManifests: true, liveEntriesOnly: false,
                                                       skippingMissing: false)
        locations += reachable.manifestLists
        locations += reachable.manifests.keys
        locations += reachable.contentFiles.keys
        return Set(locations.map(Self.normalized))
    }

    /// `location` with its scheme spelled one way: local files as plain paths, `s3a://` and
    /// `s3n://` as `s3://`.
    static func normalized(_ location: String) -> String {
        for prefix in ["file://localhost/", "file:///"] where location.hasPrefix(prefix) {
            return "/" + location.dropFirst(prefix.count)
        }
        if location.hasPrefix("file:/"), !location.hasPrefix("file://") { return String(location.dropFirst(5)) }
        for prefix in ["s3a://", "s3n://"] where location.hasPrefix(prefix) {
            return "s3://" + location.dropFirst(prefix.count)
        }
        return location
    }
}
