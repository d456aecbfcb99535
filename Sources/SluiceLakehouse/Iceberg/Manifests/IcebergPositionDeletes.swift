import SluiceCore
import SluiceFormats

/// Position delete files (Iceberg spec, "Position Delete Files"): the rows `(file_path, pos)`
/// of the data file rows they delete, sorted by path and then position, each file in the
/// partition of the data files it names. Every reader of format version 2 applies them
/// (pyiceberg, DuckDB, Trino, Spark), unlike equality deletes.
package enum IcebergPositionDeletes {
    package static let filePathFieldID: Int32 = 2_147_483_546
    package static let positionFieldID: Int32 = 2_147_483_545

    package static let schema = [
        ParquetColumnSchema(name: "file_path", type: .varchar, nullable: false, fieldID: filePathFieldID),
        ParquetColumnSchema(name: "pos", type: .int64, nullable: false, fieldID: positionFieldID),
    ]

    /// Writes `deletes` (a data file's path and a row position in it) as one position delete
    /// file at `location`, sorted as the spec asks, and describes it for a manifest.
    package static func write(
        _ deletes: [(path: String, position: Int64)], to location: String, partition: [AvroValue], fileIO: any FileIO,
        compression: ParquetCompression
    ) throws(SluiceError) -> IcebergDataFile {
        let sorted = deletes.sorted { $0.path != $1.path ? $0.path < $1.path : $0.position < $1.position }
        let writer = try ParquetWriter(schema: schema, options: ParquetWriterOptions(compression: compression))
        let output = try fileIO.output(location)
        do throws(SluiceError) {
            var start = 0
            while start < sorted.count {
                let end = min(start + Chunk.preferredSize, sorted.count)
                var paths = ColumnBuilder(type: .varchar, capacity: end - start)
                var positions = ColumnBuilder(type: .int64, capacity: end - start)
                for index in start ..< end {
                    paths.append(.string(sorted[index].path))
                    positions.append(.int64(sorted[index].position))
                }
                try writer.write(Chunk(columns: [paths.finish(), positions.finish()], count: end - start))
                start = end
            }
            try output.write(writer.takeOutput())
            let (tail, summary) = try writer.finish()
            try output.write(tail)
            let size = try output.close()
            var file = IcebergDataFile(parquetFile: location, size: size, summary: summary, partition: partition)
            file.content = .positionDeletes
            if let first = sorted.first, sorted.last?.path == first.path { file.referencedDataFile = first.path }
            return file
        } catch {
            output.abort()
            throw error
        }
    }

    /// The data files a position delete file names, with the positions it deletes in each.
    package static func read(_ location: String, fileIO: any FileIO) throws(SluiceError) -> [String: [Int64]] {
        let reader = try ParquetReader(input: FileIOParquetInput(fileIO: fileIO, location: location))
        guard let pathColumn = column(filePathFieldID, named: "file_path", in: reader.schema),
              let positionColumn = column(positionFieldID, named: "pos", in: reader.schema) else {
            throw SluiceError(.dataCorrupted, "position delete file \"\(location)\" lacks the file_path or pos column")
        }
        var result: [String: [Int64]] = [:]
        for rowGroup in reader.rowGroups.indices {
            let chunk = try reader.readRowGroup(rowGroup, columns: [pathColumn, positionColumn])
            guard case .bytes(let paths) = chunk.columns[0].storage, case .int64(let rows) = chunk.columns[1].storage else {
                throw SluiceError(.dataCorrupted, "position delete file \"\(location)\" has file_path or pos of the wrong type")
            }
            for rowIndex in 0 ..< chunk.count where !chunk.columns[0].isNull(rowIndex) && !chunk.columns[1].isNull(rowIndex) {
                result[paths.string(at: rowIndex), default: []].append(rows[rowIndex])
            }
        }
        return result
    }

    /// The top-level column with `fieldID`, or without field ids the one called `name`.
    static func column(_ fieldID: Int32, named name: String, in schema: [ParquetColumnSchema]) -> Int? {
        schema.firstIndex { $0.fieldID == fieldID } ?? schema.firstIndex { $0.name == name }
    }
}

/// What one snapshot changed in its table's data files: the files it added and the paths of
/// those it removed (a compaction's `replace` removes the files it rewrote), read from the
/// manifests the snapshot itself wrote.
package struct IcebergSnapshotChanges: Sendable {
    package var added: [IcebergDataFile] = []
    package var removed: Set<String> = []

    /// No change (an append, whose manifests need not be read to know it removed nothing).
    package init() {}

    package static func read(_ snapshot: IcebergSnapshot, fileIO: any FileIO) throws(SluiceError) -> IcebergSnapshotChanges {
        var changes = IcebergSnapshotChanges()
        let list = try IcebergManifestList.read(try fileIO.read(snapshot.manifestList))
        for manifestFile in list.manifests where manifestFile.content == .data && manifestFile.addedSnapshotID == snapshot.snapshotID {
            let manifest = try IcebergManifest.read(try fileIO.read(manifestFile.manifestPath), inheritingFrom: manifestFile)
            for entry in manifest.entries where entry.snapshotID == snapshot.snapshotID {
                switch entry.status {
                case .added: changes.added.append(entry.dataFile)
                case .deleted: changes.removed.insert(entry.dataFile.filePath)
                case .existing: break
                }
            }
        }
        return changes
    }
}
