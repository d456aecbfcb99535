/// A privilege `GRANT` and `REVOKE` name (Postgres's, `aclitem` letters in comments).
package enum Privilege: String, Hashable, Sendable, CaseIterable {
    case select = "SELECT"  // r
    case insert = "INSERT"  // a
    case update = "UPDATE"  // w
    case delete = "DELETE"  // d
    case truncate = "TRUNCATE"  // D
    case references = "REFERENCES"  // x
    case trigger = "TRIGGER"  // t
    case create = "CREATE"  // C
    case usage = "USAGE"  // U
    case connect = "CONNECT"  // c
    case temporary = "TEMPORARY"  // T
}

/// What a `GRANT` or `REVOKE` is about.
package enum GrantTarget: Hashable, Sendable {
    /// `[TABLE | VIEW | MATERIALIZED VIEW | SOURCE | SINK] name, …`; without a kind (or with
    /// `TABLE`, as in Postgres) any relation of that name.
    case relations(kind: ObjectType?, names: [ObjectName])
    /// `ALL {TABLES | VIEWS | MATERIALIZED VIEWS | SOURCES | SINKS} IN SCHEMA name, …`.
    case allInSchemas(kind: ObjectType, schemas: [ObjectName])
    case schemas([ObjectName])
    case databases([ObjectName])
}

/// `GRANT privileges ON target TO role, … [WITH GRANT OPTION] [GRANTED BY role]`, or
/// `REVOKE [GRANT OPTION FOR] privileges ON target FROM role, … [GRANTED BY role] [CASCADE | RESTRICT]`.
package struct Grant: Hashable, Sendable {
    package var isRevoke: Bool
    /// The privileges named; nil for `ALL [PRIVILEGES]`.
    package var privileges: [Privilege]?
    package var target: GrantTarget
    /// Role names; `PUBLIC` is the name `public`.
    package var grantees: [String]
    /// `WITH GRANT OPTION`, or for REVOKE `GRANT OPTION FOR`.
    package var grantOption: Bool
    package var grantedBy: String?
    package var cascade: Bool

    package init(
        isRevoke: Bool, privileges: [Privilege]?, target: GrantTarget, grantees: [String], grantOption: Bool = false,
        grantedBy: String? = nil, cascade: Bool = false
    ) {
        self.isRevoke = isRevoke
        self.privileges = privileges
        self.target = target
        self.grantees = grantees
        self.grantOption = grantOption
        self.grantedBy = grantedBy
        self.cascade = cascade
    }
}

/// `GRANT role, … TO role, … [WITH ADMIN OPTION] [GRANTED BY role]`, or
/// `REVOKE [ADMIN OPTION FOR] role, … FROM role, … [GRANTED BY role] [CASCADE | RESTRICT]`:
/// membership in roles.
package struct GrantRole: Hashable, Sendable {
    package var isRevoke: Bool
    /// The roles granted (whose members the grantees become).
    package var roles: [String]
    /// Role names, or `current_user`, `session_user`, `current_role`.
    package var grantees: [String]
    /// `WITH ADMIN OPTION`, or for REVOKE `ADMIN OPTION FOR`.
    package var adminOption: Bool
    package var grantedBy: String?
    package var cascade: Bool

    package init(isRevoke: Bool, roles: [String], grantees: [String], adminOption: Bool = false, grantedBy: String? = nil, cascade: Bool = false) {
        self.isRevoke = isRevoke
        self.roles = roles
        self.grantees = grantees
        self.adminOption = adminOption
        self.grantedBy = grantedBy
        self.cascade = cascade
    }
}
