import Synchronization
import SluiceCore
import SluiceExpr

/// A connector that feeds a source or a table from outside the database (a Kafka topic, a
/// generator). It runs on its own thread, decodes what it reads into chunks of about
/// ``Chunk/preferredSize`` rows and hands them to its ``SourceOutput``; a row it cannot decode
/// is recorded in its ``SourceStatistics`` and skipped.
///
/// The rows a connector delivers are part of the epoch open when it delivers them, and so is the
/// position it reached: ``SourceOutput/deliver`` moves the connector's position in the same step
/// as the rows (``StreamRuntime/withSource(_:_:)``), and no barrier passes in between.
package protocol SourceConnector: AnyObject, Sendable {
    /// Starts the connector's thread, delivering to `output`.
    func start(output: SourceOutput)
    /// Stops reading; returns once the thread has ended and its resources are released.
    func stop()
    /// The rows from the source's start position up to where delivery stands: the rows a new
    /// view over the source starts from. Called with writes paused, so the connector's thread is
    /// not delivering and its position stays put: it notes that position and returns a reading
    /// of the rows before it, which the view's backfill runs later on its own thread, a chunk at
    /// a time, while the source goes on, so a long history is never held whole nor read with
    /// every writer waiting. Of the rows, only `columns` need be read (nil: all; the others may
    /// be NULL, as a file source leaves Parquet columns no view reads).
    func snapshot(columns: Set<Int>?) throws(SluiceError) -> SourceSnapshot
    /// Every row the outside system holds now, decoded (a query of the source itself), handed
    /// to `each` a chunk at a time as it is read, so a query of a large topic or table never
    /// holds all of it at once. With `filter` (over the relation's columns), a connector that
    /// can skip what it rules out (an Iceberg table's files, by their metrics) does; the query
    /// still applies the filter to every row handed over.
    func scan(pruningBy filter: ScalarExpr?, each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError)
    /// The columns the outside system gives the relation, for a CREATE that lists none.
    var inferredColumns: [(name: String, type: DataType)]? { get }
    /// Rows read and rejected, the rejected rows' records, and the connector's state.
    var statistics: SourceStatistics { get }
    /// What CREATE tells the user beside success (a topic that does not exist yet, say).
    var notices: [String] { get }
    /// Where delivery stands: the next position of each partition (Kafka offsets; a
    /// generator's next row number as partition 0). Read as a barrier passes, it matches the
    /// rows delivered so far; a connector started with these as
    /// ``SourceDescription/startPositions`` goes on from there. Nil before the connector knows.
    var positions: [Int32: Int64]? { get }
    /// A checkpoint holding these positions (the connector's, at its cut) is durable: what came
    /// before them survives any crash, so the outside system may forget it (a replication
    /// slot's confirmed position advances). Called on the checkpoint writer's thread.
    func durable(positions: [Int32: Int64])
    /// The primary key of ``inferredColumns`` (names), for a CREATE that lists no columns.
    var inferredPrimaryKey: [String]? { get }
}

extension SourceConnector {
    /// The columns the outside system says the relation has, for a CREATE SOURCE that lists
    /// none (an Iceberg table's schema); nil when the connector cannot tell.
    package var inferredColumns: [(name: String, type: DataType)]? { nil }

    package func durable(positions: [Int32: Int64]) {}

    package var inferredPrimaryKey: [String]? { nil }
}

/// A source's rows up to the position noted when it was taken (``SourceConnector/snapshot(columns:)``),
/// read later a chunk at a time. Read once, by one thread (the new view's backfill).
package struct SourceSnapshot: @unchecked Sendable {
    /// About how many rows it holds, for the backfill's progress (0 when not known).
    package let rowEstimate: Int
    private let body: ((Chunk) throws(SluiceError) -> Void) throws(SluiceError) -> Void

    /// A snapshot that `read` reads, handing each chunk to the function it is given.
    package init(rowEstimate: Int, read: @escaping ((Chunk) throws(SluiceError) -> Void) throws(SluiceError) -> Void) {
        self.rowEstimate = rowEstimate
        body = read
    }

    /// A snapshot of chunks in memory (a source whose rows are few, or none).
    package init(_ chunks: [Chunk]) {
        self.init(rowEstimate: chunks.reduce(0) { $0 + $1.count }) { (each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) in
            for chunk in chunks { try each(chunk) }
        }
    }

    /// Reads the rows, handing `each` a chunk at a time.
    package func read(_ each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) {
        try body(each)
    }

    /// This snapshot with `transform` applied to each chunk.
    package func map(_ transform: @escaping (Chunk) -> Chunk) -> SourceSnapshot {
        let inner = self
        return SourceSnapshot(rowEstimate: rowEstimate) { (each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) in
            try inner.read { (chunk: Chunk) throws(SluiceError) in try each(transform(chunk)) }
        }
    }
}

/// Where a connector's rows go: the source's change stream, or a table and its stream.
package struct SourceOutput: Sendable {
    /// True when something consumes the rows (a view reads the source, or a table stores them);
    /// a connector of a source nobody reads waits instead of reading.
    package let isRead: @Sendable () -> Bool
    /// Delivers `chunk` (the relation's column order and types), then runs `advance` in the same
    /// step, so the position the connector reached changes with the rows.
    package let deliver: @Sendable (Chunk, () -> Void) throws(SluiceError) -> Void
    /// For a table with a primary key: deletes the rows with the keys of `keys`' rows (a chunk of
    /// the table's columns, only the key columns read), then runs `advance` in the same step.
    /// Nil for a source, which keeps no rows.
    package let deleteKeys: (@Sendable (Chunk, () -> Void) throws(SluiceError) -> Void)?
    /// For a table: deletes every row (an upstream TRUNCATE).
    package let truncate: (@Sendable () throws(SluiceError) -> Void)?
    /// For a table with a primary key: the stored rows of `keys`' keys (``TableStore/lookup(keysOf:)``).
    package let lookup: (@Sendable (Chunk) -> (rows: Chunk, positions: [Int?]))?
    /// For a source whose readers may read only some of its columns: which, and a delivery of
    /// chunks that hold only some. Nil: every chunk holds every column.
    package let reading: ColumnReading?
    /// Blocks until something reads the source or the time given passes (nil: the driver
    /// sleeps that long): a view made over an idle source starts its reading at once.
    package private(set) var waitForReader: (@Sendable (Duration) -> Void)?

    /// Called when a reader has read all there was after a backlog (nil: nothing is done): the
    /// runtime ends the epoch soon, so the rows show without waiting out the barrier interval.
    package private(set) var caughtUp: (@Sendable () -> Void)?

    /// Where readers may run work ahead of their thread (the runtime's workers): the next
    /// Parquet page's decompression. Nil: readers do everything on their own thread.
    package private(set) var background: (any BackgroundJobs)?

    /// This output, whose readers may hand work ahead to `background`.
    package func runningJobs(on background: any BackgroundJobs) -> SourceOutput {
        var output = self
        output.background = background
        return output
    }

    /// This output, which calls `caughtUp` when a reader has read a backlog.
    package func callingWhenCaughtUp(_ caughtUp: @escaping @Sendable () -> Void) -> SourceOutput {
        var output = self
        output.caughtUp = caughtUp
        return output
    }

    /// This output with `deliver` as its delivery and every column read (a wrapper that completes
    /// rows needs them all), its other hooks kept.
    package func delivering(by deliver: @escaping @Sendable (Chunk, () -> Void) throws(SluiceError) -> Void) -> SourceOutput {
        var output = SourceOutput(isRead: isRead, deliver: deliver, deleteKeys: deleteKeys, truncate: truncate, lookup: lookup)
        output.waitForReader = waitForReader
        output.caughtUp = caughtUp
        output.background = background
        return output
    }

    /// This output, whose driver waits for a reader by `wait`.
    package func waitingForReaders(by wait: @escaping @Sendable (Duration) -> Void) -> SourceOutput {
        var output = self
        output.waitForReader = wait
        return output
    }

    /// What the readers of a source read now, and how a chunk of some columns is delivered.
    package struct ColumnReading: Sendable {
        /// The columns read now (nil: all of them). Widens when a view is made.
        package let columns: @Sendable () -> Set<Int>?
        /// Delivers a chunk whose `columns` hold values (the others NULL), then runs `advance`
        /// in the same step; false, with nothing delivered and `advance` not run, when a reader
        /// now reads a column outside `columns` (a view made since they were asked): the
        /// connector decodes those rows again with ``columns`` and delivers them then.
        package let deliver: @Sendable (Chunk, Set<Int>, () -> Void) throws(SluiceError) -> Bool

        package init(
            columns: @escaping @Sendable () -> Set<Int>?, deliver: @escaping @Sendable (Chunk, Set<Int>, () -> Void) throws(SluiceError) -> Bool
        ) {
            self.columns = columns
            self.deliver = deliver
        }
    }

    package init(
        isRead: @escaping @Sendable () -> Bool, deliver: @escaping @Sendable (Chunk, () -> Void) throws(SluiceError) -> Void,
        deleteKeys: (@Sendable (Chunk, () -> Void) throws(SluiceError) -> Void)? = nil,
        truncate: (@Sendable () throws(SluiceError) -> Void)? = nil,
        lookup: (@Sendable (Chunk) -> (rows: Chunk, positions: [Int?]))? = nil,
        reading: ColumnReading? = nil
    ) {
        self.isRead = isRead
        self.deliver = deliver
        self.deleteKeys = deleteKeys
        self.truncate = truncate
        self.lookup = lookup
        self.reading = reading
    }
}

/// A connector's counters and its most recent rejected rows; safe from any thread.
package final class SourceStatistics: Sendable {
    /// Rejected rows kept for `sluice_source_errors`, newest last (older ones are only counted).
    package static let keptErrors = 1000
    /// The first bytes of a rejected payload that are kept.
    package static let keptPayloadBytes = 256

    package let rowsRead = Atomic<Int>(0)
    package let rowsRejected = Atomic<Int>(0)
    /// Rows dropped behind the source's watermark.
    package let rowsLate = Atomic<Int>(0)
    /// Payload bytes taken from the outside system (Kafka message values).
    package let bytesRead = Atomic<Int>(0)
    private let state = Mutex<(errors: [SourceErrorRecord], status: String)>(([], "starting"))

    package init() {}

    /// Counts a rejected row and keeps its record, dropping the oldest beyond ``keptErrors``.
    package func reject(partition: Int32, offset: Int64, message: String, payload: UnsafeRawBufferPointer, at microseconds: Int64) {
        rowsRejected.add(1, ordering: .relaxed)
        let prefix = String(decoding: payload.prefix(Self.keptPayloadBytes), as: UTF8.self)
        let record = SourceErrorRecord(partition: partition, offset: offset, message: message, payload: prefix, rejectedAt: microseconds)
        state.withLock { state in
            state.errors.append(record)
            if state.errors.count > Self.keptErrors { state.errors.removeFirst(state.errors.count - Self.keptErrors) }
        }
    }

    /// Messages behind the end of the source's partitions (Kafka's consumer lag), summed over its
    /// readers; nil until one knows.
    package var lag: Int? {
        let lags = lags.withLock { $0 }
        return lags.isEmpty ? nil : lags.values.reduce(0, +)
    }

    /// Reader `reader`'s lag, over its partitions.
    package func setLag(_ lag: Int, reader: Int) {
        lags.withLock { $0[reader] = lag }
    }

    private let lags = Mutex<[Int: Int]>([:])

    /// The kept rejected rows, oldest first.
    package var errors: [SourceErrorRecord] { state.withLock { $0.errors } }

    /// What the connector is doing (`running`, `waiting for a reader`, or why it is retrying).
    package var status: String {
        get { state.withLock { $0.status } }
        set { state.withLock { $0.status = newValue } }
    }
}

/// What a connector is built from: the relation it feeds and the options it was created with.
package struct SourceDescription: Sendable {
    package var id: Int
    package var name: String
    /// The relation's columns, in order.
    package var columns: [(name: String, type: DataType)]
    /// Indexes of the primary-key columns (a table's; empty for a source without one).
    package var primaryKey: [Int]
    /// A CREATE TABLE that lists no columns but names its PRIMARY KEY (`CREATE TABLE t (PRIMARY
    /// KEY (id)) WITH (…) FORMAT UPSERT ENCODE AVRO (…)`): the key's names, which the connector
    /// resolves once it knows the columns (``SourceConnector/inferredPrimaryKey``).
    package var primaryKeyNames: [String] = []
    /// The `WITH` options as written (`connector`, `topic`, `properties.bootstrap.server`, …).
    package var options: [String: String]
    /// `PLAIN`, `UPSERT`, … and `JSON`, …, upper-cased; the options after `ENCODE`.
    package var format: String
    package var encode: String
    package var formatOptions: [String: String]
    /// True for a table, which stores the rows; false for a source.
    package var isTable: Bool
    /// Where to start instead of the startup options: a source's positions resolved when it was
    /// created (so `latest` means the same after a restart), or the positions a table's rows
    /// had reached when the server stopped or crashed.
    package var startPositions: [Int32: Int64]?
    /// Where delivery goes on, when it is not the start: the positions of the state checkpoint
    /// the views were restored from. Rows from the start up to here are still the source's
    /// history (``SourceConnector/snapshot()``) for a view created later.
    package var resumePositions: [Int32: Int64]?
    /// A folder the connector may keep files of its own in (nil: the server keeps nothing on
    /// disk, and neither does the connector).
    package var stateDirectory: String?
    /// `INCLUDE kind AS column`: columns of `columns` a message's metadata fills (always after
    /// the columns its payload fills).
    package var includes: [SourceInclude] = []

    /// The columns a message's payload fills: all but the included ones.
    package var payloadColumns: [(name: String, type: DataType)] {
        let included = Set(includes.map(\.column))
        return columns.indices.filter { !included.contains($0) }.map { columns[$0] }
    }

    package init(
        id: Int, name: String, columns: [(name: String, type: DataType)], primaryKey: [Int], options: [String: String], format: String,
        encode: String, formatOptions: [String: String], isTable: Bool
    ) {
        self.id = id
        self.name = name
        self.columns = columns
        self.primaryKey = primaryKey
        self.options = options
        self.format = format
        self.encode = encode
        self.formatOptions = formatOptions
        self.isTable = isTable
    }
}

/// One `INCLUDE kind AS column`: which of a message's metadata fills which column.
package struct SourceInclude: Sendable, Equatable {
    package enum Kind: String, Sendable {
        /// The message's timestamp (timestamptz).
        case timestamp
        /// The partition and the offset, as text.
        case partition, offset
        /// The message's key (bytea).
        case key
        /// The whole payload (jsonb).
        case payload
    }

    package var kind: Kind
    /// The column's index in the relation's columns.
    package var column: Int

    package init(kind: Kind, column: Int) {
        self.kind = kind
        self.column = column
    }
}
