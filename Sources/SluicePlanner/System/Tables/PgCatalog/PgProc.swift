import SluiceCore

/// `pg_catalog.pg_proc`: functions; Sluice's built-in functions are not listed. psql's `\df` and
/// GUI clients read it. Always empty.
enum PgProc: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_proc"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("proname", .varchar), ("pronamespace", .int32), ("prorettype", .int32), ("prokind", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
