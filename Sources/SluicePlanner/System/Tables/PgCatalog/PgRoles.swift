import SluiceCore

/// `pg_catalog.pg_roles`: every user and role with Postgres's attributes; passwords show as
/// `********` (set) or NULL, as Postgres shows them. psql's `\du` reads it.
enum PgRoles: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_roles"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("rolname", .varchar), ("rolsuper", .boolean), ("rolinherit", .boolean), ("rolcreaterole", .boolean),
        ("rolcreatedb", .boolean), ("rolcanlogin", .boolean), ("rolreplication", .boolean), ("rolconnlimit", .int32),
        ("rolpassword", .varchar), ("rolvaliduntil", .timestamptz), ("rolbypassrls", .boolean), ("rolconfig", .list(.varchar)),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.catalog.roles.map { role in
            [
                .int32(Int32(role.oid)), .string(role.name), .bool(role.superuser), .bool(role.inherit), .bool(role.createRole),
                .bool(role.createDB), .bool(role.canLogin), .bool(false), .int32(Int32(role.connectionLimit)),
                role.password == nil ? .null : .string("********"), .null, .bool(role.superuser), .null,
            ]
        }
    }
}
