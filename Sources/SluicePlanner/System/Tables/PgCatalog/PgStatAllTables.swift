import SluiceCore

/// `pg_catalog.pg_stat_all_tables`: the same rows as ``PgStatUserTables`` (Sluice's system
/// tables are not relations with rows of their own to count).
enum PgStatAllTables: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_stat_all_tables"
    static var columns: [(String, DataType)] { PgStatUserTables.columns }

    static func rows(in context: SystemTableContext) -> [[Value]] {
        PgStatUserTables.rows(in: context)
    }
}
