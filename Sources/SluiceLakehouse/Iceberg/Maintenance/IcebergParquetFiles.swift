import SluiceCore
import SluiceFormats

/// How Iceberg fields map to Parquet columns and back (Iceberg spec, Appendix A: columns are
/// matched by field id).
enum IcebergParquetColumns {
    /// The Parquet columns of `fields`, field ids at every level, as the Iceberg sink writes them.
    ///
    /// - Throws: `0A000` for types Sluice cannot write back unchanged (map, uuid, fixed).
    static func writeSchema(_ fields: [IcebergNestedField]) throws(SluiceError) -> [ParquetColumnSchema] {
        var columns: [ParquetColumnSchema] = []
        for field in fields { columns.append(try column(field.name, field.type, isRequired: field.isRequired, id: field.id)) }
        return columns
    }

    private static func column(_ name: String, _ type: IcebergType, isRequired: Bool, id: Int) throws(SluiceError) -> ParquetColumnSchema {
        switch type {
        case .structure(let structure):
            var children: [ParquetColumnSchema] = []
            for field in structure.fields { children.append(try column(field.name, field.type, isRequired: field.isRequired, id: field.id)) }
            return ParquetColumnSchema(name: name, type: try type.sluiceType(), nullable: !isRequired, fieldID: Int32(id), children: children)
        case .list(let list):
            let element = try column("element", list.element, isRequired: list.isElementRequired, id: list.elementID)
            return ParquetColumnSchema(name: name, type: try type.sluiceType(), nullable: !isRequired, fieldID: Int32(id), children: [element])
        case .uuid, .fixed, .map:
            throw SluiceError(.featureNotSupported, "compaction cannot rewrite column \"\(name)\" of Iceberg type \(type.primitiveName ?? "map")",
                              detail: "Sluice reads this type into another one and would write it back changed.")
        default:
            return ParquetColumnSchema(name: name, type: try type.sluiceType(), nullable: !isRequired, fieldID: Int32(id))
        }
    }

    /// For each of `fields`, the index of the file's top-level column with its field id; when the
    /// file has no field ids at all (written without Iceberg), the column with its name.
    static func projection(of fileSchema: [ParquetColumnSchema], for fields: [IcebergNestedField]) -> [Int?] {
        let hasIDs = fileSchema.contains { $0.fieldID != nil }
        return fields.map { field in
            if hasIDs { return fileSchema.firstIndex { $0.fieldID.map(Int.init) == field.id } }
            return fileSchema.firstIndex { $0.name == field.name }
        }
    }

    /// `column` as a column of `type`: unchanged, or widened as Iceberg's type promotion allows
    /// (int to long, float to double, a decimal's precision), or relabelled between the byte
    /// layouts (string, binary).
    ///
    /// - Throws: `42804` for any other pair: the file does not hold what the schema says.
    static func adapt(_ column: Column, to type: DataType, name: String) throws(SluiceError) -> Column {
        if column.type == type { return column }
        switch (column.storage, type) {
        case (.int16(let values), .int32):
            return Column(type: type, storage: .int32(values.map { Int32($0) }), validity: column.validity)
        case (.int16(let values), .int64):
            return Column(type: type, storage: .int64(values.map { Int64($0) }), validity: column.validity)
        case (.int32(let values), .int64) where column.type == .int32:
            return Column(type: type, storage: .int64(values.map { Int64($0) }), validity: column.validity)
        case (.float32(let values), .float64):
            return Column(type: type, storage: .float64(values.map { Double($0) }), validity: column.validity)
        case (.decimal, .decimal), (.bytes, .varchar), (.bytes, .bytea), (.bytes, .jsonb):
            var relabelled = column
            relabelled.type = type
            return relabelled
        default:
            throw SluiceError(.datatypeMismatch, "column \"\(name)\" is \(column.type.sqlName) in a data file but \(type.sqlName) in the table schema")
        }
    }
}

/// Reads a data file's columns for some fields of the table's schema.
package enum IcebergDataFileColumns {
    /// Calls `body` with each row group of the data file at `location` as `fields`' columns in
    /// their table types (a field the file lacks is null), and the position of the group's first
    /// row in the file.
    package static func read(
        _ location: String, fields: [IcebergNestedField], fileIO: any FileIO,
        _ body: (_ rows: Chunk, _ firstPosition: Int64) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        var types: [DataType] = []
        for field in fields { types.append(try field.type.sluiceType()) }
        let reader = try ParquetReader(input: FileIOParquetInput(fileIO: fileIO, location: location))
        let projection = IcebergParquetColumns.projection(of: reader.schema, for: fields)
        let present = projection.compactMap { $0 }
        var position: Int64 = 0
        for rowGroup in reader.rowGroups.indices {
            let read = try reader.readRowGroup(rowGroup, columns: present)
            var columns: [Column] = []
            columns.reserveCapacity(fields.count)
            var next = 0
            for (index, source) in projection.enumerated() {
                if source == nil {
                    columns.append(Column(type: types[index], repeating: .null, count: read.count))
                } else {
                    columns.append(try IcebergParquetColumns.adapt(read.columns[next], to: types[index], name: fields[index].name))
                    next += 1
                }
            }
            try body(Chunk(columns: columns, count: read.count), position)
            position += Int64(read.count)
        }
    }
}
