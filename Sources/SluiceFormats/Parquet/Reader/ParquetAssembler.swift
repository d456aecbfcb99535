import SluiceCore

/// Record assembly (the inverse of ``ParquetShredder``): rebuilds a top-level column from its
/// leaves' levels and values.
///
/// Each node is assembled for a list of slots; per leaf beneath it, a slot is a range of that
/// leaf's entries. A row is the entries from one repetition level 0 to the next; a list slot
/// splits into element slots where the repetition level is the list's own. Every count is
/// checked across leaves, so inconsistent levels fail as corrupt instead of building columns
/// of different lengths.
struct ParquetAssembler {
    let leaves: [ParquetLeaf]
    let decoded: [Int: ParquetDecodedLeaf]
    /// Per leaf: the dense values as a Sluice column.
    let values: [Int: Column]

    static func corrupt(_ what: String) -> SluiceError {
        SluiceError(.dataCorrupted, "invalid parquet file: \(what)")
    }

    /// Entry ranges of one leaf, one per slot.
    struct Ranges {
        var starts: [Int] = []
        var ends: [Int] = []
    }

    /// The column of `node` with `rowCount` rows.
    func assemble(_ node: ParquetNode, rowCount: Int) throws(SluiceError) -> Column {
        // A flat column (one leaf, not repeated) is its values, with NULLs where the level
        // says so: no slot ranges are needed, and without NULLs the values are the column.
        if case .leaf(let leafIndex) = node.kind, let leaf = decoded[leafIndex], leaf.repetitionLevels == nil {
            return try assembleFlat(leafIndex, leaf: leaf, count: rowCount)
        }
        var ranges: [Int: Ranges] = [:]
        for leafIndex in node.leafIndices {
            guard let leaf = decoded[leafIndex] else { throw SluiceError.internalError("parquet leaf \(leafIndex) not decoded") }
            var leafRanges = Ranges()
            if let repetition = leaf.repetitionLevels {
                for (entry, level) in repetition.enumerated() where level == 0 {
                    if !leafRanges.starts.isEmpty { leafRanges.ends.append(entry) }
                    leafRanges.starts.append(entry)
                }
                if !leafRanges.starts.isEmpty { leafRanges.ends.append(repetition.count) }
                guard repetition.first.map({ $0 == 0 }) ?? true else { throw Self.corrupt("a column chunk starts inside a row") }
            } else {
                leafRanges.starts = Array(0 ..< leaf.entryCount)
                leafRanges.ends = Array(1 ..< leaf.entryCount + 1)
            }
            guard leafRanges.starts.count == rowCount else {
                throw Self.corrupt("column \"\(leaves[leafIndex].path.joined(separator: "."))\" holds \(leafRanges.starts.count) rows, its row group \(rowCount)")
            }
            ranges[leafIndex] = leafRanges
        }
        return try assemble(node, ranges: ranges, count: rowCount)
    }

    private func assembleFlat(_ leafIndex: Int, leaf: ParquetDecodedLeaf, count: Int) throws(SluiceError) -> Column {
        guard leaf.entryCount == count else {
            throw Self.corrupt("column \"\(leaves[leafIndex].path.joined(separator: "."))\" holds \(leaf.entryCount) rows, its row group \(count)")
        }
        guard let dense = values[leafIndex] else { throw SluiceError.internalError("parquet leaf without values") }
        return try Self.flat(dense, levels: leaf.definitionLevels, maximum: leaves[leafIndex].maxDefinitionLevel, count: count)
    }

    /// The `count` rows of a flat leaf from its values not null and its definition levels (nil:
    /// every row holds a value): NULLs where a level is below `maximum`.
    static func flat(_ dense: Column, levels: [UInt8]?, maximum: Int, count: Int) throws(SluiceError) -> Column {
        guard let levels else {
            guard dense.count == count else { throw Self.corrupt("a column holds \(dense.count) values for \(count) slots") }
            return dense
        }
        guard levels.count >= count else { throw Self.corrupt("a column's levels are fewer than its rows") }
        let maximum = UInt8(clamping: maximum)
        let present = levels.withUnsafeBufferPointer { levels in
            var present = 0
            for slot in 0 ..< count where levels[slot] == maximum { present += 1 }
            return present
        }
        guard present <= dense.count else { throw Self.corrupt("levels and values of a column disagree") }
        if present == count && dense.count == count { return dense }
        var picks = [Int](repeating: -1, count: count)
        var valid = Bitmap(count: count, value: false)
        var next = 0
        levels.withUnsafeBufferPointer { levels in
            for slot in 0 ..< count where levels[slot] == maximum {
                picks[slot] = next
                valid[slot] = true
                next += 1
            }
        }
        return ParquetAssembler.scatter(dense, picks: picks, validity: valid)
    }

    private func definitionLevel(_ leafIndex: Int, _ entry: Int) -> Int {
        guard let levels = decoded[leafIndex]?.definitionLevels else { return leaves[leafIndex].maxDefinitionLevel }
        return Int(levels[entry])
    }

    private func assemble(_ node: ParquetNode, ranges: [Int: Ranges], count: Int) throws(SluiceError) -> Column {
        guard let firstLeaf = node.leafIndices.first, let first = ranges[firstLeaf] else { throw SluiceError.internalError("parquet node without leaves") }
        switch node.kind {
        case .leaf(let leafIndex):
            guard let dense = values[leafIndex] else { throw SluiceError.internalError("parquet leaf without values") }
            let maximum = leaves[leafIndex].maxDefinitionLevel
            guard let levels = decoded[leafIndex]?.definitionLevels else {
                guard dense.count == count else { throw Self.corrupt("a column holds \(dense.count) values for \(count) slots") }
                return dense
            }
            // Value index of each present slot: values are in entry order.
            var picks = [Int](repeating: -1, count: count)
            var nextValue = 0
            var previousEntry = 0
            var valid = Bitmap(count: count, value: false)
            for slot in 0 ..< count {
                let entry = first.starts[slot]
                for skipped in previousEntry ..< entry where Int(levels[skipped]) == maximum { nextValue += 1 }
                if Int(levels[entry]) == maximum {
                    picks[slot] = nextValue
                    valid[slot] = true
                    nextValue += 1
                }
                previousEntry = entry + 1
            }
            guard nextValue <= dense.count else { throw Self.corrupt("levels and values of a column disagree") }
            return ParquetAssembler.scatter(dense, picks: picks, validity: valid)
        case .structure(let fields):
            var children: [Column] = []
            for field in fields {
                let child = try assemble(field, ranges: ranges, count: count)
                guard child.count == count else { throw Self.corrupt("struct fields of different lengths") }
                children.append(child)
            }
            var validity: Bitmap?
            if node.nullable {
                var bits = Bitmap(count: count, value: true)
                for slot in 0 ..< count where definitionLevel(firstLeaf, first.starts[slot]) < node.definitionLevel { bits[slot] = false }
                validity = bits
            }
            return Column(type: node.type, storage: .structure(children, count: count), validity: validity)
        case .list(let element, let repetitionLevel, let elementDefinitionLevel):
            guard let elementNode = element.first else { throw SluiceError.internalError("parquet list without element") }
            var offsets = [Int32](repeating: 0, count: count + 1)
            var validity: Bitmap? = node.nullable ? Bitmap(count: count, value: true) : nil
            var elementRanges: [Int: Ranges] = [:]
            var elementCount = -1
            for leafIndex in node.leafIndices {
                guard let leafRanges = ranges[leafIndex], let repetition = decoded[leafIndex]?.repetitionLevels else {
                    throw SluiceError.internalError("parquet list leaf without repetition levels")
                }
                var split = Ranges()
                for slot in 0 ..< count {
                    let start = leafRanges.starts[slot], end = leafRanges.ends[slot]
                    let definition = definitionLevel(leafIndex, start)
                    if definition < elementDefinitionLevel {
                        if leafIndex == firstLeaf {
                            if definition < node.definitionLevel { validity?[slot] = false }
                            offsets[slot + 1] = offsets[slot]
                        }
                        continue
                    }
                    var elementStart = start
                    for entry in start + 1 ..< max(end, start + 1) where Int(repetition[entry]) <= repetitionLevel {
                        split.starts.append(elementStart)
                        split.ends.append(entry)
                        elementStart = entry
                    }
                    split.starts.append(elementStart)
                    split.ends.append(end)
                    if leafIndex == firstLeaf {
                        offsets[slot + 1] = Int32(truncatingIfNeeded: split.starts.count)
                    }
                }
                if elementCount < 0 {
                    elementCount = split.starts.count
                } else if elementCount != split.starts.count {
                    throw Self.corrupt("the fields of a list's elements hold different numbers of elements")
                }
                elementRanges[leafIndex] = split
            }
            let elements = try assemble(elementNode, ranges: elementRanges, count: max(elementCount, 0))
            return Column(type: node.type, storage: .list(offsets: offsets, elements: elements), validity: validity)
        }
    }

    /// Row `i` of the result is `dense[picks[i]]`, or a null slot (zero value) where
    /// `picks[i]` is -1.
    static func scatter(_ dense: Column, picks: [Int], validity: Bitmap) -> Column {
        func spread<T>(_ values: [T], zero: T) -> [T] {
            values.withUnsafeBufferPointer { values in
                picks.map { $0 >= 0 ? values[$0] : zero }
            }
        }
        let storage: ColumnStorage
        switch dense.storage {
        case .bool(let values): storage = .bool(spread(values, zero: false))
        case .int16(let values): storage = .int16(spread(values, zero: 0))
        case .int32(let values): storage = .int32(spread(values, zero: 0))
        case .int64(let values): storage = .int64(spread(values, zero: 0))
        case .float32(let values): storage = .float32(spread(values, zero: 0))
        case .float64(let values): storage = .float64(spread(values, zero: 0))
        case .decimal(let values): storage = .decimal(spread(values, zero: .zero))
        case .interval(let values): storage = .interval(spread(values, zero: Interval(months: 0, days: 0, microseconds: 0)))
        case .bytes(let values):
            var result = VarBytes()
            result.reserveCapacity(rows: picks.count, bytes: values.data.count)
            values.data.withUnsafeBytes { data in
                for pick in picks {
                    if pick >= 0 {
                        result.append(bytes: UnsafeRawBufferPointer(rebasing: data[values.byteRange(at: pick)]))
                    } else {
                        result.appendEmpty()
                    }
                }
            }
            storage = .bytes(result)
        case .structure, .list:
            storage = dense.storage
        }
        return Column(type: dense.type, storage: storage, validity: validity)
    }
}
