import SluiceCore

/// `pg_catalog.pg_publication`: logical replication publications; Sluice has none. psql's `\d`
/// reads it. Always empty.
enum PgPublication: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_publication"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("pubname", .varchar), ("pubowner", .int32), ("puballtables", .boolean), ("pubinsert", .boolean),
        ("pubupdate", .boolean), ("pubdelete", .boolean), ("pubtruncate", .boolean), ("pubviaroot", .boolean),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
