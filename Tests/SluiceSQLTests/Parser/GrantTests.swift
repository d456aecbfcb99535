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

    @Test func refusesWhatIsNotSupportedWithItsCode() {
        #expect(parseError("GRANT admins TO alice")?.code == .featureNotSupported)
        #expect(parseError("GRANT SELECT (a, b) ON t TO alice")?.code == .featureNotSupported)
        #expect(parseError("GRANT EXECUTE ON FUNCTION f TO alice")?.code == .syntaxError)
        #expect(parseError("GRANT SELECT ON FUNCTION f() TO alice")?.code == .featureNotSupported)
        #expect(parseError("GRANT SELECT ON t")?.code == .syntaxError)
        #expect(parseError("REVOKE SELECT ON t TO alice")?.code == .syntaxError)
        #expect(parseError("GRANT SELECT ON t TO alice WITH GRANT")?.code == .syntaxError)
    }
}
