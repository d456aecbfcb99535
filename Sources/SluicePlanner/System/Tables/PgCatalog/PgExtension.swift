import SluiceCore

/// `pg_catalog.pg_extension`: installed extensions; Sluice has none. psql's `\dx` and GUI clients
/// read it. Always empty.
enum PgExtension: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_extension"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("extname", .varchar), ("extowner", .int32), ("extnamespace", .int32), ("extversion", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
