import SluiceCore

/// `pg_catalog.pg_am`: the access methods, `heap` for tables and `btree` for indexes. psql's `\d`
/// joins it to name a table's or an index's method.
enum PgAm: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_am"
    static let columns: [(String, DataType)] = [("oid", .int32), ("amname", .varchar), ("amtype", .varchar)]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        [[.int32(2), .string("heap"), .string("t")], [.int32(403), .string("btree"), .string("i")]]
    }
}
