import SluiceCore
import SluiceState

/// The rows of a materialized view, kept up to date from its change stream.
///
/// Rows are counted, not keyed: a view's rows form a multiset (a projection of a table without
/// a key may repeat rows), so each distinct row is stored once with its multiplicity. An insert
/// adds one, a delete takes one away, and a row whose count reaches zero is gone. At the end of
/// an epoch the view's rows are laid out as chunks for readers.
/// - Complexity: O(1) per changed row; laying out is O(rows) and happens only after an epoch
///   that changed something.
package struct Materializer {
    package let types: [DataType]
    private var rows: [KeyBytes: (values: [Value], count: Int)] = [:]
    private var changed = true
    package private(set) var rowCount = 0
    /// Deletes of rows the view does not hold: a bug upstream, counted rather than crashed on.
    package private(set) var inconsistencies = 0

    package init(types: [DataType]) {
        self.types = types
    }

    package mutating func apply(_ chunk: StreamChunk) {
        let columns = Array(0 ..< chunk.data.columns.count)
        for rowIndex in 0 ..< chunk.count {
            let key = KeyBytes(chunk.data, row: rowIndex, columns: columns)
            if chunk.ops[rowIndex].isInsertion {
                rowCount += 1
                if let entry = rows[key] {
                    rows[key] = (entry.values, entry.count + 1)
                } else {
                    rows[key] = (chunk.data.columns.map { $0.value(at: rowIndex) }, 1)
                }
            } else if let entry = rows[key] {
                rowCount -= 1
                if entry.count == 1 { rows.removeValue(forKey: key) } else { rows[key] = (entry.values, entry.count - 1) }
            } else {
                inconsistencies += 1
            }
            changed = true
        }
    }

    /// The view's rows as chunks, or nil when nothing changed since the last call.
    package mutating func publish() -> [Chunk]? {
        guard changed else { return nil }
        changed = false
        var chunks: [Chunk] = []
        var builders = types.map { ColumnBuilder(type: $0, capacity: Chunk.preferredSize) }
        var filled = 0
        func flush() {
            chunks.append(Chunk(columns: builders.map { $0.finish() }, count: filled))
            builders = types.map { ColumnBuilder(type: $0, capacity: Chunk.preferredSize) }
            filled = 0
        }
        for entry in rows.values {
            for _ in 0 ..< entry.count {
                for (index, value) in entry.values.enumerated() { builders[index].append(value) }
                filled += 1
                if filled == Chunk.preferredSize { flush() }
            }
        }
        if filled > 0 { flush() }
        return chunks
    }
}
