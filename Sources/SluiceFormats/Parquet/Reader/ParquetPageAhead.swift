import Dispatch
import Synchronization
import SluiceCore

/// One page's decompression, handed to ``BackgroundJobs`` while the page before it is decoded,
/// so a reader's thread decodes while another decompresses. Whoever starts the job first does
/// it: a background thread (``run()``), or the page cursor that has come to the page
/// (``take(into:)``) when no thread has started it yet; the cursor waits only for a job already
/// under way, never for a queue.
final class ParquetPageAhead: @unchecked Sendable {
    /// The compressed bytes' place in the column chunk.
    let body: Range<Int>
    /// The page's values decompressed, in bytes.
    let size: Int
    private let chunk: [UInt8]
    private let compression: ParquetCompression
    private static let pending = 0, running = 1, done = 2, takenOver = 3
    private let state = Atomic<Int>(pending)
    private let finished = DispatchSemaphore(value: 0)
    /// Written by the thread that runs the job, read by the cursor only after `finished`.
    private var buffer: [UInt8]
    private var failure: SluiceError?

    /// The job of decompressing `chunk[body]` to `size` bytes, into `buffer` (reused: the cursor's
    /// spare one).
    init(chunk: [UInt8], body: Range<Int>, size: Int, compression: ParquetCompression, buffer: [UInt8]) {
        self.chunk = chunk
        self.body = body
        self.size = size
        self.compression = compression
        self.buffer = buffer
    }

    /// Decompresses the page, unless the cursor took the job over.
    func run() {
        guard state.compareExchange(expected: Self.pending, desired: Self.running, ordering: .acquiringAndReleasing).exchanged else { return }
        do throws(SluiceError) {
            try Self.decompress(chunk, body, size: size, compression: compression, into: &buffer)
        } catch {
            failure = error
        }
        state.store(Self.done, ordering: .releasing)
        finished.signal()
    }

    /// Puts the page, decompressed, in `scratch` (doing the job here when no thread has started
    /// it, waiting for it when one has) and returns a buffer for the next job.
    func take(into scratch: inout [UInt8]) throws(SluiceError) -> [UInt8] {
        if state.compareExchange(expected: Self.pending, desired: Self.takenOver, ordering: .acquiringAndReleasing).exchanged {
            try Self.decompress(chunk, body, size: size, compression: compression, into: &scratch)
            return buffer
        }
        finished.wait()
        if let failure { throw failure }
        swap(&scratch, &buffer)
        return buffer
    }

    static func decompress(_ chunk: [UInt8], _ body: Range<Int>, size: Int, compression: ParquetCompression, into buffer: inout [UInt8]) throws(SluiceError) {
        try chunk.withRawBytes { (all) throws(SluiceError) in
            try compression.decompress(UnsafeRawBufferPointer(rebasing: all[body]), size: size, into: &buffer)
        }
    }
}
