import SluiceCore

/// `pg_catalog.pg_tables`: the tables the session's user may see, with owner and whether they
/// have an index. Metabase's sync and admin tools list tables from it.
enum PgTables: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_tables"
    static let columns: [(String, DataType)] = [
        ("schemaname", .varchar), ("tablename", .varchar), ("tableowner", .varchar), ("tablespace", .varchar), ("hasindexes", .boolean),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.visibleRelations.filter { $0.kind == .table }.map {
            [
                .string($0.schema), .string($0.name), .string(context.ownerName($0.accessControl)), .null,
                .bool(!$0.primaryKey.isEmpty || !$0.indexList.isEmpty),
            ]
        }
    }
}
