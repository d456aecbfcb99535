import SluiceCore

/// A leaf's column chunk decoded: its levels (nil when the leaf has none) and its values not
/// null, in Parquet's physical representation.
struct ParquetDecodedLeaf {
    var definitionLevels: [UInt8]?
    var repetitionLevels: [UInt8]?
    var values: ParquetPhysicalArrays
    var entryCount: Int
}

/// Decodes the pages of one column chunk (parquet-format README "Data pages"): dictionary
/// pages, data pages v1 and v2; PLAIN, PLAIN_DICTIONARY/RLE_DICTIONARY, RLE booleans,
/// DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and BYTE_STREAM_SPLIT values; RLE hybrid levels.
/// DELTA_BYTE_ARRAY is refused with 0A000.
///
/// Bounds: a page may declare at most ``maximumPageEntries`` entries and
/// ``maximumPageBytes`` uncompressed bytes, so a hostile header cannot make it allocate without
/// limit; everything else is checked against the bytes there.
enum ParquetColumnChunkDecoder {
    static let maximumPageEntries = 1 << 24
    static let maximumPageBytes = 1 << 30

    static func corrupt(_ what: String) -> SluiceError {
        SluiceError(.dataCorrupted, "invalid parquet page: \(what)")
    }

    static func decode(_ chunk: [UInt8], leaf: ParquetLeaf, entryCount expected: Int, compression: ParquetCompression) throws(SluiceError) -> ParquetDecodedLeaf {
        var cursor = PageCursor(chunk, leaf: leaf, entryCount: expected, compression: compression)
        var values = ParquetPhysicalArrays(physicalType: leaf.physicalType, typeLength: leaf.typeLength)
        var definitionLevels: [UInt8] = []
        var repetitionLevels: [UInt8] = []
        // Values come to at most one per entry; a hostile count reserves no more than the
        // chunk's bytes could plausibly hold.
        values.reserveAdditional(min(expected, max(chunk.count * 8, 1 << 16)))
        // A leaf that is not repeated keeps its definition levels only from the first page with
        // a NULL: before it every entry is known to be at the maximum (`levels` pads them then).
        var levels = DefinitionLevels(leaf: leaf)
        while try cursor.next(values: &values, definitionLevels: &definitionLevels, levels: &levels, repetitionLevels: &repetitionLevels) != nil {}
        return ParquetDecodedLeaf(
            definitionLevels: levels.written ? definitionLevels : nil,
            repetitionLevels: leaf.maxRepetitionLevel > 0 ? repetitionLevels : nil,
            values: values, entryCount: cursor.entries)
    }

    /// The pages of one column chunk, one data page per ``next(values:definitionLevels:levels:repetitionLevels:)``
    /// (a dictionary page before it is kept for the pages that follow).
    struct PageCursor {
        private let chunk: [UInt8]
        private let leaf: ParquetLeaf
        private let compression: ParquetCompression
        private let expected: Int
        private var position = 0
        private var dictionary: ParquetPhysicalArrays?
        /// Where pages are decompressed, reused from page to page.
        private var scratch: [UInt8] = []
        /// Entries of the pages read so far.
        private(set) var entries = 0
        /// Where the next pages are decompressed while this one is decoded (nil: here, in turn).
        private let background: (any BackgroundJobs)?
        /// The decompression of the pages after this one, in page order, under way or waiting
        /// for a thread.
        private var ahead: [ParquetPageAhead] = []
        /// Where the first page not handed ahead starts, and the entries before it.
        private var scan = 0
        private var scannedEntries = 0
        /// Buffers for the next jobs (a job's buffer becomes the scratch; the scratch comes back).
        private var spares: [[UInt8]] = []
        /// Pages decompressed ahead of the cursor, at most: each of the reading thread and the
        /// background can be at one while another waits.
        static let pagesAhead = 3
        /// What the pages ahead of a column may come to decompressed: a page that would pass it
        /// waits until those before it are taken (a page larger than this is decompressed when
        /// reached). Writers' pages are about 1 MiB at most, so a column holds at most one
        /// page's worth more than reading in turn does.
        static let bytesAhead = 1 << 20

        init(_ chunk: [UInt8], leaf: ParquetLeaf, entryCount: Int, compression: ParquetCompression, background: (any BackgroundJobs)? = nil) {
            self.chunk = chunk
            self.leaf = leaf
            self.compression = compression
            expected = entryCount
            self.background = compression == .uncompressed ? nil : background
        }

        /// Decodes the next data page, appending its values not null to `values`, its definition
        /// levels through `levels` to `definitionLevels`, and its repetition levels to
        /// `repetitionLevels`; returns its entry count, or nil once the chunk's entries are read
        /// (failing if the pages hold more or fewer than its metadata says).
        mutating func next(
            values: inout ParquetPhysicalArrays, definitionLevels: inout [UInt8], levels: inout DefinitionLevels, repetitionLevels: inout [UInt8]
        ) throws(SluiceError) -> Int? {
            let chunk = self.chunk, leaf = self.leaf, compression = self.compression, expected = self.expected
            while entries < expected {
                guard position < chunk.count else { throw corrupt("column chunk ends after \(entries) of \(expected) values") }
                var reader = ThriftCompactReader(chunk, from: position)
                let header = try ParquetPageHeader(reading: &reader)
                position = reader.position
                let compressedSize = Int(header.compressedSize), uncompressedSize = Int(header.uncompressedSize)
                guard compressedSize >= 0, compressedSize <= chunk.count - position else { throw corrupt("page of \(compressedSize) bytes past the chunk's end") }
                guard uncompressedSize >= 0, uncompressedSize <= maximumPageBytes else { throw corrupt("page of \(uncompressedSize) bytes") }
                let body = position ..< position + compressedSize
                position += compressedSize
                let dictionary = self.dictionary
                switch header.type {
                case ParquetPageType.dictionaryPage:
                    guard let page = header.dictionaryPage, page.valueCount >= 0, Int(page.valueCount) <= maximumPageEntries else { throw corrupt("dictionary page header") }
                    guard page.encoding == ParquetEncoding.plain || page.encoding == ParquetEncoding.plainDictionary else {
                        throw corrupt("dictionary page encoding \(page.encoding)")
                    }
                    try decompress(body, size: uncompressedSize, entries: 0)
                    var entries = ParquetPhysicalArrays(physicalType: leaf.physicalType, typeLength: leaf.typeLength)
                    try scratch.withRawBytes { (all) throws(SluiceError) in
                        try entries.appendPlain(UnsafeRawBufferPointer(rebasing: all[0 ..< uncompressedSize]), count: Int(page.valueCount))
                    }
                    self.dictionary = entries
                case ParquetPageType.dataPage:
                    guard let page = header.dataPage, page.valueCount >= 0, Int(page.valueCount) <= maximumPageEntries else { throw corrupt("data page header") }
                    try decompress(body, size: uncompressedSize, entries: Int(page.valueCount))
                    let count = Int(page.valueCount)
                    try scratch.withRawBytes { (all) throws(SluiceError) in
                        let bytes = UnsafeRawBufferPointer(rebasing: all[0 ..< uncompressedSize])
                        var offset = 0
                        if leaf.maxRepetitionLevel > 0 {
                            offset += try decodePrefixedLevels(bytes, from: offset, count: count, maximum: leaf.maxRepetitionLevel, into: &repetitionLevels)
                        }
                        var valueCount = count
                        if leaf.maxDefinitionLevel > 0 {
                            let levelBytes = try prefixedLevels(bytes, from: offset)
                            offset += 4 + levelBytes.count
                            valueCount = try levels.add(levelBytes, count: count, into: &definitionLevels)
                        }
                        try decodeValues(UnsafeRawBufferPointer(rebasing: bytes[offset...]), encoding: page.encoding, count: valueCount, dictionary: dictionary, into: &values)
                    }
                    entries += count
                    return count
                case ParquetPageType.dataPageV2:
                    guard let page = header.dataPageV2, page.valueCount >= 0, Int(page.valueCount) <= maximumPageEntries else { throw corrupt("data page v2 header") }
                    let count = Int(page.valueCount)
                    let repetitionLength = Int(page.repetitionLevelsByteLength), definitionLength = Int(page.definitionLevelsByteLength)
                    guard repetitionLength >= 0, definitionLength >= 0, repetitionLength + definitionLength <= compressedSize,
                          repetitionLength + definitionLength <= uncompressedSize else { throw corrupt("data page v2 level lengths") }
                    // v2 levels are never compressed and carry no length prefix.
                    let levelStart = body.lowerBound
                    let valuesRange = (levelStart + repetitionLength + definitionLength) ..< body.upperBound
                    let valuesSize = uncompressedSize - repetitionLength - definitionLength
                    let decompressed = page.isCompressed && compression != .uncompressed
                    if decompressed { try decompress(valuesRange, size: valuesSize, entries: count) }
                    let scratch = self.scratch
                    try chunk.withRawBytes { (all) throws(SluiceError) in
                        if leaf.maxRepetitionLevel > 0 {
                            try decodeLevels(UnsafeRawBufferPointer(rebasing: all[levelStart ..< levelStart + repetitionLength]), count: count, maximum: leaf.maxRepetitionLevel, into: &repetitionLevels)
                        }
                        var valueCount = count
                        if leaf.maxDefinitionLevel > 0 {
                            let definitionStart = levelStart + repetitionLength
                            let levelBytes = UnsafeRawBufferPointer(rebasing: all[definitionStart ..< definitionStart + definitionLength])
                            valueCount = try levels.add(levelBytes, count: count, into: &definitionLevels)
                        }
                        if decompressed {
                            try scratch.withRawBytes { (bytes) throws(SluiceError) in
                                try decodeValues(UnsafeRawBufferPointer(rebasing: bytes[0 ..< valuesSize]), encoding: page.encoding, count: valueCount, dictionary: dictionary, into: &values)
                            }
                        } else {
                            try decodeValues(UnsafeRawBufferPointer(rebasing: all[valuesRange]), encoding: page.encoding, count: valueCount, dictionary: dictionary, into: &values)
                        }
                    }
                    entries += count
                    return count
                default:
                    continue  // index pages and pages of later format versions carry no values here
                }
            }
            guard entries == expected else { throw corrupt("column chunk holds \(entries) values, its metadata says \(expected)") }
            return nil
        }

        /// Decompresses the page at `body` of the chunk, of `size` bytes and `pageEntries`
        /// entries, into `scratch` (taking it from the job handed ahead for it, if there is one),
        /// then hands the pages after it ahead.
        private mutating func decompress(_ body: Range<Int>, size: Int, entries pageEntries: Int) throws(SluiceError) {
            if let first = ahead.first, first.body == body {
                ahead.removeFirst()
                spares.append(try first.take(into: &scratch))
            } else {
                if !ahead.isEmpty || scan < position {
                    // The first page, or (never with a sound chunk) one the scan did not see:
                    // scan again from here.
                    ahead.removeAll()
                    scan = position
                    scannedEntries = entries + pageEntries
                }
                try ParquetPageAhead.decompress(chunk, body, size: size, compression: compression, into: &scratch)
            }
            handPagesAhead()
        }

        /// Hands the decompression of the next compressed data pages to the background, up to
        /// ``pagesAhead``, if there are jobs to run them. Their headers are read again when the
        /// pages are reached, so one that does not parse fails there, as without this; the scan
        /// stops at anything it does not expect.
        private mutating func handPagesAhead() {
            guard let background else { return }
            while ahead.count < Self.pagesAhead, scannedEntries < expected, scan < chunk.count {
                var reader = ThriftCompactReader(chunk, from: scan)
                guard let header = try? ParquetPageHeader(reading: &reader) else { return }
                let start = reader.position, compressedSize = Int(header.compressedSize), size = Int(header.uncompressedSize)
                guard compressedSize >= 0, compressedSize <= chunk.count - start, size >= 0,
                      size + ahead.reduce(0, { $0 + $1.size }) <= Self.bytesAhead else { return }
                let next = start + compressedSize
                let body: Range<Int>, valuesSize: Int, count: Int
                switch header.type {
                case ParquetPageType.dataPage:
                    guard let page = header.dataPage, page.valueCount >= 0 else { return }
                    (body, valuesSize, count) = (start ..< next, size, Int(page.valueCount))
                case ParquetPageType.dataPageV2:
                    guard let page = header.dataPageV2, page.valueCount >= 0, page.repetitionLevelsByteLength >= 0, page.definitionLevelsByteLength >= 0 else { return }
                    let levels = Int(page.repetitionLevelsByteLength) + Int(page.definitionLevelsByteLength)
                    guard levels <= compressedSize, levels <= size else { return }
                    guard page.isCompressed else {
                        (scan, scannedEntries) = (next, scannedEntries + Int(page.valueCount))
                        continue
                    }
                    (body, valuesSize, count) = (start + levels ..< next, size - levels, Int(page.valueCount))
                case ParquetPageType.dictionaryPage:
                    return  // only first, and decompressed in turn
                default:
                    scan = next
                    continue
                }
                let job = ParquetPageAhead(chunk: chunk, body: body, size: valuesSize, compression: compression, buffer: spares.popLast() ?? [])
                ahead.append(job)
                (scan, scannedEntries) = (next, scannedEntries + count)
                background.run { job.run() }
            }
        }
    }

    private static func countDefined(_ levels: [UInt8], from start: Int, maximum: Int) -> Int {
        var count = 0
        let maximum = UInt8(maximum)
        levels.withUnsafeBufferPointer { levels in
            for index in start ..< levels.count where levels[index] == maximum { count += 1 }
        }
        return count
    }

    /// v1 levels: a 4-byte length, then the RLE hybrid; returns the bytes taken.
    private static func decodePrefixedLevels(_ bytes: UnsafeRawBufferPointer, from offset: Int, count: Int, maximum: Int, into levels: inout [UInt8]) throws(SluiceError) -> Int {
        let levelBytes = try prefixedLevels(bytes, from: offset)
        try decodeLevels(levelBytes, count: count, maximum: maximum, into: &levels)
        return 4 + levelBytes.count
    }

    /// v1 levels' RLE hybrid bytes, after their 4-byte length at `offset`.
    private static func prefixedLevels(_ bytes: UnsafeRawBufferPointer, from offset: Int) throws(SluiceError) -> UnsafeRawBufferPointer {
        guard bytes.count - offset >= 4 else { throw corrupt("levels past the end") }
        let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        guard length <= bytes.count - offset - 4 else { throw corrupt("levels of \(length) bytes past the end") }
        return UnsafeRawBufferPointer(rebasing: bytes[offset + 4 ..< offset + 4 + length])
    }

    /// A leaf's definition levels as its pages come: written out only from the first page
    /// that is not one run of the maximum level (a page with a NULL); until then, and for
    /// leaves without levels, none are (the assembler reads "no levels" as all present).
    /// Repeated leaves always write theirs: their levels also mark where lists end.
    struct DefinitionLevels {
        let maximum: Int
        /// Whether levels are written out (from the first page with a NULL on; from the start
        /// for a repeated leaf).
        private(set) var written: Bool
        /// Entries taken so far.
        private var seen = 0

        init(leaf: ParquetLeaf) {
            maximum = leaf.maxDefinitionLevel
            written = leaf.maxDefinitionLevel > 0 && leaf.maxRepetitionLevel > 0
        }

        /// Takes a page's `count` levels from their RLE hybrid `bytes` and returns how many of
        /// its entries hold a value.
        mutating func add(_ bytes: UnsafeRawBufferPointer, count: Int, into levels: inout [UInt8]) throws(SluiceError) -> Int {
            defer { seen += count }
            let bitWidth = Int.bitWidth - maximum.leadingZeroBitCount
            if RLEHybridDecoder.startsWithRun(bytes, of: maximum, count: count, bitWidth: bitWidth) {
                if written { levels.append(contentsOf: repeatElement(UInt8(maximum), count: count)) }
                return count
            }
            if !written {
                written = true
                levels.append(contentsOf: repeatElement(UInt8(maximum), count: seen))
            }
            let start = levels.count
            try decodeLevels(bytes, count: count, maximum: maximum, into: &levels)
            return countDefined(levels, from: start, maximum: maximum)
        }
    }

    private static func decodeLevels(_ bytes: UnsafeRawBufferPointer, count: Int, maximum: Int, into levels: inout [UInt8]) throws(SluiceError) {
        let start = levels.count
        levels.append(contentsOf: repeatElement(0, count: count))
        let bitWidth = Int.bitWidth - maximum.leadingZeroBitCount
        var decoder = RLEHybridDecoder(bytes, bitWidth: bitWidth)
        try levels.withUnsafeMutableBufferPointer { (levels) throws(SluiceError) in
            let target = UnsafeMutableBufferPointer(rebasing: levels[start ..< start + count])
            try decoder.decode(into: target)
            let limit = UInt8(maximum)
            for level in target where level > limit { throw corrupt("level \(level) above the maximum \(maximum)") }
        }
    }

    private static func decodeValues(
        _ bytes: UnsafeRawBufferPointer, encoding: Int32, count: Int, dictionary: ParquetPhysicalArrays?, into values: inout ParquetPhysicalArrays
    ) throws(SluiceError) {
        switch encoding {
        case ParquetEncoding.plain:
            try values.appendPlain(bytes, count: count)
        case ParquetEncoding.plainDictionary, ParquetEncoding.rleDictionary:
            guard let dictionary else { throw corrupt("dictionary-encoded page without a dictionary page") }
            guard count > 0 else { return }
            guard let bitWidth = bytes.first else { throw corrupt("dictionary indices without their bit width") }
            var decoder = RLEHybridDecoder(UnsafeRawBufferPointer(rebasing: bytes[1...]), bitWidth: Int(bitWidth))
            var indices = [UInt32](repeating: 0, count: count)
            try indices.withUnsafeMutableBufferPointer { (indices) throws(SluiceError) in try decoder.decode(into: indices) }
            try indices.withUnsafeBufferPointer { (indices) throws(SluiceError) in try values.appendGathered(from: dictionary, indices: indices) }
        case ParquetEncoding.rle where values.physicalType == .boolean:
            guard bytes.count >= 4 else { throw corrupt("RLE booleans without their length") }
            let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self)))
            guard length <= bytes.count - 4 else { throw corrupt("RLE booleans past the end") }
            var decoder = RLEHybridDecoder(UnsafeRawBufferPointer(rebasing: bytes[4 ..< 4 + length]), bitWidth: 1)
            var bits = [UInt8](repeating: 0, count: count)
            try bits.withUnsafeMutableBufferPointer { (bits) throws(SluiceError) in try decoder.decode(into: bits) }
            values.booleans.append(contentsOf: bits.lazy.map { $0 != 0 })
        case ParquetEncoding.deltaBinaryPacked where values.physicalType == .int32 || values.physicalType == .int64:
            var decoder = DeltaBinaryPackedDecoder(bytes)
            let decoded = try decoder.decode(count: count)
            if values.physicalType == .int32 {
                values.int32s.append(contentsOf: decoded.lazy.map { Int32(truncatingIfNeeded: $0) })
            } else {
                values.int64s.append(contentsOf: decoded)
            }
        case ParquetEncoding.deltaLengthByteArray where values.physicalType == .byteArray:
            var decoder = DeltaBinaryPackedDecoder(bytes)
            let lengths = try decoder.decode(count: count)
            var position = decoder.position
            for length in lengths {
                guard length >= 0, length <= Int64(bytes.count - position) else { throw corrupt("DELTA_LENGTH_BYTE_ARRAY value past the end") }
                values.bytes.append(bytes: UnsafeRawBufferPointer(rebasing: bytes[position ..< position + Int(length)]))
                position += Int(length)
            }
        case ParquetEncoding.byteStreamSplit where [.float, .double, .int32, .int64].contains(values.physicalType):
            // Encodings.md, "Byte Stream Split": byte k of value i is at k * count + i.
            let width = values.physicalType == .float || values.physicalType == .int32 ? 4 : 8
            guard count * width <= bytes.count else { throw corrupt("BYTE_STREAM_SPLIT values past the end") }
            var interleaved = [UInt8](repeating: 0, count: count * width)
            for index in 0 ..< count {
                for byte in 0 ..< width { interleaved[index * width + byte] = bytes[byte * count + index] }
            }
            try interleaved.withRawBytes { (plain) throws(SluiceError) in try values.appendPlain(plain, count: count) }
        default:
            let names: [Int32: String] = [
                3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED", 6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY", 9: "BYTE_STREAM_SPLIT",
            ]
            throw SluiceError(.featureNotSupported, "parquet encoding \(names[encoding] ?? String(encoding)) is not supported for \(values.physicalType) columns",
                              hint: "Rewrite the file with PLAIN or dictionary encoding.")
        }
    }
}
