/// Appends values to a column of one type, then hands the column over with ``finish()``.
///
/// Values go into a typed buffer of the column's physical layout, grown in place (the
/// ``ColumnStorage`` enum is indirect, so appending through it would copy its buffer each time).
/// Scalar ``Value``s go in through ``append(_:)`` at the edges; decoders on the data path use
/// the typed, allocation-free appends of `ColumnBuilder+Append.swift` and roll a half-written
/// row back with ``truncate(to:)``.
///
/// Invariants between rows: every buffer of the layout holds ``count`` slots (a list's
/// `offsets` holds `count + 1`); a struct's children each hold ``count`` rows; a list's element
/// builder holds `offsets[count]` rows.
@usableFromInline  // without it, `@inlinable package` members are not serialized for other modules (Swift 6.3)
package struct ColumnBuilder {
    package let type: DataType

    @usableFromInline
    enum Layout {
        case bool, int16, int32, int64, float32, float64, decimal, interval, bytes, structure, list
    }

    @usableFromInline let layout: Layout
    @usableFromInline var bools: [Bool] = []
    @usableFromInline var int16s: [Int16] = []
    @usableFromInline var int32s: [Int32] = []
    @usableFromInline var int64s: [Int64] = []
    @usableFromInline var float32s: [Float] = []
    @usableFromInline var float64s: [Double] = []
    var decimals: [Decimal] = []
    var intervals: [Interval] = []
    @usableFromInline var bytes = VarBytes()
    /// Struct fields, in the type's field order, or the one element builder of a list.
    ///
    /// Decoders fill a struct row by appending one value to every child and then calling
    /// ``appendStructRow()``, and a list row by appending its elements to `children[0]` and
    /// then calling ``appendListRow()``.
    @usableFromInline package var children: [ColumnBuilder] = []
    @usableFromInline var offsets: [Int32] = []
    /// The rows' validity bits, kept only once a null has been appended: while ``hasNull`` is
    /// false every row is valid and the bitmap is empty, so a non-null append costs no bit
    /// (the decoders' hot path); the first null fills in the bits of the rows before it.
    /// Invariant: `hasNull ? validity.count == rowCount : validity.count == 0`.
    @usableFromInline var validity: Bitmap
    @usableFromInline var hasNull = false
    @usableFromInline var rowCount = 0

    package init(type: DataType, capacity: Int = Chunk.preferredSize) {
        self.type = type
        self.validity = Bitmap()
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

    /// The number of rows appended.
    @inlinable
    package var count: Int { rowCount }

    /// Counts a non-null row in the validity.
    @inlinable
    mutating func appendValidBit() {
        rowCount &+= 1
        if hasNull { validity.append(true) }
    }

    /// Counts a null row in the validity, materializing the bitmap at the first null.
    @inlinable
    mutating func appendNullBit() {
        if !hasNull { materializeValidity() }
        validity.append(false)
        rowCount &+= 1
    }

    /// Sets every bit for the rows so far: they are all valid, as no null came before.
    @usableFromInline
    mutating func materializeValidity() {
        validity = Bitmap(count: rowCount, value: true)
        hasNull = true
    }

    /// Appends `value`, which must have this builder's physical layout or be `.null`.
    package mutating func append(_ value: Value) {
        if value.isNull { appendNullBit() } else { appendValidBit() }
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
        var column = Column(type: type, storage: storage, validity: hasNull ? validity : nil)
        if layout == .decimal { column.decimalProfile = DecimalProfile.of(decimals, column.validity) }
        return column
    }
}
