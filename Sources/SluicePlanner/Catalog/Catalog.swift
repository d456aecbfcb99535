import Synchronization
import SluiceCore

/// The database's relations, shared by all sessions.
///
/// Names are unique per schema across relation kinds, as in Postgres. Ids start at 16384, the
/// first oid Postgres gives to user objects, so they never collide with system catalog oids.
package final class Catalog: Sendable {
    private struct State {
        var relations: [Int: RelationDefinition] = [:]
        /// User schemas by name, each with its `pg_namespace` oid (`public` is 2200).
        var schemas: [String: Int] = ["public": 2200]
        var nextID = 16384
        var generation = 0
    }

    private let state = Mutex(State())
    private let statusSource = Mutex<(@Sendable () -> [StreamingJobStatus])?>(nil)
    private let sourceStatusSource = Mutex<(@Sendable () -> [SourceStatus])?>(nil)
    private let sinkStatusSource = Mutex<(@Sendable () -> [SinkStatus])?>(nil)
    private let checkpointSource = Mutex<(@Sendable () -> [CheckpointRecord])?>(nil)
    private let memorySource = Mutex<(@Sendable () -> MemoryStatus)?>(nil)
    /// Users and roles by name (`Roles.swift`); `root` always.
    let roleState = Mutex<[String: RoleDefinition]>(["root": .root])
    /// Schemas' and the database's owners and grants (`Privileges.swift`).
    let accessState = Mutex(StoredAccess())
    /// Secrets by name (`Secrets.swift`).
    let secretState = Mutex<[String: String]>([:])

    package init() {}

    /// Where the system views read the running state of materialized views from.
    package func setStreamingStatusSource(_ source: @escaping @Sendable () -> [StreamingJobStatus]) {
        statusSource.withLock { $0 = source }
    }

    /// Where the system views read the state of running source connectors from.
    package func setSourceStatusSource(_ source: @escaping @Sendable () -> [SourceStatus]) {
        sourceStatusSource.withLock { $0 = source }
    }

    package func setSinkStatusSource(_ source: @escaping @Sendable () -> [SinkStatus]) {
        sinkStatusSource.withLock { $0 = source }
    }

    /// What every running sink reports, for `sluice_sinks`.
    package var sinkStatus: [SinkStatus] {
        sinkStatusSource.withLock { $0 }?() ?? []
    }

    /// Where `sluice_checkpoints` reads the recent checkpoints from.
    package func setCheckpointSource(_ source: @escaping @Sendable () -> [CheckpointRecord]) {
        checkpointSource.withLock { $0 = source }
    }

    /// Where `sluice_memory` reads the state store's memory use from.
    package func setMemorySource(_ source: @escaping @Sendable () -> MemoryStatus) {
        memorySource.withLock { $0 = source }
    }

    /// The state store's memory use now.
    package var memory: MemoryStatus {
        memorySource.withLock { $0 }?() ?? MemoryStatus()
    }

    /// The recent checkpoints, oldest first.
    package var checkpoints: [CheckpointRecord] {
        checkpointSource.withLock { $0 }?() ?? []
    }

    /// The state of every running source connector.
    package var sourceStatus: [SourceStatus] {
        sourceStatusSource.withLock { $0 }?() ?? []
    }

    /// The running state of every materialized view.
    package var streamingStatus: [StreamingJobStatus] {
        statusSource.withLock { $0 }?() ?? []
    }

    /// The user schemas and their oids.
    package var schemas: [String: Int] {
        state.withLock { $0.schemas }
    }

    /// Whether schema `name` exists (the system schemas always do).
    package func hasSchema(_ name: String) -> Bool {
        ["pg_catalog", "information_schema", "rw_catalog"].contains(name) || state.withLock { $0.schemas[name] != nil }
    }

    /// Adds schema `name` with `oid`; fails with 42P06 if it exists.
    package func addSchema(_ name: String, oid: Int) throws(SluiceError) {
        try state.withLock { (state: inout State) throws(SluiceError) in
            if state.schemas[name] != nil { throw SluiceError(.duplicateSchema, "schema \"\(name)\" already exists") }
            state.schemas[name] = oid
            state.nextID = max(state.nextID, oid + 1)
            state.generation += 1
        }
    }

    package func removeSchema(_ name: String) {
        state.withLock { state in
            state.schemas[name] = nil
            state.generation += 1
        }
    }

    /// The relation `name` in `schema`, if any.
    package func relation(named name: String, schema: String = "public") -> RelationDefinition? {
        state.withLock { state in state.relations.values.first { $0.name == name && $0.schema == schema } }
    }

    package func relation(id: Int) -> RelationDefinition? {
        state.withLock { $0.relations[id] }
    }

    /// Every relation, in creation order.
    package var relations: [RelationDefinition] {
        state.withLock { $0.relations.values.sorted { $0.id < $1.id } }
    }

    /// The id the next relation gets: ids are never given twice in a data directory (the
    /// catalog's file keeps it), so it is also the catalog's version, which a checkpoint records.
    package var nextID: Int {
        state.withLock { $0.nextID }
    }

    /// Makes every id below `id` taken (the ids a data directory gave before).
    package func reserveIDs(below id: Int) {
        state.withLock { $0.nextID = max($0.nextID, id) }
    }

    /// Reserves a new relation id.
    package func allocateID() -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Adds `relation`; fails with 42P07 if its name is taken.
    package func add(_ relation: RelationDefinition) throws(SluiceError) {
        try state.withLock { (state: inout State) throws(SluiceError) in
            if state.relations.values.contains(where: { $0.schema == relation.schema && ($0.name == relation.name || $0.indexList.contains { $0.name == relation.name }) }) {
                throw SluiceError(.duplicateTable, "relation \"\(relation.name)\" already exists")
            }
            state.relations[relation.id] = relation
            state.nextID = max(state.nextID, relation.id + 1)
            state.generation += 1
        }
    }

    /// The index `name` in `schema` and the table it belongs to, if any.
    package func index(named name: String, schema: String = "public") -> (table: RelationDefinition, index: IndexDefinition)? {
        state.withLock { state in
            for relation in state.relations.values where relation.schema == schema {
                if let index = relation.indexList.first(where: { $0.name == name }) { return (relation, index) }
            }
            return nil
        }
    }

    /// Adds `index` to table `tableID`; fails with 42P07 if its name is taken in the table's schema.
    package func addIndex(_ index: IndexDefinition, toTable tableID: Int) throws(SluiceError) {
        try state.withLock { (state: inout State) throws(SluiceError) in
            guard var table = state.relations[tableID] else { throw SluiceError(.undefinedTable, "relation \(tableID) does not exist") }
            if state.relations.values.contains(where: { $0.schema == table.schema && ($0.name == index.name || $0.indexList.contains { $0.name == index.name }) }) {
                throw SluiceError(.duplicateTable, "relation \"\(index.name)\" already exists")
            }
            table.indexes = table.indexList + [index]
            state.relations[tableID] = table
            state.nextID = max(state.nextID, index.id + 1)
            state.generation += 1
        }
    }

    /// Removes index `indexID` from table `tableID`.
    package func removeIndex(_ indexID: Int, fromTable tableID: Int) {
        state.withLock { state in
            guard var table = state.relations[tableID] else { return }
            table.indexes = table.indexList.filter { $0.id != indexID }
            state.relations[tableID] = table
            state.generation += 1
        }
    }

    /// Relations that read relation `id`, directly.
    package func dependents(of id: Int) -> [RelationDefinition] {
        state.withLock { state in state.relations.values.filter { $0.dependencies.contains(id) }.sorted { $0.id < $1.id } }
    }

    /// Removes relation `id` and returns it.
    @discardableResult
    package func remove(id: Int) -> RelationDefinition? {
        state.withLock { state in
            state.generation += 1
            return state.relations.removeValue(forKey: id)
        }
    }

    /// Sets relation `id`'s owner and grants.
    package func setAccess(_ access: ObjectAccess, relationID id: Int) {
        state.withLock { state in
            state.relations[id]?.access = access
            state.generation += 1
        }
    }

    /// Makes plans bound before now bound again (privileges changed).
    func bumpGeneration() {
        state.withLock { $0.generation += 1 }
    }

    /// Changes with every relation added or removed, and every grant: a plan bound at one
    /// generation is valid while the generation stays.
    package var generation: Int {
        state.withLock { $0.generation }
    }
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
