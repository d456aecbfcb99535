import SluiceCore

/// `pg_catalog.pg_shdescription`: comments on shared objects (databases, roles); Sluice keeps none.
/// psql's `\l+` and `\du+` join it. Always empty.
enum PgShdescription: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_shdescription"
    static let columns: [(String, DataType)] = [("objoid", .int32), ("classoid", .int32), ("description", .varchar)]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
