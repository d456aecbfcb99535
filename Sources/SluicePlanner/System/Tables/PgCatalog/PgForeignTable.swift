import SluiceCore

/// `pg_catalog.pg_foreign_table`: foreign tables; Sluice has none (sources are relations of their
/// own). psql's `\d` reads it. Always empty.
enum PgForeignTable: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_foreign_table"
    static let columns: [(String, DataType)] = [("ftrelid", .int32), ("ftserver", .int32), ("ftoptions", .varchar)]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
