/// Conversions between columns and scalar ``Value``s, for the edges of the engine.
extension Column {
    /// The value of row `rowIndex`.
    package func value(at rowIndex: Int) -> Value {
        if isNull(rowIndex) { return .null }
        switch (storage, type) {
        case (.bool(let values), _): return .bool(values[rowIndex])
        case (.int16(let values), _): return .int16(values[rowIndex])
        case (.int32(let values), .date): return .date(values[rowIndex])
        case (.int32(let values), _): return .int32(values[rowIndex])
        case (.int64(let values), .time): return .time(values[rowIndex])
        case (.int64(let values), .timestamp): return .timestamp(values[rowIndex])
        case (.int64(let values), .timestamptz): return .timestamptz(values[rowIndex])
        case (.int64(let values), _): return .int64(values[rowIndex])
        case (.float32(let values), _): return .float32(values[rowIndex])
        case (.float64(let values), _): return .float64(values[rowIndex])
        case (.decimal(let values), _): return .decimal(values[rowIndex])
        case (.interval(let values), _): return .interval(values[rowIndex])
        case (.bytes(let values), .jsonb): return .jsonb(values.string(at: rowIndex))
        case (.bytes(let values), .bytea): return .bytea(values.bytes(at: rowIndex))
        case (.bytes(let values), _): return .string(values.string(at: rowIndex))
        case (.structure(let children, _), _): return .structure(children.map { $0.value(at: rowIndex) })
        case (.list(let offsets, let elements), _):
            return .list((Int(offsets[rowIndex]) ..< Int(offsets[rowIndex + 1])).map { elements.value(at: $0) })
        }
    }

    /// A column of `type` holding `values`; each value must match the type's physical layout
    /// (`.int32` for `.int32` and so on) or be `.null`.
    package init(type: DataType, values: [Value]) {
        var builder = ColumnBuilder(type: type, capacity: values.count)
        for value in values { builder.append(value) }
        self = builder.finish()
    }

    /// A column of `count` copies of `value`.
    package init(type: DataType, repeating value: Value, count: Int) {
        switch value {
        case .null:
            self.init(type: type, storage: ColumnStorage.empty(for: type).repeatingZero(count), validity: Bitmap(count: count, value: false))
            return
        case .bool(let v): self.init(type: type, storage: .bool(Array(repeating: v, count: count))); return
        case .int16(let v): self.init(type: type, storage: .int16(Array(repeating: v, count: count))); return
        case .int32(let v), .date(let v): self.init(type: type, storage: .int32(Array(repeating: v, count: count))); return
        case .int64(let v), .time(let v), .timestamp(let v), .timestamptz(let v):
            self.init(type: type, storage: .int64(Array(repeating: v, count: count)))
            return
        case .float32(let v): self.init(type: type, storage: .float32(Array(repeating: v, count: count))); return
        case .float64(let v): self.init(type: type, storage: .float64(Array(repeating: v, count: count))); return
        case .decimal(let v): self.init(type: type, storage: .decimal(Array(repeating: v, count: count))); return
        default: break
        }
        var builder = ColumnBuilder(type: type, capacity: count)
        for _ in 0 ..< count { builder.append(value) }
        self = builder.finish()
    }

    /// All values, for tests and the edges.
    package var values: [Value] { (0 ..< count).map { value(at: $0) } }
}

/// Appends values to a column of one type, then hands the column over with ``finish()``.
package struct ColumnBuilder {
    package let type: DataType
    private var storage: ColumnStorage
    private var validity: Bitmap
    private var hasNull = false

    package init(type: DataType, capacity: Int = Chunk.preferredSize) {
        self.type = type
        self.storage = .empty(for: type, capacity: capacity)
        self.validity = Bitmap()
        self.validity.reserveCapacity(capacity)
    }

    package var count: Int { validity.count }

    /// Appends `value`, which must have this builder's physical layout or be `.null`.
    package mutating func append(_ value: Value) {
        let isNull = value.isNull
        validity.append(!isNull)
        if isNull { hasNull = true }
        switch storage {
        case .bool(var values):
            storage = .bool([])
            if case .bool(let v) = value { values.append(v) } else { values.append(false) }
            storage = .bool(values)
        case .int16(var values):
            storage = .int16([])
            if case .int16(let v) = value { values.append(v) } else { values.append(0) }
            storage = .int16(values)
        case .int32(var values):
            storage = .int32([])
            switch value {
            case .int32(let v), .date(let v): values.append(v)
            default: values.append(0)
            }
            storage = .int32(values)
        case .int64(var values):
            storage = .int64([])
            switch value {
            case .int64(let v), .time(let v), .timestamp(let v), .timestamptz(let v): values.append(v)
            default: values.append(0)
            }
            storage = .int64(values)
        case .float32(var values):
            storage = .float32([])
            if case .float32(let v) = value { values.append(v) } else { values.append(0) }
            storage = .float32(values)
        case .float64(var values):
            storage = .float64([])
            if case .float64(let v) = value { values.append(v) } else { values.append(0) }
            storage = .float64(values)
        case .decimal(var values):
            storage = .decimal([])
            if case .decimal(let v) = value { values.append(v) } else { values.append(.zero) }
            storage = .decimal(values)
        case .interval(var values):
            storage = .interval([])
            if case .interval(let v) = value { values.append(v) } else { values.append(Interval()) }
            storage = .interval(values)
        case .bytes(var values):
            storage = .bytes(VarBytes())
            switch value {
            case .string(let v), .jsonb(let v): values.append(v)
            case .bytea(let v): values.append(v)
            default: values.appendEmpty()
            }
            storage = .bytes(values)
        case .structure(var children, let count):
            storage = .structure([], count: 0)
            let fieldValues: [Value]
            if case .structure(let v) = value { fieldValues = v } else { fieldValues = [] }
            for childIndex in children.indices {
                var childBuilder = ColumnBuilder(reusing: children[childIndex])
                childBuilder.append(childIndex < fieldValues.count ? fieldValues[childIndex] : .null)
                children[childIndex] = childBuilder.finish()
            }
            storage = .structure(children, count: count + 1)
        case .list(var offsets, let elements):
            storage = .bool([])
            var elementBuilder = ColumnBuilder(reusing: elements)
            if case .list(let items) = value {
                for item in items { elementBuilder.append(item) }
            }
            offsets.append(Int32(elementBuilder.count))
            storage = .list(offsets: offsets, elements: elementBuilder.finish())
        }
    }

    /// A builder that continues `column` (used for nested columns).
    package init(reusing column: Column) {
        self.type = column.type
        self.storage = column.storage
        self.validity = column.validity ?? Bitmap(count: column.count, value: true)
        self.hasNull = column.validity != nil
    }

    /// The finished column.
    package func finish() -> Column {
        Column(type: type, storage: storage, validity: hasNull ? validity : nil)
    }
}

extension ColumnStorage {
    /// Storage of the same layout holding `count` zero values (the slots of null rows).
    func repeatingZero(_ count: Int) -> ColumnStorage {
        switch self {
        case .bool: .bool(Array(repeating: false, count: count))
        case .int16: .int16(Array(repeating: 0, count: count))
        case .int32: .int32(Array(repeating: 0, count: count))
        case .int64: .int64(Array(repeating: 0, count: count))
        case .float32: .float32(Array(repeating: 0, count: count))
        case .float64: .float64(Array(repeating: 0, count: count))
        case .decimal: .decimal(Array(repeating: .zero, count: count))
        case .interval: .interval(Array(repeating: Interval(), count: count))
        case .bytes: .bytes(VarBytes(offsets: Array(repeating: 0, count: count + 1), data: []))
        case .structure(let children, _):
            .structure(children.map { Column(type: $0.type, storage: $0.storage.repeatingZero(count), validity: Bitmap(count: count, value: false)) }, count: count)
        case .list(_, let elements): .list(offsets: Array(repeating: 0, count: count + 1), elements: elements)
        }
    }
}
