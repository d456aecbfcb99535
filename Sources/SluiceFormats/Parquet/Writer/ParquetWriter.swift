import SluiceCore

/// Writes a Parquet file (parquet-format README "File format") from chunks, in pieces:
///
/// ```swift
/// let writer = try ParquetWriter(schema: columns, options: ParquetWriterOptions(compression: .zstd))
/// for chunk in chunks {
///     try writer.write(chunk)
///     file.write(writer.takeOutput())   // completed row groups, ready to go to storage
/// }
/// let (tail, summary) = try writer.finish()
/// file.write(tail)
/// ```
///
/// Data pages are format v1, PLAIN or RLE_DICTIONARY (dictionary pages PLAIN), levels in the
/// RLE hybrid; statistics per column chunk in `min_value`/`max_value` with TYPE_ORDER column
/// orders. Types map as Iceberg maps them (``ParquetSchemaTree/forWriting(_:)``).
///
/// Memory: the row group being built, encoded and compressed (at most about `rowGroupBytes`),
/// plus one uncompressed page per leaf. Not thread-safe.
package final class ParquetWriter {
    package let schema: [ParquetColumnSchema]
    package let options: ParquetWriterOptions
    private let tree: ParquetSchemaTree
    private let schemaElements: [ParquetSchemaElement]
    private let leafWriters: [any ParquetLeafWriter]
    private var output: [UInt8] = []
    /// Bytes handed out by `takeOutput` plus those in `output`: the offset of the next byte.
    private var fileOffset = 0
    private var rowGroups: [ParquetRowGroup] = []
    private var rowGroupRowCount = 0
    private var totalRowCount = 0
    private var columnTotals: [ColumnTotals]
    private var batches: [ParquetLeafBatch?]
    private var isFinished = false

    /// A writer of `schema`'s columns; refuses types Parquet cannot hold (see the mapping).
    package init(schema: [ParquetColumnSchema], options: ParquetWriterOptions = ParquetWriterOptions()) throws(SluiceError) {
        guard !schema.isEmpty else { throw SluiceError(.invalidParameterValue, "a parquet file needs at least one column") }
        self.schema = schema
        self.options = options
        (tree, schemaElements) = try ParquetSchemaTree.forWriting(schema)
        let settings = ParquetLeafWriterSettings(
            pageBytes: max(options.pageBytes, 1024), pageRowLimit: max(options.pageRowLimit, 1),
            dictionaryEnabled: options.dictionaryEnabled,
            dictionaryPageBytes: min(options.dictionaryPageBytes, ByteArrayDictionary.byteLimit / 4))
        let compressor = ParquetPageCompressor(compression: options.compression, zstdLevel: options.zstdLevel)
        leafWriters = tree.leaves.map { leaf -> any ParquetLeafWriter in
            let pages = ParquetPageWriter(compressor: compressor, maxDefinitionLevel: leaf.maxDefinitionLevel, maxRepetitionLevel: leaf.maxRepetitionLevel)
            switch leaf.physicalType {
            case .boolean: return BooleanLeafWriter(pages: pages, settings: settings)
            case .int32: return Int32LeafWriter(pages: pages, settings: settings)
            case .int64: return Int64LeafWriter(pages: pages, settings: settings)
            case .float: return FloatLeafWriter(pages: pages, settings: settings)
            case .double: return DoubleLeafWriter(pages: pages, settings: settings)
            case .fixedLenByteArray: return WideDecimalLeafWriter(pages: pages, settings: settings, width: leaf.typeLength)
            case .byteArray, .int96: return ByteArrayLeafWriter(pages: pages, settings: settings)
            }
        }
        columnTotals = tree.leaves.map { ColumnTotals(isFloatingPoint: $0.physicalType == .float || $0.physicalType == .double) }
        batches = Array(repeating: nil, count: tree.leaves.count)
        output = Array("PAR1".utf8)
    }

    /// A writer that goes on with a file a crash cut short: `state` is what ``flushRowGroup()``
    /// returned when the file's first `state`-described bytes were written, and the caller has
    /// cut the file back to them. The row groups written so far stay in the footer.
    package convenience init(schema: [ParquetColumnSchema], options: ParquetWriterOptions = ParquetWriterOptions(), resuming state: [UInt8]) throws(SluiceError) {
        try self.init(schema: schema, options: options)
        let written = try ParquetFileMetaData(decoding: state)
        guard written.version == 1, written.rowGroups.allSatisfy({ $0.columns.count == leafWriters.count }) else {
            throw SluiceError(.dataCorrupted, "a parquet file's saved progress does not match its columns")
        }
        rowGroups = written.rowGroups
        totalRowCount = Int(written.rowCount)
        // The magic is already in the file: the offset of the next byte is the size so far.
        output = []
        fileOffset = Int(written.createdBy.flatMap { Int($0) } ?? 4)
    }

    /// Ends the row group being built (when it has rows), so that every byte of the file so far
    /// is complete, and returns what ``init(schema:options:resuming:)`` needs to go on from
    /// there once the bytes taken so far are written: the row groups and the file's length.
    package func flushRowGroup() -> [UInt8] {
        if rowGroupRowCount > 0 { finishRowGroup() }
        var state = ParquetFileMetaData()
        state.version = 1
        state.rowCount = Int64(totalRowCount)
        state.rowGroups = rowGroups
        // The length of the file so far rides in `created_by`: the state is ours alone.
        state.createdBy = String(writtenBytes)
        return state.encoded()
    }

    /// Rows written so far.
    package var rowCount: Int { totalRowCount }

    /// Appends `chunk`'s rows; its columns are the schema's, in order. Ends the row group when
    /// it reaches `rowGroupBytes`.
    ///
    /// Throws 42804 for a column of another layout, 23502 for a null in a non-nullable column,
    /// 22003 for a decimal that does not fit its column. After a throw the writer must not be
    /// used further (a row group may hold part of the chunk).
    package func write(_ chunk: Chunk) throws(SluiceError) {
        guard !isFinished else { throw SluiceError.internalError("parquet writer used after finish") }
        guard chunk.columnCount == tree.columns.count else {
            throw SluiceError(.datatypeMismatch, "parquet writer expects \(tree.columns.count) columns, got \(chunk.columnCount)")
        }
        guard chunk.count > 0 else { return }
        for (column, node) in zip(chunk.columns, tree.columns) {
            try ParquetShredder.shred(column, node: node, leaves: tree.leaves, into: &batches)
        }
        for (index, writer) in leafWriters.enumerated() {
            guard let batch = batches[index] else { throw SluiceError.internalError("parquet leaf \(index) got no batch") }
            try writer.append(batch)
            batches[index] = nil
        }
        rowGroupRowCount += chunk.count
        totalRowCount += chunk.count
        if bufferedBytes >= options.rowGroupBytes { finishRowGroup() }
    }

    /// About how many bytes the row group being built will take.
    package var bufferedBytes: Int {
        leafWriters.reduce(0) { $0 + $1.estimatedChunkBytes }
    }

    /// Bytes of completed row groups not yet taken (``takeOutput()``).
    package var untakenBytes: Int { output.count }

    /// Bytes of the file produced so far, taken or not (completed row groups and the magic).
    package var writtenBytes: Int { fileOffset + output.count }

    /// The bytes completed since the last call, to be appended to the file in order.
    package func takeOutput() -> [UInt8] {
        let taken = output
        fileOffset += output.count
        output = []
        return taken
    }

    /// Ends the file: the last row group, then the footer. Returns the bytes not yet taken
    /// (to append to the file last) and the file's summary.
    package func finish() throws(SluiceError) -> (tail: [UInt8], summary: ParquetFileSummary) {
        guard !isFinished else { throw SluiceError.internalError("parquet writer finished twice") }
        if rowGroupRowCount > 0 { finishRowGroup() }
        isFinished = true
        var metadata = ParquetFileMetaData()
        metadata.version = 2
        metadata.schema = schemaElements
        metadata.rowCount = Int64(totalRowCount)
        metadata.rowGroups = rowGroups
        metadata.keyValueMetadata = options.keyValueMetadata.map { ParquetKeyValue(key: $0.key, value: $0.value) }
        metadata.createdBy = options.createdBy
        metadata.hasTypeDefinedColumnOrders = true
        let footer = metadata.encoded()
        output.append(contentsOf: footer)
        withUnsafeBytes(of: UInt32(footer.count).littleEndian) { output.append(contentsOf: $0) }
        output.append(contentsOf: Array("PAR1".utf8))
        let fileSize = Int64(writtenBytes)
        let columns = zip(tree.leaves, columnTotals).map { leaf, totals in
            let bounds = totals.bounds?.values(for: leaf.type)
            return ParquetColumnSummary(
                path: leaf.path, fieldID: leaf.fieldID, type: leaf.type, compressedSize: totals.compressedSize,
                valueCount: totals.valueCount, nullCount: totals.nullCount, nanCount: totals.nanCount,
                min: bounds?.min, max: bounds?.max)
        }
        let summary = ParquetFileSummary(rowCount: Int64(totalRowCount), fileSize: fileSize, rowGroupCount: rowGroups.count, columns: columns)
        return (takeOutput(), summary)
    }

    /// Writes every leaf's column chunk (dictionary page first) and records the row group.
    private func finishRowGroup() {
        var rowGroup = ParquetRowGroup()
        rowGroup.rowCount = Int64(rowGroupRowCount)
        rowGroup.fileOffset = Int64(writtenBytes)
        rowGroup.ordinal = Int16(truncatingIfNeeded: rowGroups.count)
        var compressedTotal: Int64 = 0
        // Every leaf's last page first, so the row group's size is known and `output` grows once.
        let finished = leafWriters.map { $0.finishChunk() }
        output.reserveCapacity(output.count + leafWriters.reduce(0) { $0 + $1.pages.writtenBytes })
        for (index, writer) in leafWriters.enumerated() {
            let (bounds, nanCount) = finished[index]
            let pages = writer.pages
            let leaf = tree.leaves[index]
            let start = Int64(writtenBytes)
            var metaData = ParquetColumnMetaData()
            metaData.type = leaf.physicalType.rawValue
            metaData.encodings = pages.encodings
            metaData.pathInSchema = leaf.path
            metaData.codec = options.compression.thriftValue
            metaData.valueCount = Int64(pages.chunkEntryCount)
            if let dictionary = pages.dictionaryPage {
                metaData.dictionaryPageOffset = start
                output.append(contentsOf: dictionary)
            }
            metaData.dataPageOffset = Int64(writtenBytes)
            for page in pages.dataPages { output.append(contentsOf: page) }
            let compressedSize = Int64(writtenBytes) - start
            metaData.totalCompressedSize = compressedSize
            metaData.totalUncompressedSize = Int64(pages.uncompressedBytes)
            var statistics = ParquetStatistics()
            statistics.nullCount = Int64(pages.chunkNullCount)
            if let bounds {
                let (low, high) = bounds.statisticsBytes(typeLength: leaf.typeLength)
                statistics.minValue = low
                statistics.maxValue = high
            }
            metaData.statistics = statistics
            rowGroup.columns.append(ParquetColumnChunk(filePath: nil, fileOffset: start, metaData: metaData))
            rowGroup.totalByteSize += metaData.totalUncompressedSize
            compressedTotal += compressedSize
            columnTotals[index].add(
                compressedSize: compressedSize, valueCount: pages.chunkEntryCount, nullCount: pages.chunkNullCount,
                nanCount: nanCount, bounds: bounds)
            pages.resetChunk()
        }
        rowGroup.totalCompressedSize = compressedTotal
        rowGroups.append(rowGroup)
        rowGroupRowCount = 0
    }
}

/// A leaf's metrics summed over the row groups written.
private struct ColumnTotals {
    var isFloatingPoint: Bool
    var compressedSize: Int64 = 0
    var valueCount: Int64 = 0
    var nullCount: Int64 = 0
    var nans: Int64 = 0
    var bounds: ParquetBounds?

    init(isFloatingPoint: Bool) {
        self.isFloatingPoint = isFloatingPoint
    }

    var nanCount: Int64? { isFloatingPoint ? nans : nil }

    mutating func add(compressedSize: Int64, valueCount: Int, nullCount: Int, nanCount: Int, bounds: ParquetBounds?) {
        self.compressedSize += compressedSize
        self.valueCount += Int64(valueCount)
        self.nullCount += Int64(nullCount)
        nans += Int64(nanCount)
        if let bounds { self.bounds = self.bounds.map { $0.merged(with: bounds) } ?? bounds }
    }
}
