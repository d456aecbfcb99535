/// A typed column of values: one contiguous buffer per physical type plus a validity bitmap.
///
/// Invariant: the storage holds exactly `count` slots; a null row keeps a slot holding the
/// type's zero value, so kernels can run over the buffer without branching and then apply
/// the validity. `validity == nil` means no row is null.
package struct Column: Sendable {
    package var type: DataType
    package var storage: ColumnStorage { didSet { decimalProfile = nil } }
    package var validity: Bitmap? { didSet { decimalProfile = nil } }
    /// For a numeric column, when known: the one scale of its values not null and a bound on
    /// their mantissas. What makes the column sets it when it knows it for free (an arithmetic
    /// kernel, a constant, a builder, a gather of a column that had it), so that the kernels
    /// that read the column need not scan it for it. Changing the storage or the validity
    /// clears it.
    package var decimalProfile: DecimalProfile?

    package init(type: DataType, storage: ColumnStorage, validity: Bitmap? = nil) {
        self.type = type
        self.storage = storage
        self.validity = validity.flatMap { $0.isAllSet ? nil : $0 }
    }

    /// The number of rows.
    package var count: Int { storage.count }

    package func isNull(_ rowIndex: Int) -> Bool {
        guard let validity else { return false }
        return !validity[rowIndex]
    }

    package var hasNulls: Bool { validity != nil }

    /// The number of null rows.
    package var nullCount: Int {
        guard let validity else { return 0 }
        return validity.count - validity.setCount
    }
}

/// The buffers behind a ``Column``, one case per physical layout.
package indirect enum ColumnStorage: Sendable {
    case bool([Bool])
    case int16([Int16])
    case int32([Int32])
    case int64([Int64])
    case float32([Float])
    case float64([Double])
    case decimal([Decimal])
    case interval([Interval])
    case bytes(VarBytes)
    /// One child column per field; all children have the struct's row count.
    case structure([Column], count: Int)
    /// Row `i` holds `elements[offsets[i] ..< offsets[i + 1]]`.
    case list(offsets: [Int32], elements: Column)

    package var count: Int {
        switch self {
        case .bool(let values): values.count
        case .int16(let values): values.count
        case .int32(let values): values.count
        case .int64(let values): values.count
        case .float32(let values): values.count
        case .float64(let values): values.count
        case .decimal(let values): values.count
        case .interval(let values): values.count
        case .bytes(let values): values.count
        case .structure(_, let count): count
        case .list(let offsets, _): offsets.count - 1
        }
    }

    /// Empty storage of the physical layout that `type` uses.
    package static func empty(for type: DataType, capacity: Int = 0) -> ColumnStorage {
        switch type {
        case .boolean:
            return .bool(reserved(capacity))
        case .int16:
            return .int16(reserved(capacity))
        case .int32, .date:
            return .int32(reserved(capacity))
        case .int64, .time, .timestamp, .timestamptz:
            return .int64(reserved(capacity))
        case .float32:
            return .float32(reserved(capacity))
        case .float64:
            return .float64(reserved(capacity))
        case .decimal:
            return .decimal(reserved(capacity))
        case .interval:
            return .interval(reserved(capacity))
        case .varchar, .jsonb, .bytea, .unknown:
            var bytes = VarBytes()
            bytes.reserveCapacity(rows: capacity, bytes: capacity * 8)
            return .bytes(bytes)
        case .structure(let fields):
            return .structure(fields.map { Column(type: $0.type, storage: .empty(for: $0.type)) }, count: 0)
        case .list(let element):
            return .list(offsets: [0], elements: Column(type: element, storage: .empty(for: element)))
        }
    }

    private static func reserved<T>(_ capacity: Int) -> [T] {
        var array: [T] = []
        array.reserveCapacity(capacity)
        return array
    }
}

extension Column {
    /// About how many bytes the column's buffers hold (for memory budgets, not exact).
    package var approximateBytes: Int {
        let values: Int
        switch storage {
        case .bool(let array): values = array.count
        case .int16(let array): values = array.count * 2
        case .int32(let array): values = array.count * 4
        case .int64(let array): values = array.count * 8
        case .float32(let array): values = array.count * 4
        case .float64(let array): values = array.count * 8
        case .decimal(let array): values = array.count * MemoryLayout<Decimal>.stride
        case .interval(let array): values = array.count * MemoryLayout<Interval>.stride
        case .bytes(let bytes): values = bytes.data.count + bytes.offsets.count * 4
        case .structure(let children, _): values = children.reduce(0) { $0 + $1.approximateBytes }
        case .list(let offsets, let elements): values = offsets.count * 4 + elements.approximateBytes
        }
        return values + (validity == nil ? 0 : count / 8 + 8)
    }
}

extension Chunk {
    /// About how many bytes the chunk's columns hold.
    package var approximateBytes: Int { columns.reduce(0) { $0 + $1.approximateBytes } }
}
