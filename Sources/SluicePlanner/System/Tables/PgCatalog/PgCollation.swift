import SluiceCore

/// `pg_catalog.pg_collation`: collations; Sluice compares text bytewise (`C`) and lists none.
/// psql's `\d` joins it. Always empty.
enum PgCollation: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_collation"
    static let columns: [(String, DataType)] = [("oid", .int32), ("collname", .varchar), ("collnamespace", .int32)]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
