import SluiceCore

/// `pg_catalog.pg_tablespace`: tablespaces; Sluice has none. psql's `\db` and GUI clients read it.
/// Always empty.
enum PgTablespace: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_tablespace"
    static let columns: [(String, DataType)] = [("oid", .int32), ("spcname", .varchar), ("spcowner", .int32)]

    static func rows(in context: SystemTableContext) -> [[Value]] { [] }
}
