/// A fixed-length sequence of bits, packed 64 to a word; used for column validity.
@usableFromInline  // so its `@inlinable package` members inline into other modules
package struct Bitmap: Hashable, Sendable {
    @usableFromInline package var words: [UInt64]
    @usableFromInline var storedCount: Int

    /// The number of bits.
    @inlinable
    package var count: Int { storedCount }

    /// A bitmap of `count` bits, all set to `value`.
    package init(count: Int, value: Bool) {
        self.storedCount = count
        let wordCount = (count + 63) >> 6
        self.words = Array(repeating: value ? ~0 : 0, count: wordCount)
        if value { clearTail() }
    }

    package init() {
        self.words = []
        self.storedCount = 0
    }

    /// A bitmap holding `bits`.
    package init(bits: [Bool]) {
        self.init(count: bits.count, value: false)
        for (index, bit) in bits.enumerated() where bit { self[index] = true }
    }

    package subscript(index: Int) -> Bool {
        get { (words[index >> 6] >> UInt64(index & 63)) & 1 == 1 }
        set {
            let bit: UInt64 = 1 << UInt64(index & 63)
            if newValue { words[index >> 6] |= bit } else { words[index >> 6] &= ~bit }
        }
    }

    @inlinable
    package mutating func append(_ value: Bool) {
        let index = storedCount
        if index & 63 == 0 { words.append(0) }
        storedCount = index + 1
        if value { words[index >> 6] |= 1 << UInt64(index & 63) }
    }

    /// Drops the bits from `newCount` on.
    package mutating func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= storedCount, "truncating a bitmap beyond its end")
        storedCount = newCount
        words.removeLast(words.count - (newCount + 63) >> 6)
        clearTail()
    }

    package mutating func reserveCapacity(_ capacity: Int) {
        words.reserveCapacity((capacity + 63) >> 6)
    }

    /// The number of set bits.
    package var setCount: Int {
        words.reduce(0) { $0 + $1.nonzeroBitCount }
    }

    /// True when every bit is set.
    package var isAllSet: Bool { setCount == count }

    /// Bits `range`, a word at a time.
    package func slice(_ range: Range<Int>) -> Bitmap {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "bitmap slice out of range")
        var result = Bitmap(count: range.count, value: false)
        let first = range.lowerBound >> 6, shift = UInt64(range.lowerBound & 63)
        words.withUnsafeBufferPointer { source in
            result.words.withUnsafeMutableBufferPointer { target in
                for index in target.indices {
                    var word = source[first + index] >> shift
                    if shift != 0 && first + index + 1 < source.count { word |= source[first + index + 1] << (64 - shift) }
                    target[index] = word
                }
            }
        }
        result.clearTail()
        return result
    }

    private mutating func clearTail() {
        let tailBits = count & 63
        if tailBits != 0 { words[words.count - 1] &= (1 << UInt64(tailBits)) - 1 }
    }

    /// Bitwise AND of two bitmaps of the same length.
    package static func & (lhs: Bitmap, rhs: Bitmap) -> Bitmap {
        precondition(lhs.count == rhs.count, "bitmaps of different lengths")
        var result = lhs
        for wordIndex in result.words.indices { result.words[wordIndex] &= rhs.words[wordIndex] }
        return result
    }

    /// Bitwise NOT: the rows not selected.
    package static prefix func ~ (bitmap: Bitmap) -> Bitmap {
        var result = bitmap
        for wordIndex in result.words.indices { result.words[wordIndex] = ~result.words[wordIndex] }
        result.clearTail()
        return result
    }
}
