import CZstd

/// zstd compression at a chosen level through one context kept across calls, for a writer
/// that compresses many buffers (a Parquet file's pages): `ZSTD_compress` sets up and frees a
/// context on every call, and its level is fixed at Kafka's 3 in ``CompressionCodec/zstd``.
///
/// Each call writes one frame with its content size in the header, as ``CompressionCodec/zstd``
/// does, so `CompressionCodec.zstd.decompress` reads it.
///
/// ```swift
/// let compressor = ZstdCompressor(level: 1)
/// var page: [UInt8] = []
/// compressor.compress(body, appendingTo: &page)
/// ```
///
/// Memory: the context's tables, which grow with the level and the input (about 1 MiB at
/// level 1 for inputs of 1 MiB, 3 MiB at level 3). Not thread-safe: one user at a time.
package final class ZstdCompressor {
    /// Kafka's and zstd's default level: 3.
    package static let defaultLevel: Int32 = ZstdFrame.level

    /// The level used, within zstd's range (`ZSTD_minCLevel()` ... `ZSTD_maxCLevel()`).
    package let level: Int32
    private let context: OpaquePointer

    /// A compressor at `level`, clamped to zstd's range; 0 means zstd's default (3).
    package init(level: Int32 = ZstdCompressor.defaultLevel) {
        guard let context = ZSTD_createCCtx() else { preconditionFailure("ZSTD_createCCtx failed: out of memory") }
        self.context = context
        self.level = min(max(level, ZSTD_minCLevel()), ZSTD_maxCLevel())
    }

    deinit {
        ZSTD_freeCCtx(context)
    }

    /// Appends one zstd frame holding `input` to `output`; returns the frame's size in bytes.
    ///
    /// - Precondition: `input` is under 2 GiB. zstd cannot fail otherwise: the room appended is
    ///   its worst-case bound (and is trimmed to what it wrote).
    @discardableResult
    package func compress(_ input: UnsafeRawBufferPointer, appendingTo output: inout [UInt8]) -> Int {
        precondition(input.count <= Int(Int32.max), "compression input of \(input.count) bytes; zstd frames here take under 2 GiB")
        let start = output.count
        let bound = ZSTD_compressBound(input.count)
        output.append(contentsOf: repeatElement(0, count: bound))
        let written = output.withUnsafeMutableBytes { room in
            ZSTD_compressCCtx(context, room.baseAddress.map { $0 + start }, bound, input.baseAddress, input.count, level)
        }
        precondition(ZSTD_isError(written) == 0, "ZSTD_compressCCtx failed: \(String(cString: ZSTD_getErrorName(written)))")
        output.removeLast(bound - written)
        return written
    }

    /// One zstd frame holding `input`.
    package func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        var output: [UInt8] = []
        compress(input, appendingTo: &output)
        return output
    }
}
