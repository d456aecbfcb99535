import SluiceCore
import SluiceSQL

/// Privileges as bits, as Postgres's `AclMode`.
package struct PrivilegeSet: OptionSet, Sendable, Hashable, Codable {
    package let rawValue: UInt16

    package init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    package init(_ privilege: Privilege) {
        self.init(rawValue: 1 << UInt16(Privilege.allCases.firstIndex(of: privilege)!))
    }

    package init(_ privileges: [Privilege]) {
        self = privileges.reduce(into: PrivilegeSet()) { $0.formUnion(PrivilegeSet($1)) }
    }

    package static let select = PrivilegeSet(.select)
    package static let insert = PrivilegeSet(.insert)
    package static let update = PrivilegeSet(.update)
    package static let delete = PrivilegeSet(.delete)
    package static let create = PrivilegeSet(.create)
    package static let usage = PrivilegeSet(.usage)

    /// Every privilege an object of `kind` can be granted, which `ALL PRIVILEGES` means. Views,
    /// materialized views, sources and sinks are read, never written, so they take SELECT alone
    /// (a sink's SELECT lets a user see it and its progress).
    package static func all(on kind: PrivilegeObjectKind) -> PrivilegeSet {
        switch kind {
        case .relation(.table): PrivilegeSet([.select, .insert, .update, .delete, .truncate, .references, .trigger])
        case .relation: .select
        case .schema: PrivilegeSet([.usage, .create])
        case .database: PrivilegeSet([.create, .connect, .temporary])
        }
    }

    /// The privileges in Postgres's order.
    package var privileges: [Privilege] {
        Privilege.allCases.filter { contains(PrivilegeSet($0)) }
    }

    /// Postgres's `aclitem` letters, in its order (`arwdDxt…`).
    package var letters: String {
        String(Self.letterOrder.filter { contains(PrivilegeSet($0.0)) }.map(\.1))
    }

    /// Postgres's `ACL_ALL_RIGHTS_STR` order of the letters.
    static let letterOrder: [(Privilege, Character)] = [
        (.insert, "a"), (.select, "r"), (.update, "w"), (.delete, "d"), (.truncate, "D"), (.references, "x"), (.trigger, "t"),
        (.usage, "U"), (.create, "C"), (.temporary, "T"), (.connect, "c"),
    ]
}

/// What kind of object a privilege is on.
package enum PrivilegeObjectKind: Sendable, Hashable {
    case relation(RelationKind)
    case schema
    case database

    /// The word Postgres's messages use: `permission denied for table t`.
    package var word: String {
        switch self {
        case .relation(let kind): kind.rawValue
        case .schema: "schema"
        case .database: "database"
        }
    }
}

/// Privileges one role gave another on an object (one `aclitem`).
package struct PrivilegeGrant: Sendable, Hashable, Codable {
    /// The receiving role's oid; 0 is PUBLIC, every role.
    package var grantee: Int
    package var grantor: Int
    package var privileges: PrivilegeSet
    /// Those of `privileges` the grantee may grant on (WITH GRANT OPTION).
    package var grantable: PrivilegeSet

    package static let publicGrantee = 0

    package init(grantee: Int, grantor: Int, privileges: PrivilegeSet, grantable: PrivilegeSet = []) {
        self.grantee = grantee
        self.grantor = grantor
        self.privileges = privileges
        self.grantable = grantable
    }
}

/// An object's owner and the privileges granted on it (Postgres's `relowner` and `relacl`).
/// The owner holds every privilege, and may grant them.
package struct ObjectAccess: Sendable, Hashable, Codable {
    package var owner: Int
    package var grants: [PrivilegeGrant]

    package init(owner: Int, grants: [PrivilegeGrant] = []) {
        self.owner = owner
        self.grants = grants
    }

    /// What objects made before privileges existed have: `root`'s, granted to nobody.
    package static let rootOwned = ObjectAccess(owner: RoleDefinition.root.oid)

    /// Whether `role`, using the privileges of `roles` (itself and the roles it inherits from,
    /// ``Catalog/privilegeRoles(of:)``), holds `needed`: a superuser and the owner hold everything.
    package func allows(_ needed: PrivilegeSet, to role: RoleDefinition, through roles: Set<Int>) -> Bool {
        role.superuser || roles.contains(owner) || privileges(of: roles).isSuperset(of: needed)
    }

    /// The privileges `role` holds through grants to it or to PUBLIC (not through its memberships).
    package func privileges(of role: Int) -> PrivilegeSet {
        privileges(of: [role])
    }

    /// The privileges any of `roles` holds through grants to it or to PUBLIC.
    package func privileges(of roles: Set<Int>) -> PrivilegeSet {
        grants.reduce(into: PrivilegeSet()) { held, grant in
            if roles.contains(grant.grantee) || grant.grantee == PrivilegeGrant.publicGrantee { held.formUnion(grant.privileges) }
        }
    }

    /// The privileges `role` may grant others, besides an owner's.
    package func grantable(by role: Int) -> PrivilegeSet {
        grants.reduce(into: PrivilegeSet()) { held, grant in
            if grant.grantee == role || grant.grantee == PrivilegeGrant.publicGrantee { held.formUnion(grant.grantable) }
        }
    }

    /// Adds `privileges` from `grantor` to `grantee` (merged into their grant, as Postgres does).
    package mutating func grant(_ privileges: PrivilegeSet, to grantee: Int, by grantor: Int, withGrantOption: Bool) {
        if let index = grants.firstIndex(where: { $0.grantee == grantee && $0.grantor == grantor }) {
            grants[index].privileges.formUnion(privileges)
            if withGrantOption { grants[index].grantable.formUnion(privileges) }
        } else {
            grants.append(PrivilegeGrant(grantee: grantee, grantor: grantor, privileges: privileges, grantable: withGrantOption ? privileges : []))
        }
    }

    /// Takes `privileges` that `grantor` gave `grantee` back (only the grant option of them, with
    /// `grantOptionOnly`). Returns the privileges whose grant option `grantee` lost, for CASCADE.
    @discardableResult
    package mutating func revoke(_ privileges: PrivilegeSet, from grantee: Int, by grantor: Int, grantOptionOnly: Bool) -> PrivilegeSet {
        guard let index = grants.firstIndex(where: { $0.grantee == grantee && $0.grantor == grantor }) else { return [] }
        let lost = grants[index].grantable.intersection(privileges)
        grants[index].grantable.subtract(privileges)
        if !grantOptionOnly { grants[index].privileges.subtract(privileges) }
        if grants[index].privileges.isEmpty { grants.remove(at: index) }
        return lost
    }

    /// Grants `grantor` made of any of `privileges`, which depend on its grant option.
    package func grants(by grantor: Int, of privileges: PrivilegeSet) -> [PrivilegeGrant] {
        grants.filter { $0.grantor == grantor && !$0.privileges.isDisjoint(with: privileges) }
    }

    /// Postgres's `aclitem[]` text: `{grantee=letters/grantor,…}` with the owner's own item first,
    /// role names from `name` (PUBLIC's item has an empty grantee).
    package func aclText(kind: PrivilegeObjectKind, name: (Int) -> String) -> String? {
        aclItems(kind: kind, name: name).map { "{" + $0.joined(separator: ",") + "}" }
    }

    /// The items of ``aclText(kind:name:)``; nil without grants (Postgres's NULL: the defaults).
    package func aclItems(kind: PrivilegeObjectKind, name: (Int) -> String) -> [String]? {
        guard !grants.isEmpty else { return nil }
        var items = ["\(name(owner))=\(PrivilegeSet.all(on: kind).letters)/\(name(owner))"]
        for grant in grants {
            var letters = ""
            for (privilege, letter) in PrivilegeSet.letterOrder where grant.privileges.contains(PrivilegeSet(privilege)) {
                letters.append(letter)
                if grant.grantable.contains(PrivilegeSet(privilege)) { letters += "*" }
            }
            let grantee = grant.grantee == PrivilegeGrant.publicGrantee ? "" : name(grant.grantee)
            items.append("\(grantee)=\(letters)/\(name(grant.grantor))")
        }
        return items
    }
}

extension RelationDefinition {
    /// Its owner and grants (`root`'s, for relations made before there were owners).
    package var accessControl: ObjectAccess {
        get { access ?? .rootOwned }
        set { access = newValue }
    }
}

extension Catalog {
    /// Schema `name`'s owner and grants: `public` is `root`'s with USAGE for everyone, as in
    /// Postgres 15 (CREATE in it is the owner's, and whoever it is granted to).
    package func schemaAccess(_ name: String) -> ObjectAccess {
        accessState.withLock { $0.schemas[name] } ?? Self.defaultSchemaAccess(name)
    }

    private static func defaultSchemaAccess(_ name: String) -> ObjectAccess {
        guard name == "public" || ["pg_catalog", "information_schema", "rw_catalog"].contains(name) else { return .rootOwned }
        return ObjectAccess(
            owner: RoleDefinition.root.oid,
            grants: [PrivilegeGrant(grantee: PrivilegeGrant.publicGrantee, grantor: RoleDefinition.root.oid, privileges: .usage)])
    }

    /// The database's owner and grants: `root`'s, with CONNECT and TEMPORARY for everyone.
    package var databaseAccess: ObjectAccess {
        accessState.withLock { $0.database } ?? ObjectAccess(
            owner: RoleDefinition.root.oid,
            grants: [PrivilegeGrant(grantee: PrivilegeGrant.publicGrantee, grantor: RoleDefinition.root.oid, privileges: PrivilegeSet([.connect, .temporary]))])
    }

    package func setSchemaAccess(_ access: ObjectAccess?, for name: String) {
        accessState.withLock { $0.schemas[name] = access }
        bumpGeneration()
    }

    package func setDatabaseAccess(_ access: ObjectAccess) {
        accessState.withLock { $0.database = access }
        bumpGeneration()
    }

    /// Every schema's and the database's access, for the catalog's file.
    package var storedAccess: StoredAccess {
        accessState.withLock { $0 }
    }

    package func restoreAccess(_ stored: StoredAccess) {
        accessState.withLock { $0 = stored }
    }

    /// Whether `role` may see `relation` at all: a superuser, its owner, or a holder of any
    /// privilege on it (what Postgres's `information_schema` shows).
    package func canSee(_ relation: RelationDefinition, as role: RoleDefinition?) -> Bool {
        guard let role else { return false }
        return role.superuser || Self.canSee(relation, through: privilegeRoles(of: role))
    }

    private static func canSee(_ relation: RelationDefinition, through roles: Set<Int>) -> Bool {
        let access = relation.accessControl
        return roles.contains(access.owner) || !access.privileges(of: roles).isEmpty
    }

    /// The relations `role` may see.
    package func visibleRelations(to role: RoleDefinition?) -> [RelationDefinition] {
        let all = relations
        guard let role, !role.superuser else { return role == nil ? [] : all }
        let roles = privilegeRoles(of: role)
        return all.filter { Self.canSee($0, through: roles) }
    }
}

/// The access of objects that are not relations, kept in the catalog's file.
package struct StoredAccess: Sendable, Hashable, Codable {
    package var schemas: [String: ObjectAccess] = [:]
    package var database: ObjectAccess?

    package init() {}
}
