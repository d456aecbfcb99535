import SluiceCore

/// `pg_catalog.pg_sequence`: sequences; Sluice has none. psql's `\d` reads it. Always empty.
enum PgSequence: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_sequence"
    static let columns: [(String, DataType)] = [
        ("seqrelid", .int32), ("seqtypid", .int32), ("seqstart", .int64), ("seqincrement", .int64), ("seqmax", .int64),
        ("seqmin", .int64), ("seqcache", .int64), ("seqcycle", .boolean),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
