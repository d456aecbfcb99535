import SluiceCore

/// `pg_catalog.pg_partitioned_table`: partitioned tables; Sluice has none. psql's `\d` and
/// SQLAlchemy's reflection read it. Always empty.
enum PgPartitionedTable: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_partitioned_table"
    static let columns: [(String, DataType)] = [("partrelid", .int32), ("partstrat", .varchar)]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
