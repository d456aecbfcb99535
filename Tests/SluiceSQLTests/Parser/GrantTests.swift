import SluiceCore
import Testing

@testable import SluiceSQL

@Suite struct GrantTests {
    @Test func grantsOnRelationsWithOptions() throws {
        let statement = try parseOne("GRANT select, UPDATE ON TABLE s.t, u TO alice, public WITH GRANT OPTION")
        #expect(statement.kind == .grant(Grant(
            isRevoke: false, privileges: [.select, .update], target: .relations(kind: .table, names: [ObjectName(["s", "t"]), ObjectName("u")]),
            grantees: ["alice", "public"], grantOption: true)))
    }

    @Test func revokesWithCascadeAndGrantOptionFor() throws {
        let statement = try parseOne("REVOKE GRANT OPTION FOR ALL ON ALL SOURCES IN SCHEMA public FROM GROUP bob CASCADE")
        #expect(statement.kind == .grant(Grant(
            isRevoke: true, privileges: nil, target: .allInSchemas(kind: .source, schemas: [ObjectName("public")]), grantees: ["bob"],
            grantOption: true, cascade: true)))
    }

    @Test func schemasDatabasesAndTemp() throws {
        #expect(try parseOne("GRANT USAGE ON SCHEMA a, b TO x").kind
            == .grant(Grant(isRevoke: false, privileges: [.usage], target: .schemas([ObjectName("a"), ObjectName("b")]), grantees: ["x"])))
        #expect(try parseOne("GRANT TEMP, CONNECT ON DATABASE dev TO x").kind
            == .grant(Grant(isRevoke: false, privileges: [.temporary, .connect], target: .databases([ObjectName("dev")]), grantees: ["x"])))
    }

    @Test func membershipInRoles() throws {
        #expect(try parseOne("GRANT admins, readers TO alice, CURRENT_USER WITH ADMIN OPTION GRANTED BY root").kind
            == .grantRole(GrantRole(isRevoke: false, roles: ["admins", "readers"], grantees: ["alice", "current_user"], adminOption: true, grantedBy: "root")))
        #expect(try parseOne("REVOKE ADMIN OPTION FOR admins FROM GROUP alice CASCADE").kind
            == .grantRole(GrantRole(isRevoke: true, roles: ["admins"], grantees: ["alice"], adminOption: true, cascade: true)))
        #expect(try parseOne("GRANT admins TO alice").description == "GRANT admins TO alice")
        // A privilege list names ON before TO; a role list does not.
        #expect(try parseOne("GRANT select ON t TO alice").kind
            == .grant(Grant(isRevoke: false, privileges: [.select], target: .relations(kind: nil, names: [ObjectName("t")]), grantees: ["alice"])))
    }

    /// Kind words are names where a name is expected, as in Postgres.
    @Test func kindWordsAsNames() throws {
        for name in ["secret", "source", "sink", "connection", "view"] {
            #expect(try parseOne("GRANT SELECT ON \(name) TO bob").kind
                == .grant(Grant(isRevoke: false, privileges: [.select], target: .relations(kind: nil, names: [ObjectName(name)]), grantees: ["bob"])))
        }
        #expect(try parseOne("GRANT SELECT ON source, sink TO bob").kind
            == .grant(Grant(isRevoke: false, privileges: [.select], target: .relations(kind: nil, names: [ObjectName("source"), ObjectName("sink")]), grantees: ["bob"])))
        #expect(try parseOne("GRANT SELECT ON SOURCE secret TO bob").kind
            == .grant(Grant(isRevoke: false, privileges: [.select], target: .relations(kind: .source, names: [ObjectName("secret")]), grantees: ["bob"])))
        #expect(parseError("GRANT USAGE ON SECRET s TO bob")?.code == .featureNotSupported)
    }

    /// The same words as names of relations in other statements.
    @Test func kindWordsAsRelationNames() throws {
        for statement in [
            "CREATE TABLE secret (id int)", "CREATE TABLE connection (id int)", "SELECT * FROM source JOIN sink ON true",
            "INSERT INTO connection VALUES (1)", "DROP TABLE secret", "DESCRIBE source", "SHOW CREATE TABLE sink",
            "CREATE MATERIALIZED VIEW sink AS SELECT 1 AS x", "CREATE SINK source FROM secret WITH (connector = 'blackhole')",
            "DROP SECRET secret", "UPDATE source SET id = 2", "DELETE FROM secret", "COPY secret FROM STDIN",
        ] {
            #expect(throws: Never.self, "\(statement)") { _ = try parseOne(statement) }
        }
    }

    @Test func refusesWhatIsNotSupportedWithItsCode() {
        #expect(parseError("GRANT SELECT ON t TO")?.code == .syntaxError)
        #expect(parseError("GRANT SELECT (a, b) ON t TO alice")?.code == .featureNotSupported)
        #expect(parseError("GRANT EXECUTE ON FUNCTION f TO alice")?.code == .syntaxError)
        #expect(parseError("GRANT SELECT ON FUNCTION f() TO alice")?.code == .featureNotSupported)
        #expect(parseError("GRANT SELECT ON t")?.code == .syntaxError)
        #expect(parseError("REVOKE SELECT ON t TO alice")?.code == .syntaxError)
        #expect(parseError("GRANT SELECT ON t TO alice WITH GRANT")?.code == .syntaxError)
    }
}
