/// Typed appends for decoders on the data path: no ``Value`` enum, no allocation beyond the
/// buffers' amortized growth, and ``truncate(to:)`` to roll a half-decoded row back.
///
/// Each typed append requires the builder's physical layout to match (`append(int64:)` for
/// `bigint`, `time`, `timestamp` and `timestamptz`; `append(int32:)` for `integer` and `date`;
/// `append(bytes:)` for `varchar`, `jsonb` and `bytea`); a mismatch is a bug in the caller and
/// stops the process.
extension ColumnBuilder {
    /// Appends a null row: a zero slot in the buffer, a cleared validity bit, a null in every
    /// struct field, an empty list.
    @inlinable
    package mutating func appendNull() {
        validity.append(false)
        hasNull = true
        switch layout {
        case .bool: bools.append(false)
        case .int16: int16s.append(0)
        case .int32: int32s.append(0)
        case .int64: int64s.append(0)
        case .float32: float32s.append(0)
        case .float64: float64s.append(0)
        case .decimal: decimals.append(.zero)
        case .interval: intervals.append(Interval())
        case .bytes: bytes.appendEmpty()
        case .structure:
            for index in children.indices { children[index].appendNull() }
        case .list:
            offsets.append(Int32(truncatingIfNeeded: children[0].count))
        }
    }

    @inlinable
    package mutating func append(bool value: Bool) {
        precondition(layout == .bool, "append(bool:) on a \(type.sqlName) column")
        validity.append(true)
        bools.append(value)
    }

    @inlinable
    package mutating func append(int16 value: Int16) {
        precondition(layout == .int16, "append(int16:) on a \(type.sqlName) column")
        validity.append(true)
        int16s.append(value)
    }

    /// Appends an `integer`, or a `date` as days since 1970-01-01.
    @inlinable
    package mutating func append(int32 value: Int32) {
        precondition(layout == .int32, "append(int32:) on a \(type.sqlName) column")
        validity.append(true)
        int32s.append(value)
    }

    /// Appends a `bigint`, or a `time`/`timestamp`/`timestamptz` in microseconds.
    @inlinable
    package mutating func append(int64 value: Int64) {
        precondition(layout == .int64, "append(int64:) on a \(type.sqlName) column")
        validity.append(true)
        int64s.append(value)
    }

    @inlinable
    package mutating func append(float value: Float) {
        precondition(layout == .float32, "append(float:) on a \(type.sqlName) column")
        validity.append(true)
        float32s.append(value)
    }

    @inlinable
    package mutating func append(double value: Double) {
        precondition(layout == .float64, "append(double:) on a \(type.sqlName) column")
        validity.append(true)
        float64s.append(value)
    }

    @inlinable
    package mutating func append(decimal value: Decimal) {
        precondition(layout == .decimal, "append(decimal:) on a \(type.sqlName) column")
        validity.append(true)
        decimals.append(value)
    }

    @inlinable
    package mutating func append(interval value: Interval) {
        precondition(layout == .interval, "append(interval:) on a \(type.sqlName) column")
        validity.append(true)
        intervals.append(value)
    }

    /// Appends one `varchar`, `jsonb` or `bytea` value; the bytes are copied. `varchar` and
    /// `jsonb` bytes must be valid UTF-8 (the caller checks).
    @inlinable
    package mutating func append(bytes buffer: UnsafeRawBufferPointer) {
        precondition(layout == .bytes, "append(bytes:) on a \(type.sqlName) column")
        validity.append(true)
        bytes.append(bytes: buffer)
    }

    /// Completes a non-null struct row after one value was appended to every field builder in
    /// ``children``.
    @inlinable
    package mutating func appendStructRow() {
        precondition(layout == .structure, "appendStructRow() on a \(type.sqlName) column")
        validity.append(true)
    }

    /// Completes a non-null list row whose elements were appended to `children[0]`.
    @inlinable
    package mutating func appendListRow() {
        precondition(layout == .list, "appendListRow() on a \(type.sqlName) column")
        validity.append(true)
        offsets.append(Int32(truncatingIfNeeded: children[0].count))
    }

    /// Drops the rows from `newCount` on, in every buffer and child, so a row that failed
    /// half-way leaves no trace. A struct's children and a list's element builder are cut to
    /// match, including values appended for a row that was never completed.
    ///
    /// - Complexity: O(1) per buffer plus the children's own truncation.
    package mutating func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count, "truncating a column builder beyond its end")
        validity.truncate(to: newCount)
        switch layout {
        case .bool: bools.removeLast(bools.count - newCount)
        case .int16: int16s.removeLast(int16s.count - newCount)
        case .int32: int32s.removeLast(int32s.count - newCount)
        case .int64: int64s.removeLast(int64s.count - newCount)
        case .float32: float32s.removeLast(float32s.count - newCount)
        case .float64: float64s.removeLast(float64s.count - newCount)
        case .decimal: decimals.removeLast(decimals.count - newCount)
        case .interval: intervals.removeLast(intervals.count - newCount)
        case .bytes: bytes.truncate(to: newCount)
        case .structure:
            for index in children.indices where children[index].count > newCount {
                children[index].truncate(to: newCount)
            }
        case .list:
            offsets.removeLast(offsets.count - newCount - 1)
            let elementCount = Int(offsets[newCount])
            if children[0].count > elementCount { children[0].truncate(to: elementCount) }
        }
    }
}
