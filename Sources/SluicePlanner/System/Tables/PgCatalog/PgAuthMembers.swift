import SluiceCore

/// `pg_catalog.pg_auth_members`: a row per role membership (`GRANT role TO member`), with its
/// grantor and ADMIN OPTION. psql's `\du` reads it for "Member of".
enum PgAuthMembers: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_auth_members"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("roleid", .int32), ("member", .int32), ("grantor", .int32), ("admin_option", .boolean),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.catalog.roles.flatMap { member in
            (member.memberships ?? []).map { membership in
                // (Postgres 16's row oid; rows are numbered by member and role.)
                let oid = Int32(truncatingIfNeeded: member.oid &* 65_599 &+ membership.role)
                return [.int32(oid), .int32(Int32(membership.role)), .int32(Int32(member.oid)), .int32(Int32(membership.grantor)), .bool(membership.admin)]
            }
        }
    }
}
