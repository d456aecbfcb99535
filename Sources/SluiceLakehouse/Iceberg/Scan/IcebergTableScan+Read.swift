import SluiceCore
import SluiceFormats

extension IcebergTableScan {
    /// The rows of `task`'s data file that its delete files leave, as columns `fields`
    /// (top-level field ids of the current schema, in that order): one chunk per row group
    /// read, empty ones left out.
    ///
    /// Columns the file lacks are nulls of the field's type; promoted columns are widened.
    /// Row groups the task's predicate rules out are skipped; rows are not filtered by it.
    /// - Throws: as ``columns(for:)`` for `fields`; `0A000` for a file that is not Parquet;
    ///   `42804` for a column whose type cannot be read as the table's; `XX001` for a corrupt
    ///   file; file IO errors as ``FileIO`` reports them.
    package func read(_ task: IcebergScanTask, fields: [Int]) throws(SluiceError) -> [Chunk] {
        var statistics = IcebergScanReadStatistics()
        return try read(task, fields: fields, statistics: &statistics)
    }

    /// ``read(_:fields:)``, adding what it read, skipped and deleted to `statistics`.
    package func read(_ task: IcebergScanTask, fields: [Int], statistics: inout IcebergScanReadStatistics) throws(SluiceError) -> [Chunk] {
        let schema = try self.schema()
        var targets: [IcebergNestedField] = []
        for id in fields {
            guard let field = schema.fields.first(where: { $0.id == id }) else {
                throw SluiceError(.undefinedColumn, "Iceberg table has no top-level column with field id \(id)")
            }
            _ = try field.type.sluiceType()
            targets.append(field)
        }
        let reader = try openParquet(task.dataFile)
        let layout = IcebergFileColumns(fileSchema: reader.schema)
        let deletedPositions = try positionDeletes(of: task)
        let equalitySets = try equalityDeleteSets(of: task, schema: schema)

        // Project the requested columns and the equality delete keys, each file column once.
        var readIndices: [Int] = []
        var slotOfIndex: [Int: Int] = [:]
        var keyFields: [[IcebergNestedField]] = []
        for set in equalitySets {
            var fields: [IcebergNestedField] = []
            for id in set.fieldIDs { fields.append(try deleteKeyField(id, schema: schema)) }
            keyFields.append(fields)
        }
        for field in targets + keyFields.flatMap({ $0 }) {
            guard let index = layout.index(of: field), slotOfIndex[index] == nil else { continue }
            slotOfIndex[index] = readIndices.count
            readIndices.append(index)
        }

        var rowGroupStarts: [Int64] = []
        var start: Int64 = 0
        for rowGroup in reader.rowGroups {
            rowGroupStarts.append(start)
            let (next, overflow) = start.addingReportingOverflow(rowGroup.rowCount)
            guard rowGroup.rowCount >= 0, !overflow else {
                throw SluiceError(.dataCorrupted, "invalid parquet file \"\(task.dataFile.filePath)\": a row group of \(rowGroup.rowCount) rows")
            }
            start = next
        }
        let chosen = task.rowGroups ?? rowGroups(of: reader, matching: task.predicate, schema: schema).chosen
        statistics.rowGroups += reader.rowGroups.count
        statistics.rowGroupsPruned += reader.rowGroups.count - chosen.count

        var chunks: [Chunk] = []
        for rowGroupIndex in chosen {
            guard rowGroupIndex >= 0, rowGroupIndex < reader.rowGroups.count else {
                throw SluiceError(.invalidParameterValue, "row group \(rowGroupIndex) of \"\(task.dataFile.filePath)\" does not exist")
            }
            let chunk = try reader.readRowGroup(rowGroupIndex, columns: readIndices)
            statistics.rowsRead += chunk.count
            func column(_ field: IcebergNestedField) throws(SluiceError) -> Column {
                guard let index = layout.index(of: field), let slot = slotOfIndex[index], slot < chunk.columns.count else {
                    return Column.nulls(of: try field.type.sluiceType(), count: chunk.count)
                }
                return try IcebergColumnConformer.conform(chunk.columns[slot], fileSchema: reader.schema[index], to: field.type, path: task.dataFile.filePath)
            }

            var keep = Bitmap(count: chunk.count, value: true)
            var removed = IcebergTableScan.removePositions(deletedPositions, from: &keep, firstRow: rowGroupStarts[rowGroupIndex])
            for (set, fields) in zip(equalitySets, keyFields) {
                var keys: [Column] = []
                for field in fields { keys.append(try column(field)) }
                removed += set.removeMatches(keys, from: &keep)
            }
            var output: [Column] = []
            for field in targets { output.append(try column(field)) }
            var result = Chunk(columns: output, count: chunk.count)
            if removed > 0 { result = fields.isEmpty ? Chunk(columns: [], count: chunk.count - removed) : result.filter(keep) }
            statistics.rowsDeleted += removed
            if result.count > 0 { chunks.append(result) }
        }
        return chunks
    }

    /// A reader of a Parquet data or delete file, reading by range through the file IO.
    func openParquet(_ file: IcebergDataFile) throws(SluiceError) -> ParquetReader {
        guard file.fileFormat.uppercased() == "PARQUET" else {
            throw SluiceError(.featureNotSupported, "Iceberg \(file.fileFormat) files are not supported", detail: "File \"\(file.filePath)\" is not Parquet.")
        }
        guard file.fileSizeInBytes > 0, let size = Int(exactly: file.fileSizeInBytes) else {
            throw SluiceError(.dataCorrupted, "Iceberg manifest records \(file.fileSizeInBytes) bytes for \"\(file.filePath)\"")
        }
        let input = try FileIOParquetInput(fileIO: fileIO, location: file.filePath, size: size, prefetchingTail: FileIOParquetInput.defaultTailBytes)
        return try ParquetReader(input: input)
    }

    /// The field an equality delete compares: in the current schema, else in the newest older
    /// schema that has it (the column may have been dropped since).
    func deleteKeyField(_ id: Int, schema: IcebergSchema) throws(SluiceError) -> IcebergNestedField {
        let candidates = [schema] + metadata.schemas.sorted { $0.schemaID > $1.schemaID }
        guard let field = candidates.lazy.compactMap({ candidate in candidate.fields.first { $0.id == id } }).first else {
            throw SluiceError(.featureNotSupported, "Iceberg equality deletes on field id \(id) are not supported",
                              detail: "Only top-level columns are supported as equality delete keys.")
        }
        guard field.type.isPrimitive else {
            throw SluiceError(.dataCorrupted, "Iceberg equality delete key \"\(field.name)\" is not a primitive column")
        }
        return field
    }

    /// Clears the rows of `keep` (rows `firstRow ..< firstRow + keep.count` of the file) whose
    /// positions `sorted` lists; returns how many it cleared.
    static func removePositions(_ sorted: [Int64], from keep: inout Bitmap, firstRow: Int64) -> Int {
        guard !sorted.isEmpty else { return 0 }
        var low = 0, high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < firstRow { low = middle + 1 } else { high = middle }
        }
        var removed = 0
        let end = firstRow + Int64(keep.count)
        var index = low
        while index < sorted.count, sorted[index] < end {
            let row = Int(sorted[index] - firstRow)
            if keep[row] {
                keep[row] = false
                removed += 1
            }
            index += 1
        }
        return removed
    }
}

/// Where a file keeps each table column: the top-level column with the field's id, or, in a
/// file written without field ids (a migrated table), the one with the field's current name.
struct IcebergFileColumns {
    private var indexByFieldID: [Int: Int] = [:]
    private var indexByName: [String: Int]?

    init(fileSchema: [ParquetColumnSchema]) {
        for (index, column) in fileSchema.enumerated() {
            if let id = column.fieldID, indexByFieldID[Int(id)] == nil { indexByFieldID[Int(id)] = index }
        }
        if indexByFieldID.isEmpty {
            var byName: [String: Int] = [:]
            for (index, column) in fileSchema.enumerated() where byName[column.name] == nil { byName[column.name] = index }
            indexByName = byName
        }
    }

    func index(of field: IcebergNestedField) -> Int? {
        if let indexByName { return indexByName[field.name] }
        return indexByFieldID[field.id]
    }

    /// The column with field id `id`, or named `name` in a file without field ids.
    func index(ofID id: Int, name: String) -> Int? {
        if let indexByName { return indexByName[name] }
        return indexByFieldID[id]
    }
}
