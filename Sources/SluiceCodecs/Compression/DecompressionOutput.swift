/// The growing destination of a decompressor, capped: it never allocates more than `limit + 1`
/// bytes, and a write that takes it past `limit` ends decoding with `.outputLimitExceeded`.
///
/// The one byte past the limit is what tells "the stream ends at exactly `limit` bytes" from
/// "the stream goes on": a decoder is given room for it, and producing it is the failure.
struct DecompressionOutput {
    /// The allocated bytes; the first `count` are output.
    private var bytes: [UInt8]
    /// How many bytes have been written.
    private(set) var count = 0
    let codec: CompressionCodec
    let limit: Int
    /// The most bytes ever allocated: `limit + 1`.
    private let ceiling: Int

    /// Starts with room for `expectedSize` bytes (clamped to the ceiling, and to at least a few
    /// KiB so that tiny guesses do not mean many small growths).
    init(codec: CompressionCodec, limit: Int, expectedSize: Int) {
        self.codec = codec
        self.limit = max(0, limit)
        ceiling = self.limit == Int.max ? Int.max : self.limit + 1
        bytes = [UInt8](repeating: 0, count: min(max(expectedSize, 4096), ceiling))
    }

    /// Lets `body` write into the unwritten room (never empty), then counts the bytes it says it
    /// wrote. Grows first when there is no room: doubling, up to the ceiling.
    ///
    /// - Throws: `.outputLimitExceeded` when the output is already at the ceiling, or when the
    ///   bytes written take it past `limit`.
    mutating func write<Result>(
        _ body: (UnsafeMutableRawBufferPointer) -> (result: Result, written: Int)
    ) throws(CompressionError) -> Result {
        if count == bytes.count {
            guard bytes.count < ceiling else { throw .outputLimitExceeded(codec, limit: limit) }
            grow(to: bytes.count > ceiling / 2 ? ceiling : max(bytes.count * 2, 4096))
        }
        let start = count
        let (result, written) = bytes.withUnsafeMutableBytes { all in
            body(UnsafeMutableRawBufferPointer(rebasing: all[start...]))
        }
        precondition(written >= 0 && written <= bytes.count - start, "a decompressor wrote outside its room")
        count += written
        guard count <= limit else { throw .outputLimitExceeded(codec, limit: limit) }
        return result
    }

    /// Makes room for at least `byteCount` more bytes, for a decoder that needs it all at once.
    ///
    /// - Precondition: `count + byteCount <= limit` (the caller checked the size against the cap).
    mutating func reserve(_ byteCount: Int) {
        precondition(byteCount <= limit - count, "reserving past the output limit")
        let needed = count + byteCount
        guard needed > bytes.count else { return }
        grow(to: max(needed, bytes.count > ceiling / 2 ? ceiling : bytes.count * 2))
    }

    /// Reallocates to `size` bytes (at most the ceiling), keeping what was written. One zeroed
    /// allocation and one copy: appending a repeated element instead costs a loop per byte in
    /// debug builds.
    private mutating func grow(to size: Int) {
        var grown = [UInt8](repeating: 0, count: min(size, ceiling))
        let written = count
        grown.withUnsafeMutableBytes { destination in
            bytes.withUnsafeBytes { source in
                destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[..<written]))
            }
        }
        bytes = grown
    }

    /// Whether the room allocated so far is full.
    var isFull: Bool { count == bytes.count }

    /// The bytes written.
    consuming func finish() -> [UInt8] {
        bytes.removeLast(bytes.count - count)
        return bytes
    }
}
