/// A growable byte buffer that events are written into, reused from one event to the next so
/// that generating an event allocates nothing once the buffer has grown to fit.
///
/// Not `Sendable`: one generator owns it, on one thread.
///
/// The mutable state lives behind a pointer the class holds in a `let`: a class's stored `var`s
/// are checked for exclusive access at run time on every write, which made generating events
/// five times slower; accesses through the pointer are not checked.
package final class ByteWriter {
    struct State {
        var storage: UnsafeMutablePointer<UInt8>
        var capacity: Int
        var count: Int
    }

    let state: UnsafeMutablePointer<State>

    var storage: UnsafeMutablePointer<UInt8> {
        state.pointee.storage
    }

    var capacity: Int {
        state.pointee.capacity
    }

    /// The number of bytes written since the last ``removeAll()``.
    package private(set) var count: Int {
        get { state.pointee.count }
        set { state.pointee.count = newValue }
    }

    package init(capacity: Int = 1024) {
        let capacity = max(capacity, 16)
        state = .allocate(capacity: 1)
        state.initialize(to: State(storage: .allocate(capacity: capacity), capacity: capacity, count: 0))
    }

    deinit {
        state.pointee.storage.deallocate()
        state.deallocate()
    }

    /// Forgets the bytes written and keeps the memory.
    package func removeAll() {
        count = 0
    }

    /// Drops the bytes written after the first `count`.
    package func truncate(to count: Int) {
        precondition(count >= 0 && count <= self.count, "truncating past the end")
        self.count = count
    }

    /// The byte at `index` (< ``count``).
    package subscript(index: Int) -> UInt8 {
        storage[index]
    }

    /// The bytes written; valid until the next write.
    package var bytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage, count: count)
    }

    /// A copy of the bytes written (for tests and keys that outlive the buffer).
    package var array: [UInt8] {
        Array(UnsafeBufferPointer(start: storage, count: count))
    }

    /// Makes room for `extra` more bytes.
    package func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newStorage = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newStorage.update(from: storage, count: count)
        storage.deallocate()
        state.pointee.storage = newStorage
        state.pointee.capacity = newCapacity
    }

    package func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        storage[count] = byte
        count += 1
    }

    /// Appends bytes without room check; the caller reserved them.
    func appendUnchecked(_ byte: UInt8) {
        storage[count] = byte
        count += 1
    }

    package func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    package func append(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        reserve(bytes.count)
        (storage + count).update(from: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        count += bytes.count
    }

    package func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Appends the bytes another writer holds.
    package func append(contentsOf other: ByteWriter) {
        append(other.bytes)
    }

    /// Appends a non-negative or negative integer in decimal.
    package func appendDecimal(_ value: Int64) {
        reserve(20)
        if value < 0 {
            appendUnchecked(UInt8(ascii: "-"))
            appendDecimal(UInt64(bitPattern: 0 &- value))
        } else {
            appendDecimal(UInt64(value))
        }
    }

    package func appendDecimal(_ value: Int) {
        appendDecimal(Int64(value))
    }

    package func appendDecimal(_ value: UInt64) {
        var digits = 1
        var probe = value
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        reserve(digits)
        // Digits are written from the last one back.
        var position = count + digits - 1
        var remaining = value
        repeat {
            storage[position] = UInt8(truncatingIfNeeded: remaining % 10) &+ 48
            remaining /= 10
            position -= 1
        } while remaining > 0
        count += digits
    }

    /// Appends `value` in decimal, left-padded with zeros to `width` digits.
    package func appendPadded(_ value: Int, width: Int) {
        reserve(max(width, 20))
        var divisor = 1
        for _ in 1 ..< width { divisor *= 10 }
        var remaining = value
        if remaining >= divisor * 10 {
            appendDecimal(remaining)
            return
        }
        while divisor > 0 {
            appendUnchecked(UInt8(truncatingIfNeeded: remaining / divisor) &+ 48)
            remaining %= divisor
            divisor /= 10
        }
    }
}
