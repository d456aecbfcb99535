import SluiceCore

/// `pg_catalog.pg_matviews`: the materialized views the session's user may see, with owner and
/// definition (secrets masked). Metabase's sync and SQLAlchemy's `get_materialized_view_names`
/// read it.
enum PgMatviews: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_matviews"
    static let columns: [(String, DataType)] = [
        ("schemaname", .varchar), ("matviewname", .varchar), ("matviewowner", .varchar), ("definition", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.visibleRelations.filter { $0.kind == .materializedView }.map {
            [.string($0.schema), .string($0.name), .string(context.ownerName($0.accessControl)), .string($0.maskedDefinition)]
        }
    }
}
