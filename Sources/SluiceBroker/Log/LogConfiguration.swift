/// How a partition's log is kept on disk.
package struct LogConfiguration: Sendable, Equatable {
    /// When appended batches are forced to disk.
    package enum FlushPolicy: Sendable, Equatable {
        /// Left to the operating system (Kafka's default): a crash of the machine, not of the
        /// process, can lose the last writes.
        case never
        /// fsync after every append, before it is acknowledged.
        case everyAppend
        /// fsync when this many milliseconds have passed since the last one.
        case interval(milliseconds: Int)
    }

    /// A segment is rolled (closed, a new one started) once it holds this many bytes
    /// (`segment.bytes`, default 1 GiB).
    package var segmentBytes = 1 << 30
    /// Bytes of batches between two entries of the sparse offset and time indexes
    /// (`index.interval.bytes`, default 4,096).
    package var indexIntervalBytes = 4096
    package var flush = FlushPolicy.never
    /// Closed segments whose newest batch is older than this are deleted (`retention.ms`,
    /// default 7 days; nil: keep forever).
    package var retentionMilliseconds: Int64? = 7 * 24 * 3600 * 1000
    /// Closed segments are deleted, oldest first, while the log is larger than this
    /// (`retention.bytes`; nil, the default: no limit).
    package var retentionBytes: Int64?
    /// Whether closed segments are deleted by the retention limits (`cleanup.policy` holds
    /// `delete`, the default). A compact-only log ignores `retentionMilliseconds` and
    /// `retentionBytes`, as Kafka's does.
    package var deletes = true
    /// Whether the log cleaner keeps only the latest record of each key in the closed segments
    /// (`cleanup.policy` holds `compact`); produce requests with a keyless record are refused.
    package var compacts = false
    /// How long a tombstone (a record with a null value) that is the latest of its key stays in a
    /// compacted log, so that consumers reading it see the key deleted (`delete.retention.ms`,
    /// default one day). Measured from the largest timestamp of the tombstone's batch: see
    /// ``LogCleaner``.
    package var deleteRetentionMilliseconds: Int64 = 86_400_000
    /// Records stay uncompacted at least this long: a segment whose newest batch is younger is
    /// not cleaned yet (`min.compaction.lag.ms`, default 0).
    package var minCompactionLagMilliseconds: Int64 = 0
    /// A compacted log is cleaned once its dirty bytes (closed segments not yet cleaned) are at
    /// least this share of its closed bytes (`min.cleanable.dirty.ratio`, default 0.5).
    package var minCleanableDirtyRatio = 0.5

    package init() {}

    /// Sets ``deletes`` and ``compacts`` from a `cleanup.policy` value: a comma-separated list of
    /// `delete` and `compact` (already checked by ``TopicConfigs``).
    package mutating func setCleanupPolicy(_ value: String) {
        var deletes = false
        var compacts = false
        for item in value.split(separator: ",") {
            switch String(item.filter { !$0.isWhitespace }) {
            case "delete": deletes = true
            case "compact": compacts = true
            default: break
            }
        }
        self.deletes = deletes
        self.compacts = compacts
    }
}

/// What can go wrong with a log, beyond the operating system's errors.
package enum LogError: Error, Equatable {
    /// A file or directory operation failed (`errno` and what was being done).
    case io(String, errno: Int32)
    /// The offset is below the log start or above its end.
    case offsetOutOfRange(requested: Int64, start: Int64, end: Int64)
    /// A batch to append is not well framed.
    case invalidBatch(String)
}
