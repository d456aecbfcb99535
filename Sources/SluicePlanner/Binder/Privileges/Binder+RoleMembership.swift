import SluiceCore
import SluiceSQL

// GRANT and REVOKE of roles, with PostgreSQL 15's rules: a superuser, a role with CREATEROLE,
// or a holder of the role's ADMIN OPTION may grant membership in it (a superuser role takes a
// superuser); no role may become a member of itself, directly or not.
extension Binder {
    func bindGrantRole(_ grant: GrantRole) throws(SluiceError) -> PlannedStatement {
        let actor = try actingRole()
        if let grantedBy = grant.grantedBy, resolveRoleName(grantedBy) != actor.name {
            throw SluiceError(.featureNotSupported, "grantor must be current user")
        }
        var roles: [RoleDefinition] = []
        for name in grant.roles {
            guard let role = catalog.role(named: name) else { throw SluiceError(.undefinedObject, "role \"\(name)\" does not exist") }
            if role.superuser {
                guard actor.superuser else { throw SluiceError(.insufficientPrivilege, "must be superuser to alter superusers") }
            } else if !actor.superuser, !actor.createRole, !catalog.isAdmin(actor, of: role) {
                throw SluiceError(.insufficientPrivilege, "must have admin option on role \"\(name)\"")
            }
            roles.append(role)
        }
        var members: [RoleDefinition] = []
        for spec in grant.grantees {
            let name = resolveRoleName(spec)
            guard let member = catalog.role(named: name) else { throw SluiceError(.undefinedObject, "role \"\(name)\" does not exist") }
            members.append(member)
        }
        var changes: [(member: String, memberships: [RoleMembership])] = []
        var notices: [String] = []
        for member in members {
            var memberships = changes.first { $0.member == member.name }?.memberships ?? member.memberships ?? []
            for role in roles {
                let existing = memberships.firstIndex { $0.role == role.oid }
                if grant.isRevoke {
                    guard let existing else {
                        notices.append("role \"\(member.name)\" is not a member of role \"\(role.name)\"")
                        continue
                    }
                    if grant.adminOption { memberships[existing].admin = false } else { memberships.remove(at: existing) }
                    continue
                }
                // A cycle: `role` is `member`, or already a member of it.
                if role.oid == member.oid || catalog.memberRoles(of: role).contains(member.oid) {
                    throw SluiceError(SQLState("0LP01"), "role \"\(role.name)\" is a member of role \"\(member.name)\"")
                }
                if let existing {
                    if grant.adminOption && !memberships[existing].admin {
                        memberships[existing].admin = true
                    } else {
                        notices.append("role \"\(member.name)\" is already a member of role \"\(role.name)\"")
                    }
                    continue
                }
                memberships.append(RoleMembership(role: role.oid, grantor: actor.oid, admin: grant.adminOption))
            }
            changes.removeAll { $0.member == member.name }
            changes.append((member.name, memberships))
        }
        return .grantRoles(changes, isRevoke: grant.isRevoke, notices: notices)
    }
}
