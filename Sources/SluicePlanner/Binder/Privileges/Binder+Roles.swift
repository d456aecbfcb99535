import SluiceCore
import SluiceSQL

// CREATE, ALTER and DROP of users and roles, with Postgres's rules on who may: a superuser, or
// a role with CREATEROLE for roles that are not superusers.
extension Binder {
    func bindCreateRole(_ create: CreateRole) throws(SluiceError) -> PlannedStatement {
        let actor = try actingRole()
        guard actor.superuser || actor.createRole else { throw SluiceError(.insufficientPrivilege, "permission denied to create role") }
        if catalog.role(named: create.name) != nil { throw SluiceError(.duplicateObject, "role \"\(create.name)\" already exists") }
        try Self.checkRoleName(create.name)
        var role = RoleDefinition(oid: 0, name: create.name)
        // CREATE USER is CREATE ROLE … LOGIN.
        role.canLogin = create.isUser
        let (updated, password) = try apply(create.options, to: role, actor: actor)
        role = updated
        var clear: String?
        if case .set(let text) = password { clear = text }
        return .createRole(role, password: clear)
    }

    func bindAlterRole(_ alter: AlterRole) throws(SluiceError) -> PlannedStatement {
        let actor = try actingRole()
        guard var role = catalog.role(named: alter.name) else { throw SluiceError(.undefinedObject, "role \"\(alter.name)\" does not exist") }
        let own = alter.name == session.user
        if let renameTo = alter.renameTo {
            guard actor.superuser || (actor.createRole && !role.superuser) else { throw SluiceError(.insufficientPrivilege, "permission denied to rename role") }
            guard !own else { throw SluiceError(.featureNotSupported, "session user cannot be renamed") }
            guard role.name != RoleDefinition.root.name else { throw SluiceError(.insufficientPrivilege, "role \"root\" cannot be renamed") }
            if catalog.role(named: renameTo) != nil { throw SluiceError(.duplicateObject, "role \"\(renameTo)\" already exists") }
            try Self.checkRoleName(renameTo)
            role.name = renameTo
            // Postgres clears an MD5 password on rename; a SCRAM verifier does not depend on the name.
            return .alterRole(name: alter.name, role: role, password: .keep)
        }
        // A role may change its own password; anything else needs the rights to create it.
        let passwordOnly = alter.options.allSatisfy { if case .password = $0 { true } else { false } }
        guard actor.superuser || (own && passwordOnly) || (actor.createRole && !role.superuser) else {
            throw SluiceError(.insufficientPrivilege, "permission denied to alter role \"\(alter.name)\"")
        }
        if role.name == RoleDefinition.root.name, alter.options.contains(where: { $0 == .superuser(false) || $0 == .login(false) }) {
            throw SluiceError(.insufficientPrivilege, "role \"root\" must stay a superuser that may log in")
        }
        let (updated, password) = try apply(alter.options, to: role, actor: actor)
        return .alterRole(name: alter.name, role: updated, password: password)
    }

    func bindDropRoles(_ names: [String], ifExists: Bool) throws(SluiceError) -> PlannedStatement {
        let actor = try actingRole()
        guard actor.superuser || actor.createRole else { throw SluiceError(.insufficientPrivilege, "permission denied to drop role") }
        var dropped: [String] = []
        var notices: [String] = []
        for name in names {
            guard let role = catalog.role(named: name) else {
                if ifExists {
                    notices.append("role \"\(name)\" does not exist, skipping")
                    continue
                }
                throw SluiceError(.undefinedObject, "role \"\(name)\" does not exist")
            }
            if name == session.user { throw SluiceError(SQLState("55006"), "current user cannot be dropped") }
            if name == RoleDefinition.root.name {
                throw SluiceError(.dependentObjectsStillExist, "cannot drop role root because it is required by the database system")
            }
            if role.superuser && !actor.superuser { throw SluiceError(.insufficientPrivilege, "must be superuser to drop superusers") }
            let dependencies = dependencies(of: role)
            if !dependencies.isEmpty {
                throw SluiceError(
                    .dependentObjectsStillExist, "role \"\(name)\" cannot be dropped because some objects depend on it",
                    detail: dependencies.joined(separator: "\n"), hint: "Drop the objects or revoke the privileges first.")
            }
            dropped.append(name)
        }
        return .dropRoles(dropped, notices: notices)
    }

    /// `role` with `options` applied, and what happens to its password. Only a superuser may
    /// give or take SUPERUSER (and the attributes only superusers may hold).
    private func apply(_ options: [RoleOption], to role: RoleDefinition, actor: RoleDefinition) throws(SluiceError) -> (RoleDefinition, RolePasswordChange) {
        var role = role
        var password = RolePasswordChange.keep
        var seen = Set<String>()
        for option in options {
            let key: String
            switch option {
            case .password(let text):
                key = "password"
                if let text {
                    guard !text.isEmpty else { throw SluiceError(.invalidParameterValue, "empty password", hint: "Use PASSWORD NULL for no password.") }
                    password = .set(text)
                } else {
                    password = .remove
                }
            case .superuser(let on):
                key = "superuser"
                guard actor.superuser else { throw SluiceError(.insufficientPrivilege, "must be superuser to create or alter superusers") }
                role.superuser = on
            case .createDB(let on):
                key = "createdb"
                role.createDB = on
            case .createRole(let on):
                key = "createrole"
                role.createRole = on
            case .login(let on):
                key = "login"
                role.canLogin = on
            case .inherit(let on):
                key = "inherit"
                role.inherit = on
            case .replication(let on), .bypassRLS(let on):
                key = "\(option)"
                guard actor.superuser || !on else { throw SluiceError(.insufficientPrivilege, "must be superuser to grant that attribute") }
            case .connectionLimit(let limit):
                key = "connection limit"
                guard limit >= -1 else { throw SluiceError(.invalidParameterValue, "invalid connection limit: \(limit)") }
                role.connectionLimit = limit
            case .validUntil:
                key = "valid until"
                throw SluiceError(.featureNotSupported, "VALID UNTIL is not supported yet")
            }
            guard seen.insert(key).inserted else { throw SluiceError(.syntaxError, "conflicting or redundant options") }
        }
        return (role, password)
    }

    /// What keeps role `role` from being dropped: objects it owns and privileges granted to or
    /// by it, as Postgres's detail lists them.
    private func dependencies(of role: RoleDefinition) -> [String] {
        var found: [String] = []
        for relation in catalog.relations {
            let access = relation.accessControl
            if access.owner == role.oid { found.append("owner of \(relation.kind.rawValue) \(relation.name)") }
            if access.grants.contains(where: { $0.grantee == role.oid || $0.grantor == role.oid }) {
                found.append("privileges for \(relation.kind.rawValue) \(relation.name)")
            }
        }
        for schema in catalog.schemas.keys.sorted() {
            let access = catalog.schemaAccess(schema)
            if access.owner == role.oid { found.append("owner of schema \(schema)") }
            if access.grants.contains(where: { $0.grantee == role.oid || $0.grantor == role.oid }) { found.append("privileges for schema \(schema)") }
        }
        if catalog.databaseAccess.grants.contains(where: { $0.grantee == role.oid || $0.grantor == role.oid }) {
            found.append("privileges for database \(session.database)")
        }
        return found
    }

    private static func checkRoleName(_ name: String) throws(SluiceError) {
        guard name != "public" else { throw SluiceError(SQLState("42939"), "role name \"public\" is reserved") }
        guard !name.hasPrefix("pg_") else {
            throw SluiceError(SQLState("42939"), "role name \"\(name)\" is reserved", detail: "Role names starting with \"pg_\" are reserved.")
        }
    }
}
