import SluiceCore

/// One flat leaf's column chunk (a top-level column that is not repeated) read a page at a time
/// and handed out as columns of the rows asked for: a row group streams through the cache in
/// chunks instead of being decoded whole first.
///
/// A page's values and levels are decoded into buffers the next page reuses; each ``take(_:)``
/// copies its rows out of them (crossing pages as needed). The page cursor checks what the whole
/// decoder checks, so a hostile chunk fails the same way, as soon as its page is reached.
struct ParquetFlatLeafStream {
    private let leaf: ParquetLeaf
    private var cursor: ParquetColumnChunkDecoder.PageCursor
    /// The current page: its values not null, its definition levels when it has a NULL.
    private var page: ParquetPhysicalArrays
    private var pageLevels: [UInt8] = []
    private var pageHasLevels = false
    private var noRepetitionLevels: [UInt8] = []
    private var pageEntries = 0
    /// Entries and values of the current page already handed out.
    private var entry = 0
    private var value = 0

    init(_ chunk: [UInt8], leaf: ParquetLeaf, entryCount: Int, compression: ParquetCompression, background: (any BackgroundJobs)?) {
        precondition(leaf.maxRepetitionLevel == 0, "a repeated leaf is not flat")
        self.leaf = leaf
        cursor = ParquetColumnChunkDecoder.PageCursor(chunk, leaf: leaf, entryCount: entryCount, compression: compression, background: background)
        page = ParquetPhysicalArrays(physicalType: leaf.physicalType, typeLength: leaf.typeLength)
    }

    /// The next `count` rows as a column of the leaf's type.
    /// - Throws: `XX001` when the chunk ends before them or its pages are corrupt.
    mutating func take(_ count: Int) throws(SluiceError) -> Column {
        var values = ParquetPhysicalArrays(physicalType: leaf.physicalType, typeLength: leaf.typeLength)
        values.reserveAdditional(count)
        var levels: [UInt8] = []
        var hasLevels = false
        let maximum = UInt8(clamping: leaf.maxDefinitionLevel)
        var taken = 0
        while taken < count {
            if entry == pageEntries { try nextPage() }
            let run = min(count - taken, pageEntries - entry)
            var present = run
            if pageHasLevels {
                if !hasLevels {
                    hasLevels = true
                    levels.reserveCapacity(count)
                    levels.append(contentsOf: repeatElement(maximum, count: taken))
                }
                present = pageLevels.withUnsafeBufferPointer { pageLevels in
                    var present = 0
                    for index in entry ..< entry + run where pageLevels[index] == maximum { present += 1 }
                    return present
                }
                levels.append(contentsOf: pageLevels[entry ..< entry + run])
            } else if hasLevels {
                levels.append(contentsOf: repeatElement(maximum, count: run))
            }
            guard present <= page.count - value else { throw ParquetReader.corrupt("levels and values of a page disagree") }
            values.append(page, value ..< value + present)
            value += present
            entry += run
            taken += run
        }
        let dense = try leaf.conversion.column(values, type: leaf.type)
        return try ParquetAssembler.flat(dense, levels: hasLevels ? levels : nil, maximum: leaf.maxDefinitionLevel, count: count)
    }

    private mutating func nextPage() throws(SluiceError) {
        page.removeAll()
        pageLevels.removeAll(keepingCapacity: true)
        var levels = ParquetColumnChunkDecoder.DefinitionLevels(leaf: leaf)
        guard let entries = try cursor.next(values: &page, definitionLevels: &pageLevels, levels: &levels, repetitionLevels: &noRepetitionLevels) else {
            throw ParquetReader.corrupt("column \"\(leaf.path.joined(separator: "."))\" ends before its row group's rows")
        }
        pageHasLevels = levels.written
        pageEntries = entries
        entry = 0
        value = 0
    }
}
