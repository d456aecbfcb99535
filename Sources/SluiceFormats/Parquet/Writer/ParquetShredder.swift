import SluiceCore

/// Record shredding (the Dremel encoding, parquet-format README "Nested encoding"): turns a
/// column into one ``ParquetLeafBatch`` per leaf, with definition and repetition levels.
///
/// A top-level primitive column takes a fast path: no levels at all when it has no nulls, else
/// its validity as levels and its rows not null gathered. Nested columns go level by level
/// over arrays of slots, never per value through a closure.
enum ParquetShredder {
    static func shred(_ column: Column, node: ParquetNode, leaves: [ParquetLeaf], into batches: inout [ParquetLeafBatch?]) throws(SluiceError) {
        if case .leaf(let leafIndex) = node.kind {
            batches[leafIndex] = try flatBatch(column, node: node, leaf: leaves[leafIndex])
            return
        }
        let count = column.count
        var slots = Slots()
        slots.rows = (0 ..< Int32(count)).map { $0 }
        slots.definitions = [UInt8](repeating: 0, count: count)
        slots.repetitions = [UInt8](repeating: 0, count: count)
        try shred(column, node: node, slots: slots, leaves: leaves, into: &batches)
    }

    private static func flatBatch(_ column: Column, node: ParquetNode, leaf: ParquetLeaf) throws(SluiceError) -> ParquetLeafBatch {
        guard let validity = column.validity else {
            return ParquetLeafBatch(values: try ParquetLeafValues(column, for: leaf), definitionLevels: nil, repetitionLevels: nil, entryCount: column.count)
        }
        guard node.nullable else { throw notNull(node) }
        var levels = [UInt8](repeating: 0, count: column.count)
        var rows: [Int] = []
        rows.reserveCapacity(validity.setCount)
        for row in 0 ..< column.count where validity[row] {
            levels[row] = 1
            rows.append(row)
        }
        var dense = column.gather(rows)
        dense.validity = nil
        return ParquetLeafBatch(values: try ParquetLeafValues(dense, for: leaf), definitionLevels: levels, repetitionLevels: nil, entryCount: column.count)
    }

    private static func notNull(_ node: ParquetNode) -> SluiceError {
        SluiceError(.notNullViolation, "null value in column \"\(node.name)\" violates not-null constraint")
    }

    /// Per slot: the row of the node's column it stands for (-1 when an ancestor is null or an
    /// empty list, which `definitions` then tells), the definition level reached, and the
    /// repetition level the slot's first entry takes.
    private struct Slots {
        var rows: [Int32] = []
        var definitions: [UInt8] = []
        var repetitions: [UInt8] = []
    }

    private static func shred(_ column: Column, node: ParquetNode, slots: Slots, leaves: [ParquetLeaf], into batches: inout [ParquetLeafBatch?]) throws(SluiceError) {
        // The node's own presence: a null value ends the slot at the parent's level.
        var slots = slots
        let presentLevel = UInt8(node.definitionLevel)
        for index in slots.rows.indices {
            let row = Int(slots.rows[index])
            guard row >= 0 else { continue }
            if column.isNull(row) {
                guard node.nullable else { throw notNull(node) }
                slots.rows[index] = -1
            } else {
                slots.definitions[index] = presentLevel
            }
        }
        switch node.kind {
        case .leaf(let leafIndex):
            let leaf = leaves[leafIndex]
            var rows: [Int] = []
            for row in slots.rows where row >= 0 { rows.append(Int(row)) }
            var dense = column.gather(rows)
            dense.validity = nil
            batches[leafIndex] = ParquetLeafBatch(
                values: try ParquetLeafValues(dense, for: leaf),
                definitionLevels: leaf.maxDefinitionLevel > 0 ? slots.definitions : nil,
                repetitionLevels: leaf.maxRepetitionLevel > 0 ? slots.repetitions : nil,
                entryCount: slots.rows.count)
        case .structure(let fields):
            guard case .structure(let children, _) = column.storage, children.count == fields.count else {
                throw SluiceError(.datatypeMismatch, "column \"\(node.name)\" is not a struct of \(fields.count) fields")
            }
            for (child, field) in zip(children, fields) {
                try shred(child, node: field, slots: slots, leaves: leaves, into: &batches)
            }
        case .list(let element, let repetitionLevel, let elementDefinitionLevel):
            guard case .list(let offsets, let elements) = column.storage, let elementNode = element.first else {
                throw SluiceError(.datatypeMismatch, "column \"\(node.name)\" is not a list")
            }
            var expanded = Slots()
            expanded.rows.reserveCapacity(elements.count + slots.rows.count)
            for index in slots.rows.indices {
                let row = Int(slots.rows[index])
                let start = row >= 0 ? Int(offsets[row]) : 0
                let end = row >= 0 ? Int(offsets[row + 1]) : 0
                if start == end {
                    // Null (row -1) or empty: one entry at the level reached.
                    expanded.rows.append(-1)
                    expanded.definitions.append(slots.definitions[index])
                    expanded.repetitions.append(slots.repetitions[index])
                    continue
                }
                for position in start ..< end {
                    expanded.rows.append(Int32(position))
                    expanded.definitions.append(UInt8(elementDefinitionLevel))
                    expanded.repetitions.append(position == start ? slots.repetitions[index] : UInt8(repetitionLevel))
                }
            }
            try shred(elements, node: elementNode, slots: expanded, leaves: leaves, into: &batches)
        }
    }
}
