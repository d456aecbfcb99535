import CLZ4

/// The LZ4 frame format (lz4_Frame_format.md; lz4frame.h's `LZ4F_*`): Kafka's codec 3 since
/// magic 1 (KIP-57 fixed the header checksum older Java clients got wrong; magic 2 batches
/// always have it right, so no fix-up is needed here).
///
/// Writers: librdkafka compresses with independent blocks and lz4's other defaults (64 KiB
/// blocks, no checksums; rdkafka_lz4.c), the Java client's `Lz4BlockOutputStream` with
/// independent 64 KiB blocks and no content size. Readers accept any block size, content size
/// and checksums; Java's refuses linked blocks, so compression writes independent ones.
enum LZ4Frame {
    /// One frame holding `input`: independent blocks of at most 64 KiB, no content size, no checksums.
    static func compress(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        var preferences = LZ4F_preferences_t()
        preferences.frameInfo.blockMode = LZ4F_blockIndependent
        preferences.frameInfo.blockSizeID = LZ4F_max64KB
        let bound = LZ4F_compressFrameBound(input.count, &preferences)
        var output = [UInt8](repeating: 0, count: bound)
        let written = output.withUnsafeMutableBytes { out in
            LZ4F_compressFrame(out.baseAddress, out.count, input.baseAddress, input.count, &preferences)
        }
        // The room is lz4's own worst-case bound, so compression cannot fail.
        precondition(LZ4F_isError(written) == 0, "LZ4F_compressFrame into its bound failed: \(errorName(written))")
        output.removeLast(output.count - written)
        return output
    }

    /// The frames in `input` (one, as Kafka writes, or several concatenated), at most
    /// `maximumOutputSize` bytes.
    static func decompress(_ input: UnsafeRawBufferPointer, maximumOutputSize: Int) throws(CompressionError) -> [UInt8] {
        var context: OpaquePointer?
        let created = LZ4F_createDecompressionContext(&context, UInt32(LZ4F_VERSION))
        precondition(LZ4F_isError(created) == 0 && context != nil, "LZ4F_createDecompressionContext failed: out of memory")
        defer { LZ4F_freeDecompressionContext(context) }

        var output = DecompressionOutput(
            codec: .lz4, limit: maximumOutputSize, expectedSize: input.count.multipliedReportingOverflow(by: 4).partialValue)
        var position = 0
        // LZ4F_decompress returns 0 once a frame is complete, else a hint of the bytes it wants next.
        var hint = 1
        while position < input.count || hint != 0 {
            let countBefore = output.count
            let (result, consumed) = try output.write { room -> ((Int, Int), Int) in
                var roomSize = room.count
                var inputSize = input.count - position
                let result = LZ4F_decompress(
                    context, room.baseAddress, &roomSize, input.baseAddress! + position, &inputSize, nil)
                return LZ4F_isError(result) != 0 ? ((result, 0), 0) : ((result, inputSize), roomSize)
            }
            if LZ4F_isError(result) != 0 {
                throw .corruptInput(.lz4, reason: errorName(result))
            }
            position += consumed
            hint = result
            guard !output.isFull else { continue }
            // With room left, the decoder has flushed all it can: if it wants more and there is
            // none, the frame is cut short; a call that used nothing and wrote nothing is stuck.
            if position == input.count && hint != 0 { throw .truncatedInput(.lz4) }
            if consumed == 0 && output.count == countBefore && hint != 0 {
                throw .corruptInput(.lz4, reason: "the decoder made no progress")
            }
        }
        return output.finish()
    }

    private static func errorName(_ code: Int) -> String {
        String(cString: LZ4F_getErrorName(code))
    }
}
