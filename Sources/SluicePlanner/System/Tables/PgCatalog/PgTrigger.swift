import SluiceCore

/// `pg_catalog.pg_trigger`: triggers; Sluice has none. psql's `\d` reads it. Always empty.
enum PgTrigger: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_trigger"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("tgrelid", .int32), ("tgparentid", .int32), ("tgname", .varchar), ("tgfoid", .int32), ("tgtype", .int16),
        ("tgisinternal", .boolean), ("tgenabled", .varchar), ("tgconstraint", .int32),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
