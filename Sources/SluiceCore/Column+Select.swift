/// Selecting and combining rows of columns and chunks: gather, filter, slice, concatenate.
extension Column {
    /// The rows at `indices`, in that order.
    /// - Complexity: O(indices.count) plus the bytes of gathered strings.
    package func gather(_ indices: [Int]) -> Column {
        let newStorage: ColumnStorage
        switch storage {
        case .bool(let values): newStorage = .bool(Column.gathered(values, indices))
        case .int16(let values): newStorage = .int16(Column.gathered(values, indices))
        case .int32(let values): newStorage = .int32(Column.gathered(values, indices))
        case .int64(let values): newStorage = .int64(Column.gathered(values, indices))
        case .float32(let values): newStorage = .float32(Column.gathered(values, indices))
        case .float64(let values): newStorage = .float64(Column.gathered(values, indices))
        case .decimal(let values): newStorage = .decimal(Column.gathered(values, indices))
        case .interval(let values): newStorage = .interval(Column.gathered(values, indices))
        case .bytes(let values):
            // The lengths first, so the bytes are copied into one allocation of the right size.
            newStorage = .bytes(values.offsets.withUnsafeBufferPointer { offsets in
                var total = 0
                for index in indices {
                    precondition(index >= 0 && index + 1 < offsets.count, "gather index out of range")
                    total += Int(offsets[index + 1] - offsets[index])
                }
                var result = VarBytes()
                result.offsets = [Int32](unsafeUninitializedCapacity: indices.count + 1) { buffer, initialized in
                    buffer.initializeElement(at: 0, to: 0)
                    var end = 0
                    for (position, index) in indices.enumerated() {
                        end += Int(offsets[index + 1] - offsets[index])
                        buffer.initializeElement(at: position + 1, to: Int32(end))
                    }
                    initialized = indices.count + 1
                }
                result.data = values.data.withUnsafeBufferPointer { data in
                    [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
                        var end = 0
                        for index in indices {
                            let start = Int(offsets[index]), length = Int(offsets[index + 1]) - start
                            if length > 0 {
                                (buffer.baseAddress! + end).initialize(from: data.baseAddress! + start, count: length)
                                end += length
                            }
                        }
                        initialized = total
                    }
                }
                return result
            })
        case .structure(let children, _):
            newStorage = .structure(children.map { $0.gather(indices) }, count: indices.count)
        case .list(let offsets, let elements):
            // The rows' element ranges, one after another: new offsets, and the elements gathered.
            var newOffsets = [Int32](repeating: 0, count: indices.count + 1)
            var picks: [Int] = []
            for (position, index) in indices.enumerated() {
                precondition(index >= 0 && index + 1 < offsets.count, "gather index out of range")
                picks.append(contentsOf: Int(offsets[index]) ..< Int(offsets[index + 1]))
                newOffsets[position + 1] = Int32(picks.count)
            }
            newStorage = .list(offsets: newOffsets, elements: elements.gather(picks))
        }
        var newValidity: Bitmap?
        if let validity {
            var bits = Bitmap(count: indices.count, value: true)
            for (position, index) in indices.enumerated() where !validity[index] { bits[position] = false }
            newValidity = bits
        }
        var gathered = Column(type: type, storage: newStorage, validity: newValidity)
        // Some of the same rows: the same scale, and no larger magnitude.
        gathered.decimalProfile = decimalProfile
        return gathered
    }

    /// `values[index]` for each of `indices`, in one allocation.
    @inline(__always)
    static func gathered<Element>(_ values: [Element], _ indices: [Int]) -> [Element] {
        values.withUnsafeBufferPointer { values in
            [Element](unsafeUninitializedCapacity: indices.count) { buffer, initialized in
                for (position, index) in indices.enumerated() {
                    precondition(index >= 0 && index < values.count, "gather index out of range")
                    buffer.initializeElement(at: position, to: values[index])
                }
                initialized = indices.count
            }
        }
    }

    /// The rows where `mask` is set.
    package func filter(_ mask: Bitmap) -> Column {
        var indices: [Int] = []
        indices.reserveCapacity(mask.setCount)
        for index in 0 ..< mask.count where mask[index] { indices.append(index) }
        return gather(indices)
    }

    /// Rows `range` of this column, copied a run at a time.
    package func slice(_ range: Range<Int>) -> Column {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "slice out of range")
        if range.count == count { return self }
        let newStorage: ColumnStorage
        switch storage {
        case .bool(let values): newStorage = .bool(Array(values[range]))
        case .int16(let values): newStorage = .int16(Array(values[range]))
        case .int32(let values): newStorage = .int32(Array(values[range]))
        case .int64(let values): newStorage = .int64(Array(values[range]))
        case .float32(let values): newStorage = .float32(Array(values[range]))
        case .float64(let values): newStorage = .float64(Array(values[range]))
        case .decimal(let values): newStorage = .decimal(Array(values[range]))
        case .interval(let values): newStorage = .interval(Array(values[range]))
        case .bytes(let values):
            let start = values.offsets[range.lowerBound], end = values.offsets[range.upperBound]
            newStorage = .bytes(VarBytes(
                offsets: values.offsets[range.lowerBound ... range.upperBound].map { $0 - start },
                data: Array(values.data[Int(start) ..< Int(end)])))
        case .structure(let children, _):
            newStorage = .structure(children.map { $0.slice(range) }, count: range.count)
        case .list:
            return gather(Array(range))
        }
        var sliced = Column(type: type, storage: newStorage, validity: validity?.slice(range))
        sliced.decimalProfile = decimalProfile
        return sliced
    }

    /// This column's rows followed by `other`'s; both must have the same physical layout.
    package func appending(_ other: Column) -> Column {
        Column.concatenate([self, other], type: type)
    }

    /// The rows of `columns`, one after another; all must have `type`'s physical layout.
    package static func concatenate(_ columns: [Column], type: DataType) -> Column {
        let total = columns.reduce(0) { $0 + $1.count }
        var storage = ColumnStorage.empty(for: type, capacity: total)
        var validity: Bitmap?
        if columns.contains(where: { $0.validity != nil }) {
            var bits = Bitmap()
            bits.reserveCapacity(total)
            for column in columns {
                for row in 0 ..< column.count { bits.append(!column.isNull(row)) }
            }
            validity = bits
        }
        switch storage {
        case .bool(var values):
            for column in columns { if case .bool(let part) = column.storage { values += part } }
            storage = .bool(values)
        case .int16(var values):
            for column in columns { if case .int16(let part) = column.storage { values += part } }
            storage = .int16(values)
        case .int32(var values):
            for column in columns { if case .int32(let part) = column.storage { values += part } }
            storage = .int32(values)
        case .int64(var values):
            for column in columns { if case .int64(let part) = column.storage { values += part } }
            storage = .int64(values)
        case .float32(var values):
            for column in columns { if case .float32(let part) = column.storage { values += part } }
            storage = .float32(values)
        case .float64(var values):
            for column in columns { if case .float64(let part) = column.storage { values += part } }
            storage = .float64(values)
        case .decimal(var values):
            for column in columns { if case .decimal(let part) = column.storage { values += part } }
            storage = .decimal(values)
        case .interval(var values):
            for column in columns { if case .interval(let part) = column.storage { values += part } }
            storage = .interval(values)
        case .bytes(var values):
            for column in columns {
                guard case .bytes(let part) = column.storage else { continue }
                let base = Int32(values.data.count)
                values.data += part.data
                values.offsets += part.offsets.dropFirst().map { $0 + base }
            }
            storage = .bytes(values)
        case .structure(let emptyChildren, _):
            var children: [Column] = []
            for childIndex in emptyChildren.indices {
                let parts = columns.compactMap { column -> Column? in
                    if case .structure(let c, _) = column.storage { return c[childIndex] }
                    return nil
                }
                children.append(concatenate(parts, type: emptyChildren[childIndex].type))
            }
            storage = .structure(children, count: total)
        case .list:
            var builder = ColumnBuilder(type: type, capacity: total)
            for column in columns { for row in 0 ..< column.count { builder.append(column.value(at: row)) } }
            return builder.finish()
        }
        var result = Column(type: type, storage: storage, validity: validity)
        if case .decimal = storage, var profile = columns.first?.decimalProfile {
            for column in columns.dropFirst() {
                guard let next = column.decimalProfile.flatMap(profile.merged(with:)) else { return result }
                profile = next
            }
            result.decimalProfile = profile
        }
        return result
    }
}

extension Chunk {
    /// The rows at `indices`, in that order.
    package func gather(_ indices: [Int]) -> Chunk {
        Chunk(columns: columns.map { $0.gather(indices) }, count: indices.count)
    }


    /// The rows where `mask` is set.
    package func filter(_ mask: Bitmap) -> Chunk {
        var indices: [Int] = []
        indices.reserveCapacity(mask.setCount)
        for index in 0 ..< mask.count where mask[index] { indices.append(index) }
        return gather(indices)
    }

    /// Rows `range` of this chunk.
    package func slice(_ range: Range<Int>) -> Chunk {
        Chunk(columns: columns.map { $0.slice(range) }, count: range.count)
    }

    /// The rows of `chunks`, one after another; all must have the same column types.
    package static func concatenate(_ chunks: [Chunk], types: [DataType]) -> Chunk {
        let columns = types.indices.map { columnIndex in
            Column.concatenate(chunks.map { $0.columns[columnIndex] }, type: types[columnIndex])
        }
        return Chunk(columns: columns, count: chunks.reduce(0) { $0 + $1.count })
    }

    /// The values of row `rowIndex`, for tests and the edges.
    package func row(_ rowIndex: Int) -> [Value] {
        columns.map { $0.value(at: rowIndex) }
    }

    /// All rows as values, for tests and the edges.
    package var rows: [[Value]] { (0 ..< count).map { row($0) } }
}

extension Column {
    /// One NULL of `type`: a source for ``gather(from:picks:type:)`` where a pick has no row.
    package static func null(of type: DataType) -> Column {
        nulls(of: type, count: 1)
    }

    /// `count` NULLs of `type`.
    package static func nulls(of type: DataType, count: Int) -> Column {
        var builder = ColumnBuilder(type: type, capacity: count)
        for _ in 0 ..< count { builder.appendNull() }
        return builder.finish()
    }
}

extension Column {
    /// Row `picks[i].row` of `columns[picks[i].source]`, for each i in order: a gather across
    /// several columns of one type at once (rows met on many pages), one pass per column.
    /// - Complexity: O(picks.count) plus the bytes of gathered strings.
    package static func gather(from columns: [Column], picks: [(source: Int32, row: Int32)], type: DataType) -> Column {
        gather(from: columns, picks: picks, runs: runs(of: picks), type: type)
    }

    /// ``gather(from:picks:type:)`` with the picks' runs (``runs(of:)``), found once for all columns.
    /// Picks come in runs (consecutive rows of one source) when a page is rewritten around a few
    /// changes: each run is copied as one block.
    fileprivate static func gather(
        from columns: [Column], picks: [(source: Int32, row: Int32)], runs: [(source: Int32, rows: Range<Int>)], type: DataType
    ) -> Column {
        let layout = ColumnStorage.empty(for: type, capacity: 0)
        if columns.count >= 16 && runs.count * 2 >= picks.count, layout.isFlat {
            // Picks scattered one row at a time over many sources (a commit's staged rows put
            // in key order): the sources are laid end to end first, a copy in order, so that a
            // pick is a load from one buffer rather than a look-up of its source, and its
            // reference count, per value. Only when the picks take most of the rows: a few
            // picks from many large sources are not worth the copy.
            var starts: [Int] = []
            starts.reserveCapacity(columns.count)
            var total = 0
            for column in columns {
                starts.append(total)
                total += column.count
            }
            if total <= picks.count * 2 {
                let indices = starts.withUnsafeBufferPointer { starts in picks.map { starts[Int($0.source)] + Int($0.row) } }
                return concatenate(columns, type: type).gather(indices)
            }
        }
        func take<T>(_ arrays: (Column) -> [T]?) -> [T] {
            let sources = columns.map { arrays($0) ?? [] }
            var result: [T] = []
            result.reserveCapacity(picks.count)
            for run in runs {
                let values = sources[Int(run.source)]
                if run.rows.count == 1 {
                    result.append(values[run.rows.lowerBound])
                } else {
                    result.append(contentsOf: values[run.rows])
                }
            }
            return result
        }
        let storage: ColumnStorage
        switch layout {
        case .bool: storage = .bool(take { if case .bool(let v) = $0.storage { v } else { nil } })
        case .int16: storage = .int16(take { if case .int16(let v) = $0.storage { v } else { nil } })
        case .int32: storage = .int32(take { if case .int32(let v) = $0.storage { v } else { nil } })
        case .int64: storage = .int64(take { if case .int64(let v) = $0.storage { v } else { nil } })
        case .float32: storage = .float32(take { if case .float32(let v) = $0.storage { v } else { nil } })
        case .float64: storage = .float64(take { if case .float64(let v) = $0.storage { v } else { nil } })
        case .decimal: storage = .decimal(take { if case .decimal(let v) = $0.storage { v } else { nil } })
        case .interval: storage = .interval(take { if case .interval(let v) = $0.storage { v } else { nil } })
        case .bytes:
            // The offsets first, then the bytes copied into a buffer of their exact size: picks
            // scattered over many sources (a commit's rows put in key order) come in runs of one
            // short string, where an array append and a `memmove` call per string cost more
            // than the bytes.
            let sources = columns.map { column -> VarBytes? in if case .bytes(let v) = column.storage { v } else { nil } }
            var offsets: [Int32] = []
            offsets.reserveCapacity(picks.count + 1)
            offsets.append(0)
            var total = 0
            for run in runs {
                guard let values = sources[Int(run.source)] else {
                    for _ in run.rows { offsets.append(Int32(total)) }
                    continue
                }
                values.offsets.withUnsafeBufferPointer { sourceOffsets in
                    for row in run.rows {
                        total += Int(sourceOffsets[row + 1] - sourceOffsets[row])
                        offsets.append(Int32(total))
                    }
                }
            }
            let data = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
                var position = 0
                for run in runs {
                    guard let values = sources[Int(run.source)] else { continue }
                    let first = values.byteRange(at: run.rows.lowerBound).lowerBound
                    let end = values.byteRange(at: run.rows.upperBound - 1).upperBound
                    values.data.withUnsafeBufferPointer { source in
                        if end - first <= 32 {
                            for index in first ..< end {
                                buffer[position] = source[index]
                                position += 1
                            }
                        } else {
                            UnsafeMutableRawPointer(buffer.baseAddress! + position)
                                .copyMemory(from: source.baseAddress! + first, byteCount: end - first)
                            position += end - first
                        }
                    }
                }
                precondition(position == total, "gathered strings fill their buffer")
                initialized = total
            }
            storage = .bytes(VarBytes(offsets: offsets, data: data))
        case .structure(let emptyChildren, _):
            var children: [Column] = []
            for childIndex in emptyChildren.indices {
                let parts = columns.map { column -> Column in
                    if case .structure(let c, _) = column.storage { return c[childIndex] }
                    return Column(type: emptyChildren[childIndex].type, repeating: .null, count: column.count)
                }
                children.append(gather(from: parts, picks: picks, runs: runs, type: emptyChildren[childIndex].type))
            }
            storage = .structure(children, count: picks.count)
        case .list:
            var builder = ColumnBuilder(type: type, capacity: picks.count)
            for pick in picks { builder.append(columns[Int(pick.source)].value(at: Int(pick.row))) }
            return builder.finish()
        }
        var validity: Bitmap?
        if columns.contains(where: { $0.validity != nil }) {
            var bits = Bitmap(count: picks.count, value: true)
            for (position, pick) in picks.enumerated() where columns[Int(pick.source)].isNull(Int(pick.row)) { bits[position] = false }
            validity = bits
        }
        return Column(type: type, storage: storage, validity: validity)
    }

    /// `picks` as runs of consecutive rows of one source, in order.
    fileprivate static func runs(of picks: [(source: Int32, row: Int32)]) -> [(source: Int32, rows: Range<Int>)] {
        var runs: [(source: Int32, rows: Range<Int>)] = []
        var index = 0
        while index < picks.count {
            let source = picks[index].source
            let first = Int(picks[index].row)
            var end = index + 1
            while end < picks.count && picks[end].source == source && Int(picks[end].row) == first + (end - index) { end += 1 }
            runs.append((source, first ..< first + (end - index)))
            index = end
        }
        return runs
    }
}

extension Chunk {
    /// Row `picks[i].row` of `chunks[picks[i].source]`, for each i in order (``Column/gather(from:picks:type:)``).
    package static func gather(from chunks: [Chunk], picks: [(source: Int32, row: Int32)], types: [DataType]) -> Chunk {
        let runs = Column.runs(of: picks)
        return Chunk(
            columns: types.indices.map { column in
                Column.gather(from: chunks.map { $0.columns[column] }, picks: picks, runs: runs, type: types[column])
            },
            count: picks.count)
    }
}

extension ColumnStorage {
    /// Whether the values are in one buffer (not a structure's or a list's children).
    var isFlat: Bool {
        switch self {
        case .structure, .list: false
        default: true
        }
    }
}
