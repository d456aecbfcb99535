import SluiceCore

/// `pg_catalog.pg_policy`: row security policies; Sluice has none. psql's `\d` reads it. Always
/// empty.
enum PgPolicy: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_policy"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("polname", .varchar), ("polrelid", .int32), ("polcmd", .varchar), ("polpermissive", .boolean),
        ("polroles", .list(.int32)), ("polqual", .varchar), ("polwithcheck", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
