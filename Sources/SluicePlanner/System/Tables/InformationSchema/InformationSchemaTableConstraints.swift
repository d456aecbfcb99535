import SluiceCore

/// `information_schema.table_constraints`: the primary keys of the tables the session's user may
/// see (the only constraints besides NOT NULL). ORMs that read keys the standard way join it to
/// `key_column_usage`.
enum InformationSchemaTableConstraints: SystemTable {
    static let schema = SystemSchema.informationSchema
    static let name = "table_constraints"
    static let columns: [(String, DataType)] = [
        ("constraint_catalog", .varchar), ("constraint_schema", .varchar), ("constraint_name", .varchar),
        ("table_catalog", .varchar), ("table_schema", .varchar), ("table_name", .varchar), ("constraint_type", .varchar),
        ("is_deferrable", .varchar), ("initially_deferred", .varchar), ("enforced", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        let database = context.session.database
        return context.visibleRelations.filter { !$0.primaryKey.isEmpty }.map { relation in
            [
                .string(database), .string(relation.schema), .string("\(relation.name)_pkey"), .string(database),
                .string(relation.schema), .string(relation.name), .string("PRIMARY KEY"), .string("NO"), .string("NO"), .string("YES"),
            ]
        }
    }
}
