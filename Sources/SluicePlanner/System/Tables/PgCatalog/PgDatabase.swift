import SluiceCore

/// `pg_catalog.pg_database`: the one database, named as the session connected to it. psql's `\l`
/// and GUI clients' database lists read it.
enum PgDatabase: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_database"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("datname", .varchar), ("datdba", .int32), ("encoding", .int32), ("datcollate", .varchar), ("datctype", .varchar),
        ("datallowconn", .boolean), ("datistemplate", .boolean), ("datacl", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        [[.int32(1), .string(context.session.database), .int32(10), .int32(6), .string("C"), .string("C"), .bool(true), .bool(false), .null]]
    }
}
