import SluiceCore
import SluiceFormats

// Iceberg spec: "Position Delete Files" (`file_path` string, id 2147483546; `pos` long, id
// 2147483545; rows sorted by file path then position) and "Equality Delete Files". Both are
// decoded once per scan and kept in its ``IcebergDeleteFileCache``.

extension IcebergTableScan {
    /// The positions (0-based rows of the data file) that `task`'s position delete files
    /// delete, sorted. Each delete file is decoded once per scan (``deleteCache``).
    func positionDeletes(of task: IcebergScanTask) throws(SluiceError) -> [Int64] {
        let target = Array(task.dataFile.filePath.utf8)
        var positions: [Int64] = []
        var fileCount = 0
        for delete in task.deletes where delete.file.content == .positionDeletes {
            fileCount += 1
            let rows: IcebergPositionDeleteRows
            if let cached = deleteCache.positionDeletes(delete.file.filePath) {
                rows = cached
            } else {
                rows = try readPositionDeletes(delete.file)
                deleteCache.storePositionDeletes(rows, for: delete.file.filePath)
            }
            rows.appendPositions(of: target, to: &positions)
        }
        // Each file is sorted, several together need not be; duplicates are harmless.
        if fileCount > 1 { positions.sort() }
        return positions
    }

    /// Every row of a position delete file.
    private func readPositionDeletes(_ file: IcebergDataFile) throws(SluiceError) -> IcebergPositionDeleteRows {
        let reader = try openParquet(file)
        let layout = IcebergFileColumns(fileSchema: reader.schema)
        guard let pathIndex = layout.index(ofID: IcebergDeleteIndex.filePathFieldID, name: "file_path"),
              let positionIndex = layout.index(ofID: IcebergDeleteIndex.positionFieldID, name: "pos") else {
            throw SluiceError(.dataCorrupted, "Iceberg position delete file \"\(file.filePath)\" lacks its file_path or pos column")
        }
        var paths = VarBytes()
        var positions: [Int64] = []
        for rowGroupIndex in reader.rowGroups.indices {
            let chunk = try reader.readRowGroup(rowGroupIndex, columns: [pathIndex, positionIndex])
            guard chunk.columns.count == 2, case .bytes(let pathValues) = chunk.columns[0].storage,
                  case .int64(let rows) = chunk.columns[1].storage, chunk.columns[1].type == .int64 else {
                throw SluiceError(.dataCorrupted, "Iceberg position delete file \"\(file.filePath)\" has file_path or pos of the wrong type")
            }
            let pathColumn = chunk.columns[0], positionColumn = chunk.columns[1]
            positions.reserveCapacity(positions.count + chunk.count)
            pathValues.data.withUnsafeBytes { data in
                for row in 0 ..< chunk.count where !pathColumn.isNull(row) && !positionColumn.isNull(row) {
                    paths.append(bytes: UnsafeRawBufferPointer(rebasing: data[pathValues.byteRange(at: row)]))
                    positions.append(rows[row])
                }
            }
        }
        return IcebergPositionDeleteRows(paths: paths, positions: positions)
    }

    /// One hash set per distinct set of equality field ids among `task`'s equality delete files.
    func equalityDeleteSets(of task: IcebergScanTask, schema: IcebergSchema) throws(SluiceError) -> [IcebergEqualityDeleteSet] {
        var groups: [[Int]: [IcebergDataFile]] = [:]
        var order: [[Int]] = []
        for delete in task.deletes where delete.file.content == .equalityDeletes {
            let ids = (delete.file.equalityIDs ?? []).map { Int($0) }
            guard !ids.isEmpty else {
                throw SluiceError(.dataCorrupted, "Iceberg equality delete file \"\(delete.file.filePath)\" has no equality field ids")
            }
            if groups[ids] == nil { order.append(ids) }
            groups[ids, default: []].append(delete.file)
        }
        var sets: [IcebergEqualityDeleteSet] = []
        for ids in order {
            let paths = (groups[ids] ?? []).map(\.filePath)
            if let cached = deleteCache.equalitySet(fieldIDs: ids, paths: paths) {
                sets.append(cached)
                continue
            }
            var keyFields: [IcebergNestedField] = []
            for id in ids { keyFields.append(try deleteKeyField(id, schema: schema)) }
            var parts: [[Column]] = Array(repeating: [], count: ids.count)
            for file in groups[ids] ?? [] {
                let reader = try openParquet(file)
                let layout = IcebergFileColumns(fileSchema: reader.schema)
                let indices = keyFields.map { layout.index(of: $0) }
                let present = indices.compactMap { $0 }
                for rowGroupIndex in reader.rowGroups.indices {
                    let chunk = try reader.readRowGroup(rowGroupIndex, columns: present)
                    var slot = 0
                    for (position, field) in keyFields.enumerated() {
                        if let index = indices[position] {
                            parts[position].append(try IcebergColumnConformer.conform(
                                chunk.columns[slot], fileSchema: reader.schema[index], to: field.type, path: file.filePath))
                            slot += 1
                        } else {
                            parts[position].append(Column.nulls(of: try field.type.sluiceType(), count: chunk.count))
                        }
                    }
                }
            }
            var keys: [Column] = []
            for (position, field) in keyFields.enumerated() {
                keys.append(Column.concatenate(parts[position], type: try field.type.sluiceType()))
            }
            let set = IcebergEqualityDeleteSet(fieldIDs: ids, keys: keys)
            deleteCache.storeEqualitySet(set, paths: paths)
            sets.append(set)
        }
        return sets
    }
}
