import SluiceCore

/// The key values of the integer aggregate's byte-keyed groups, typed: rows in chunks of
/// columns, each group naming its row (a chunk and a row in it), instead of a `[Value]` per group.
///
/// Rows are appended to an open chunk, which ``seal()`` closes before rows are read (chunks are
/// immutable once sealed, so reading never copies). A released row stays where it is until
/// ``compact(_:)`` copies the live rows into fresh chunks, once the dead ones outnumber them.
struct GroupKeyRows {
    /// A row's place: the chunk's index in the high 32 bits, the row in the low; -1 for none.
    typealias Reference = Int64

    let types: [DataType]
    private var sealed: [Chunk] = []
    private var open: [ColumnBuilder]
    private var openCount = 0
    private var liveRows = 0
    private var deadRows = 0
    /// The bytes of the sealed chunks.
    private(set) var sealedBytes = 0

    init(types: [DataType]) {
        self.types = types
        self.open = types.map { ColumnBuilder(type: $0, capacity: 0) }
    }

    /// The bytes held: the sealed chunks, and the open rows at about what the sealed ones take.
    var bytes: Int {
        let sealedRows = liveRows + deadRows - openCount
        return sealedBytes + (sealedRows > 0 ? sealedBytes / sealedRows * openCount : openCount * 16 * types.count)
    }

    /// Appends row `row` of `columns` (the key columns, in order) and returns its reference.
    mutating func append(_ columns: ArraySlice<Column>, row: Int) -> Reference {
        for (index, column) in columns.enumerated() { open[index].append(column, row: row) }
        let reference = Reference(sealed.count) << 32 | Reference(openCount)
        openCount += 1
        liveRows += 1
        if openCount == Chunk.preferredSize { seal() }
        return reference
    }

    /// Closes the open chunk: its rows can be read.
    mutating func seal() {
        guard openCount > 0 else { return }
        let chunk = Chunk(columns: open.map { $0.finish() }, count: openCount)
        sealedBytes += chunk.byteCount
        sealed.append(chunk)
        open = types.map { ColumnBuilder(type: $0, capacity: Chunk.preferredSize) }
        openCount = 0
    }

    /// Marks the row under `reference` as no longer named.
    mutating func release(_ reference: Reference) {
        guard reference >= 0 else { return }
        liveRows -= 1
        deadRows += 1
    }

    /// Appends the row under `reference` (sealed) to `builders[first...]`, a column each.
    func appendRow(_ reference: Reference, to builders: inout [ColumnBuilder], from first: Int) {
        let chunk = sealed[Int(reference >> 32)]
        let row = Int(reference & 0xFFFF_FFFF)
        for (index, column) in chunk.columns.enumerated() { builders[first + index].append(column, row: row) }
    }

    /// When dead rows outnumber the live ones (or there are many small chunks), copies the rows
    /// `references` name into fresh chunks and updates the references.
    mutating func compactIfWasteful(_ references: inout [Reference]) {
        guard deadRows > max(liveRows, Chunk.preferredSize) || sealed.count > 64 + 2 * (liveRows / Chunk.preferredSize) else { return }
        seal()
        var fresh = GroupKeyRows(types: types)
        for index in references.indices where references[index] >= 0 {
            let chunk = sealed[Int(references[index] >> 32)]
            references[index] = fresh.append(chunk.columns[...], row: Int(references[index] & 0xFFFF_FFFF))
        }
        fresh.seal()
        self = fresh
    }
}
