import SluiceCore

/// `information_schema.columns`: a row per column of the tables, views and sources the session's
/// user may see, with the SQL standard's type names, precision and scale, default and
/// nullability. ORMs and BI tools that describe tables the standard way read it.
enum InformationSchemaColumns: SystemTable {
    static let schema = SystemSchema.informationSchema
    static let name = "columns"
    static let columns: [(String, DataType)] = [
        ("table_catalog", .varchar), ("table_schema", .varchar), ("table_name", .varchar), ("column_name", .varchar),
        ("ordinal_position", .int32), ("column_default", .varchar), ("is_nullable", .varchar), ("data_type", .varchar),
        ("udt_catalog", .varchar), ("udt_schema", .varchar), ("udt_name", .varchar), ("character_maximum_length", .int32),
        ("numeric_precision", .int32), ("numeric_scale", .int32), ("is_identity", .varchar), ("is_generated", .varchar),
        ("is_updatable", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        let database = context.session.database
        var rows: [[Value]] = []
        for relation in context.visibleRelations where relation.isInInformationSchema {
            for (index, column) in relation.columns.enumerated() {
                var precision: Value = .null
                var scale: Value = .null
                switch column.type {
                case .int16: (precision, scale) = (.int32(16), .int32(0))
                case .int32: (precision, scale) = (.int32(32), .int32(0))
                case .int64: (precision, scale) = (.int32(64), .int32(0))
                case .float32: precision = .int32(24)
                case .float64: precision = .int32(53)
                case .decimal(let p, let sc): (precision, scale) = (p.map { .int32(Int32($0)) } ?? .null, sc.map { .int32(Int32($0)) } ?? .null)
                default: break
                }
                rows.append([
                    .string(database), .string(relation.schema), .string(relation.name), .string(column.name),
                    .int32(Int32(index + 1)), column.defaultExpression.map(Value.string) ?? .null, .string(column.isNullable ? "YES" : "NO"),
                    .string(SystemCatalog.informationSchemaTypeName(column.type)), .string(database), .string("pg_catalog"),
                    .string(SystemCatalog.udtName(column.type)), .null, precision, scale, .string("NO"), .string("NEVER"),
                    .string(relation.kind == .table ? "YES" : "NO"),
                ])
            }
        }
        return rows
    }
}
