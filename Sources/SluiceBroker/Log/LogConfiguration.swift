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

    package init() {}
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
