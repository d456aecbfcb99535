import SluiceCore
import SluiceDataflow
import SluiceLakehouse
import SluiceState

/// Where an upsert Iceberg sink's rows lie in its table: for every key the sink wrote, the data
/// file and row position of the key's current version, so that replacing or deleting it is a
/// position delete, which every Iceberg reader applies (pyiceberg and DuckDB do not read
/// equality deletes). Iceberg's own Spark and Flink writers delete by position likewise when
/// they know where a row is.
///
/// Two state tables of the sink's fragment, checkpointed with its prepared epochs:
/// - key (the primary key's memcomparable bytes, of the table's column types) → (file id,
///   position);
/// - file id → (the id, the data file's path): ids instead of paths keep the first table small;
///   id 0 holds the ``Progress`` as text.
///
/// Files another writer rewrote (a compaction's `replace`) are followed: their keys are looked
/// up in the files that replaced them (``IcebergSink`` does it before it next deletes).
struct IcebergRowIndex {
    let state = SinkStateTables(types: [[.int64, .int64], [.int64, .varchar]])

    /// What the index covers, kept under file id 0.
    struct Progress: Equatable {
        /// The newest table snapshot whose changes the index follows (nil: the table had none).
        var seenSnapshot: Int64?
        /// Whether every row of the table is one the sink wrote (the table was empty when the
        /// sink first wrote to it, and no other writer added rows since): a key the index lacks
        /// then has no row to delete.
        var coversTable: Bool
        var nextFileID: Int64
    }

    /// The progress, once ``load()`` read it or ``apply(_:progress:)`` set it.
    private(set) var progress: Progress?

    private var rows: PagedTable {
        get { state.tables[0] }
        nonmutating _modify { yield &state.tables[0] }
    }
    private var files: PagedTable {
        get { state.tables[1] }
        nonmutating _modify { yield &state.tables[1] }
    }

    /// Appends the key bytes of row `row` of `columns` (the key columns, in the table's types).
    static func appendKey(_ columns: [Column], row: Int, to bytes: inout [UInt8]) {
        for column in columns { MemcomparableEncoding.append(column, row: row, to: &bytes) }
    }

    /// The key bytes of row `row` of `columns`, as their own array.
    static func key(_ columns: [Column], row: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        appendKey(columns, row: row, to: &bytes)
        return bytes
    }

    private static func fileKey(_ id: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        MemcomparableEncoding.append(.int64(id), as: .int64, to: &bytes)
        return bytes
    }

    /// Reads the progress from the state (after a restore); nil for a sink that never wrote.
    mutating func load() -> Progress? {
        if progress == nil, let found = files.find(Self.fileKey(0)), case .bytes(let text) = found.contents.rows.columns[1].storage {
            let fields = text.string(at: found.index).split(separator: " ")
            if fields.count == 3, let covers = Int(fields[1]), let next = Int64(fields[2]) {
                progress = Progress(seenSnapshot: Int64(fields[0]), coversTable: covers == 1, nextFileID: next)
            }
        }
        return progress
    }

    /// The file and position of `key`'s row, if the sink wrote one.
    func position(of key: [UInt8]) -> (file: Int64, position: Int64)? {
        guard let found = rows.find(key),
              case .int64(let fileIDs) = found.contents.rows.columns[0].storage,
              case .int64(let positions) = found.contents.rows.columns[1].storage else { return nil }
        return (fileIDs[found.index], positions[found.index])
    }

    /// The path of file `id`.
    func path(ofFile id: Int64) -> String? {
        guard let found = files.find(Self.fileKey(id)), case .bytes(let paths) = found.contents.rows.columns[1].storage else { return nil }
        return paths.string(at: found.index)
    }

    /// The ids of the files among `paths` (a scan of the file table, which holds a row per live
    /// file the sink wrote).
    func fileIDs(of paths: Set<String>) -> [Int64: String] {
        var found: [Int64: String] = [:]
        for entry in files.entries() {
            if case .int64(let id) = entry.row[0], id != 0, case .string(let path) = entry.row[1], paths.contains(path) { found[id] = path }
        }
        return found
    }

    /// Changes of one batch, applied together by ``apply(_:progress:)``; the keys in one buffer.
    struct Changes {
        var keys = KeyBuffer()
        var fileIDs: [Int64] = []
        var positions: [Int64] = []
        /// +1 a new key, 0 a key moved, -1 a key gone.
        var counts: [Int32] = []
        var addedFiles: [(id: Int64, path: String)] = []
        var removedFiles: [Int64] = []

        mutating func place(_ key: some Collection<UInt8>, file: Int64, position: Int64, isNew: Bool) {
            keys.append(key)
            fileIDs.append(file)
            positions.append(position)
            counts.append(isNew ? 1 : 0)
        }

        /// ``place(_:file:position:isNew:)`` of key `index` of `buffer`.
        mutating func place(keyAt index: Int, of buffer: KeyBuffer, file: Int64, position: Int64, isNew: Bool) {
            keys.append(index, of: buffer)
            fileIDs.append(file)
            positions.append(position)
            counts.append(isNew ? 1 : 0)
        }

        mutating func remove(_ key: some Collection<UInt8>) {
            keys.append(key)
            fileIDs.append(0)
            positions.append(0)
            counts.append(-1)
        }
    }

    /// Applies `changes` and records `progress`.
    mutating func apply(_ changes: Changes, progress newProgress: Progress) {
        if !changes.keys.isEmpty {
            let chunk = Chunk(
                columns: [Column(type: .int64, storage: .int64(changes.fileIDs)), Column(type: .int64, storage: .int64(changes.positions))],
                count: changes.keys.count)
            rows.stage(chunk, counts: changes.counts) { bytes, row in changes.keys.appendKey(row, to: &bytes) }
            rows.commitEpoch()
        }
        var ids = changes.addedFiles.map(\.id)
        var paths: [Value] = changes.addedFiles.map { .string($0.path) }
        var counts = [Int32](repeating: 1, count: paths.count)
        for id in changes.removedFiles {
            ids.append(id)
            paths.append(.string(""))
            counts.append(-1)
        }
        if newProgress != progress {
            let progressText = "\(newProgress.seenSnapshot.map(String.init) ?? "-") \(newProgress.coversTable ? 1 : 0) \(newProgress.nextFileID)"
            ids.append(0)
            paths.append(.string(progressText))
            counts.append(progress == nil ? 1 : 0)
        }
        if !ids.isEmpty {
            let chunk = Chunk(columns: [Column(type: .int64, storage: .int64(ids)), Column(type: .varchar, values: paths)], count: ids.count)
            files.stage(chunk, counts: counts) { bytes, row in bytes += Self.fileKey(ids[row]) }
            files.commitEpoch()
        }
        progress = newProgress
    }
}
