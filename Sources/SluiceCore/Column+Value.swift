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
///
/// Values go into a typed buffer of the column's physical layout, grown in place (the
/// ``ColumnStorage`` enum is indirect, so appending through it would copy its buffer each time).
package struct ColumnBuilder {
    package let type: DataType
    private enum Layout {
        case bool, int16, int32, int64, float32, float64, decimal, interval, bytes, structure, list
    }

    private let layout: Layout
    private var bools: [Bool] = []
    private var int16s: [Int16] = []
    private var int32s: [Int32] = []
    private var int64s: [Int64] = []
    private var float32s: [Float] = []
    private var float64s: [Double] = []
    private var decimals: [Decimal] = []
    private var intervals: [Interval] = []
    private var bytes = VarBytes()
    /// Struct fields, or the one element builder of a list.
    private var children: [ColumnBuilder] = []
    private var offsets: [Int32] = []
    private var validity: Bitmap
    private var hasNull = false

    package init(type: DataType, capacity: Int = Chunk.preferredSize) {
        self.type = type
        self.validity = Bitmap()
        self.validity.reserveCapacity(capacity)
        switch type {
        case .boolean:
            layout = .bool
            bools.reserveCapacity(capacity)
        case .int16:
            layout = .int16
            int16s.reserveCapacity(capacity)
        case .int32, .date:
            layout = .int32
            int32s.reserveCapacity(capacity)
        case .int64, .time, .timestamp, .timestamptz:
            layout = .int64
            int64s.reserveCapacity(capacity)
        case .float32:
            layout = .float32
            float32s.reserveCapacity(capacity)
        case .float64:
            layout = .float64
            float64s.reserveCapacity(capacity)
        case .decimal:
            layout = .decimal
            decimals.reserveCapacity(capacity)
        case .interval:
            layout = .interval
            intervals.reserveCapacity(capacity)
        case .varchar, .jsonb, .bytea, .unknown:
            layout = .bytes
            bytes.reserveCapacity(rows: capacity, bytes: capacity * 8)
        case .structure(let fields):
            layout = .structure
            children = fields.map { ColumnBuilder(type: $0.type, capacity: capacity) }
        case .list(let element):
            layout = .list
            children = [ColumnBuilder(type: element, capacity: capacity)]
            offsets = [0]
            offsets.reserveCapacity(capacity + 1)
        }
    }

    package var count: Int { validity.count }

    /// Appends `value`, which must have this builder's physical layout or be `.null`.
    package mutating func append(_ value: Value) {
        let isNull = value.isNull
        validity.append(!isNull)
        if isNull { hasNull = true }
        switch layout {
        case .bool:
            if case .bool(let v) = value { bools.append(v) } else { bools.append(false) }
        case .int16:
            if case .int16(let v) = value { int16s.append(v) } else { int16s.append(0) }
        case .int32:
            switch value {
            case .int32(let v), .date(let v): int32s.append(v)
            default: int32s.append(0)
            }
        case .int64:
            switch value {
            case .int64(let v), .time(let v), .timestamp(let v), .timestamptz(let v): int64s.append(v)
            default: int64s.append(0)
            }
        case .float32:
            if case .float32(let v) = value { float32s.append(v) } else { float32s.append(0) }
        case .float64:
            if case .float64(let v) = value { float64s.append(v) } else { float64s.append(0) }
        case .decimal:
            if case .decimal(let v) = value { decimals.append(v) } else { decimals.append(.zero) }
        case .interval:
            if case .interval(let v) = value { intervals.append(v) } else { intervals.append(Interval()) }
        case .bytes:
            switch value {
            case .string(let v), .jsonb(let v): bytes.append(v)
            case .bytea(let v): bytes.append(v)
            default: bytes.appendEmpty()
            }
        case .structure:
            let fieldValues: [Value]
            if case .structure(let v) = value { fieldValues = v } else { fieldValues = [] }
            for index in children.indices { children[index].append(index < fieldValues.count ? fieldValues[index] : .null) }
        case .list:
            if case .list(let items) = value {
                for item in items { children[0].append(item) }
            }
            offsets.append(Int32(children[0].count))
        }
    }

    /// The finished column.
    package func finish() -> Column {
        let storage: ColumnStorage
        switch layout {
        case .bool: storage = .bool(bools)
        case .int16: storage = .int16(int16s)
        case .int32: storage = .int32(int32s)
        case .int64: storage = .int64(int64s)
        case .float32: storage = .float32(float32s)
        case .float64: storage = .float64(float64s)
        case .decimal: storage = .decimal(decimals)
        case .interval: storage = .interval(intervals)
        case .bytes: storage = .bytes(bytes)
        case .structure: storage = .structure(children.map { $0.finish() }, count: count)
        case .list: storage = .list(offsets: offsets, elements: children[0].finish())
        }
        return Column(type: type, storage: storage, validity: hasNull ? validity : nil)
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
