import SluiceCore

/// `information_schema.tables`: the tables, views and sources the session's user may see
/// (``RelationDefinition/isInInformationSchema``), as the SQL standard describes them. SQLAlchemy's
/// `has_table`, pgjdbc-based tools and ORMs' migrations read it.
enum InformationSchemaTables: SystemTable {
    static let schema = SystemSchema.informationSchema
    static let name = "tables"
    static let columns: [(String, DataType)] = [
        ("table_catalog", .varchar), ("table_schema", .varchar), ("table_name", .varchar), ("table_type", .varchar),
        ("is_insertable_into", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.visibleRelations.filter(\.isInInformationSchema).map { relation in
            [
                .string(context.session.database), .string(relation.schema), .string(relation.name),
                .string(relation.kind == .table ? "BASE TABLE" : (relation.kind == .source ? "SOURCE" : "VIEW")),
                .string(relation.kind == .table ? "YES" : "NO"),
            ]
        }
    }
}
