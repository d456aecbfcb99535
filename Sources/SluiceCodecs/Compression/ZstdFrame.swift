import CZstd
import Synchronization

/// zstd frames (RFC 8878): Kafka's codec 4 (KIP-110, from Kafka 2.1). librdkafka compresses a
/// batch into one streamed frame, recording its content size only where zstd is linked
/// statically (`ZSTD_initCStream_srcSize`, else `ZSTD_initCStream`; rdkafka_zstd.c); the Java
/// client streams through zstd-jni's `ZstdOutputStream`, whose frames do not record it. So
/// decompression streams (`ZSTD_decompressStream`) and trusts a declared size only as a first
/// guess at the room, never past the cap.
///
/// Memory: besides the capped output, zstd's decoder allocates the frame's window, which zstd
/// itself limits to 128 MiB (`ZSTD_WINDOWLOG_LIMIT_DEFAULT`, 2^27) and refuses beyond.
enum ZstdFrame {
    /// Kafka's default zstd level (librdkafka's and zstd-jni's): 3.
    static let level: Int32 = 3

    /// One frame holding `input`, with its content size in the header.
    static func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(input.count))
        let written = output.withUnsafeMutableBytes { out in
            ZSTD_compress(out.baseAddress, out.count, input.baseAddress, input.count, level)
        }
        // The room is zstd's own worst-case bound: only a failed allocation can fail.
        precondition(ZSTD_isError(written) == 0, "ZSTD_compress failed: \(errorName(written))")
        output.removeLast(output.count - written)
        return output
    }

    /// The frames in `input` (one, as Kafka writes, or several concatenated; skippable frames
    /// are skipped), at most `maximumOutputSize` bytes.
    static func decompress(_ input: UnsafeRawBufferPointer, maximumOutputSize: Int) throws(CompressionError) -> [UInt8] {
        let context = DecoderContexts.shared.take()
        defer { DecoderContexts.shared.give(context) }

        // A declared content size is only a first guess at the room, and not past 64 times the
        // input (more than that grows as it comes), so a lying header costs little; the cap rules.
        let declared = ZSTD_getFrameContentSize(input.baseAddress, input.count)
        let plausible = input.count.multipliedReportingOverflow(by: 64).partialValue
        let expectedSize = declared < UInt64(plausible) ? Int(declared) : input.count.multipliedReportingOverflow(by: 4).partialValue
        var output = DecompressionOutput(codec: .zstd, limit: maximumOutputSize, expectedSize: expectedSize)
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        // ZSTD_decompressStream returns 0 once a frame is decoded and flushed, else a hint.
        var hint = 1
        while source.pos < source.size || hint != 0 {
            let countBefore = output.count
            let positionBefore = source.pos
            let result = try output.write { room -> (Int, Int) in
                var destination = ZSTD_outBuffer(dst: room.baseAddress, size: room.count, pos: 0)
                let result = ZSTD_decompressStream(context, &destination, &source)
                return (result, ZSTD_isError(result) != 0 ? 0 : destination.pos)
            }
            if ZSTD_isError(result) != 0 {
                throw .corruptInput(.zstd, reason: errorName(result))
            }
            hint = result
            guard !output.isFull else { continue }
            // With room left, zstd has flushed all it can (zstd.h, ZSTD_decompressStream): if
            // it wants more and there is none, the frame is cut short.
            if source.pos == source.size && hint != 0 { throw .truncatedInput(.zstd) }
            if source.pos == positionBefore && output.count == countBefore && hint != 0 {
                throw .corruptInput(.zstd, reason: "the decoder made no progress")
            }
        }
        return output.finish()
    }

    /// The frames in `input`, which must come to exactly `output.count` bytes, decoded into
    /// `output` in one pass (a Parquet page, whose header gives its size): no allocation and no
    /// window beyond the output; zstd writes nothing past it.
    static func decompress(_ input: UnsafeRawBufferPointer, exactlyInto output: UnsafeMutableRawBufferPointer) throws(CompressionError) {
        guard let source = input.baseAddress, input.count > 0 else { throw .truncatedInput(.zstd) }
        let context = DecoderContexts.shared.take()
        defer { DecoderContexts.shared.give(context) }
        let written = ZSTD_decompressDCtx(context, output.baseAddress, output.count, source, input.count)
        if ZSTD_isError(written) != 0 {
            throw .corruptInput(.zstd, reason: errorName(written))
        }
        guard written == output.count else { throw .corruptInput(.zstd, reason: "it decompresses to \(written) bytes, not \(output.count)") }
    }

    private static func errorName(_ code: Int) -> String {
        String(cString: ZSTD_getErrorName(code))
    }
}

/// zstd's decoding contexts, kept for the next frame: making one allocates its tables, which
/// costs more than decoding a small frame (a Parquet page, a Kafka batch). A few are kept; a
/// context comes back reset, so nothing of one frame reaches the next.
final class DecoderContexts: Sendable {
    static let shared = DecoderContexts()
    private static let kept = 8
    private static let keptBytes = 4 << 20
    /// The contexts' addresses (an `OpaquePointer` is not `Sendable`; these are used by one
    /// thread at a time, between take and give).
    private let idle = Mutex<[UInt]>([])

    func take() -> OpaquePointer {
        if let address = idle.withLock({ $0.popLast() }), let context = OpaquePointer(bitPattern: address) { return context }
        guard let made = ZSTD_createDCtx() else { preconditionFailure("ZSTD_createDCtx failed: out of memory") }
        return made
    }

    func give(_ context: OpaquePointer) {
        ZSTD_DCtx_reset(context, ZSTD_reset_session_and_parameters)
        // One that grew for a large window (up to 128 MiB) is not worth its memory.
        let small = ZSTD_sizeof_DCtx(context) <= Self.keptBytes
        let kept = small && idle.withLock { idle -> Bool in
            guard idle.count < Self.kept else { return false }
            idle.append(UInt(bitPattern: context))
            return true
        }
        if !kept { ZSTD_freeDCtx(context) }
    }
}
