import SluiceCore
import SluiceSQL
import Testing

@testable import SluicePlanner

@Suite struct PrivilegesTests {
    static let alice = 20_001
    static let bob = 20_002

    @Test func grantsMergePerGranteeAndGrantorAndRevokeTakesThemBack() {
        var access = ObjectAccess(owner: 10)
        access.grant([.select, .insert], to: Self.alice, by: 10, withGrantOption: false)
        access.grant(.update, to: Self.alice, by: 10, withGrantOption: true)
        #expect(access.grants.count == 1)
        #expect(access.privileges(of: Self.alice) == [.select, .insert, .update])
        #expect(access.grantable(by: Self.alice) == .update)
        #expect(access.privileges(of: Self.bob).isEmpty)
        access.revoke(.insert, from: Self.alice, by: 10, grantOptionOnly: false)
        #expect(access.privileges(of: Self.alice) == [.select, .update])
        // GRANT OPTION FOR keeps the privilege.
        let lost = access.revoke(.update, from: Self.alice, by: 10, grantOptionOnly: true)
        #expect(lost == .update && access.privileges(of: Self.alice).contains(.update) && access.grantable(by: Self.alice).isEmpty)
        access.revoke([.select, .update], from: Self.alice, by: 10, grantOptionOnly: false)
        #expect(access.grants.isEmpty)
    }

    @Test func publicGrantsReachEveryRole() {
        var access = ObjectAccess(owner: 10)
        access.grant(.select, to: PrivilegeGrant.publicGrantee, by: 10, withGrantOption: false)
        #expect(access.privileges(of: Self.bob) == .select)
        var bob = RoleDefinition(oid: Self.bob, name: "bob")
        #expect(access.allows(.select, to: bob, through: [bob.oid]))
        #expect(!access.allows(.insert, to: bob, through: [bob.oid]))
        bob.superuser = true
        #expect(access.allows(.insert, to: bob, through: [bob.oid]))
    }

    /// The `aclitem` text Postgres prints for the same grants (checked against PostgreSQL 15).
    @Test func aclTextIsPostgres() {
        var access = ObjectAccess(owner: Self.alice)
        access.grant([.select, .insert], to: Self.bob, by: Self.alice, withGrantOption: true)
        access.grant(.select, to: PrivilegeGrant.publicGrantee, by: Self.alice, withGrantOption: false)
        let names = [Self.alice: "alice", Self.bob: "bob"]
        #expect(access.aclText(kind: .relation(.table)) { names[$0]! } == "{alice=arwdDxt/alice,bob=a*r*/alice,=r/alice}")
        #expect(ObjectAccess(owner: 10).aclText(kind: .schema) { _ in "root" } == nil)
    }

    @Test func bindingChecksTheActingRole() throws {
        let catalog = Catalog()
        try catalog.addRole(RoleDefinition(oid: Self.alice, name: "alice"))
        var table = RelationDefinition(
            id: catalog.allocateID(), name: "t", kind: .table, columns: [CatalogColumn(name: "x", type: .int32)], definition: "CREATE TABLE t (x int)")
        table.access = ObjectAccess(owner: 10)
        try catalog.add(table)
        let statement = try SQLParser.parse("SELECT x FROM t")[0]
        var asAlice = Binder(catalog: catalog, session: SessionInfo(user: "alice", database: "dev"))
        #expect(throws: SluiceError(.insufficientPrivilege, "permission denied for table t", position: 15)) { try asAlice.bind(statement) }
        var access = table.accessControl
        access.grant(.select, to: Self.alice, by: 10, withGrantOption: false)
        catalog.setAccess(access, relationID: table.id)
        var again = Binder(catalog: catalog, session: SessionInfo(user: "alice", database: "dev"))
        _ = try again.bind(statement)
        // A dropped session user has no rights at all.
        var ghost = Binder(catalog: catalog, session: SessionInfo(user: "ghost", database: "dev"))
        #expect(throws: SluiceError.self) { try ghost.bind(statement) }
    }
}
