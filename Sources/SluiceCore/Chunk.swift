/// About a thousand rows held as columns: the unit of data everywhere in the engine.
///
/// Invariant: every column has `count` rows.
package struct Chunk: Sendable {
    package var columns: [Column]
    package private(set) var count: Int

    /// The preferred number of rows per chunk.
    package static let preferredSize = 1024

    package init(columns: [Column], count: Int) {
        precondition(columns.allSatisfy { $0.count == count }, "chunk columns differ in length")
        self.columns = columns
        self.count = count
    }

    /// A chunk with the given columns; the row count is taken from the first (0 if none).
    package init(columns: [Column]) {
        self.init(columns: columns, count: columns.first?.count ?? 0)
    }

    /// An empty chunk with columns of the given types.
    package init(emptyOf types: [DataType]) {
        self.columns = types.map { Column(type: $0, storage: .empty(for: $0)) }
        self.count = 0
    }

    package var columnCount: Int { columns.count }
    package var isEmpty: Bool { count == 0 }
    package var types: [DataType] { columns.map(\.type) }
}

/// The kind of change a row of a ``StreamChunk`` carries.
///
/// Invariant: an `updateDelete` row is immediately followed by its `updateInsert` row, and the
/// two share the stream key.
package enum ChangeOp: UInt8, Hashable, Sendable {
    case insert
    case delete
    case updateDelete
    case updateInsert

    /// True for ops that add a row (`insert`, `updateInsert`).
    package var isInsertion: Bool { self == .insert || self == .updateInsert }

    /// How many of `ops` add a row, counted without a branch: the raw values are 0 to 3 and an
    /// op removes a row exactly when its two bits differ, so the loop vectorizes.
    package static func insertions(in ops: [ChangeOp]) -> Int {
        ops.withUnsafeBytes { raw in
            var removals = 0
            for op in raw { removals &+= Int((op ^ (op &>> 1)) & 1) }
            return raw.count - removals
        }
    }
}

/// A chunk of changes: each row is an insert, a delete, or half of an update.
package struct StreamChunk: Sendable {
    package var ops: [ChangeOp]
    package var data: Chunk

    package init(ops: [ChangeOp], data: Chunk) {
        precondition(ops.count == data.count, "ops and rows differ in length")
        self.ops = ops
        self.data = data
    }

    package var count: Int { data.count }

    /// The rows an append-only writer keeps: inserts and the new halves of updates (deletes
    /// dropped); nil when there are none.
    package var insertedRows: Chunk? {
        let kept = ops.indices.filter { ops[$0].isInsertion }
        guard !kept.isEmpty else { return nil }
        return kept.count == count ? data : data.gather(kept)
    }

    /// Every row of `data` as an insert.
    package static func inserts(_ data: Chunk) -> StreamChunk {
        StreamChunk(ops: [ChangeOp](repeating: .insert, count: data.count), data: data)
    }

    /// The rows `passes` keeps and their ops: an update pair both of whose halves pass stays a
    /// pair; one half alone goes on as a delete or an insert.
    package func keptRows(_ passes: [Bool]) -> (rows: [Int], ops: [ChangeOp]) {
        var rows: [Int] = []
        var kept: [ChangeOp] = []
        var rowIndex = 0
        while rowIndex < count {
            let op = ops[rowIndex]
            if op == .updateDelete, rowIndex + 1 < count, ops[rowIndex + 1] == .updateInsert {
                switch (passes[rowIndex], passes[rowIndex + 1]) {
                case (true, true):
                    rows += [rowIndex, rowIndex + 1]
                    kept += [.updateDelete, .updateInsert]
                case (true, false):
                    rows.append(rowIndex)
                    kept.append(.delete)
                case (false, true):
                    rows.append(rowIndex + 1)
                    kept.append(.insert)
                case (false, false):
                    break
                }
                rowIndex += 2
                continue
            }
            if passes[rowIndex] {
                rows.append(rowIndex)
                kept.append(op)
            }
            rowIndex += 1
        }
        return (rows, kept)
    }

    /// The rows `passes` keeps (``keptRows(_:)``); nil when none is kept.
    package func keeping(_ passes: [Bool]) -> StreamChunk? {
        let (rows, kept) = keptRows(passes)
        if rows.isEmpty { return nil }
        return rows.count == count ? StreamChunk(ops: kept, data: data) : StreamChunk(ops: kept, data: data.gather(rows))
    }
}

extension Column {
    /// The bytes of the column's values and null flags (not the arrays' spare capacity).
    package var byteCount: Int {
        let validity = self.validity == nil ? 0 : (count + 7) / 8
        switch storage {
        case .bool(let values): return values.count + validity
        case .int16(let values): return values.count * 2 + validity
        case .int32(let values): return values.count * 4 + validity
        case .int64(let values): return values.count * 8 + validity
        case .float32(let values): return values.count * 4 + validity
        case .float64(let values): return values.count * 8 + validity
        case .decimal(let values): return values.count * MemoryLayout<Decimal>.stride + validity
        case .interval(let values): return values.count * MemoryLayout<Interval>.stride + validity
        case .bytes(let values): return values.data.count + values.offsets.count * 4 + validity
        case .structure(let children, _): return children.reduce(validity) { $0 + $1.byteCount }
        case .list(let offsets, let elements): return offsets.count * 4 + elements.byteCount + validity
        }
    }
}

extension Chunk {
    /// The bytes of every column's values and null flags.
    package var byteCount: Int { columns.reduce(0) { $0 + $1.byteCount } }
}
