#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SluiceCore

/// The leaf writer of BYTE_ARRAY columns (strings, JSON, binaries): RLE_DICTIONARY pages while
/// the dictionary pays off and stays under its size, PLAIN pages (4-byte length, bytes) after.
///
/// - Complexity: per value, one hash of its bytes and one probe (dictionary) or one copy
///   (plain); bounds are compared only for values new to the dictionary (plain: every value).
///
/// A struct (wrapped by ``ByteArrayLeafWriter``) so the hot loop's state needs no exclusivity
/// checks.
struct ByteArrayLeafEncoder {
    let pages: ParquetPageWriter
    private let settings: ParquetLeafWriterSettings
    private let isRepeated: Bool
    private var usesDictionary: Bool
    private var dictionary = ByteArrayDictionary()
    private var dictionaryPageNeeded = false
    private var chunkValueCount = 0
    private var indices: [UInt32] = []
    /// Rows that added a dictionary entry in the last lookup (so their bounds are noted).
    private var added: [Int] = []
    /// The page's values, PLAIN-encoded.
    private var plainBytes: [UInt8] = []
    private var plainCount = 0
    private var minimum: [UInt8]?
    private var maximum: [UInt8]?

    init(pages: ParquetPageWriter, settings: ParquetLeafWriterSettings) {
        self.pages = pages
        self.settings = settings
        self.isRepeated = pages.maxRepetitionLevel > 0
        self.usesDictionary = settings.dictionaryEnabled
    }

    mutating func append(_ batch: ParquetLeafBatch) throws(SluiceError) {
        guard case .bytes(let values) = batch.values else {
            throw SluiceError.internalError("parquet byte array writer given other values")
        }
        var valueStart = 0
        for range in parquetSlices(of: batch, repeated: isRepeated) {
            let valueCount = pages.appendLevels(batch, entries: range)
            guard valueCount <= values.count - valueStart else { throw SluiceError.internalError("parquet levels and values disagree") }
            add(values, valueStart ..< valueStart + valueCount)
            valueStart += valueCount
            if settings.pageIsFull(bytes: pageBytesEstimate, entries: pages.pageEntryCount) { flushPage() }
        }
    }

    private mutating func add(_ values: VarBytes, _ range: Range<Int>) {
        chunkValueCount += range.count
        values.offsets.withUnsafeBufferPointer { offsets in
            values.data.withUnsafeBufferPointer { data in
                // A valid pointer even for empty data, never read for empty strings.
                let base = data.baseAddress ?? UnsafePointer(bitPattern: 0x10)!
                if usesDictionary {
                    added.removeAll(keepingCapacity: true)
                    dictionary.encode(offsets: offsets, bytes: base, rows: range, into: &indices, added: &added)
                    for row in added {
                        let start = Int(offsets[row])
                        noteBound(base + start, Int(offsets[row + 1]) - start)
                    }
                } else {
                    let bytes = Int(offsets[range.upperBound]) - Int(offsets[range.lowerBound])
                    plainBytes.reserveAdditional(bytes + 4 * range.count)
                    for index in range {
                        let start = Int(offsets[index]), length = Int(offsets[index + 1]) - start
                        withUnsafeBytes(of: UInt32(length).littleEndian) { plainBytes.append(contentsOf: $0) }
                        plainBytes.append(contentsOf: UnsafeBufferPointer(start: base + start, count: length))
                        noteBound(base + start, length)
                    }
                    plainCount += range.count
                }
            }
        }
        if usesDictionary, dictionary.data.count + 4 * dictionary.count > settings.dictionaryPageBytes
            || parquetDictionaryIsNotPayingOff(entries: dictionary.count, values: chunkValueCount) {
            flushPage()
            usesDictionary = false
        }
    }

    /// Unsigned bytewise order, a prefix first (parquet.thrift, "ColumnOrder").
    @inline(__always)
    private mutating func noteBound(_ bytes: UnsafePointer<UInt8>, _ length: Int) {
        func compare(_ stored: [UInt8]) -> Int32 {
            stored.withUnsafeBufferPointer { stored in
                let common = min(stored.count, length)
                let order = common == 0 ? 0 : memcmp(bytes, stored.baseAddress!, common)
                if order != 0 { return order }
                return length < stored.count ? -1 : (length == stored.count ? 0 : 1)
            }
        }
        guard let low = minimum, let high = maximum else {
            minimum = Array(UnsafeBufferPointer(start: bytes, count: length))
            maximum = minimum
            return
        }
        if compare(low) < 0 { minimum = Array(UnsafeBufferPointer(start: bytes, count: length)) }
        if compare(high) > 0 { maximum = Array(UnsafeBufferPointer(start: bytes, count: length)) }
    }

    private var pageBytesEstimate: Int {
        let values = usesDictionary ? indices.count * parquetBitWidth(dictionary.count) / 8 : plainBytes.count
        return values + pages.levelBytesEstimate
    }

    var estimatedChunkBytes: Int { pages.writtenBytes + pageBytesEstimate + (usesDictionary ? dictionary.data.count : 0) }

    private mutating func flushPage() {
        if !indices.isEmpty {
            let bitWidth = parquetBitWidth(dictionary.count)
            pages.writeDataPage(encoding: ParquetEncoding.rleDictionary) { body in
                body.append(UInt8(bitWidth))
                indices.withUnsafeBufferPointer { RLEHybridEncoder.encode($0, bitWidth: bitWidth, into: &body) }
            }
            indices.removeAll(keepingCapacity: true)
            dictionaryPageNeeded = true
        } else {
            pages.writeDataPage(encoding: ParquetEncoding.plain) { body in body.append(contentsOf: plainBytes) }
            plainBytes.removeAll(keepingCapacity: true)
            plainCount = 0
        }
    }

    mutating func finishChunk() -> (bounds: ParquetBounds?, nanCount: Int) {
        flushPage()
        if dictionaryPageNeeded {
            pages.writeDictionaryPage(count: dictionary.count) { body in
                body.reserveCapacity(dictionary.data.count + 4 * dictionary.count)
                for entry in 0 ..< dictionary.count {
                    dictionary.withEntry(entry) { bytes in
                        withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { body.append(contentsOf: $0) }
                        body.append(contentsOf: bytes)
                    }
                }
            }
        }
        let bounds = minimum.flatMap { low in maximum.map { ParquetBounds.bytes(low, $0) } }
        dictionary.removeAll()
        dictionaryPageNeeded = false
        usesDictionary = settings.dictionaryEnabled
        chunkValueCount = 0
        minimum = nil
        maximum = nil
        return (bounds, 0)
    }
}

/// The leaf writer of BYTE_ARRAY columns.
final class ByteArrayLeafWriter: ParquetLeafWriter {
    private var encoder: ByteArrayLeafEncoder
    init(pages: ParquetPageWriter, settings: ParquetLeafWriterSettings) { encoder = ByteArrayLeafEncoder(pages: pages, settings: settings) }
    var pages: ParquetPageWriter { encoder.pages }
    func append(_ batch: ParquetLeafBatch) throws(SluiceError) { try encoder.append(batch) }
    var estimatedChunkBytes: Int { encoder.estimatedChunkBytes }
    func finishChunk() -> (bounds: ParquetBounds?, nanCount: Int) { encoder.finishChunk() }
}

/// The leaf writer of BOOLEAN columns: PLAIN pages, one bit per value, least significant first.
final class BooleanLeafWriter: ParquetLeafWriter {
    let pages: ParquetPageWriter
    private let settings: ParquetLeafWriterSettings
    private let isRepeated: Bool
    private var values: [UInt8] = []
    private var sawFalse = false
    private var sawTrue = false

    init(pages: ParquetPageWriter, settings: ParquetLeafWriterSettings) {
        self.pages = pages
        self.settings = settings
        self.isRepeated = pages.maxRepetitionLevel > 0
    }

    func append(_ batch: ParquetLeafBatch) throws(SluiceError) {
        guard case .boolean(let booleans) = batch.values else { throw SluiceError.internalError("parquet boolean writer given other values") }
        var valueStart = 0
        for range in parquetSlices(of: batch, repeated: isRepeated) {
            let valueCount = pages.appendLevels(batch, entries: range)
            guard valueCount <= booleans.count - valueStart else { throw SluiceError.internalError("parquet levels and values disagree") }
            var trueCount = 0
            let first = values.count
            values.append(contentsOf: repeatElement(0, count: valueCount))
            values.withUnsafeMutableBufferPointer { output in
                booleans.withUnsafeBufferPointer { booleans in
                    for position in 0 ..< valueCount {
                        let bit: UInt8 = booleans[valueStart + position] ? 1 : 0
                        output[first + position] = bit
                        trueCount += Int(bit)
                    }
                }
            }
            if trueCount > 0 { sawTrue = true }
            if trueCount < valueCount { sawFalse = true }
            valueStart += valueCount
            if settings.pageIsFull(bytes: pageBytesEstimate, entries: pages.pageEntryCount) { flushPage() }
        }
    }

    private var pageBytesEstimate: Int { values.count / 8 + pages.levelBytesEstimate }
    var estimatedChunkBytes: Int { pages.writtenBytes + pageBytesEstimate }

    private func flushPage() {
        pages.writeDataPage(encoding: ParquetEncoding.plain) { body in
            values.withUnsafeBufferPointer { BitPacking.pack($0, bitWidth: 1, paddedTo: $0.count, into: &body) }
        }
        values.removeAll(keepingCapacity: true)
    }

    func finishChunk() -> (bounds: ParquetBounds?, nanCount: Int) {
        flushPage()
        let bounds: ParquetBounds? = sawTrue || sawFalse ? .boolean(!sawFalse, sawTrue) : nil
        sawTrue = false
        sawFalse = false
        return (bounds, 0)
    }
}

/// The leaf writer of decimals wider than 18 digits: PLAIN FIXED_LEN_BYTE_ARRAY pages of the
/// unscaled value in big-endian two's complement.
final class WideDecimalLeafWriter: ParquetLeafWriter {
    let pages: ParquetPageWriter
    private let settings: ParquetLeafWriterSettings
    private let isRepeated: Bool
    private let width: Int
    private var bytes: [UInt8] = []
    private var minimum: Int128?
    private var maximum: Int128?

    init(pages: ParquetPageWriter, settings: ParquetLeafWriterSettings, width: Int) {
        self.pages = pages
        self.settings = settings
        self.isRepeated = pages.maxRepetitionLevel > 0
        self.width = width
    }

    func append(_ batch: ParquetLeafBatch) throws(SluiceError) {
        guard case .wideDecimal(let values) = batch.values else { throw SluiceError.internalError("parquet decimal writer given other values") }
        var valueStart = 0
        for range in parquetSlices(of: batch, repeated: isRepeated) {
            let valueCount = pages.appendLevels(batch, entries: range)
            guard valueCount <= values.count - valueStart else { throw SluiceError.internalError("parquet levels and values disagree") }
            for value in values[valueStart ..< valueStart + valueCount] {
                for byteIndex in 0 ..< width { bytes.append(UInt8(truncatingIfNeeded: value >> Int128(8 * (width - 1 - byteIndex)))) }
                minimum = Swift.min(minimum ?? value, value)
                maximum = Swift.max(maximum ?? value, value)
            }
            valueStart += valueCount
            if settings.pageIsFull(bytes: pageBytesEstimate, entries: pages.pageEntryCount) { flushPage() }
        }
    }

    private var pageBytesEstimate: Int { bytes.count + pages.levelBytesEstimate }
    var estimatedChunkBytes: Int { pages.writtenBytes + pageBytesEstimate }

    private func flushPage() {
        pages.writeDataPage(encoding: ParquetEncoding.plain) { body in body.append(contentsOf: bytes) }
        bytes.removeAll(keepingCapacity: true)
    }

    func finishChunk() -> (bounds: ParquetBounds?, nanCount: Int) {
        flushPage()
        let bounds = minimum.flatMap { low in maximum.map { ParquetBounds.wideDecimal(low, $0) } }
        minimum = nil
        maximum = nil
        return (bounds, 0)
    }
}
