import SluiceCore

/// `pg_catalog.pg_user`: the roles that may log in, their passwords shown as `********`. Admin
/// tools list users from it.
enum PgUser: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_user"
    static let columns: [(String, DataType)] = [
        ("usename", .varchar), ("usesysid", .int32), ("usecreatedb", .boolean), ("usesuper", .boolean), ("userepl", .boolean),
        ("usebypassrls", .boolean), ("passwd", .varchar), ("valuntil", .timestamptz), ("useconfig", .list(.varchar)),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.catalog.roles.filter(\.canLogin).map { role in
            [
                .string(role.name), .int32(Int32(role.oid)), .bool(role.createDB), .bool(role.superuser), .bool(false),
                .bool(role.superuser), .string("********"), .null, .null,
            ]
        }
    }
}
