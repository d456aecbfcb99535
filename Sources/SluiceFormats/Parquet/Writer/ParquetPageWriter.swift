/// Writes one leaf's data pages (format v1) and its dictionary page for the column chunk being
/// built, and keeps what the chunk's metadata needs. The typed leaf writers hand it encoded
/// values; it owns the levels, page bodies, compression and headers.
///
/// Pages are kept until the chunk ends because the dictionary page, known only then, comes
/// first (parquet-format README, "Column chunks").
final class ParquetPageWriter {
    let compressor: ParquetPageCompressor
    let maxDefinitionLevel: Int
    let maxRepetitionLevel: Int
    /// Levels of the page being filled.
    private(set) var definitionLevels: [UInt8] = []
    /// Entries at the maximum definition level after `definitionLevels`, counted rather than
    /// stored: a column without nulls never builds an array of levels.
    private var definedEntryCount = 0
    private(set) var repetitionLevels: [UInt8] = []
    /// Entries (levels) in the page being filled; when the leaf has no levels, values.
    private(set) var pageEntryCount = 0
    /// Data pages of the chunk, each its header and body; kept apart so the chunk never
    /// grows (and copies) one large buffer.
    private(set) var dataPages: [[UInt8]] = []
    private var dataPageBytes = 0
    private(set) var dictionaryPage: [UInt8]?
    private(set) var uncompressedBytes = 0
    private(set) var encodings: [Int32] = []
    /// Entries (values and nulls) in the chunk, and nulls among them.
    private(set) var chunkEntryCount = 0
    private(set) var chunkNullCount = 0
    /// A page body under construction, and compressed, reused across pages.
    private var body: [UInt8] = []
    private var compressed: [UInt8] = []

    init(compressor: ParquetPageCompressor, maxDefinitionLevel: Int, maxRepetitionLevel: Int) {
        self.compressor = compressor
        self.maxDefinitionLevel = maxDefinitionLevel
        self.maxRepetitionLevel = maxRepetitionLevel
    }

    /// Adds the levels of `batch`'s entries `range`; returns the entries there with a value.
    func appendLevels(_ batch: ParquetLeafBatch, entries range: Range<Int>) -> Int {
        var valueCount = range.count
        if maxDefinitionLevel > 0 {
            if let levels = batch.definitionLevels {
                let maximum = UInt8(maxDefinitionLevel)
                var nulls = 0
                levels.withUnsafeBufferPointer { levels in
                    for index in range where levels[index] != maximum { nulls += 1 }
                }
                materializeDefinedEntries()
                definitionLevels.append(contentsOf: levels[range])
                valueCount -= nulls
                chunkNullCount += nulls
            } else {
                definedEntryCount += range.count
            }
        }
        if maxRepetitionLevel > 0 {
            if let levels = batch.repetitionLevels {
                repetitionLevels.append(contentsOf: levels[range])
            } else {
                repetitionLevels.append(contentsOf: repeatElement(0, count: range.count))
            }
        }
        pageEntryCount += range.count
        chunkEntryCount += range.count
        return valueCount
    }

    /// Writes out the entries counted in `definedEntryCount` as levels, before levels that
    /// come as an array.
    private func materializeDefinedEntries() {
        guard definedEntryCount > 0 else { return }
        definitionLevels.append(contentsOf: repeatElement(UInt8(maxDefinitionLevel), count: definedEntryCount))
        definedEntryCount = 0
    }

    /// About how many bytes the levels of the page being filled will take.
    var levelBytesEstimate: Int {
        (definitionLevels.count + repetitionLevels.count) / 8
    }

    /// Bytes the chunk's pages take so far.
    var writtenBytes: Int { dataPageBytes + (dictionaryPage?.count ?? 0) }

    /// Ends the page being filled with `values`, encoded as `encoding`.
    func writeDataPage(encoding: Int32, values: (inout [UInt8]) -> Void) {
        guard pageEntryCount > 0 else { return }
        body.removeAll(keepingCapacity: true)
        if maxRepetitionLevel > 0 { appendLevels(repetitionLevels, maximum: maxRepetitionLevel) }
        if maxDefinitionLevel > 0 {
            if definitionLevels.isEmpty {
                // Every entry defined (no nulls): one RLE run, never an array of levels.
                appendRepeatedLevel(maxDefinitionLevel, count: definedEntryCount)
            } else {
                materializeDefinedEntries()
                appendLevels(definitionLevels, maximum: maxDefinitionLevel)
            }
            definedEntryCount = 0
        }
        values(&body)
        var header = ParquetPageHeader()
        header.type = ParquetPageType.dataPage
        header.dataPage = ParquetDataPageHeader(valueCount: Int32(pageEntryCount), encoding: encoding)
        let page = assemblePage(header)
        dataPageBytes += page.count
        dataPages.append(page)
        note(encoding)
        if maxDefinitionLevel > 0 || maxRepetitionLevel > 0 { note(ParquetEncoding.rle) }
        definitionLevels.removeAll(keepingCapacity: true)
        repetitionLevels.removeAll(keepingCapacity: true)
        pageEntryCount = 0
    }

    /// Sets the chunk's dictionary page: `count` entries, PLAIN-encoded by `values`.
    func writeDictionaryPage(count: Int, values: (inout [UInt8]) -> Void) {
        body.removeAll(keepingCapacity: true)
        values(&body)
        var header = ParquetPageHeader()
        header.type = ParquetPageType.dictionaryPage
        header.dictionaryPage = ParquetDictionaryPageHeader(valueCount: Int32(count), encoding: ParquetEncoding.plain)
        dictionaryPage = assemblePage(header)
        note(ParquetEncoding.plain)
    }

    private func note(_ encoding: Int32) {
        if !encodings.contains(encoding) { encodings.append(encoding) }
    }

    /// Levels as a v1 page holds them: a 4-byte little-endian length, then the RLE hybrid.
    private func appendLevels(_ levels: [UInt8], maximum: Int) {
        let lengthPosition = body.count
        body.append(contentsOf: [0, 0, 0, 0])
        let bitWidth = Int.bitWidth - maximum.leadingZeroBitCount
        levels.withUnsafeBufferPointer { RLEHybridEncoder.encode($0, bitWidth: bitWidth, into: &body) }
        let length = UInt32(body.count - lengthPosition - 4)
        body.withUnsafeMutableBytes { $0.storeBytes(of: length.littleEndian, toByteOffset: lengthPosition, as: UInt32.self) }
    }

    /// `count` entries at level `maximum`, as a v1 page holds them: one RLE run.
    private func appendRepeatedLevel(_ maximum: Int, count: Int) {
        let lengthPosition = body.count
        body.append(contentsOf: [0, 0, 0, 0])
        let bitWidth = Int.bitWidth - maximum.leadingZeroBitCount
        RLEHybridEncoder.encodeRepeated(UInt64(maximum), count: count, bitWidth: bitWidth, into: &body)
        let length = UInt32(body.count - lengthPosition - 4)
        body.withUnsafeMutableBytes { $0.storeBytes(of: length.littleEndian, toByteOffset: lengthPosition, as: UInt32.self) }
    }

    /// The page of `body`: its header, then the body compressed.
    private func assemblePage(_ header: ParquetPageHeader) -> [UInt8] {
        var header = header
        let isCompressed = compressor.compression != .uncompressed
        if isCompressed { body.withUnsafeBytes { compressor.compress($0, into: &compressed) } }
        header.uncompressedSize = Int32(body.count)
        header.compressedSize = Int32(isCompressed ? compressed.count : body.count)
        let headerBytes = header.encoded()
        var page: [UInt8] = []
        page.reserveCapacity(headerBytes.count + Int(header.compressedSize))
        page.append(contentsOf: headerBytes)
        page.append(contentsOf: isCompressed ? compressed : body)
        uncompressedBytes += headerBytes.count + body.count
        return page
    }

    /// Forgets the chunk (after it was written out) to start the next row group's.
    func resetChunk() {
        dataPages.removeAll(keepingCapacity: true)
        dataPageBytes = 0
        dictionaryPage = nil
        uncompressedBytes = 0
        encodings.removeAll()
        chunkEntryCount = 0
        chunkNullCount = 0
    }
}
