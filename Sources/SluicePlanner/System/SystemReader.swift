import SluiceCore

/// What the system tables read of the running system: the streaming jobs, the source
/// connectors and sinks as they run, the recent checkpoints and the memory in use.
///
/// The planner knows the catalog, not the runtime: the server implements this once over its
/// runtime and sets it on the ``Catalog`` (``Catalog/setSystemReader(_:)``); the tables of
/// `rw_catalog` and the `sluice_*` tables read it through ``SystemTableContext/reader``, and the
/// server's `/metrics` and dashboard read it too. Every property is read anew at each use, and
/// statuses and errors come with the connectors' secrets masked.
package protocol SystemReader: Sendable {
    /// The running state of every materialized view and sink, for `rw_fragments` and
    /// `rw_ddl_progress`.
    var streamingJobs: [StreamingJobStatus] { get }
    /// The state of every running source connector, by relation id, for `sluice_sources` and
    /// `sluice_source_errors`.
    var sources: [SourceStatus] { get }
    /// What every running sink reports, for `sluice_sinks`.
    var sinks: [SinkStatus] { get }
    /// The recent checkpoints, oldest first, for `sluice_checkpoints`.
    var checkpoints: [CheckpointRecord] { get }
    /// The state store's, the queries' and the process's memory use now, for `sluice_memory`
    /// and `sluice_memory_by_owner`.
    var memory: MemoryStatus { get }
}

/// The reader of a catalog with nothing running behind it (the planner's tests): no jobs, no
/// connectors, no checkpoints, and no memory in use.
struct IdleSystemReader: SystemReader {
    var streamingJobs: [StreamingJobStatus] { [] }
    var sources: [SourceStatus] { [] }
    var sinks: [SinkStatus] { [] }
    var checkpoints: [CheckpointRecord] { [] }
    var memory: MemoryStatus { MemoryStatus() }
}

/// What the stream runtime reports about one materialized view, for `rw_catalog.rw_fragments`.
package struct StreamingJobStatus: Sendable {
    package var viewID: Int
    package var upstreams: [Int]
    package var rowCount: Int
    package var rowsIn: Int
    /// Rows that failed in an expression (their value became NULL) or in an operator.
    package var errors: Int
    package var lastError: String?
    package var plan: String
    /// Bytes of state: the operators' and the view's own pages.
    package var stateBytes: Int
    /// The backfill from the inputs' rows at CREATE: rows in all, rows done, and when it started
    /// (microseconds since 1970).
    package var backfillRows = 0
    package var backfilledRows = 0
    /// Changes the view emitted.
    package var rowsOut = 0
    package var createdAt: Int64 = 0

    /// Whether the view is still going through its inputs' rows.
    package var isBackfilling: Bool { backfilledRows < backfillRows }

    package init(
        viewID: Int, upstreams: [Int], rowCount: Int, rowsIn: Int, errors: Int, lastError: String?, plan: String, stateBytes: Int = 0
    ) {
        self.stateBytes = stateBytes
        self.viewID = viewID
        self.upstreams = upstreams
        self.rowCount = rowCount
        self.rowsIn = rowsIn
        self.errors = errors
        self.lastError = lastError
        self.plan = plan
    }
}

/// What a running connector reports, for `sluice_sources` and `sluice_source_errors`.
package struct SourceStatus: Sendable {
    /// The source, or the table the connector feeds.
    package var relationID: Int
    package var rowsRead: Int
    package var rowsRejected: Int
    /// Rows dropped behind the source's watermark.
    package var rowsLate: Int
    /// Rows dropped as repeats of events seen within `dedup.window` (`dedup.key`).
    package var rowsDeduplicated: Int
    package var status: String
    /// The kept rejected rows, oldest first.
    package var errors: [SourceErrorRecord]

    /// Payload bytes read, and messages behind the end of the source (nil: not known).
    package var bytesRead = 0
    package var lag: Int?

    package init(
        relationID: Int, rowsRead: Int, rowsRejected: Int, rowsLate: Int = 0, rowsDeduplicated: Int = 0, bytesRead: Int = 0, lag: Int? = nil,
        status: String, errors: [SourceErrorRecord]
    ) {
        self.rowsDeduplicated = rowsDeduplicated
        self.relationID = relationID
        self.bytesRead = bytesRead
        self.lag = lag
        self.rowsRead = rowsRead
        self.rowsRejected = rowsRejected
        self.rowsLate = rowsLate
        self.status = status
        self.errors = errors
    }
}

/// What a running sink reports, for `sluice_sinks`.
package struct SinkStatus: Sendable {
    package var relationID: Int
    /// `running` (nothing committed yet), `committed`, or `retrying` after a failure.
    package var state: String
    package var lastCommitEpoch: UInt64
    /// Microseconds since 1970; nil before the first commit.
    package var lastCommitAt: Int64?
    package var commits: Int
    /// Data files and rows made visible by commits.
    package var files: Int
    package var rows: Int
    /// Rows the sink took from its input.
    package var rowsIn: Int
    /// Epochs prepared and not yet committed.
    package var pendingEpochs: Int
    package var commitFailures: Int
    package var lastError: String?

    package init(
        relationID: Int, state: String, lastCommitEpoch: UInt64, lastCommitAt: Int64?, commits: Int, files: Int, rows: Int, rowsIn: Int,
        pendingEpochs: Int, commitFailures: Int, lastError: String?
    ) {
        self.relationID = relationID
        self.state = state
        self.lastCommitEpoch = lastCommitEpoch
        self.lastCommitAt = lastCommitAt
        self.commits = commits
        self.files = files
        self.rows = rows
        self.rowsIn = rowsIn
        self.pendingEpochs = pendingEpochs
        self.commitFailures = commitFailures
        self.lastError = lastError
    }
}

/// The state store's memory use and the process's, for `sluice_memory`.
package struct MemoryStatus: Sendable {
    /// `--memory-limit` in bytes (0: none).
    package var limitBytes = 0
    /// Bytes of state pages in memory, now and at most.
    package var residentBytes = 0
    package var peakResidentBytes = 0
    /// Bytes of state pages in spill files only.
    package var spilledBytes = 0
    package var evictedPages = 0
    package var loadedPages = 0
    /// The process's resident set, now and at its peak (Linux's VmRSS and VmHWM).
    package var processBytes = 0
    package var processPeakBytes = 0
    /// Bytes the running queries' operators hold (sorts, hash tables, top-N rows), and the most
    /// they may hold together (half of `--memory-limit`).
    package var queryReservedBytes = 0
    package var queryLimitBytes = 0
    /// What the process's other holders hold (``MemoryOwner``), by owner name, in the owners' order.
    package var owners: [(name: String, bytes: Int)] = []

    package init() {}

    /// Every owner's bytes, for `sluice_memory_by_owner` and `/metrics`: the state pages, the
    /// queries' operators, the ledger's owners, what the process holds besides (its resident
    /// set less all of these, at least 0), then the process's resident set and its peak.
    package var byOwner: [(owner: String, bytes: Int)] {
        var rows: [(owner: String, bytes: Int)] = [("state pages", residentBytes), ("query operators", queryReservedBytes)]
        for (name, bytes) in owners { rows.append((name, bytes)) }
        let counted = rows.reduce(0) { $0 + $1.bytes }
        rows.append(("other", max(0, processBytes - counted)))
        rows.append(("process", processBytes))
        rows.append(("process peak", processPeakBytes))
        return rows
    }
}

/// One checkpoint, written or attempted, for `sluice_checkpoints`.
package struct CheckpointRecord: Sendable {
    /// The epoch of its barrier.
    package var epoch: UInt64
    /// When it started, in microseconds since 1970.
    package var startedAt: Int64
    package var bytesWritten: Int
    package var tables: Int
    package var durationMicroseconds: Int64
    /// Why it failed; nil when it was written.
    package var error: String?
    /// Always `state`: every checkpoint holds the tables' rows and the views' and operators'
    /// state, and `tables` counts the tables and views. (Table checkpoints of their own, kind
    /// `tables`, are gone.)
    package var kind = "state"

    package init(epoch: UInt64, startedAt: Int64, bytesWritten: Int, tables: Int, durationMicroseconds: Int64, error: String?) {
        self.epoch = epoch
        self.startedAt = startedAt
        self.bytesWritten = bytesWritten
        self.tables = tables
        self.durationMicroseconds = durationMicroseconds
        self.error = error
    }
}
