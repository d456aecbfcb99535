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

    package func removeRole(named name: String) {
        roleState.withLock { _ = $0.removeValue(forKey: name) }
    }

    /// Puts back the roles a catalog file held (`root` is always there).
    package func restoreRoles(_ roles: [RoleDefinition]) {
        roleState.withLock { state in
            state = ["root": .root]
            for role in roles { state[role.name] = role }
        }
    }
}
