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
        case .decimal(let v):
            self.init(type: type, storage: .decimal(Array(repeating: v, count: count)))
            decimalProfile = count > 0 ? DecimalProfile(of: v) : nil
            return
        case .string(let v) where type == .varchar || type == .unknown:
            // One copy of the bytes per row, the offsets stepping by their length.
            let bytes = Array(v.utf8)
            var data: [UInt8] = []
            data.reserveCapacity(bytes.count * count)
            for _ in 0 ..< count { data += bytes }
            let offsets = (0 ... count).map { Int32($0 * bytes.count) }
            self.init(type: type, storage: .bytes(VarBytes(offsets: offsets, data: data)))
            return
        default: break
        }
        var builder = ColumnBuilder(type: type, capacity: count)
        for _ in 0 ..< count { builder.append(value) }
        self = builder.finish()
    }

    /// All values, for tests and the edges.
    package var values: [Value] { (0 ..< count).map { value(at: $0) } }
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
