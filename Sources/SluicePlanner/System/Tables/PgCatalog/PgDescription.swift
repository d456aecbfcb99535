import SluiceCore

/// `pg_catalog.pg_description`: comments on objects; Sluice keeps none. psql's `\d+` and `\dt+`,
/// pgjdbc's `REMARKS` and Metabase's sync join it. Always empty.
enum PgDescription: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_description"
    static let columns: [(String, DataType)] = [("objoid", .int32), ("classoid", .int32), ("objsubid", .int32), ("description", .varchar)]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
