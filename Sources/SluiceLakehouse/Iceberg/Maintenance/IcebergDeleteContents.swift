import SluiceCore
import SluiceFormats

/// The rows delete files remove, read once per file and kept for the data files they apply to.
///
/// Position delete files (Iceberg spec, "Position Delete Files") are the columns `file_path`
/// (field id 2147483546) and `pos` (2147483545); equality delete files hold the columns their
/// `equality_ids` name, and their rows are kept as ``IcebergEqualityKey`` bytes.
struct IcebergDeleteContents {
    let fileIO: any FileIO
    /// Delete file path → data file path → deleted row positions.
    private var positions: [String: [String: [Int64]]] = [:]
    /// Delete file path → the keys of its rows.
    private var equalityKeys: [String: Set<[UInt8]>] = [:]

    init(fileIO: any FileIO) {
        self.fileIO = fileIO
    }

    /// The data files a position delete file names, with the positions it deletes in each.
    mutating func positions(in delete: IcebergLiveFile) throws(SluiceError) -> [String: [Int64]] {
        if let cached = positions[delete.path] { return cached }
        let result = try IcebergPositionDeletes.read(delete.path, fileIO: fileIO)
        positions[delete.path] = result
        return result
    }

    /// The keys of an equality delete file's rows over its `equality_ids`, in that order.
    mutating func keys(of delete: IcebergLiveFile) throws(SluiceError) -> Set<[UInt8]> {
        if let cached = equalityKeys[delete.path] { return cached }
        guard let ids = delete.file.equalityIDs, !ids.isEmpty else {
            throw SluiceError(.dataCorrupted, "equality delete file \"\(delete.path)\" has no equality_ids")
        }
        let reader = try ParquetReader(input: FileIOParquetInput(fileIO: fileIO, location: delete.path))
        var projection: [Int] = []
        for id in ids {
            guard let index = reader.schema.firstIndex(where: { $0.fieldID == id }) else {
                throw SluiceError(.dataCorrupted, "equality delete file \"\(delete.path)\" lacks the column of field id \(id)")
            }
            guard IcebergEqualityKey.supports(reader.schema[index].type) else {
                throw SluiceError(.featureNotSupported, "equality deletes on column \"\(reader.schema[index].name)\" of type \(reader.schema[index].type.sqlName) are not supported")
            }
            projection.append(index)
        }
        var keys = Set<[UInt8]>()
        var key: [UInt8] = []
        for rowGroup in reader.rowGroups.indices {
            let chunk = try reader.readRowGroup(rowGroup, columns: projection)
            for rowIndex in 0 ..< chunk.count {
                key.removeAll(keepingCapacity: true)
                IcebergEqualityKey.append(row: rowIndex, of: chunk.columns, to: &key)
                keys.insert(key)
            }
        }
        equalityKeys[delete.path] = keys
        return keys
    }
}

/// The deletes of one data file, ready to filter its rows as they are read.
struct IcebergRowFilter {
    /// Deleted positions, ascending, without duplicates.
    private let deletedPositions: [Int64]
    /// Per distinct list of equality ids: the key columns' indices in the projected chunk and
    /// the key sets of the delete files with those ids.
    private let equalityGroups: [(columns: [Int], keySets: [Set<[UInt8]>])]

    var isEmpty: Bool { deletedPositions.isEmpty && equalityGroups.isEmpty }

    /// The filter for `data` given the deletes that apply to it.
    ///
    /// - Parameter columnIndex: the index of a field id's column in the chunks that will be
    ///   filtered (the table's current schema, top level).
    /// - Throws: `0A000` for an equality delete on a column that is not a top-level column of
    ///   the current schema, or of a type ``IcebergEqualityKey`` cannot compare.
    init(data: IcebergLiveFile, deletes: [IcebergLiveFile], contents: inout IcebergDeleteContents,
         columnIndex: [Int32: Int], columnTypes: [DataType]) throws(SluiceError) {
        var positions: [Int64] = []
        var groups: [[Int32]: [Set<[UInt8]>]] = [:]
        for delete in deletes {
            switch delete.file.content {
            case .positionDeletes:
                positions += try contents.positions(in: delete)[data.path] ?? []
            case .equalityDeletes:
                let keys = try contents.keys(of: delete)
                guard !keys.isEmpty else { continue }
                groups[delete.file.equalityIDs ?? [], default: []].append(keys)
            case .data:
                continue
            }
        }
        deletedPositions = Array(Set(positions)).sorted()
        var equalityGroups: [(columns: [Int], keySets: [Set<[UInt8]>])] = []
        for (ids, keySets) in groups.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) }) {
            var columns: [Int] = []
            for id in ids {
                guard let index = columnIndex[id], IcebergEqualityKey.supports(columnTypes[index]) else {
                    throw SluiceError(.featureNotSupported, "equality deletes on field id \(id) cannot be applied",
                                      detail: "Only top-level columns of the current schema with primitive types are supported.")
                }
                columns.append(index)
            }
            equalityGroups.append((columns, keySets))
        }
        self.equalityGroups = equalityGroups
    }

    /// The rows of `chunk` no delete removes, or nil when it keeps them all; `firstPosition` is
    /// the position of the chunk's first row in its data file.
    func keptRows(of chunk: Chunk, firstPosition: Int64) -> [Int]? {
        var removed = [Bool](repeating: false, count: chunk.count)
        var anyRemoved = false
        // Positions are sorted: binary-search the chunk's first one, then walk.
        var low = 0, high = deletedPositions.count
        while low < high {
            let middle = (low + high) / 2
            if deletedPositions[middle] < firstPosition { low = middle + 1 } else { high = middle }
        }
        let end = firstPosition + Int64(chunk.count)
        while low < deletedPositions.count, deletedPositions[low] < end {
            removed[Int(deletedPositions[low] - firstPosition)] = true
            anyRemoved = true
            low += 1
        }
        var key: [UInt8] = []
        for group in equalityGroups {
            let keyColumns = group.columns.map { chunk.columns[$0] }
            for rowIndex in 0 ..< chunk.count where !removed[rowIndex] {
                key.removeAll(keepingCapacity: true)
                IcebergEqualityKey.append(row: rowIndex, of: keyColumns, to: &key)
                if group.keySets.contains(where: { $0.contains(key) }) {
                    removed[rowIndex] = true
                    anyRemoved = true
                }
            }
        }
        guard anyRemoved else { return nil }
        return removed.indices.filter { !removed[$0] }
    }
}
