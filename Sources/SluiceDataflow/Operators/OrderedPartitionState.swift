import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// The state of an operator that keeps every row of a partition in order (top-N,
/// over-window): a paged state table of the input rows, and the partitions the epoch touched.
///
/// A row's key is the vnode and encoding of the partition columns (a prefix its partition's
/// rows share, read as one range), then the order keys in their directions and NULL placement,
/// then every column, so equal rows share a key (counted) and rows tied on the order still
/// sort alike. Checkpointed, restored and evicted under `--memory-limit` as a paged table.
struct OrderedPartitionState {
    let partitionColumns: [Int]
    let order: [SortKey]
    let types: [DataType]
    let stateTableID: Int
    private(set) var table: PagedTable
    /// The key prefixes of the partitions the epoch touched, each once, in first-touched order.
    private(set) var touched: [[UInt8]] = []
    private var touchedSet: Set<[UInt8]> = []

    init(partitionColumns: [Int], order: [SortKey], types: [DataType], stateTableID: Int) {
        self.partitionColumns = partitionColumns
        self.order = order
        self.types = types
        self.stateTableID = stateTableID
        table = PagedTable(types: types)
    }

    /// Stages `chunk`'s changes under their keys and notes the partitions they touch.
    mutating func stage(_ chunk: StreamChunk) {
        let data = chunk.data
        var keys: [[UInt8]] = []
        keys.reserveCapacity(data.count)
        for row in 0 ..< data.count {
            var key: [UInt8] = []
            VirtualNode.appendKey(to: &key) { bytes in
                for column in partitionColumns { MemcomparableEncoding.append(data.columns[column], row: row, to: &bytes) }
            }
            if touchedSet.insert(key).inserted { touched.append(key) }
            for sortKey in order {
                MemcomparableEncoding.append(
                    data.columns[sortKey.column], row: row, descending: sortKey.descending, nullsFirst: sortKey.nullsFirst, to: &key)
            }
            for column in data.columns {
                MemcomparableEncoding.append(column, row: row, to: &key)
                MemcomparableEncoding.appendExactForm(column, row: row, to: &key)
            }
            keys.append(key)
        }
        table.stage(chunk) { bytes, row in bytes += keys[row] }
    }

    /// Applies the staged changes; the touched partitions are forgotten.
    mutating func commit() {
        table.commitEpoch()
        touched = []
        touchedSet = []
    }

    /// Takes `keys`' rows away as often as `counts` says (rows that can never show again).
    mutating func remove(_ rows: Chunk, keys: [[UInt8]], counts: [Int32]) {
        table.stage(rows, counts: counts.map { -$0 }) { bytes, row in bytes += keys[row] }
        table.commitEpoch()
    }

    /// Takes away the rows whose `column` is below `bound` (partitions a watermark closed).
    mutating func removeRows(whereColumn column: Int, below bound: Value) {
        _ = table.removeRows(whereColumn: column, below: bound)
    }

    /// Whether rows `a` and `b` tie on the order keys (NULLs alike).
    func tie(_ a: Chunk, _ aRow: Int, _ b: Chunk, _ bRow: Int) -> Bool {
        ValueOrdering.equalRows(a, aRow, b, bRow, columns: order.map(\.column))
    }

    mutating func checkpoint(into state: inout StateWriter) {
        if state.mode != .none { state.add(table.checkpoint(table: stateTableID, everything: state.mode == .everything)) }
    }

    mutating func enableCheckpoints() { table.tracksChanges = true }

    mutating func useMemory(_ memory: StateMemory) { table.useMemory(memory) }

    mutating func restore(_ tables: RestoredTables) throws(SluiceError) {
        try table.restore(from: tables, table: stateTableID)
    }

    var stateBytes: Int { table.byteCount }
}
