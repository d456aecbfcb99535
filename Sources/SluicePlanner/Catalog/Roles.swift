import SluiceCore

/// A role's stored password: the SCRAM-SHA-256 verifier Postgres keeps in `pg_authid`
/// (RFC 5802's salted keys), never the password.
package struct RolePassword: Sendable, Hashable, Codable {
    package var salt: [UInt8]
    package var iterations: Int
    package var storedKey: [UInt8]
    package var serverKey: [UInt8]

    package init(salt: [UInt8], iterations: Int, storedKey: [UInt8], serverKey: [UInt8]) {
        self.salt = salt
        self.iterations = iterations
        self.storedKey = storedKey
        self.serverKey = serverKey
    }

    /// Postgres's text form of a verifier (`rolpassword`): `SCRAM-SHA-256$iterations:salt$storedKey:serverKey`.
    package var text: String {
        "SCRAM-SHA-256$\(iterations):\(Base64.encode(salt))$\(Base64.encode(storedKey)):\(Base64.encode(serverKey))"
    }
}

/// Membership in a role: one `pg_auth_members` row, kept with its member.
package struct RoleMembership: Sendable, Hashable, Codable {
    /// The role whose member this is (`roleid`).
    package var role: Int
    package var grantor: Int
    /// WITH ADMIN OPTION: the member may grant and revoke membership in `role`.
    package var admin: Bool

    package init(role: Int, grantor: Int, admin: Bool) {
        self.role = role
        self.grantor = grantor
        self.admin = admin
    }
}

/// A user or role, as `CREATE ROLE` made it: kept in the catalog and its file.
package struct RoleDefinition: Sendable, Hashable, Codable {
    package var oid: Int
    package var name: String
    package var superuser = false
    package var createDB = false
    package var createRole = false
    package var canLogin = false
    package var inherit = true
    package var connectionLimit = -1
    package var password: RolePassword?
    /// The roles this one is a member of (`GRANT role TO this`), Postgres's `pg_auth_members`
    /// rows whose member it is (absent from files an earlier version wrote: none).
    package var memberships: [RoleMembership]?

    package init(oid: Int, name: String) {
        self.oid = oid
        self.name = name
    }

    /// `root`, RisingWave's default superuser: it logs in without a password where the
    /// connection's method is `trust` (loopback, by default).
    package static let root: RoleDefinition = {
        var root = RoleDefinition(oid: 10, name: "root")
        root.superuser = true
        root.createDB = true
        root.createRole = true
        root.canLogin = true
        return root
    }()
}

extension Catalog {
    /// Every role, by name.
    package var roles: [RoleDefinition] {
        roleState.withLock { $0.values.sorted { $0.oid < $1.oid } }
    }

    package func role(named name: String) -> RoleDefinition? {
        roleState.withLock { $0[name] }
    }

    package func role(oid: Int) -> RoleDefinition? {
        roleState.withLock { $0.values.first { $0.oid == oid } }
    }

    /// Adds `role`; 42710 if one of that name exists.
    package func addRole(_ role: RoleDefinition) throws(SluiceError) {
        try roleState.withLock { (roles: inout [String: RoleDefinition]) throws(SluiceError) in
            guard roles[role.name] == nil else { throw SluiceError(.duplicateObject, "role \"\(role.name)\" already exists") }
            roles[role.name] = role
        }
    }

    /// Replaces the role named `name` with `role` (which may have a new name); 42704 if there
    /// is none, 42710 if the new name is taken.
    package func replaceRole(named name: String, with role: RoleDefinition) throws(SluiceError) {
        try roleState.withLock { (roles: inout [String: RoleDefinition]) throws(SluiceError) in
            guard roles[name] != nil else { throw SluiceError(.undefinedObject, "role \"\(name)\" does not exist") }
            if role.name != name, roles[role.name] != nil { throw SluiceError(.duplicateObject, "role \"\(role.name)\" already exists") }
            roles[name] = nil
            roles[role.name] = role
        }
    }

    /// Removes role `name`, and every membership in it (as Postgres's DROP ROLE does).
    package func removeRole(named name: String) {
        roleState.withLock { roles in
            guard let removed = roles.removeValue(forKey: name) else { return }
            for (key, role) in roles where role.memberships?.contains(where: { $0.role == removed.oid }) == true {
                roles[key]?.memberships?.removeAll { $0.role == removed.oid }
            }
        }
    }

    /// Sets `member`'s memberships (GRANT and REVOKE of a role).
    package func setMemberships(_ memberships: [RoleMembership], of member: String) {
        roleState.withLock { $0[member]?.memberships = memberships.isEmpty ? nil : memberships }
        bumpGeneration()
    }

    /// The roles whose privileges `role` uses (Postgres's `has_privs_of_role`): itself, and
    /// with INHERIT every role it is a member of, through members that inherit in turn.
    package func privilegeRoles(of role: RoleDefinition) -> Set<Int> {
        closure(of: role, throughNonInheriting: false)
    }

    /// The roles `role` is a member of, directly or not, whatever INHERIT says, and itself
    /// (Postgres's `is_member_of_role`: whom SET ROLE may become).
    package func memberRoles(of role: RoleDefinition) -> Set<Int> {
        closure(of: role, throughNonInheriting: true)
    }

    private func closure(of role: RoleDefinition, throughNonInheriting: Bool) -> Set<Int> {
        // (Most roles are members of none: no look at the others.)
        guard role.memberships?.isEmpty == false else { return [role.oid] }
        let byOID = rolesByOID()
        var found: Set<Int> = [role.oid]
        var pending = [role]
        while let next = pending.popLast() {
            guard throughNonInheriting || next.inherit else { continue }
            for membership in next.memberships ?? [] where found.insert(membership.role).inserted {
                if let granted = byOID[membership.role] { pending.append(granted) }
            }
        }
        return found
    }

    private func rolesByOID() -> [Int: RoleDefinition] {
        roleState.withLock { Dictionary($0.values.map { ($0.oid, $0) }, uniquingKeysWith: { first, _ in first }) }
    }

    /// Whether `role` may grant and revoke membership in `target`: it holds the admin option on
    /// it, directly or through a role it is a member of.
    package func isAdmin(_ role: RoleDefinition, of target: RoleDefinition) -> Bool {
        let byOID = rolesByOID()
        return memberRoles(of: role).contains { oid in
            byOID[oid]?.memberships?.contains { $0.role == target.oid && $0.admin } == true
        }
    }

    /// Puts back the roles a catalog file held (`root` is always there).
    package func restoreRoles(_ roles: [RoleDefinition]) {
        roleState.withLock { state in
            state = ["root": .root]
            for role in roles { state[role.name] = role }
        }
    }
}
