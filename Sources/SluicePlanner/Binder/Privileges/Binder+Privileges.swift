import SluiceCore
import SluiceSQL

// Who may read, write, create and drop what: owners, and the privileges GRANT gives, checked as
// statements bind, with Postgres's rules and messages (42501).
extension Binder {
    /// The role whose privileges are checked: the session's, or inside a view the view owner's
    /// (a view reads its relations with its owner's rights, as in Postgres).
    func actingRole() throws(SluiceError) -> RoleDefinition {
        let name = privilegeUser ?? session.user
        guard let role = catalog.role(named: name) else {
            throw SluiceError(.insufficientPrivilege, "role \"\(name)\" does not exist")
        }
        return role
    }

    /// Fails with 42501 unless the acting role holds `needed` on `relation`.
    func requirePrivilege(_ needed: PrivilegeSet, on relation: RelationDefinition, position: Int? = nil) throws(SluiceError) {
        let role = try actingRole()
        if relation.schema != "public" { try requireSchemaPrivilege(.usage, on: relation.schema, role: role) }
        // (A superuser needs no look at memberships.)
        guard !role.superuser, !relation.accessControl.allows(needed, to: role, through: catalog.privilegeRoles(of: role)) else { return }
        throw SluiceError(.insufficientPrivilege, "permission denied for \(relation.kind.rawValue) \(relation.name)", position: position)
    }

    /// Fails with 42501 unless the acting role owns `relation` (or is a superuser).
    func requireOwner(_ relation: RelationDefinition) throws(SluiceError) {
        let role = try actingRole()
        guard !role.superuser, !catalog.privilegeRoles(of: role).contains(relation.accessControl.owner) else { return }
        throw SluiceError(.insufficientPrivilege, "must be owner of \(relation.kind.rawValue) \(relation.name)")
    }

    /// Fails with 42501 unless `role` (the acting one by default) holds `needed` on schema `name`.
    func requireSchemaPrivilege(_ needed: PrivilegeSet, on name: String, role: RoleDefinition? = nil) throws(SluiceError) {
        let role = if let role { role } else { try actingRole() }
        guard !role.superuser else { return }
        if ["pg_catalog", "information_schema", "rw_catalog"].contains(name) {
            guard needed == .usage else { throw SluiceError(.insufficientPrivilege, "permission denied for schema \(name)") }
            return
        }
        guard !catalog.schemaAccess(name).allows(needed, to: role, through: catalog.privilegeRoles(of: role)) else { return }
        throw SluiceError(.insufficientPrivilege, "permission denied for schema \(name)")
    }

    /// Fails with 42501 unless the acting role may see `relation` (DESCRIBE, SHOW CREATE).
    func requireVisible(_ relation: RelationDefinition) throws(SluiceError) {
        guard !catalog.canSee(relation, as: try actingRole()) else { return }
        throw SluiceError(.insufficientPrivilege, "permission denied for \(relation.kind.rawValue) \(relation.name)")
    }

    /// A new object's owner is the role that created it; a replaced view keeps its owner and grants.
    func owned(_ planned: PlannedStatement) throws(SluiceError) -> PlannedStatement {
        func withOwner(_ relation: RelationDefinition) throws(SluiceError) -> RelationDefinition {
            var relation = relation
            relation.access = ObjectAccess(owner: try actingRole().oid)
            return relation
        }
        switch planned {
        case .createTable(let relation, let populate): return .createTable(try withOwner(relation), populate: populate)
        case .createMaterializedView(let relation, let plan): return .createMaterializedView(try withOwner(relation), plan: plan)
        case .createSink(let relation, let plan): return .createSink(try withOwner(relation), plan: plan)
        case .createSource(let relation): return .createSource(try withOwner(relation))
        case .createView(var relation, let replacing?):
            relation.access = replacing.access
            return .createView(relation, replacing: replacing)
        case .createView(let relation, nil): return .createView(try withOwner(relation), replacing: nil)
        default: return planned
        }
    }

    /// `GRANT` and `REVOKE`: the objects' new access, for the server to store.
    func bindGrant(_ grant: Grant) throws(SluiceError) -> PlannedStatement {
        let actor = try actingRole()
        if let grantedBy = grant.grantedBy, resolveRoleName(grantedBy) != actor.name {
            throw SluiceError(.featureNotSupported, "grantor must be current user")
        }
        var grantees: [Int] = []
        for name in grant.grantees {
            if name == "public" {
                grantees.append(PrivilegeGrant.publicGrantee)
                continue
            }
            guard let role = catalog.role(named: resolveRoleName(name)) else {
                throw SluiceError(.undefinedObject, "role \"\(name)\" does not exist")
            }
            grantees.append(role.oid)
        }
        var changes: [AccessChange] = []
        var notices: [String] = []
        for (object, display, kind, access) in try grantObjects(grant.target) {
            let all = PrivilegeSet.all(on: kind)
            var requested = all
            if let privileges = grant.privileges {
                requested = PrivilegeSet(privileges)
                if case .allInSchemas = grant.target {
                    requested.formIntersection(all)
                    if requested.isEmpty { continue }
                } else if let invalid = requested.subtracting(all).privileges.first {
                    throw SluiceError(SQLState("0LP01"), "invalid privilege type \(invalid.rawValue) for \(kind.word)")
                }
            }
            var access = access
            // An owner or a superuser grants as the owner; anyone else only what they hold WITH GRANT OPTION.
            let grantor: Int
            let actorRoles = catalog.privilegeRoles(of: actor)
            if actor.superuser || actorRoles.contains(access.owner) {
                grantor = access.owner
            } else {
                let grantable = access.grantable(by: actor.oid)
                // Holding privileges without their grant option only warns, as in Postgres;
                // holding none is refused.
                guard !access.privileges(of: actorRoles).isEmpty else {
                    throw SluiceError(.insufficientPrivilege, "permission denied for \(kind.word) \(display)")
                }
                if grantable.isDisjoint(with: requested) {
                    notices.append(grant.isRevoke ? "no privileges could be revoked for \"\(display)\"" : "no privileges were granted for \"\(display)\"")
                    continue
                }
                if !grantable.isSuperset(of: requested) {
                    notices.append(grant.isRevoke ? "not all privileges could be revoked for \"\(display)\"" : "not all privileges were granted for \"\(display)\"")
                }
                requested.formIntersection(grantable)
                grantor = actor.oid
            }
            for grantee in grantees {
                if grant.isRevoke {
                    try revoke(requested, from: grantee, by: grantor, grantOptionOnly: grant.grantOption, cascade: grant.cascade, in: &access)
                } else {
                    guard grantee != access.owner else { continue }
                    guard !(grant.grantOption && grantee == PrivilegeGrant.publicGrantee) else {
                        throw SluiceError(SQLState("0LP01"), "grant options can only be granted to roles")
                    }
                    access.grant(requested, to: grantee, by: grantor, withGrantOption: grant.grantOption)
                }
            }
            changes.append(AccessChange(object: object, kind: kind, access: access))
        }
        return .grant(changes, isRevoke: grant.isRevoke, notices: notices)
    }

    /// Takes privileges back; the grants made by the grantee on the strength of a lost grant
    /// option go too with CASCADE, and stop the REVOKE without it (2BP01).
    private func revoke(
        _ privileges: PrivilegeSet, from grantee: Int, by grantor: Int, grantOptionOnly: Bool, cascade: Bool, in access: inout ObjectAccess
    ) throws(SluiceError) {
        let lost = access.revoke(privileges, from: grantee, by: grantor, grantOptionOnly: grantOptionOnly)
        guard !lost.isEmpty, grantee != PrivilegeGrant.publicGrantee else { return }
        // What the grantee still may grant through another grantor keeps its grants valid.
        let stillGrantable = access.grantable(by: grantee)
        let orphaned = lost.subtracting(stillGrantable)
        let dependents = access.grants(by: grantee, of: orphaned)
        guard !dependents.isEmpty else { return }
        guard cascade else {
            throw SluiceError(.dependentObjectsStillExist, "dependent privileges exist", hint: "Use CASCADE to revoke them too.")
        }
        for dependent in dependents {
            try revoke(orphaned, from: dependent.grantee, by: grantee, grantOptionOnly: false, cascade: true, in: &access)
        }
    }

    /// The objects a GRANT names, each with its kind and current access.
    private func grantObjects(_ target: GrantTarget) throws(SluiceError) -> [(key: String, name: String, kind: PrivilegeObjectKind, access: ObjectAccess)] {
        switch target {
        case .relations(let kind, let names):
            var objects: [(String, String, PrivilegeObjectKind, ObjectAccess)] = []
            for name in names {
                let relation = try relation(named: name, position: nil)
                if let kind, kind != .table {
                    let wanted: RelationKind = switch kind {
                    case .view: .view
                    case .materializedView: .materializedView
                    case .source: .source
                    default: .sink
                    }
                    guard relation.kind == wanted else { throw SluiceError(.wrongObjectType, "\"\(relation.name)\" is not a \(wanted.rawValue)") }
                } else if relation.kind == .sink {
                    throw SluiceError(.wrongObjectType, "\"\(relation.name)\" is a sink", hint: "Use GRANT … ON SINK \(relation.name).")
                }
                objects.append((Self.relationKey(relation), relation.name, .relation(relation.kind), relation.accessControl))
            }
            return objects
        case .allInSchemas(let kind, let schemas):
            var objects: [(String, String, PrivilegeObjectKind, ObjectAccess)] = []
            for schema in schemas {
                try checkSchemaExists(schema.name)
                let kinds: [RelationKind] = switch kind {
                case .table: [.table, .view, .materializedView]
                case .view: [.view]
                case .materializedView: [.materializedView]
                case .source: [.source]
                default: [.sink]
                }
                for relation in catalog.relations where relation.schema == schema.name && kinds.contains(relation.kind) {
                    objects.append((Self.relationKey(relation), relation.name, .relation(relation.kind), relation.accessControl))
                }
            }
            return objects
        case .schemas(let names):
            var objects: [(String, String, PrivilegeObjectKind, ObjectAccess)] = []
            for name in names {
                guard catalog.hasSchema(name.name), !["pg_catalog", "information_schema", "rw_catalog"].contains(name.name) else {
                    if catalog.hasSchema(name.name) { throw SluiceError(.insufficientPrivilege, "permission denied for schema \(name.name)") }
                    throw SluiceError(.invalidSchemaName, "schema \"\(name.name)\" does not exist")
                }
                objects.append((name.name, name.name, .schema, catalog.schemaAccess(name.name)))
            }
            return objects
        case .databases(let names):
            var objects: [(String, String, PrivilegeObjectKind, ObjectAccess)] = []
            for name in names {
                guard name.name == session.database else { throw SluiceError(SQLState("3D000"), "database \"\(name.name)\" does not exist") }
                objects.append((name.name, name.name, .database, catalog.databaseAccess))
            }
            return objects
        }
    }

    /// How a relation is named in an ``AccessChange``: its id.
    static func relationKey(_ relation: RelationDefinition) -> String {
        "\(relation.id)"
    }

    func resolveRoleName(_ name: String) -> String {
        switch name {
        case "current_user", "current_role": session.user
        case "session_user": session.sessionUser
        default: name
        }
    }
}

/// One object's access after a GRANT or REVOKE. `object` is a relation's id (as text), a
/// schema's name, or the database's.
package struct AccessChange: Sendable {
    package var object: String
    package var kind: PrivilegeObjectKind
    package var access: ObjectAccess
}
