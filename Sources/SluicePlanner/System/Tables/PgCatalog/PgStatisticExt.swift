import SluiceCore

/// `pg_catalog.pg_statistic_ext`: extended statistics objects; Sluice has none. psql's `\d` reads
/// it. Always empty.
enum PgStatisticExt: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_statistic_ext"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("stxrelid", .int32), ("stxname", .varchar), ("stxnamespace", .int32), ("stxowner", .int32),
        ("stxstattarget", .int32), ("stxkeys", .list(.int16)), ("stxkind", .list(.varchar)),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
