import SluiceCore

/// `pg_catalog.pg_publication_rel`: the tables of publications; Sluice has none. psql's `\d` reads
/// it. Always empty.
enum PgPublicationRel: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_publication_rel"
    static let columns: [(String, DataType)] = [("oid", .int32), ("prpubid", .int32), ("prrelid", .int32)]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
