import SluiceCore

/// Which snapshots expiry keeps, as Java's `RemoveSnapshots` chooses them, plus the sink
/// markers Sluice needs:
/// - a tag keeps its snapshot;
/// - a branch keeps its newest `min-snapshots-to-keep` ancestors (at least one: the head) and,
///   past those, each further ancestor while it is younger than `max-snapshot-age-ms`, stopping
///   at the first older one (a ref's own limits override the table's);
/// - a branch keeps every ancestor down to the newest one carrying each value of each
///   `retainedSummaryKeys` key (a sink finds its last epoch by walking there);
/// - a snapshot no ref reaches is kept while younger than the table's maximum age.
package struct IcebergSnapshotRetention: Hashable, Sendable {
    package var maxSnapshotAgeMs: Int64
    package var minSnapshotsToKeep: Int
    package var retainedSummaryKeys: [String]

    package init(maxSnapshotAgeMs: Int64, minSnapshotsToKeep: Int, retainedSummaryKeys: [String]) {
        self.maxSnapshotAgeMs = maxSnapshotAgeMs
        self.minSnapshotsToKeep = minSnapshotsToKeep
        self.retainedSummaryKeys = retainedSummaryKeys
    }

    /// The retention `options` ask for, table properties filling what they leave open.
    package init(options: IcebergMaintenanceOptions, properties: [String: String]) {
        let minimum = options.minSnapshotsToKeep
            ?? IcebergMaintenanceProperties.positiveInteger(IcebergMaintenanceProperties.minSnapshotsToKeep, in: properties).map { Int(clamping: $0) }
            ?? IcebergMaintenanceProperties.defaultMinSnapshotsToKeep
        self.init(
            maxSnapshotAgeMs: options.maxSnapshotAgeMs
                ?? IcebergMaintenanceProperties.positiveInteger(IcebergMaintenanceProperties.maxSnapshotAgeMs, in: properties)
                ?? IcebergMaintenanceProperties.defaultMaxSnapshotAgeMs,
            minSnapshotsToKeep: minimum, retainedSummaryKeys: options.retainedSummaryKeys)
    }

    /// The ids of the snapshots of `metadata` to expire at `nowMs`, in metadata order.
    package func expiredSnapshotIDs(in metadata: IcebergTableMetadata, nowMs: Int64) -> [Int64] {
        var retained = Set<Int64>()
        var reachable = Set<Int64>()
        if let current = metadata.currentSnapshotID { retained.insert(current) }
        for name in metadata.refs.keys.sorted() {
            guard let ref = metadata.refs[name] else { continue }
            retained.insert(ref.snapshotID)
            guard ref.kind == .branch else { continue }
            let ancestors = Self.ancestors(of: ref.snapshotID, in: metadata)
            reachable.formUnion(ancestors.map(\.snapshotID))
            let minimum = max(1, ref.minSnapshotsToKeep ?? minSnapshotsToKeep)
            let oldest = nowMs - (ref.maxSnapshotAgeMs ?? maxSnapshotAgeMs)
            for (index, snapshot) in ancestors.enumerated() {
                guard index < minimum || snapshot.timestampMs >= oldest else { break }
                retained.insert(snapshot.snapshotID)
            }
            // The newest snapshot per marker value, and every snapshot between it and the head.
            var seen = Set<String>()
            var deepest = -1
            for (index, snapshot) in ancestors.enumerated() {
                for key in retainedSummaryKeys {
                    if let value = snapshot.summary[key], seen.insert("\(key)\u{0}\(value)").inserted { deepest = index }
                }
            }
            if deepest >= 0 { retained.formUnion(ancestors[0 ... deepest].map(\.snapshotID)) }
        }
        let oldest = nowMs - maxSnapshotAgeMs
        return metadata.snapshots.compactMap { snapshot in
            if retained.contains(snapshot.snapshotID) { return nil }
            // Not reachable from a ref: Java keeps it until it is old.
            if !reachable.contains(snapshot.snapshotID) && snapshot.timestampMs >= oldest { return nil }
            return snapshot.snapshotID
        }
    }

    /// `id`'s snapshot and its ancestors, newest first, as far as the metadata holds them.
    package static func ancestors(of id: Int64, in metadata: IcebergTableMetadata) -> [IcebergSnapshot] {
        var byID: [Int64: IcebergSnapshot] = [:]
        for snapshot in metadata.snapshots { byID[snapshot.snapshotID] = snapshot }
        var result: [IcebergSnapshot] = []
        var visited = Set<Int64>()
        var next: Int64? = id
        while let current = next, let snapshot = byID[current], visited.insert(current).inserted {
            result.append(snapshot)
            next = snapshot.parentSnapshotID
        }
        return result
    }
}
