import SluiceCore

/// `pg_catalog.pg_rewrite`: rewrite rules; Sluice has none (a view's definition is in `pg_views`).
/// psql's `\d` reads it. Always empty.
enum PgRewrite: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_rewrite"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("rulename", .varchar), ("ev_class", .int32), ("ev_type", .varchar), ("ev_enabled", .varchar),
        ("is_instead", .boolean),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
