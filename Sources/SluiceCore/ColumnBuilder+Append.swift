/// Typed appends for decoders on the data path: no ``Value`` enum, no allocation beyond the
/// buffers' amortized growth, and ``truncate(to:)`` to roll a half-decoded row back.
///
/// Each typed append requires the builder's physical layout to match (`append(int64:)` for
/// `bigint`, `time`, `timestamp` and `timestamptz`; `append(int32:)` for `integer` and `date`;
/// `append(bytes:)` for `varchar`, `jsonb` and `bytea`); a mismatch is a bug in the caller and
/// stops the process.
///
/// The scalar appends are `@inline(__always)`: left to itself the optimizer kept them out of
/// line in the JSON decoder, one call per decoded value.
extension ColumnBuilder {
    /// Stops the process: a typed append did not match the column's layout (a caller's bug).
    /// Kept out of line so the appends stay small enough to inline.
    @usableFromInline @inline(never)
    func layoutMismatch(_ method: StaticString) -> Never {
        preconditionFailure("\(method) on a \(type.sqlName) column")
    }

    /// Appends a null row: a zero slot in the buffer, a cleared validity bit, a null in every
    /// struct field, an empty list.
    @inlinable @inline(__always)
    package mutating func appendNull() {
        appendNullBit()
        switch layout {
        case .bool: bools.append(false)
        case .int16: int16s.append(0)
        case .int32: int32s.append(0)
        case .int64: int64s.append(0)
        case .float32: float32s.append(0)
        case .float64: float64s.append(0)
        case .decimal, .interval: appendZeroSlot()
        case .bytes: bytes.appendEmpty()
        case .structure:
            for index in children.indices { children[index].appendNull() }
        case .list:
            offsets.append(Int32(truncatingIfNeeded: children[0].count))
        }
    }

    @inlinable @inline(__always)
    package mutating func append(bool value: Bool) {
        if layout != .bool { layoutMismatch("append(bool:)") }
        appendValidBit()
        bools.append(value)
    }

    @inlinable @inline(__always)
    package mutating func append(int16 value: Int16) {
        if layout != .int16 { layoutMismatch("append(int16:)") }
        appendValidBit()
        int16s.append(value)
    }

    /// Appends an `integer`, or a `date` as days since 1970-01-01.
    @inlinable @inline(__always)
    package mutating func append(int32 value: Int32) {
        if layout != .int32 { layoutMismatch("append(int32:)") }
        appendValidBit()
        int32s.append(value)
    }

    /// Appends a `bigint`, or a `time`/`timestamp`/`timestamptz` in microseconds.
    @inlinable @inline(__always)
    package mutating func append(int64 value: Int64) {
        if layout != .int64 { layoutMismatch("append(int64:)") }
        appendValidBit()
        int64s.append(value)
    }

    @inlinable @inline(__always)
    package mutating func append(float value: Float) {
        if layout != .float32 { layoutMismatch("append(float:)") }
        appendValidBit()
        float32s.append(value)
    }

    @inlinable @inline(__always)
    package mutating func append(double value: Double) {
        if layout != .float64 { layoutMismatch("append(double:)") }
        appendValidBit()
        float64s.append(value)
    }

    /// The zero slot of a null `numeric` or `interval` row (out of line: those types are not
    /// visible to inlined code).
    @usableFromInline
    mutating func appendZeroSlot() {
        if layout == .decimal { decimals.append(.zero) } else { intervals.append(Interval()) }
    }

    package mutating func append(decimal value: Decimal) {
        if layout != .decimal { layoutMismatch("append(decimal:)") }
        appendValidBit()
        decimals.append(value)
    }

    package mutating func append(interval value: Interval) {
        if layout != .interval { layoutMismatch("append(interval:)") }
        appendValidBit()
        intervals.append(value)
    }

    /// Appends one `varchar`, `jsonb` or `bytea` value; the bytes are copied. `varchar` and
    /// `jsonb` bytes must be valid UTF-8 (the caller checks).
    @inlinable @inline(__always)
    package mutating func append(bytes buffer: UnsafeRawBufferPointer) {
        if layout != .bytes { layoutMismatch("append(bytes:)") }
        appendValidBit()
        bytes.append(bytes: buffer)
    }

    /// Completes a non-null struct row after one value was appended to every field builder in
    /// ``children``.
    @inlinable
    package mutating func appendStructRow() {
        if layout != .structure { layoutMismatch("appendStructRow()") }
        appendValidBit()
    }

    /// Completes a non-null list row whose elements were appended to `children[0]`.
    @inlinable
    package mutating func appendListRow() {
        if layout != .list { layoutMismatch("appendListRow()") }
        appendValidBit()
        offsets.append(Int32(truncatingIfNeeded: children[0].count))
    }

    /// Drops the rows from `newCount` on, in every buffer and child, so a row that failed
    /// half-way leaves no trace. A struct's children and a list's element builder are cut to
    /// match, including values appended for a row that was never completed.
    ///
    /// - Complexity: O(1) per buffer plus the children's own truncation.
    package mutating func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count, "truncating a column builder beyond its end")
        rowCount = newCount
        if hasNull { validity.truncate(to: newCount) }
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
            // Always descend: a child at the right count may still hold a grandchild's
            // value from an element that failed half-way.
            for index in children.indices { children[index].truncate(to: newCount) }
        case .list:
            offsets.removeLast(offsets.count - newCount - 1)
            children[0].truncate(to: Int(offsets[newCount]))
        }
    }
}
