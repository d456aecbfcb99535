import SluiceCore

/// `information_schema.key_column_usage`: a row per column of each primary key of the tables the
/// session's user may see, in key order. ORMs that read keys the standard way read it.
enum InformationSchemaKeyColumnUsage: SystemTable {
    static let schema = SystemSchema.informationSchema
    static let name = "key_column_usage"
    static let columns: [(String, DataType)] = [
        ("constraint_catalog", .varchar), ("constraint_schema", .varchar), ("constraint_name", .varchar),
        ("table_catalog", .varchar), ("table_schema", .varchar), ("table_name", .varchar), ("column_name", .varchar),
        ("ordinal_position", .int32), ("position_in_unique_constraint", .int32),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        let database = context.session.database
        return context.visibleRelations.flatMap { relation in
            relation.primaryKey.enumerated().map { position, column -> [Value] in
                [
                    .string(database), .string(relation.schema), .string("\(relation.name)_pkey"), .string(database),
                    .string(relation.schema), .string(relation.name), .string(relation.columns[column].name), .int32(Int32(position + 1)), .null,
                ]
            }
        }
    }
}
