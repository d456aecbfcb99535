import Foundation
import SluiceCore

/// What a maintenance round does and the limits it keeps. Each `nil` limit falls back to the
/// table property Java's maintenance actions read, then to Java's default, so a table tuned for
/// Spark is maintained the same way here.
package struct IcebergMaintenanceOptions: Hashable, Sendable {
    package var compactsDataFiles: Bool
    package var expiresSnapshots: Bool
    package var removesOrphanFiles: Bool
    /// The size compaction writes files up to; nil: `write.target-file-size-bytes`, else 512 MiB.
    package var targetFileSizeBytes: Int64?
    /// A partition's small files are rewritten once it has this many (Java's `min-input-files`);
    /// a partition with delete files that apply to its files is rewritten whatever the count.
    package var minInputFiles: Int
    /// Nil: `history.expire.max-snapshot-age-ms`, else 5 days.
    package var maxSnapshotAgeMs: Int64?
    /// Nil: `history.expire.min-snapshots-to-keep`, else 1.
    package var minSnapshotsToKeep: Int?
    /// Snapshot summary keys whose newest snapshot on a branch, per distinct value, expiry keeps
    /// reachable from the branch head (with every snapshot between).
    ///
    /// The default keeps the Iceberg sink's marker (`sluice.sink-id`, see `IcebergSink.sinkIDKey`):
    /// a sink finds the last epoch it committed by walking `main`'s parents to its newest
    /// snapshot, so expiring that snapshot would make a restarted sink commit an epoch again.
    package var retainedSummaryKeys: [String]
    /// Unreferenced files younger than this are never removed: a sink writes its files before
    /// it commits them, and a commit may follow the write by a checkpoint interval or a catalog
    /// outage. 3 days, as Java's `DeleteOrphanFiles`: a file removed before its commit lands
    /// breaks the table, and a sink's pending files wait as long as its catalog is down.
    package var orphanGracePeriodMs: Int64

    package init(
        compactsDataFiles: Bool = true, expiresSnapshots: Bool = true, removesOrphanFiles: Bool = true,
        targetFileSizeBytes: Int64? = nil, minInputFiles: Int = 5, maxSnapshotAgeMs: Int64? = nil, minSnapshotsToKeep: Int? = nil,
        retainedSummaryKeys: [String] = ["sluice.sink-id"], orphanGracePeriodMs: Int64 = 3 * 24 * 3_600_000
    ) {
        self.compactsDataFiles = compactsDataFiles
        self.expiresSnapshots = expiresSnapshots
        self.removesOrphanFiles = removesOrphanFiles
        self.targetFileSizeBytes = targetFileSizeBytes
        self.minInputFiles = minInputFiles
        self.maxSnapshotAgeMs = maxSnapshotAgeMs
        self.minSnapshotsToKeep = minSnapshotsToKeep
        self.retainedSummaryKeys = retainedSummaryKeys
        self.orphanGracePeriodMs = orphanGracePeriodMs
    }
}

/// The table properties maintenance reads, with Java's names and defaults.
package enum IcebergMaintenanceProperties {
    package static let targetFileSizeBytes = "write.target-file-size-bytes"
    package static let defaultTargetFileSizeBytes: Int64 = 512 << 20
    package static let rowGroupSizeBytes = "write.parquet.row-group-size-bytes"
    package static let defaultRowGroupSizeBytes: Int64 = 128 << 20
    package static let maxSnapshotAgeMs = "history.expire.max-snapshot-age-ms"
    package static let defaultMaxSnapshotAgeMs: Int64 = 5 * 24 * 3_600_000
    package static let minSnapshotsToKeep = "history.expire.min-snapshots-to-keep"
    package static let defaultMinSnapshotsToKeep = 1

    /// A positive integer property, or nil when it is missing or not one.
    static func positiveInteger(_ key: String, in properties: [String: String]) -> Int64? {
        guard let text = properties[key], let value = Int64(text.trimmingCharacters(in: .whitespaces)), value > 0 else { return nil }
        return value
    }
}

/// Milliseconds since the epoch by the system clock: the default clock of maintenance.
package func icebergMaintenanceSystemClock() -> Int64 {
    Int64(Date().timeIntervalSince1970 * 1000)
}
