import SluiceCore

/// `pg_catalog.pg_views`: the (plain) views the session's user may see, with owner and
/// definition (secrets masked). Metabase's sync and SQLAlchemy's `get_view_names` read it.
enum PgViews: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_views"
    static let columns: [(String, DataType)] = [
        ("schemaname", .varchar), ("viewname", .varchar), ("viewowner", .varchar), ("definition", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.visibleRelations.filter { $0.kind == .view }.map {
            [.string($0.schema), .string($0.name), .string(context.ownerName($0.accessControl)), .string($0.maskedDefinition)]
        }
    }
}
