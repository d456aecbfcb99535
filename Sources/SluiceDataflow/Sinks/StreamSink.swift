import SluiceCore

/// Where a sink's rows go (an Iceberg table, nowhere for a blackhole), in two phases per
/// commit, as Flink's `TwoPhaseCommitSinkFunction` and RisingWave's sink coordinator do:
/// - ``write(_:)`` takes each chunk of changes, on the sink's fragment thread;
/// - ``prepare(epoch:)`` at each checkpoint barrier writes out what was taken since the last one
///   (data files) without making it visible, and describes it in a token that goes into the
///   checkpoint;
/// - ``commit(_:)`` makes prepared epochs visible, once the checkpoint that holds them is
///   durable (``SinkCommitter`` decides when, on its own thread).
///
/// After a crash the restored checkpoint's prepared epochs are committed again, so a commit must
/// recognise what it already did: an Iceberg snapshot carries the sink's id and epoch in its
/// summary, and ``lastCommittedEpoch()`` reads it back.
package protocol StreamSink: AnyObject, Sendable {
    /// Takes a chunk of changes (on the fragment's thread).
    func write(_ chunk: StreamChunk) throws(SluiceError)
    /// Writes out what ``write(_:)`` took since the last prepare and returns what a commit
    /// needs to make it visible; nil when nothing was taken. On failure the sink keeps what it
    /// took, for the next prepare.
    func prepare(epoch: UInt64) throws(SluiceError) -> [UInt8]?
    /// Makes `prepared` (in epoch order) visible at once, tagged with the last one's epoch;
    /// skips the epochs the target already holds. Returns what it made visible.
    func commit(_ prepared: [PreparedEpoch]) throws(SluiceError) -> SinkCommitSummary
    /// The last epoch the target holds from this sink (nil: none), as the target records it.
    func lastCommittedEpoch() throws(SluiceError) -> UInt64?
    /// Releases connections and threads (after the sink is dropped or the server stops).
    func close()
    /// Called on the committer's thread at a durable checkpoint with nothing to commit, so work
    /// put off after a commit (an Iceberg table's compaction) still happens once writes stop.
    func idle()
    /// Called once, before any write, when the sink restarts from a checkpoint: `pending` are
    /// the epochs it had prepared and not committed (the last one its state at the checkpoint),
    /// so a sink that keeps work in progress across checkpoints (a file sink's open files) goes
    /// on from there and drops what it did after.
    func resume(_ pending: [PreparedEpoch]) throws(SluiceError)
    /// The state tables the sink keeps, if any, which its fragment checkpoints and restores
    /// (before ``resume(_:)``) with its own.
    var stateTables: SinkStateTables? { get }
    /// Checkpoints per commit when the sink's `commit_checkpoint_interval` does not say.
    var defaultCommitInterval: Int { get }
}

extension StreamSink {
    package func idle() {}
    package func resume(_ pending: [PreparedEpoch]) throws(SluiceError) {}
    package var stateTables: SinkStateTables? { nil }
    /// RisingWave's default for table formats, whose every commit is a snapshot.
    package var defaultCommitInterval: Int { 10 }
}

/// What a commit made visible, for `sluice_sinks`.
package struct SinkCommitSummary: Sendable, Equatable {
    package var files: Int
    package var rows: Int

    package init(files: Int = 0, rows: Int = 0) {
        self.files = files
        self.rows = rows
    }
}

/// What a sink prepared for one epoch: the token its commit takes (file names and their
/// metrics), kept in the checkpoint until committed.
package struct PreparedEpoch: Sendable, Equatable, Hashable {
    package var epoch: UInt64
    package var token: [UInt8]

    package init(epoch: UInt64, token: [UInt8]) {
        self.epoch = epoch
        self.token = token
    }
}

extension PreparedEpoch {
    /// `list` as one byte string (for the sink's state table): per entry the epoch, the
    /// token's length and the token, little-endian.
    package static func encode(_ list: [PreparedEpoch]) -> [UInt8] {
        var bytes: [UInt8] = []
        for entry in list {
            withUnsafeBytes(of: entry.epoch.littleEndian) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt32(entry.token.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: entry.token)
        }
        return bytes
    }

    /// The list ``encode(_:)`` wrote; a damaged string is an error, not a crash.
    package static func decode(_ bytes: [UInt8]) throws(SluiceError) -> [PreparedEpoch] {
        var entries: [PreparedEpoch] = []
        var offset = 0
        func integer<T: FixedWidthInteger>(_: T.Type) throws(SluiceError) -> T {
            let width = MemoryLayout<T>.size
            guard bytes.count - offset >= width else { throw SluiceError(.dataCorrupted, "a sink's prepared epochs are damaged") }
            var value: T = 0
            for index in 0 ..< width { value |= T(bytes[offset + index]) << (8 * index) }
            offset += width
            return value
        }
        while offset < bytes.count {
            let epoch = try integer(UInt64.self)
            let length = Int(try integer(UInt32.self))
            guard bytes.count - offset >= length else { throw SluiceError(.dataCorrupted, "a sink's prepared epochs are damaged") }
            entries.append(PreparedEpoch(epoch: epoch, token: Array(bytes[offset ..< offset + length])))
            offset += length
        }
        return entries
    }
}

/// What a sink connector is built from: the sink's catalog entry, as the connector needs it.
package struct SinkDescription: Sendable {
    package var id: Int
    package var name: String
    /// The UUID every commit of the sink carries (``StreamSink`` explains why).
    package var sinkID: String
    /// The columns the sink's input has, in order.
    package var columns: [(name: String, type: DataType)]
    /// Inserts only (RisingWave's `type = 'append-only'`): with an input that updates, each new
    /// version of a row is an insert and deletes are dropped (`force_append_only`).
    package var appendOnly: Bool
    /// Indexes of the `primary_key` columns (an upsert sink's; may be empty otherwise).
    package var primaryKey: [Int]
    /// The `WITH` options as written.
    package var options: [String: String]
    /// `FORMAT … ENCODE … (…)`: upper-cased words (empty when not written) and the options.
    package var format: String
    package var encode: String
    package var formatOptions: [String: String]
    /// A folder the sink may keep files of its own in (an S3 file sink's staged files); nil
    /// when the server keeps nothing on disk.
    package var stateDirectory: String?

    package init(
        id: Int, name: String, sinkID: String, columns: [(name: String, type: DataType)], appendOnly: Bool, primaryKey: [Int],
        options: [String: String], format: String = "", encode: String = "", formatOptions: [String: String] = [:]
    ) {
        self.format = format
        self.encode = encode
        self.formatOptions = formatOptions
        self.id = id
        self.name = name
        self.sinkID = sinkID
        self.columns = columns
        self.appendOnly = appendOnly
        self.primaryKey = primaryKey
        self.options = options
    }
}
