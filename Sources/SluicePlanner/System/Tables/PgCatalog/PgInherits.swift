import SluiceCore

/// `pg_catalog.pg_inherits`: table inheritance and partitions; Sluice has neither. psql's `\d`
/// reads it. Always empty.
enum PgInherits: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_inherits"
    static let columns: [(String, DataType)] = [
        ("inhrelid", .int32), ("inhparent", .int32), ("inhseqno", .int32), ("inhdetachpending", .boolean),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
