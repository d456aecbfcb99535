import SluiceCore

/// The writer of one leaf column's chunks: takes batches, encodes values into pages through
/// its ``ParquetPageWriter``, and tracks the chunk's bounds.
///
/// Not thread-safe; one per leaf of a ``ParquetWriter``.
protocol ParquetLeafWriter: AnyObject {
    var pages: ParquetPageWriter { get }
    /// Appends a batch; cuts pages when the page being filled reaches the page size.
    func append(_ batch: ParquetLeafBatch) throws(SluiceError)
    /// Bytes of the chunk so far: pages written plus an estimate of the page being filled.
    var estimatedChunkBytes: Int { get }
    /// Ends the chunk: writes the last page and the dictionary page (into ``pages``) and returns
    /// the chunk's bounds (nil when it has no value) and its count of NaNs. The caller then
    /// takes the pages and calls `pages.resetChunk()`.
    func finishChunk() -> (bounds: ParquetBounds?, nanCount: Int)
}

/// Settings every leaf writer shares.
struct ParquetLeafWriterSettings {
    var pageBytes: Int
    var pageRowLimit: Int
    var dictionaryEnabled: Bool
    var dictionaryPageBytes: Int

    /// Whether the page being filled, of about `bytes` bytes and `entries` entries, is done.
    @inline(__always)
    func pageIsFull(bytes: Int, entries: Int) -> Bool {
        bytes >= pageBytes || entries >= pageRowLimit
    }
}

/// Entries to take at a time from a batch of a leaf without repetition, so pages are cut near
/// their size even inside a large batch; leaves with repetition take whole batches (a page
/// must start at a row).
let parquetEntriesPerSlice = 4096

/// The entry ranges `batch` is appended in.
func parquetSlices(of batch: ParquetLeafBatch, repeated: Bool) -> [Range<Int>] {
    guard !repeated else { return [0 ..< batch.entryCount] }
    return stride(from: 0, to: batch.entryCount, by: parquetEntriesPerSlice).map { $0 ..< min($0 + parquetEntriesPerSlice, batch.entryCount) }
}

/// The bit width of dictionary indices below `count`.
@inline(__always)
func parquetBitWidth(_ count: Int) -> Int {
    count <= 1 ? 0 : Int.bitWidth - (count - 1).leadingZeroBitCount
}

/// Whether a dictionary of `entries` distinct values, after `values` values, is not worth
/// keeping: most values are distinct.
@inline(__always)
func parquetDictionaryIsNotPayingOff(entries: Int, values: Int) -> Bool {
    values >= 2048 && entries * 4 > values * 3
}
