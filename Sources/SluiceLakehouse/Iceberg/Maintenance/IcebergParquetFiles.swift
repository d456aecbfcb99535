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
