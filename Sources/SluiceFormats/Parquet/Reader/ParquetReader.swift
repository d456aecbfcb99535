import SluiceCore

/// Reads a Parquet file from a ``ParquetInput``: the footer when opened, then row groups on
/// request, each as one ``Chunk`` holding all its rows (callers that want smaller chunks slice
/// it).
///
/// ```swift
/// let reader = try ParquetReader(input: ParquetBytesInput(bytes))
/// for (index, rowGroup) in reader.rowGroups.enumerated() where mayMatch(rowGroup.columns) {
///     let chunk = try reader.readRowGroup(index, columns: [0, 2])
/// }
/// ```
///
/// Hostile files fail with SluiceError `XX001` (corrupt) or `0A000` (a feature Sluice does not
/// read), never trap; allocation is bounded by the file's size and per-page limits.
package struct ParquetReader: Sendable {
    package let input: any ParquetInput
    /// The top-level columns, with nested fields as children.
    package let schema: [ParquetColumnSchema]
    package let keyValueMetadata: [ParquetKeyValuePair]
    package let createdBy: String?
    package let rowCount: Int64
    package let rowGroups: [ParquetRowGroupInfo]
    /// The leaves in file order: their paths, types and field ids.
    package var leafColumns: [ParquetLeafInfo] {
        tree.leaves.map { ParquetLeafInfo(path: $0.path, type: $0.type, fieldID: $0.fieldID) }
    }
    private let tree: ParquetSchemaTree
    private let metadata: ParquetFileMetaData

    /// The footer may be at most this large (pyarrow's default limit is of the same order).
    static let maximumFooterBytes = 256 << 20

    package init(input: any ParquetInput) throws(SluiceError) {
        self.input = input
        let size = input.size
        guard size >= 12 else { throw Self.corrupt("a file of \(size) bytes is too small") }
        let tail = try input.read(offset: size - 8, length: 8)
        guard tail.count == 8, Array(tail[4...]) == Array("PAR1".utf8) else {
            if tail.count == 8, Array(tail[4...]) == Array("PARE".utf8) {
                throw SluiceError(.featureNotSupported, "encrypted parquet files are not supported")
            }
            throw Self.corrupt("the file does not end with PAR1")
        }
        let footerLength = Int(UInt32(tail[0]) | UInt32(tail[1]) << 8 | UInt32(tail[2]) << 16 | UInt32(tail[3]) << 24)
        guard footerLength <= size - 12, footerLength <= Self.maximumFooterBytes else { throw Self.corrupt("footer of \(footerLength) bytes") }
        let head = try input.read(offset: 0, length: 4)
        guard head == Array("PAR1".utf8) else { throw Self.corrupt("the file does not start with PAR1") }
        metadata = try ParquetFileMetaData(decoding: input.read(offset: size - 8 - footerLength, length: footerLength))
        tree = try ParquetSchemaTree(reading: metadata.schema)
        schema = tree.columns.map(\.columnSchema)
        keyValueMetadata = metadata.keyValueMetadata.map { ParquetKeyValuePair(key: $0.key, value: $0.value) }
        createdBy = metadata.createdBy
        rowCount = metadata.rowCount
        let leaves = tree.leaves
        let trustsMinMaxValue = true
        rowGroups = try metadata.rowGroups.map { (rowGroup) throws(SluiceError) -> ParquetRowGroupInfo in
            guard rowGroup.columns.count == leaves.count else {
                throw Self.corrupt("a row group has \(rowGroup.columns.count) column chunks for \(leaves.count) leaf columns")
            }
            let columns = zip(leaves, rowGroup.columns).map { leaf, chunk in
                ParquetReader.chunkInfo(leaf, chunk, trustsMinMaxValue: trustsMinMaxValue)
            }
            return ParquetRowGroupInfo(rowCount: rowGroup.rowCount, columns: columns)
        }
    }

    static func corrupt(_ what: String) -> SluiceError {
        SluiceError(.dataCorrupted, "invalid parquet file: \(what)")
    }

    /// Rows of row group `index`, the top-level columns `columns` (all when nil) in that order.
    package func readRowGroup(_ index: Int, columns: [Int]? = nil) throws(SluiceError) -> Chunk {
        guard index >= 0, index < metadata.rowGroups.count else {
            throw SluiceError(.invalidParameterValue, "parquet row group \(index) does not exist; the file has \(metadata.rowGroups.count)")
        }
        let rowGroup = metadata.rowGroups[index]
        let projection = columns ?? Array(tree.columns.indices)
        for column in projection where column < 0 || column >= tree.columns.count {
            throw SluiceError(.invalidParameterValue, "parquet column \(column) does not exist; the file has \(tree.columns.count)")
        }
        guard rowGroup.rowCount >= 0, rowGroup.rowCount <= Int64(Int32.max) else { throw Self.corrupt("a row group of \(rowGroup.rowCount) rows") }
        let rowCount = Int(rowGroup.rowCount)
        var decoded: [Int: ParquetDecodedLeaf] = [:]
        var values: [Int: Column] = [:]
        for column in projection {
            for leafIndex in tree.columns[column].leafIndices where decoded[leafIndex] == nil {
                let leaf = tree.leaves[leafIndex]
                let leafData = try readLeaf(leaf, rowGroup.columns[leafIndex])
                decoded[leafIndex] = leafData
                values[leafIndex] = try leaf.conversion.column(leafData.values, type: leaf.type)
            }
        }
        let assembler = ParquetAssembler(leaves: tree.leaves, decoded: decoded, values: values)
        var result: [Column] = []
        for column in projection {
            let assembled = try assembler.assemble(tree.columns[column], rowCount: rowCount)
            guard assembled.count == rowCount else { throw Self.corrupt("a column holds \(assembled.count) rows, its row group \(rowCount)") }
            result.append(assembled)
        }
        return Chunk(columns: result, count: rowCount)
    }

    /// Rows of row group `index` from row `skip` on, the top-level columns `columns` (all when
    /// nil) in that order, handed to `each` in chunks of at most `chunkRows` rows until it
    /// returns false. When every column asked for is one leaf, not repeated (most files'
    /// columns), the pages are decoded as the chunks are made, so the group streams through the
    /// cache; otherwise the group is decoded whole and sliced. With `background`, each column's
    /// next page is decompressed there while its current one is decoded here.
    package func readRowGroup(
        _ index: Int, columns: [Int]? = nil, from skip: Int = 0, chunkRows: Int, background: (any BackgroundJobs)? = nil,
        each: (Chunk) throws(SluiceError) -> Bool
    ) throws(SluiceError) {
        let projection = columns ?? Array(tree.columns.indices)
        let leaves = projection.compactMap { column -> Int? in
            guard column >= 0, column < tree.columns.count, case .leaf(let leaf) = tree.columns[column].kind,
                  tree.leaves[leaf].maxRepetitionLevel == 0 else { return nil }
            return leaf
        }
        guard leaves.count == projection.count, !projection.isEmpty, index >= 0, index < metadata.rowGroups.count else {
            let whole = try readRowGroup(index, columns: columns)
            var start = max(0, skip)
            while start < whole.count {
                let end = min(whole.count, start + max(1, chunkRows))
                guard try each(whole.slice(start ..< end)) else { return }
                start = end
            }
            return
        }
        let rowGroup = metadata.rowGroups[index]
        guard rowGroup.rowCount >= 0, rowGroup.rowCount <= Int64(Int32.max) else { throw Self.corrupt("a row group of \(rowGroup.rowCount) rows") }
        let rowCount = Int(rowGroup.rowCount)
        var streams: [ParquetFlatLeafStream] = []
        for leafIndex in leaves {
            let leaf = tree.leaves[leafIndex]
            let (bytes, compression, entryCount) = try columnChunk(rowGroup.columns[leafIndex])
            guard entryCount == rowCount else {
                throw Self.corrupt("column \"\(leaf.path.joined(separator: "."))\" holds \(entryCount) rows, its row group \(rowCount)")
            }
            streams.append(ParquetFlatLeafStream(bytes, leaf: leaf, entryCount: entryCount, compression: compression, background: background))
        }
        let step = max(1, chunkRows)
        var start = 0
        while start < rowCount {
            let count = min(step, rowCount - start, start < skip ? skip - start : Int.max)
            var built: [Column] = []
            built.reserveCapacity(streams.count)
            for stream in streams.indices { built.append(try streams[stream].take(count)) }
            defer { start += count }
            // Rows before `skip` are decoded (a page holds them) but not handed out.
            if start < skip { continue }
            guard try each(Chunk(columns: built, count: count)) else { return }
        }
    }

    /// Reads and decodes one column chunk.
    private func readLeaf(_ leaf: ParquetLeaf, _ chunk: ParquetColumnChunk) throws(SluiceError) -> ParquetDecodedLeaf {
        let (bytes, compression, entryCount) = try columnChunk(chunk)
        return try ParquetColumnChunkDecoder.decode(bytes, leaf: leaf, entryCount: entryCount, compression: compression)
    }

    /// One column chunk's bytes, its codec and its entry count, checked against the file.
    private func columnChunk(_ chunk: ParquetColumnChunk) throws(SluiceError) -> (bytes: [UInt8], compression: ParquetCompression, entryCount: Int) {
        guard chunk.filePath == nil else { throw SluiceError(.featureNotSupported, "parquet column chunks in other files are not supported") }
        guard let metaData = chunk.metaData else { throw Self.corrupt("a column chunk without metadata") }
        let compression = try ParquetCompression(thriftValue: metaData.codec)
        var start = metaData.dataPageOffset
        // Some writers set dictionary_page_offset to 0 when there is none; a dictionary comes first.
        if let dictionaryOffset = metaData.dictionaryPageOffset, dictionaryOffset > 0, dictionaryOffset < start { start = dictionaryOffset }
        let length = metaData.totalCompressedSize
        guard start >= 4, length >= 0, length <= Int64(input.size), start <= Int64(input.size) - length else {
            throw Self.corrupt("column chunk at \(start) of \(length) bytes is outside the file")
        }
        guard metaData.valueCount >= 0, metaData.valueCount <= Int64(Int32.max) else { throw Self.corrupt("a column chunk of \(metaData.valueCount) values") }
        return (try input.read(offset: Int(start), length: Int(length)), compression, Int(metaData.valueCount))
    }
}

/// A row group as the footer describes it, for pruning before reading.
package struct ParquetRowGroupInfo: Hashable, Sendable {
    package var rowCount: Int64
    /// One per leaf column, in ``ParquetReader/leafColumns`` order.
    package var columns: [ParquetColumnChunkInfo]
}

/// A leaf column of the file.
package struct ParquetLeafInfo: Hashable, Sendable {
    package var path: [String]
    package var type: DataType
    package var fieldID: Int32?
}

/// One column chunk's metadata and statistics.
package struct ParquetColumnChunkInfo: Hashable, Sendable {
    package var path: [String]
    package var fieldID: Int32?
    package var compressedSize: Int64
    /// Entries, nulls included.
    package var valueCount: Int64
    package var nullCount: Int64?
    /// Bounds of the values not null, when the file records them in an order Sluice trusts;
    /// nil when unknown (not "no values").
    package var min: Value?
    package var max: Value?
}
